// Fix a die from the play screen (issue 34): tap a die the camera read (on the table page or the
// camera view) -> its picture cut from the settled frame, what it was read as, and a button for
// each face it may show, and "it is not a die" for a phantom (paper, a shadow: it leaves the throw).
// The button posts the same correction the admin page posts
// (POST /api/admin/correct: set_value, set_colour, set_support or not_a_die, or confirm as read), naming the
// version of the reading it saw: an answer to a reading someone answered meanwhile is refused (409). Who makes it and the admin token are
// asked once on this device and kept in localStorage; a token is needed only when the display
// runs with one.
"use strict";

const FIX_WHO = "dicetable-who";
const FIX_TOKEN = "dicetable-admin-token";
let fixFrame = { key: null, img: null };
let fixReadings = [];  // the latest /api/readings dice, by the page that shows them
let fixQuestion = [];  // reading ids the table asks about (its question): answered, not undone
let fixColours = [];  // the colours the game's dice come in now (snapshot's dice_colours; none: colour is not asked)

function fixKey() { return fixReadings.map((r) => `${r.id}:${r.value}`).join(","); }

function fixFaces(kind) {
  if (kind === "d10") return [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  if (kind === "d10p") return [0, 10, 20, 30, 40, 50, 60, 70, 80, 90];
  if (kind === "d20") return Array.from({ length: 20 }, (_, i) => i + 1);
  return [1, 2, 3, 4, 5, 6];
}

function faceText(kind, v) { return kind === "d10p" ? String(v).padStart(2, "0") : String(v); }

async function fixFrameImage(key) {
  if (fixFrame.key === key && fixFrame.img) return fixFrame.img;
  const img = new Image();
  const loaded = new Promise((ok) => { img.onload = () => ok(true); img.onerror = () => ok(false); });
  img.src = `/api/frame.jpg?k=${encodeURIComponent(key)}`;
  if (!(await loaded)) return null;
  fixFrame = { key, img };
  return img;
}

// The die's picture: the box around its quad (and a margin) cut from the frame, `size` px wide.
function fixCrop(img, r, size) {
  const canvas = h("canvas", { class: "die-crop", width: size, height: size, "data-crop": r.id });
  if (!img || !Array.isArray(r.quad) || r.quad.length < 3) return canvas;
  const xs = r.quad.map((p) => p[0]); const ys = r.quad.map((p) => p[1]);
  const side = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)) * 1.5 + 8;
  const cx = (Math.max(...xs) + Math.min(...xs)) / 2; const cy = (Math.max(...ys) + Math.min(...ys)) / 2;
  canvas.getContext("2d").drawImage(img, cx - side / 2, cy - side / 2, side, side, 0, 0, size, size);
  return canvas;
}

function fixDialog() {
  let box = document.getElementById("fix-die");
  if (box) return box;
  box = h("dialog", { id: "fix-die", class: "fix-die" });
  document.body.append(box);
  return box;
}

function fixSay(text, ok) {
  const m = document.getElementById("fix-msg");
  if (!m) return;
  m.className = "msg " + (ok ? "ok" : "err");
  m.textContent = text;
}

async function fixPost(command) {
  const who = (document.getElementById("fix-who").value || "").trim();
  if (!who) { fixSay(t("fix.name_first"), false); return null; }
  localStorage.setItem(FIX_WHO, who);
  const tokenBox = document.getElementById("fix-token");
  const token = (tokenBox.value || "").trim() || localStorage.getItem(FIX_TOKEN) || "";
  const headers = { "Content-Type": "application/json" };
  if (token) headers["X-Admin-Token"] = token;
  let r;
  try {
    r = await fetch("/api/admin/correct", { method: "POST", headers, body: JSON.stringify({ who, command }) });
  } catch (e) { fixSay(t("fix.no_answer"), false); return null; }
  const body = await r.json().catch(() => ({}));
  if (r.status === 401) {  // the display has a token: ask for it once on this device
    localStorage.removeItem(FIX_TOKEN);
    document.getElementById("fix-token-row").hidden = false;
    tokenBox.focus();
    fixSay(body.error || t("fix.token_needed"), false);
    return null;
  }
  if (!r.ok) { fixSay(body.error || t("fix.refused", { status: r.status }), false); return null; }
  if (token) localStorage.setItem(FIX_TOKEN, token);
  return body;
}

async function fixSend(commands) {
  let last = null;
  for (const c of commands) {
    last = await fixPost(c);
    if (!last) return;
  }
  fixSay(LANG === "en" && last.message ? last.message : t("fix.done"), true);  // the table's words are English
  setTimeout(() => { const d = document.getElementById("fix-die"); if (d && d.open) d.close(); }, 700);
}

// Is the last standing input the throw these readings were scored as? Only then may a fix undo it:
// undoing anything later (a choice made since) would undo the wrong input.
async function fixThrowIsLast() {
  try {
    const head = await (await fetch("/api/events?offset=0&limit=1", { cache: "no-store" })).json();
    const offset = Math.max(0, (head.total || 0) - 60);
    const page = await (await fetch(`/api/events?offset=${offset}&limit=60`, { cache: "no-store" })).json();
    const events = page.events || [];
    const undone = new Set(events.filter((e) => e.kind === "undo").map((e) => (e.data || {}).undoes));
    const last = events.filter((e) => e.kind === "input" && !undone.has(e.seq)).pop();
    const reading = events.filter((e) => e.kind === "reading").pop();
    return Boolean(last && reading && ["roll", "throw"].includes((last.data || {}).type) && reading.seq < last.seq);
  } catch (e) { return false; }
}

// Open the picker for reading `id` (of the latest readings).
async function openFix(id) {
  const r = fixReadings.find((x) => x.id === id);
  if (!r) return;
  const img = await fixFrameImage(fixKey());
  const asked = fixQuestion.includes(r.id);
  const undoable = asked || await fixThrowIsLast();
  const box = fixDialog();
  const kind = r.kind || "d6";
  const face = (v, extra) => h("button", { class: (v === r.value ? "face read" : "face") + extra,
    "data-face": v, "data-candidate": extra ? "" : null, type: "button", disabled: undoable ? null : "" },
    faceText(kind, v));
  // the values the reader was torn between (the reading's candidates) first, one tap each; then the rest
  const torn = candidateFaces(r).filter((v) => fixFaces(kind).includes(v));
  const faces = fixFaces(kind).filter((v) => !torn.includes(v)).map((v) => face(v, ""));
  const colours = [...new Set(fixColours.filter(Boolean))];  // a colour picker only where colours differ
  const who = h("input", { id: "fix-who", maxlength: "40", placeholder: t("fix.your_name"), autocomplete: "name",
    value: localStorage.getItem(FIX_WHO) || "" });
  const token = h("input", { id: "fix-token", type: "password", maxlength: "200", autocomplete: "off" });
  const tokenRow = h("p", { id: "fix-token-row", class: "row" }, h("label", { for: "fix-token" }, t("fix.token") + " "), token);
  tokenRow.hidden = true;
  const undoNote = asked ? "" : undoable
    ? t("fix.undo_first")
    : t("fix.moved_on");
  box.replaceChildren(
    h("form", { method: "dialog", class: "fix-form" },
      h("h2", {}, t("fix.die", { id: r.id })),
      h("div", { class: "fix-top" }, fixCrop(img, r, 160),
        h("div", {},
          h("p", { "data-read-as": r.id }, t(r.unsure ? "fix.read_as_unsure" : "fix.read_as", {
            colour: r.colour ? tc(r.colour) : "", value: faceText(kind, r.value), kind,
            confidence: Math.round((r.confidence ?? 1) * 100) }).replace(/\s+/g, " ")),
          asked ? h("button", { type: "button", class: "primary", "data-fix-confirm": r.id }, t("fix.confirm")) : "",
          h("button", { type: "button", "data-fix-not-die": r.id, disabled: undoable ? null : "" }, t("fix.not_a_die")),
          torn.length ? h("p", { class: "muted" }, t("fix.torn")) : "",
          torn.length ? h("div", { class: "faces torn" }, ...torn.map((v) => face(v, " candidate"))) : "",
          h("p", { class: "muted" }, torn.length ? t("fix.other_face") : t("fix.really_shows")),
          h("div", { class: "faces" }, ...faces),
          colours.length > 1 ? h("p", { class: "muted" }, t("fix.colour")) : "",
          colours.length > 1 ? h("div", { class: "faces colours" }, ...colours.map((c) => h("button", {
            class: c === r.colour ? "face read" : "face", "data-colour": c, type: "button",
            disabled: undoable ? null : "" }, tc(c)))) : "",
          ...fixSupport(r, undoable),
          undoNote ? h("p", { class: "muted", "data-undo-note": "" }, undoNote) : "")),
      h("p", { class: "row" }, h("label", { for: "fix-who" }, t("fix.your_name") + " "), who),
      tokenRow,
      h("p", { id: "fix-msg", class: "msg", role: "status" }),
      h("p", {}, h("button", { value: "cancel" }, t("fix.close")))));
  for (const b of box.querySelectorAll("button[data-face]")) {
    b.addEventListener("click", () => {
      const value = Number(b.dataset.face);
      const set = { action: "set_value", reading: r.id, value, version: r.version ?? 0 };
      fixSend(asked ? [set] : [{ action: "undo" }, set]);
    });
  }
  for (const b of box.querySelectorAll("button[data-colour]")) {
    b.addEventListener("click", () => {
      const set = { action: "set_colour", reading: r.id, colour: b.dataset.colour, version: r.version ?? 0 };
      fixSend(asked ? [set] : [{ action: "undo" }, set]);
    });
  }
  for (const b of box.querySelectorAll("button[data-support]")) {
    b.addEventListener("click", () => {
      const set = { action: "set_support", reading: r.id, on: b.dataset.support, version: r.version ?? 0 };
      fixSend(asked ? [set] : [{ action: "undo" }, set]);
    });
  }
  box.querySelector("button[data-fix-not-die]").addEventListener("click", () => {
    const no = { action: "not_a_die", reading: r.id, version: r.version ?? 0 };
    fixSend(asked ? [no] : [{ action: "undo" }, no]);
  });
  const confirm = box.querySelector("button[data-fix-confirm]");
  if (confirm) confirm.addEventListener("click", () => fixSend([{ action: "confirm", reading: r.id, version: r.version ?? 0 }]));
  if (!box.open) box.showModal();
}

// What a die the camera cannot tell the support of may rest on (issue 45): one tap each, "on the board"
// or "on die r3.2" (the reading's support_options; a die no camera sees is named by the admin page)
function fixSupport(r, undoable) {
  const opts = (r.support_options || []).map((o) => o.on === "board" ? "board"
    : Number.isInteger(o.on) && fixReadings[o.on] ? fixReadings[o.on].id : null).filter(Boolean);
  if (!opts.length) return [];
  return [h("p", { class: "muted" }, t("fix.support")), h("div", { class: "faces support" }, ...opts.map((on) =>
    h("button", { class: "face", "data-support": on, type: "button", disabled: undoable ? null : "" },
      on === "board" ? t("fix.on_board") : t("fix.on_die", { id: on }))))];
}

// A row of the dice the camera read, each its picture, tap to fix (the table page, under the board).
async function fixStrip(readings, question) {
  fixReadings = readings || [];
  fixQuestion = (question && question.readings) || [];
  const img = fixReadings.length ? await fixFrameImage(fixKey()) : null;
  return fixReadings.filter((r) => !r.hidden).map((r) => h("button", { type: "button", class: "die-pick" + (r.unsure ? " unsure" : ""),
    "data-fix": r.id, title: t("fix.tap", { colour: r.colour ? tc(r.colour) : "", value: r.value }).trim() }, fixCrop(img, r, 56),
    h("span", {}, `${faceText(r.kind, r.value)}`)));
}

document.addEventListener("click", (ev) => {
  const el = ev.target instanceof Element ? ev.target.closest("[data-fix]") : null;
  if (el) openFix(el.dataset.fix);
});
