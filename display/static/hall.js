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

// The game's title in the page's language (the server puts them in the page: display/hall_app.py)
const HALL_TITLES = JSON.parse(document.getElementById("game-titles").textContent || "{}");

// What a table waits for, in the page's language: the table's own words on an English page, else
// made from its summary's `waits` (display/mqtt.py), as the table page makes it (common.js waitingFor)
function hallWaiting(sm) {
  const w = sm.waits;
  if (LANG === "en" || !w) return LANG === "en" ? sm.waiting_for || "" : "";
  if (sm.status === "paused") return t("waiting.paused");
  if (!w.kind) return "";
  if (w.kind === "question") return t("hall.question");
  const kind = typeof CATALOGUE[`input.${w.kind}`] === "string" ? t(`input.${w.kind}`) : w.kind;
  return (w.players || []).length ? t("waiting.from", { kind, players: tList(w.players) }) : kind;
}

function tableCard(t_) {
  const sm = t_.summary || {};
  const parts = { rows: new Map(), pill: h("span", { class: "pill" }), round: h("span", { class: "card-round" }),
    note: h("p", { class: "card-note" }), updated: h("p", { class: "muted card-updated" }) };
  const rows = (sm.players || []).map((p) => {
    const score = h("td", { class: "score", "data-score": `${t_.table}/${p.name}` });
    const tr = h("tr", {},
      h("td", { class: "name" }, h("span", { class: "swatch", style: `background:${colourOf(p.colour)}` }), p.name),
      score);
    parts.rows.set(p.name, { tr, score });
    return tr;
  });
  const title = HALL_TITLES[sm.game] || GAME_TITLES[sm.game] || sm.game || t("hall.no_game");
  const el = h("section", { class: "table-card", "data-table": t_.table, style: `--n:${Math.max(2, rows.length)}` },
    h("div", { class: "card-head" }, h("h3", {}, t_.table), parts.pill),
    h("div", { class: "card-game" }, h("span", { class: "card-title" }, title), parts.round),
    h("table", { class: "scores" }, rows),
    parts.note, parts.updated);
  el._parts = parts;
  el._shape = cardShape(t_);
  fillCard(el, t_);
  return el;
}

function fillCard(el, t_) {
  const sm = t_.summary || {};
  const scores = sm.scores || {};
  const parts = el._parts;
  if (el.classList.contains("offline") === Boolean(t_.online)) el.classList.toggle("offline", !t_.online);
  const status = t_.online ? (sm.status || "online") : "offline";
  if (parts.pill.textContent !== status) statusPill(parts.pill, status);
  setText(parts.round, sm.round !== null && sm.round !== undefined ? t("hall.round", { round: sm.round }) : "");
  for (const [name, row] of parts.rows) {
    const turn = name === sm.current_player ? "turn" : "";
    if (row.tr.className !== turn) row.tr.className = turn;
    setText(row.score, scores[name] ?? "–");
  }
  const waiting = hallWaiting(sm);
  setText(parts.note, sm.winners && sm.winners.length ? t("hall.winner", { winners: sm.winners.join(t("list.and")) })
    : (waiting ? t("hall.waiting", { what: waiting }) : ""));
  setText(parts.updated, sm.updated
    ? t("hall.updated", { when: sm.updated.replace("T", " ").replace("+00:00", " UTC") }) : "");
}

// The cards fill the screen (a hall display read from across the room): as many columns and rows as
// make the cards largest; when there are so many that a card would be smaller than a readable one,
// they keep that size and the page scrolls (body.many).
let gridFor = 0;
function fitGrid() {
  const box = document.getElementById("tables");
  const main = box.parentElement;
  const n = Math.max(1, box.children.length);
  if (gridFor === n) return;  // measured only when the number of cards changes (or the window): a push
  gridFor = n;                // that rewrites a score costs no layout here
  const style = getComputedStyle(main);
  const W = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const H = main.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  let best = null;
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const w = W / cols; const hh = H / rows;
    const size = Math.min(w / 1.4, hh);  // a card reads best about 1.4 times as wide as high
    if (!best || size > best.size) best = { cols, rows, size, hh };
  }
  const many = best.hh < 300 || W / best.cols < 380;
  document.body.classList.toggle("many", many);
  box.style.setProperty("--cols", String(best.cols));
  box.style.setProperty("--rows", String(best.rows));
}
window.addEventListener("resize", () => { gridFor = 0; fitGrid(); });

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
  b.textContent = t(header.connected ? "hall.broker.up" : "hall.broker.down",
    { broker: `${header.broker}${header.tls ? " (TLS)" : ""}` });
  document.body.dataset.broker = header.connected ? "up" : "down";
  document.getElementById("empty").hidden = hallTables.size > 0;
  // messages the hall refused: how many, and the latest with why (they changed nothing)
  const r = document.getElementById("refused");
  r.hidden = !header.refused;
  const last = header.last_refused;
  r.textContent = header.refused  // why, in the hall's English words, on an English page only
    ? t("hall.refused", { n: header.refused, topic: last ? last.topic : "?" }) + (LANG === "en" && last ? `: ${last.why}` : "")
    : "";
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
  fitGrid();
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
  fitGrid();
}

live(onHall, { stateUrl: "/api/tables", onPush });
