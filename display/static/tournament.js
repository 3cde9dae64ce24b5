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
  const enter = m.table
    ? h("button", { "data-enter": m.table }, m.status === "playing" ? "enter result" : "correct") : null;
  const by = m.status === "confirmed" && m.confirmed_by && m.confirmed_by !== "table" && m.confirmed_by !== "bye"
    ? ` (by ${m.confirmed_by})` : "";
  return h("tr", { "data-match": m.table || "bye", "data-status": m.status },
    h("td", { class: "name" }, m.table || "–"),
    h("td", {}, who),
    h("td", { class: "muted", "data-state": m.table || "bye" }, state, by, " ", btn, " ", enter));
}

function standingRow(r, i) {
  return h("tr", { "data-standing": r.name, "data-rank": r.rank ?? i + 1 },
    h("td", {}, `${r.rank ?? i + 1}.`),
    h("td", { class: "name" }, r.name),
    h("td", { class: "score", "data-points": r.name }, r.points),
    h("td", { class: "muted" }, `${r.wins}-${r.draws}-${r.losses}${r.byes ? ` +${r.byes} bye` : ""}`),
    h("td", { class: "muted" }, `Bh ${r.buchholz}`),
    h("td", { class: "muted", title: "opponents who finished below" }, `pl ${r.placement ?? 0}`),
    h("td", { class: "muted" }, `score ${r.score}`));
}

// One round of the history: its game, and each match's players, scores and winners.
function historyRound(r) {
  const title = GAME_TITLES[r.game] || r.game;
  const rows = r.matches.map((m) => {
    const scores = m.scores || {};
    const who = m.players.map((p) => `${p} ${scores[p] ?? ""}`.trim()).join("  v  ");
    let result;
    if (!m.table) result = "bye";
    else if (m.status === "playing") result = "playing";
    else result = `${(m.winners || []).join(" and ")} won${m.status === "reported" ? " (to confirm)" : ""}`;
    return h("tr", { "data-history-match": `${r.round}:${m.table || "bye"}` },
      h("td", { class: "name" }, m.table || "–"), h("td", {}, who), h("td", { class: "muted" }, result));
  });
  return h("div", { class: "history-round", "data-history-round": r.round },
    h("h3", {}, `Round ${r.round}: ${title}`), h("table", { class: "scores" }, ...rows));
}

let current = null;  // the last state shown: the result form reads its round and matches

function onTournament(st) {
  current = st;
  document.getElementById("name").textContent = st.name;
  const round = document.getElementById("round");
  const title = GAME_TITLES[st.game] || st.game;
  round.textContent = !st.round ? "not started"
    : st.over ? `over: ${st.rounds} round${st.rounds === 1 ? "" : "s"} played`
    : `round ${st.round} of ${st.rounds}: ${title}`;
  const winner = document.getElementById("winner");
  winner.hidden = !st.winner;
  const top = (st.standings || [])[0];
  winner.replaceChildren(...(st.winner && top ? [
    h("h2", {}, "Winner"),
    h("p", { class: "winner-name", "data-winner": st.winner }, st.winner),
    h("p", { class: "muted" }, `${top.points} points (${top.wins}-${top.draws}-${top.losses}), Buchholz ${top.buchholz}`),
  ] : []));
  const history = st.history || [];
  document.getElementById("history-title").hidden = history.length === 0;
  document.getElementById("history").replaceChildren(...history.map(historyRound));
  round.dataset.round = st.round;
  const b = document.getElementById("broker");
  b.className = "pill " + (st.connected ? "playing" : "over");
  b.textContent = `broker ${st.connected ? "connected" : "reconnecting"}`;
  document.body.dataset.broker = st.connected ? "up" : "down";
  document.getElementById("matches").replaceChildren(...st.matches.map(matchRow));
  document.getElementById("standings").replaceChildren(...st.standings.map(standingRow));
  // results the tables sent that cannot count, with why (the organiser may enter the right one)
  const refused = st.refused || [];
  document.getElementById("refused-title").hidden = refused.length === 0;
  document.getElementById("refused").replaceChildren(...refused.map((r) =>
    h("li", { "data-refused": r.table }, h("span", { class: "name" }, r.table), ` ${r.at}: ${r.why}`)));
  const next = document.getElementById("next");
  next.replaceChildren(st.can_start_next
    ? h("button", { id: "start-next" }, st.round ? `start round ${st.round + 1}` : "start round 1")
    : (st.next_blocked_by || ""));
}

// Organiser actions send the token when one is typed (a tournament run with --admin-token);
// without one they work only from the hall machine itself.
function organiserPost(url, body) {
  const headers = { "content-type": "application/json" };
  const token = document.getElementById("token").value;
  if (token) headers["x-admin-token"] = token;
  return fetch(url, { method: "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

// The result form: one whole-number score per player, optional winners, who, and for a match
// that already has a result an explicit override with a reason.  The server checks it all and
// says what is wrong; the form stays open until it is accepted.
let formMatch = null;
function openResultForm(table) {
  const m = current && current.matches.find((x) => x.table === table);
  if (!m) return;
  formMatch = { table: m.table, round: m.round, players: m.players, had: m.status !== "playing" };
  document.getElementById("result-title").textContent = `Round ${m.round}, ${m.table}: ${m.players.join(" v ")}`;
  document.getElementById("result-scores").replaceChildren(...m.players.map((p) =>
    h("label", { class: "score-line" }, `${p} `,
      h("input", { type: "number", min: "0", step: "1", "data-score-of": p,
        value: m.scores && m.scores[p] !== undefined ? String(m.scores[p]) : "" }))));
  document.getElementById("result-winners").replaceChildren(...m.players.map((p) =>
    h("label", {}, h("input", { type: "checkbox", "data-winner": p }), ` ${p} `)));
  document.getElementById("override-line").hidden = !formMatch.had;
  document.getElementById("result-override").checked = false;
  document.getElementById("result-reason").value = "";
  document.getElementById("result-error").textContent = "";
  document.getElementById("result-form").hidden = false;
}

document.getElementById("result-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!formMatch) return;
  const scores = {};
  for (const el of document.querySelectorAll("[data-score-of]")) {
    scores[el.dataset.scoreOf] = el.value === "" ? "" : (Number.isFinite(el.valueAsNumber) ? el.valueAsNumber : el.value);
  }
  const winners = [...document.querySelectorAll("[data-winner]")].filter((el) => el.checked).map((el) => el.dataset.winner);
  const body = {
    table: formMatch.table, round: formMatch.round, scores, winners: winners.length ? winners : null,
    who: document.getElementById("result-who").value.trim(),
    override: document.getElementById("result-override").checked,
    reason: document.getElementById("result-reason").value.trim() || null,
  };
  const error = document.getElementById("result-error");
  error.textContent = "";
  const r = await organiserPost("/api/result", body);
  if (r.ok) { document.getElementById("result-form").hidden = true; formMatch = null; return; }
  let text = `refused (${r.status})`;
  try { text = (await r.json()).error || text; } catch (e) { /* keep the status */ }
  error.textContent = text;
});

document.getElementById("result-cancel").addEventListener("click", () => {
  document.getElementById("result-form").hidden = true;
  formMatch = null;
});

document.addEventListener("click", async (ev) => {
  const t = ev.target;
  let r = null;
  if (t.dataset && t.dataset.enter) {
    openResultForm(t.dataset.enter);
  } else if (t.dataset && t.dataset.confirm) {
    r = await organiserPost("/api/confirm", { table: t.dataset.confirm });
  } else if (t.id === "start-next") {
    r = await organiserPost("/api/next-round");
  }
  if (r && !r.ok) alert((await r.json()).error);
});

live(onTournament, { stateUrl: "/api/tournament" });
