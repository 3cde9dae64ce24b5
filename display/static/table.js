// The live table page: re-render everything from each pushed snapshot.
"use strict";

// TV mode (/tv or /?tv=1): the same page laid out for a screen across the room (style.css body.tv)
const TV = location.pathname === "/tv" || new URLSearchParams(location.search).get("tv") === "1";
document.body.classList.toggle("tv", TV);
if (TV) {  // left: what the table waits for, the scores, then the rest; right: the game's picture
  const left = document.getElementById("left");
  left.insertBefore(document.getElementById("scores-section"), document.getElementById("notice"));
  left.append(document.getElementById("events-section"));
  document.getElementById("right").append(document.getElementById("board-section"));
  // a question above the game's picture, its die in sight (under the scores it falls off the screen)
  document.getElementById("right").insertBefore(document.getElementById("question"), document.getElementById("board-section"));
}

let namesFor = null;  // the game whose names NAMES holds
let gameTitle = null;

async function loadNames(game) {
  if (namesFor === game) return;
  try {
    const r = await fetch(`/api/names?lang=${LANG}`, { cache: "no-store" });
    if (!r.ok) return;
    const got = await r.json();
    NAMES = got.names || {};
    gameTitle = got.title;
    namesFor = game;
  } catch (e) { /* the next snapshot tries again */ }
}

let lastSeq = -1;
let readingsCache = { seq: -1, dice: [] };
let boardCache = null;

async function boardFor(game) {
  if (boardCache && boardCache.game === game) return boardCache.board;
  try {
    const r = await fetch("/api/board", { cache: "no-store" });
    if (r.ok) boardCache = { game, board: await r.json() };
  } catch (e) { return null; }
  return boardCache ? boardCache.board : null;
}

function playerColour(snap, name) {
  const p = (snap.players || []).find((x) => x.name === name);
  return p ? p.colour : null;
}

function renderScores(snap) {
  const st = snap.state || {};
  const scores = st.scores || {};
  const turn = st.current_player || (st.expects && st.expects.players && st.expects.players.length === 1
    ? st.expects.players[0] : null);
  const rows = (snap.players || []).map((p) =>
    h("tr", { class: p.name === turn && snap.status === "playing" ? "turn" : "", "data-player": p.name },
      h("td", { class: "name", "data-turn-label": t("table.turn") },
        h("span", { class: "swatch", style: `background:${colourOf(p.colour)}` }), p.name),
      h("td", { class: "score", "data-score": p.name }, scores[p.name] ?? "–")));
  document.getElementById("scores").replaceChildren(...rows);
  const res = st.result;
  // the engine's reason is in English: shown on an English page only
  const reason = res && res.reason && LANG === "en" ? t("table.reason", { reason: res.reason }) : "";
  document.getElementById("result").textContent = res
    ? t("table.winner", { winners: (res.winners || []).join(t("list.and")) || t("table.nobody") }) + reason : "";
}

function renderSecret(snap) {
  const box = document.getElementById("secret");
  const sec = snap.secret;
  if (!sec) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  box.replaceChildren(
    h("h2", {}, t("secret.title")),
    h("div", {},
      ...(sec.confirmed || []).map((n) => h("span", { class: "who done", "data-confirmed": n }, `✔ ${n}`)),
      ...(sec.waiting || []).map((n) => h("span", { class: "who", "data-pending": n }, `… ${n}`))),
    h("p", { class: "muted" }, t("secret.hidden")));
}

function renderQuestion(snap) {
  const box = document.getElementById("question");
  const q = snap.question;
  if (!q) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  box.dataset.kind = q.kind || "";
  box.replaceChildren(h("h2", {}, t("question.title")), h("p", { "data-question-text": "" }, questionText(q)),
    h("div", { class: "read-dice", id: "asked-dice" }),
    h("p", { class: "muted" }, t("question.how", { readings: tList(q.readings) || t("question.the_throw") })));
}

// A die the question asks about: its picture (a clone of a <canvas> has none: drawn again from the
// strip's) and the values the reader was torn between, if any.
function askedDie(pick) {
  const clone = pick.cloneNode(true);
  const from = pick.querySelector("canvas"); const to = clone.querySelector("canvas");
  if (from && to) to.getContext("2d").drawImage(from, 0, 0);
  const r = fixReadings.find((x) => x.id === pick.dataset.fix);
  const torn = candidateFaces(r);
  if (torn.length > 1) clone.append(h("span", { class: "candidates", "data-candidates": "" },
    torn.map((v) => faceText(r.kind, v)).join(" / ")));
  return clone;
}

function renderPairing(snap) {
  // a tournament table: "table-3 · round 2 · ann vs bob", the pairing it was sent (controller/pairings.py)
  const box = document.getElementById("pairing");
  if (!snap.pairing) { box.hidden = true; box.textContent = ""; return; }
  box.hidden = false;
  // "table-3 · round 2 · ann vs bob" (display/pairings.py describe), in the page's language
  const m = /^(.+) · round (\d+) · (.+)$/.exec(snap.pairing);
  box.textContent = m ? t("pairing", { table: m[1], round: m[2], players: m[3].split(" vs ").join(t("pairing.vs")) })
    : snap.pairing;
}

function renderNotice(snap) {
  // what the table could not do and what it does about it (a frame it could not read, a log it
  // could not write, a refused choice): controller/table.py Table.notice
  const box = document.getElementById("notice");
  if (!snap.notice) { box.hidden = true; box.textContent = ""; return; }
  box.hidden = false;
  // the table says it in English; a page in another language says it from its catalogue when it can
  const said = snap.notice_key;
  box.textContent = LANG !== "en" && said && typeof CATALOGUE[said.key] === "string"
    ? t(said.key, Object.assign({}, said, { t: typeof said.t === "number" ? said.t.toFixed(2) : said.t }))
    : snap.notice;
}

function renderFlag(snap) {
  // a throw whose dice did not tumble: shown to the referee, never refused (vision/tumble.py)
  const box = document.getElementById("flag");
  const f = snap.flag;
  if (!f) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  box.replaceChildren(h("h2", {}, t("flag.title")), h("p", {}, LANG === "en" ? f.reason || "" : ""),
    h("p", { class: "muted" }, t("flag.counts")));
}

async function renderEvents(seq) {
  const n = TV ? 4 : 12;  // across the room: the last few, large
  const offset = Math.max(0, seq - n);
  try {
    const r = await fetch(`/api/events?offset=${offset}&limit=${n}&lang=${LANG}`, { cache: "no-store" });
    if (!r.ok) return;
    const page = await r.json();
    // each event in words (display/describe.py); the raw record one click away
    const items = page.events.slice().reverse().map((e) => {
      const raw = { seq: e.seq, kind: e.kind, source: e.source, player: e.player, data: e.data };
      return h("li", { "data-kind": e.kind, "data-seq": e.seq },
        h("details", {},
          h("summary", {}, h("span", { class: "seq" }, `#${e.seq}`), " ",
            h("span", { class: "text" }, e.text || e.kind)),
          h("pre", { class: "raw" }, JSON.stringify(raw))));
    });
    document.getElementById("events").replaceChildren(...items);
  } catch (e) { /* next push retries */ }
}

async function readingsFor(seq) {
  if (readingsCache.seq === seq) return readingsCache.dice;
  try {
    const r = await fetch("/api/readings", { cache: "no-store" });
    if (r.ok) readingsCache = { seq, dice: (await r.json()).dice || [] };
  } catch (e) { /* keep the old ones */ }
  return readingsCache.dice;
}

let renderToken = 0;
async function onSnapshot(snap) {
  const token = ++renderToken;
  await loadNames(snap.game);
  if (token !== renderToken) return;  // a newer snapshot arrived meanwhile
  const title = (namesFor === snap.game && gameTitle) || GAME_TITLES[snap.game] || snap.game;
  document.title = `${snap.table} · ${title} · dicetable`;
  document.getElementById("title").textContent = `${snap.table} · ${title}`;
  statusPill(document.getElementById("status"), snap.status);
  document.getElementById("waiting").textContent = waitingFor(snap);
  document.body.dataset.seq = snap.seq;
  emptyTableLine(document.getElementById("empty-table"), snap.empty_table, false);
  renderPixels(snap);
  renderPairing(snap);
  renderNotice(snap);
  renderScores(snap);
  renderSecret(snap);
  renderQuestion(snap);
  renderFlag(snap);
  const readings = await readingsFor(snap.seq);
  const board = NEEDS_BOARD.has(snap.game) ? await boardFor(snap.game) : null;
  fixColours = snap.dice_colours || [];
  const picks = await fixStrip(readings, snap.question);  // every die read, tap to fix (fix.js)
  if (token !== renderToken) return;  // a newer snapshot arrived meanwhile
  document.getElementById("read-section").hidden = picks.length === 0;
  document.getElementById("read-dice").replaceChildren(...picks);
  const asked = document.getElementById("asked-dice");
  if (asked) asked.replaceChildren(...picks.filter((b) => fixQuestion.includes(b.dataset.fix)).map(askedDie));
  document.getElementById("board-title").textContent = title;
  const picture = renderGame(snap, NEEDS_READINGS.has(snap.game) ? readings : [], board);
  if (TV) for (const svg of picture.querySelectorAll("svg.board")) svg.setAttribute("preserveAspectRatio", "xMidYMin meet");
  document.getElementById("board").replaceChildren(picture);
  if (snap.seq !== lastSeq) { lastSeq = snap.seq; renderEvents(snap.seq); }
}

live(onSnapshot);

// the die's size in pixels where the table reads it (the still) and where the gate watches (the video
// frame), from the calibration; a numbered die too small for the reader said in one sentence (issue 43)
function renderPixels(snap) {
  const el = document.getElementById("die-pixels");
  const px = snap.pixels;
  el.hidden = !px;
  if (!px) return;
  const views = px.views.map((v) => {
    const sides = Object.values(v.sides).filter((x) => Number.isFinite(x));
    return t(v.what === "still" ? "pixels.still" : "pixels.video", {
      size: `${v.size[0]}x${v.size[1]}`,
      low: Math.round(Math.min(...sides)),
      high: Math.round(Math.max(...sides)),
    });
  });
  let text = t("pixels.line", { mm: px.die_mm, views: views.join(", ") });
  if (px.small) {
    text += " " + t("pixels.small", {
      side: px.small.side,
      where: t(px.small.what === "still" ? "pixels.in_still" : "pixels.in_video"),
      min: Math.round(px.min_side),
      cm: px.small.cm,
      setting: '[camera] still = "max"',
    });
  }
  el.textContent = text;
  el.dataset.small = px.small ? "yes" : "";
}
