// The hall: one card per table, from the MQTT summaries the hall server keeps.
"use strict";

// A card's shape is what only changes with a new game: the game and its players.  While the
// shape stays, an update rewrites just the texts that changed (a score, the pill, the notes),
// so chromium restyles and lays out a few text nodes, not a new card, ~100 times a second.
function cardShape(t) {
  const sm = t.summary || {};
  return JSON.stringify([sm.game || null, (sm.players || []).map((p) => [p.name, p.colour])]);
}

function setText(el, text) {
  const s = String(text);
  if (el.textContent !== s) el.textContent = s;
}

function tableCard(t) {
  const sm = t.summary || {};
  const parts = { rows: new Map(), pill: h("span", { class: "pill" }),
    note: h("p", { class: "muted" }), updated: h("p", { class: "muted" }) };
  const rows = (sm.players || []).map((p) => {
    const score = h("td", { class: "score", "data-score": `${t.table}/${p.name}` });
    const tr = h("tr", {},
      h("td", { class: "name" }, h("span", { class: "swatch", style: `background:${colourOf(p.colour)}` }), p.name),
      score);
    parts.rows.set(p.name, { tr, score });
    return tr;
  });
  const el = h("section", { class: "table-card", "data-table": t.table },
    h("h3", {}, t.table, " ", parts.pill),
    h("div", { class: "muted" }, GAME_TITLES[sm.game] || sm.game || "no game yet"),
    h("table", { class: "scores" }, rows),
    parts.note, parts.updated);
  el._parts = parts;
  el._shape = cardShape(t);
  fillCard(el, t);
  return el;
}

function fillCard(el, t) {
  const sm = t.summary || {};
  const scores = sm.scores || {};
  const parts = el._parts;
  if (el.classList.contains("offline") === Boolean(t.online)) el.classList.toggle("offline", !t.online);
  const status = t.online ? (sm.status || "online") : "offline";
  if (parts.pill.textContent !== status) statusPill(parts.pill, status);
  for (const [name, row] of parts.rows) {
    const turn = name === sm.current_player ? "turn" : "";
    if (row.tr.className !== turn) row.tr.className = turn;
    setText(row.score, scores[name] ?? "–");
  }
  setText(parts.note, sm.winners && sm.winners.length ? `Winner: ${sm.winners.join(" and ")}`
    : (sm.waiting_for ? `Waiting for ${sm.waiting_for}` : ""));
  setText(parts.updated, sm.updated ? `updated ${sm.updated.replace("T", " ").replace("+00:00", " UTC")}` : "");
}

// The hall as this page has it: table id -> entry.  The server sends the whole hall once,
// then only the entries that changed and the ids that went (display/hall_app.py `follow`),
// so a push costs the page one or two cards, not 256.
const hallTables = new Map();
const cardCache = new Map();  // table id -> {key, el}: a card is rebuilt only when its entry changed
let header = null;

function cardFor(t) {
  const key = t.v !== undefined ? `v${t.v}` : JSON.stringify(t);  // /api/tables entries carry v too
  const hit = cardCache.get(t.table);
  if (hit && hit.key === key) return hit.el;
  if (hit && hit.el._shape === cardShape(t)) {  // same game and players: rewrite its texts in place
    fillCard(hit.el, t);
    hit.key = key;
    return hit.el;
  }
  const el = tableCard(t);
  cardCache.set(t.table, { key, el });
  return el;
}

function drawHeader() {
  if (!header) return;
  const b = document.getElementById("broker");
  b.className = "pill " + (header.connected ? "playing" : "over");
  b.textContent = `broker ${header.broker}${header.tls ? " (TLS)" : ""}: ${header.connected ? "connected" : "reconnecting"}`;
  document.body.dataset.broker = header.connected ? "up" : "down";
  document.getElementById("empty").hidden = hallTables.size > 0;
  // messages the hall refused: how many, and the latest with why (they changed nothing)
  const r = document.getElementById("refused");
  r.hidden = !header.refused;
  const last = header.last_refused;
  r.textContent = header.refused
    ? `${header.refused} message(s) refused, the latest on ${last ? last.topic : "?"}: ${last ? last.why : ""}` : "";
}

// The whole hall: from /api/tables, or a push with full = true.
function onHall(snap) {
  hallTables.clear();
  for (const t of snap.tables || []) hallTables.set(t.table, t);
  for (const id of [...cardCache.keys()]) if (!hallTables.has(id)) cardCache.delete(id);
  header = snap;
  const ids = [...hallTables.keys()].sort();
  document.getElementById("tables").replaceChildren(...ids.map((id) => cardFor(hallTables.get(id))));
  drawHeader();
}

// A push: remove the cards of the ids that went, then replace (or insert, in table order)
// the cards of the changed entries; the other cards are not touched.  Drawn at once, not on
// the next animation frame: a patch touches one or two cards, and the browser paints them in
// its next frame either way.
function onPush(msg) {
  if (msg.type !== "hall") return;
  if (msg.full) { onHall(msg); return; }
  const box = document.getElementById("tables");
  for (const id of msg.gone || []) {
    hallTables.delete(id);
    const c = cardCache.get(id);
    if (c) { c.el.remove(); cardCache.delete(id); }
  }
  for (const t of msg.tables || []) {
    hallTables.set(t.table, t);
    const old = cardCache.get(t.table);
    const el = cardFor(t);
    if (old && old.el.isConnected) { if (old.el !== el) old.el.replaceWith(el); continue; }
    const next = [...box.children].find((c) => c.dataset.table > t.table);
    box.insertBefore(el, next || null);
  }
  header = msg;
  drawHeader();
}

live(onHall, { stateUrl: "/api/tables", onPush });
