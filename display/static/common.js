// Shared by every page: the live connection (WebSocket with reconnect) and small helpers.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";

// The page's sentences in its language (display/i18n.py): the server inlines its catalogue
// (display/lang/<lang>.json) and sets <html lang>; every sentence a page shows is t(key, fields).
const CATALOGUE = (() => {
  try { return JSON.parse(document.getElementById("catalogue").textContent) || {}; } catch (e) { return {}; }
})();
const LANG = document.documentElement.lang === "ja" ? "ja" : "en";
function t(key, fields) {
  const text = CATALOGUE[key];
  if (typeof text !== "string") return key;
  return text.replace(/\{(\w+)\}/g, (m, k) => (fields && fields[k] !== undefined && fields[k] !== null ? String(fields[k]) : m));
}
// an engine's word (a phase, a step: "first_throw") in the page's language, or in words
function tw(id) {
  const key = `word.${id}`;
  return typeof CATALOGUE[key] === "string" ? CATALOGUE[key] : String(id ?? "").replace(/_/g, " ");
}
// a die's colour ("red") in the page's language
function tc(colour) { return typeof CATALOGUE[`colour.${colour}`] === "string" ? t(`colour.${colour}`) : colour; }
function tList(items) { return (items || []).map(String).join(t("list.sep")); }
// A sentence the table names by its catalogue key ({key, field: value, ...}, display/i18n.py `said`):
// a field that is such an object is said first, a list joined (its objects said), a colour named.
function said(s) {
  if (!s || typeof s !== "object") return s === null || s === undefined ? "" : String(s);
  const value = (k, v) => {
    if (Array.isArray(v)) return v.map((x) => value("", x)).join(t("list.sep"));
    if (v && typeof v === "object") return said(v);
    if (k === "colour" && typeof v === "string") return tc(v);
    if (k === "t" && typeof v === "number") return v.toFixed(2);
    return v === null || v === undefined ? "" : String(v);
  };
  const fields = {};
  for (const [k, v] of Object.entries(s)) if (k !== "key") fields[k] = value(k, v);
  return t(s.key, fields);
}
// the static text of a page: <el data-t="key"> gets its sentence, data-t-placeholder its placeholder
function translatePage(root) {
  for (const el of (root || document).querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  for (const el of (root || document).querySelectorAll("[data-t-placeholder]")) el.placeholder = t(el.dataset.tPlaceholder);
}
translatePage();

// What a question is about: the engine's own sentence on an English page, its kind's in another
// language (the engine says it in English)
function questionText(q) {
  if (LANG === "en") return q.text || "";
  const key = `question.kind.${q.kind || "unsure"}`;
  return typeof CATALOGUE[key] === "string" ? t(key) : t("question.kind.unsure");
}

// What the table waits for, made from the snapshot (the sentence controller/table.py sends in
// English as waiting_for, here in the page's language)
function waitingFor(snap) {
  const st = snap.state || {};
  if (snap.status === "over") {
    const res = st.result;
    return res && (res.winners || []).length ? t("waiting.over_won", { winners: res.winners.join(t("list.and")) })
      : t("waiting.over_ended");
  }
  if (snap.status === "paused") return t("waiting.paused");
  if (snap.question) return t("waiting.question", { question: questionText(snap.question) });
  const teaching = snap.teaching;  // a die being taught (/learn): the game waits
  if (teaching) return t("waiting.teaching", { name: teaching.die ? said(teaching.die) : teaching.name });
  const exp = st.expects || {};
  if (!exp.kind) return snap.waiting_for || "";
  const kind = typeof CATALOGUE[`input.${exp.kind}`] === "string" ? t(`input.${exp.kind}`) : exp.kind;
  const players = exp.players || [];
  return players.length ? t("waiting.from", { kind, players: tList(players) }) : kind;
}

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v; else el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// The values the reader was torn between for a die (issue 29: the classifier and the OCR head read
// it differently; its reading carries both as `candidates`, the surer first): offered first.
function candidateFaces(r) {
  const got = Array.isArray(r && r.candidates) ? r.candidates : [];
  return got.filter((v, i) => Number.isInteger(v) && got.indexOf(v) === i);
}

const NAMED = ["red", "blue", "green", "purple", "yellow", "white", "black", "orange"];
function colourOf(name) {
  if (!name) return "#9aa5b5";
  // only the fixed set: a colour is never copied into a style (it may come from the broker)
  return NAMED.includes(name) ? `var(--${name})` : "#9aa5b5";
}

// Connect to /ws; call onSnapshot(snapshot) for every snapshot push (opts.onPush(msg) for any
// other type of push).  After a drop, retry
// with exponential backoff (0.5 s .. 10 s, with jitter) and re-fetch the state.
// A fetched state is shown only if no push arrived while it was on its way: a push
// is newer than a fetch that was answered before it (without this check a slow
// fetch's older state replaced a newer push and stayed until the next one).
function live(onSnapshot, opts) {
  const path = (opts && opts.path) || "/ws";
  const stateUrl = (opts && opts.stateUrl) || "/api/state";
  const badge = document.getElementById("conn");
  let delay = 500;
  let pushes = 0;
  function setConn(ok, text) {
    if (!badge) return;
    badge.className = "conn " + (ok ? "live" : "down");
    badge.textContent = text;
    document.body.dataset.connected = ok ? "yes" : "no";
  }
  async function refetch() {
    const before = pushes;
    try {
      const r = await fetch(stateUrl, { cache: "no-store" });
      const snap = r.ok ? await r.json() : null;
      if (snap !== null && pushes === before) onSnapshot(snap);
    } catch (e) { /* the socket's reconnect loop will try again */ }
  }
  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}${path}`);
    ws.onopen = () => { delay = 500; setConn(true, t("conn.live")); refetch(); };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "snapshot") { pushes += 1; onSnapshot(msg.snapshot); }
      else if (opts && opts.onPush) { pushes += 1; opts.onPush(msg); }
    };
    ws.onclose = () => {
      setConn(false, t("conn.reconnecting", { s: (delay / 1000).toFixed(1) }));
      setTimeout(connect, delay * (0.8 + 0.4 * Math.random()));
      delay = Math.min(delay * 2, 10000);
    };
    ws.onerror = () => ws.close();
  }
  setConn(false, t("conn.connecting"));
  connect();
}

function statusPill(el, status) {
  el.className = "pill " + (status || "");
  el.textContent = status ? (typeof CATALOGUE[`status.${status}`] === "string" ? t(`status.${status}`) : status) : "?";
}

// When the table's empty-table picture was learnt (the snapshot's empty_table, controller/empty_learn.py):
// "empty table learnt 2 min ago"; shown on the table and admin pages, kept current by emptyTableLine.
function emptyTableText(et, nowS) {
  if (!et) return t("empty.none");
  const age = Math.max(0, (nowS ?? Date.now() / 1000) - Number(et.learnt_at || 0));
  const ago = age < 60 ? t("ago.now") : age < 3600 ? t("ago.min", { n: Math.floor(age / 60) })
    : age < 86400 ? t("ago.h", { n: Math.floor(age / 3600) }) : t("ago.days", { n: Math.floor(age / 86400) });
  const how = et.source === "calibrate empty" ? "empty.taken" : et.source === "camera" ? "empty.seen" : "empty.learnt";
  return t(how, { ago });
}

let emptyTableLast = null;
function emptyTableLine(el, et, extra) {
  // the line for the latest snapshot; its age is counted on every 30 s until the next one
  emptyTableLast = { el, et, extra };
  const paint = () => {
    const e = emptyTableLast;
    e.el.textContent = emptyTableText(e.et) + (e.extra && e.et && e.et.refused ? t("empty.refused", { why: e.et.refused }) : "");
    e.el.dataset.source = (e.et && e.et.source) || "";
  };
  paint();
  if (!emptyTableLine.timer) emptyTableLine.timer = setInterval(paint, 30000);
}
