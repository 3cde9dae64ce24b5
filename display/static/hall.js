// The hall: one card per table, from the MQTT summaries the hall server keeps.
"use strict";

function tableCard(t) {
  const sm = t.summary || {};
  const scores = sm.scores || {};
  const colour = {};
  for (const p of sm.players || []) colour[p.name] = p.colour;
  const rows = (sm.players || []).map((p) => h("tr", { class: p.name === sm.current_player ? "turn" : "" },
    h("td", { class: "name" }, h("span", { class: "swatch", style: `background:${colourOf(p.colour)}` }), p.name),
    h("td", { class: "score", "data-score": `${t.table}/${p.name}` }, scores[p.name] ?? "–")));
  const status = t.online ? (sm.status || "online") : "offline";
  const pill = h("span", { class: "pill" }); statusPill(pill, status);
  return h("section", { class: "table-card" + (t.online ? "" : " offline"), "data-table": t.table },
    h("h3", {}, t.table, " ", pill),
    h("div", { class: "muted" }, GAME_TITLES[sm.game] || sm.game || "no game yet"),
    h("table", { class: "scores" }, rows),
    h("p", { class: "muted" }, sm.winners && sm.winners.length ? `Winner: ${sm.winners.join(" and ")}`
      : (sm.waiting_for ? `Waiting for ${sm.waiting_for}` : "")),
    h("p", { class: "muted" }, sm.updated ? `updated ${sm.updated.replace("T", " ").replace("+00:00", " UTC")}` : ""));
}

function onHall(snap) {
  const b = document.getElementById("broker");
  b.className = "pill " + (snap.connected ? "playing" : "over");
  b.textContent = `broker ${snap.broker}: ${snap.connected ? "connected" : "reconnecting"}`;
  document.body.dataset.broker = snap.connected ? "up" : "down";
  const cards = (snap.tables || []).map(tableCard);
  document.getElementById("tables").replaceChildren(...cards);
  document.getElementById("empty").hidden = cards.length > 0;
}

live(onHall, { stateUrl: "/api/tables" });
