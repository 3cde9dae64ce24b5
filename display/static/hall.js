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

// A card is rebuilt only when its table's entry changed; the rest are kept as they are.
// The key is the whole entry (a few hundred bytes), so a change shows whoever made it.
const cardCache = new Map();
function cardFor(t) {
  const key = JSON.stringify(t);
  const hit = cardCache.get(t.table);
  if (hit && hit.key === key) return hit.el;
  const el = tableCard(t);
  cardCache.set(t.table, { key, el });
  return el;
}

function drawHall(snap) {
  const b = document.getElementById("broker");
  b.className = "pill " + (snap.connected ? "playing" : "over");
  b.textContent = `broker ${snap.broker}${snap.tls ? " (TLS)" : ""}: ${snap.connected ? "connected" : "reconnecting"}`;
  document.body.dataset.broker = snap.connected ? "up" : "down";
  const tables = snap.tables || [];
  const cards = tables.map(cardFor);
  const ids = new Set(tables.map((t) => t.table));
  for (const id of [...cardCache.keys()]) if (!ids.has(id)) cardCache.delete(id);
  const box = document.getElementById("tables");
  if (box.children.length !== cards.length) box.replaceChildren(...cards);
  else cards.forEach((c, i) => { if (box.children[i] !== c) box.children[i].replaceWith(c); });
  document.getElementById("empty").hidden = cards.length > 0;
}

// Many tables publish every second: draw once per frame, the newest snapshot only, so
// the page never falls behind the socket.
let pendingHall = null;
function onHall(snap) {
  if (pendingHall === null) requestAnimationFrame(() => { const s = pendingHall; pendingHall = null; drawHall(s); });
  pendingHall = snap;
}

live(onHall, { stateUrl: "/api/tables" });
