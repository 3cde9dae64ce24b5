// The tournament page: this round's matches with each table's live state, and the standings.
"use strict";

function matchRow(m) {
  const live = m.live && m.live.summary;
  const scores = (m.scores || (live && live.scores) || {});
  const who = m.players.map((p) => `${p} ${scores[p] ?? ""}`.trim()).join("  v  ");
  let state;
  if (!m.table) state = "bye";
  else if (m.status === "confirmed") state = `confirmed: ${(m.winners || []).join(" and ")} won`;
  else if (m.status === "reported") state = `reported: ${(m.winners || []).join(" and ")} won (to confirm)`;
  else if (!m.live) state = "table not reporting";
  else if (!m.live.online) state = "table offline";
  else state = live ? (live.waiting_for ? `playing: waiting for ${live.waiting_for}` : live.status) : "online";
  const btn = m.status === "reported"
    ? h("button", { "data-confirm": m.table }, "confirm") : null;
  return h("tr", { "data-match": m.table || "bye", "data-status": m.status },
    h("td", { class: "name" }, m.table || "–"),
    h("td", {}, who),
    h("td", { class: "muted", "data-state": m.table || "bye" }, state, " ", btn));
}

function standingRow(r, i) {
  return h("tr", { "data-standing": r.name },
    h("td", {}, `${i + 1}.`),
    h("td", { class: "name" }, r.name),
    h("td", { class: "score", "data-points": r.name }, r.points),
    h("td", { class: "muted" }, `${r.wins}-${r.draws}-${r.losses}${r.byes ? ` +${r.byes} bye` : ""}`),
    h("td", { class: "muted" }, `Bh ${r.buchholz}`),
    h("td", { class: "muted" }, `score ${r.score}`));
}

function onTournament(st) {
  document.getElementById("name").textContent = st.name;
  const round = document.getElementById("round");
  round.textContent = st.round ? `round ${st.round} of ${st.rounds}: ${GAME_TITLES[st.game] || st.game}` : "not started";
  round.dataset.round = st.round;
  const b = document.getElementById("broker");
  b.className = "pill " + (st.connected ? "playing" : "over");
  b.textContent = `broker ${st.connected ? "connected" : "reconnecting"}`;
  document.body.dataset.broker = st.connected ? "up" : "down";
  document.getElementById("matches").replaceChildren(...st.matches.map(matchRow));
  document.getElementById("standings").replaceChildren(...st.standings.map(standingRow));
  const next = document.getElementById("next");
  next.replaceChildren(st.can_start_next
    ? h("button", { id: "start-next" }, st.round ? `start round ${st.round + 1}` : "start round 1")
    : (st.next_blocked_by || ""));
}

document.addEventListener("click", async (ev) => {
  const t = ev.target;
  let r = null;
  if (t.dataset && t.dataset.confirm) {
    r = await fetch("/api/confirm", { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ table: t.dataset.confirm }) });
  } else if (t.id === "start-next") {
    r = await fetch("/api/next-round", { method: "POST" });
  }
  if (r && !r.ok) alert((await r.json()).error);
});

live(onTournament, { stateUrl: "/api/tournament" });
