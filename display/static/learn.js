// Teaching the table a die of its own (issue 29 item 4; display/learn_page.py, controller/teach.py):
// pick a die, roll it alone again and again; each settled roll shows the die's picture and the face the
// table proposes: tap to confirm it or pick the right face. The admin token is asked once on this device
// (kept with fix.js's) and needed only when the display has one. Every sentence is the page's language's
// (display/lang/<lang>.json, learn.*): the table's own (a notice, a step's message, a refusal) by the key
// it names beside its English text (controller/teach.py Said).
"use strict";

const LEARN_TOKEN = "dicetable-admin-token";
const LEARN_WHO = "dicetable-who";
const byId = (id) => document.getElementById(id);
let learnShown = null;
let learnKey = null;

// one of the table's sentences: its English text, or on a page in another language its key's
function learnWords(text, key) { return LANG !== "en" && key ? said(key) : text || ""; }

function learnName(st) { return LANG !== "en" && st.session ? said(Object.assign({ key: "learn.name" }, st.session)) : st.session.name; }

function learnSay(text, ok) {
  const m = byId("learn-msg");
  m.className = "msg " + (ok ? "ok" : "err");
  m.textContent = text;
}

async function learnApi(method, body) {
  const tokenBox = byId("learn-token");
  const token = (tokenBox.value || "").trim() || localStorage.getItem(LEARN_TOKEN) || "";
  const headers = { "Content-Type": "application/json" };
  if (token) headers["X-Admin-Token"] = token;
  let r;
  try {
    r = await fetch("/api/admin/learn", { method, headers, cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) { learnSay(t("fix.no_answer"), false); return null; }
  const got = await r.json().catch(() => ({}));
  if (r.status === 401) {  // the display has a token: ask for it once on this device
    localStorage.removeItem(LEARN_TOKEN);
    byId("learn-token-row").hidden = false;
    learnSay(LANG === "en" && got.error ? got.error : t("fix.token_needed"), false);
    return null;
  }
  if (!r.ok) {
    learnSay(learnWords(got.error, got.error_key) || t("fix.refused", { status: r.status }), false);
    if (r.status === 409) learnRefresh();  // the roll answered is no longer the one shown: show the new one
    return null;
  }
  if (token) { localStorage.setItem(LEARN_TOKEN, token); byId("learn-token-row").hidden = true; }
  return got;
}

async function learnStep(command) {
  const who = byId("learn-who").value.trim();
  if (!who) { learnSay(t("learn.name_first"), false); byId("learn-who").focus(); return; }
  localStorage.setItem(LEARN_WHO, who);
  const got = await learnApi("POST", { who, command });
  if (got) { learnSay(learnWords(got.message, got.message_key) || t("fix.done"), true); learnRender(got); }
}

async function learnRefresh() {
  const got = await learnApi("GET");
  if (got) learnRender(got);
}

function learnProposal(roll) {
  if (roll.answered) return roll.face === null ? t("learn.left_out") : t("learn.taught_as", { face: roll.face });
  if (roll.by === "disagree") return t("learn.disagree");
  if (roll.proposed === null) return t("learn.cannot_tell");
  const by = roll.by === "both" ? t("learn.by_both") : roll.by === "match" ? t("learn.by_match") : t("learn.by_ocr");
  return t("learn.thinks", { face: roll.proposed, by });
}

// an answer names the roll (and session) whose picture it was shown with: the button carries them
function learnAnswerButton(roll, face, attrs, label) {
  const b = h("button", Object.assign({ type: "button", "data-face": face, "data-roll": roll.n,
    "data-session": roll.session }, attrs), label);
  b.addEventListener("click", () => learnStep({ action: "answer", roll: Number(b.dataset.roll),
    session: Number(b.dataset.session), face: Number(b.dataset.face) }));
  return b;
}

// the candidates side by side: each face with a crop taught as it (none yet: said), and why it is one
function learnCandidate(roll, c) {
  const why = [];
  if (c.ocr !== null) why.push(t("learn.cand_ocr", { p: Math.round(c.ocr * 100) }));
  if (c.likeness !== null) why.push(t("learn.cand_like", { like: c.likeness.toFixed(2) }));
  const picture = c.crop ? h("img", { src: c.crop, alt: t("learn.cand_alt", { face: c.face }) })
    : h("span", { class: "nocrop" }, t("learn.cand_untaught"));
  return h("figure", { class: c.proposed ? "cand proposed" : "cand", "data-face": c.face }, picture,
    h("figcaption", {}, h("b", {}, c.face), " ", why.join(" · ")),
    roll.answered ? "" : learnAnswerButton(roll, c.face, { class: "face" }, t("learn.it_shows", { face: c.face })));
}

function learnRender(st) {
  learnShown = st;
  byId("learn-setup").hidden = st.on;
  byId("learn-session").hidden = !st.on;
  byId("learn-progress-section").hidden = !st.on;
  byId("learn-view-section").hidden = !(st.on && st.view);
  const kind = byId("learn-kind");
  const picked = kind.value;
  kind.replaceChildren(...(st.kinds || []).map((k) => h("option", { value: k }, k)));
  if ((st.kinds || []).includes(picked)) kind.value = picked;
  byId("learn-why-not").hidden = !st.why_not;
  byId("learn-why-not").textContent = learnWords(st.why_not, st.why_not_key);
  byId("learn-start").disabled = Boolean(st.why_not);
  byId("learn-saved").textContent = learnWords(st.saved, st.saved_key);
  if (!st.on) return;
  byId("learn-name").textContent = t("learn.teaching", { name: learnName(st) });
  byId("learn-notice").hidden = !st.notice;
  byId("learn-notice").textContent = learnWords(st.notice, st.notice_key);
  const roll = st.roll;
  byId("learn-roll").hidden = !roll;
  byId("learn-wait").hidden = Boolean(roll && !roll.answered);
  if (roll) {
    byId("learn-roll").dataset.roll = roll.n;
    byId("learn-roll").dataset.session = roll.session;
    byId("learn-crop").src = roll.crop || "";
    byId("learn-roll-no").textContent = t("learn.roll_no", { n: roll.n });
    byId("learn-proposed").textContent = learnProposal(roll);
    byId("learn-other").textContent = roll.answered ? t("learn.wrong_face") : t("learn.or_face");
    const confirm = byId("learn-confirm");
    confirm.hidden = roll.proposed === null || roll.answered;
    confirm.textContent = t("learn.yes_shows", { face: roll.proposed });
    confirm.dataset.face = roll.proposed === null ? "" : roll.proposed;
    confirm.dataset.roll = roll.n;
    confirm.dataset.session = roll.session;
    const skip = byId("learn-skip");
    skip.dataset.roll = roll.n;
    skip.dataset.session = roll.session;
    byId("learn-candidates").replaceChildren(...(roll.candidates || []).map((c) => learnCandidate(roll, c)));
    byId("learn-faces").replaceChildren(...st.faces.map((f) => {
      const marked = roll.answered ? roll.face : roll.proposed;
      return learnAnswerButton(roll, f.face, { class: f.face === marked ? "face read" : "face" }, f.face);
    }));
  }
  byId("learn-progress").replaceChildren(...st.faces.map((f) => h("span", {
    "data-face": f.face, "data-taught": f.taught,
    class: f.taught >= st.each ? "done" : f.taught ? "short" : "missing" }, h("b", {}, f.face), `${f.taught}/${st.each}`)));
  const parts = [];
  if (st.missing.length) parts.push(t("learn.missing", { faces: tList(st.missing) }));
  if (st.short.length) parts.push(t("learn.short", { each: st.each, faces: tList(st.short) }));
  byId("learn-missing").textContent = parts.join(" ");
  byId("learn-complete").hidden = !st.complete;
  byId("learn-complete").textContent = st.complete ? t("learn.complete", { each: st.each }) : "";
  byId("learn-save").disabled = !st.complete;
  if (st.view) byId("learn-view").src = st.view;
}

byId("learn-who").value = localStorage.getItem(LEARN_WHO) || "";
byId("learn-crop").alt = t("learn.crop_alt");
byId("learn-view").alt = t("learn.view_alt");
byId("learn-token-ok").addEventListener("click", learnRefresh);
byId("learn-start").addEventListener("click", () => {
  const owner = byId("learn-owner").value.trim(); const colour = byId("learn-colour").value.trim();
  if (!owner || !colour) { learnSay(t("learn.die_first"), false); return; }
  learnStep({ action: "start", owner, colour, kind: byId("learn-kind").value });
});
// the buttons answer the roll they were drawn with (their data-roll), never the one shown by the time
// the request is sent: a roll that came to rest since is the table's to refuse (409), not to be taught
byId("learn-confirm").addEventListener("click", (e) => {
  const d = e.currentTarget.dataset;
  if (d.face !== "") learnStep({ action: "answer", roll: Number(d.roll), session: Number(d.session), face: Number(d.face) });
});
byId("learn-skip").addEventListener("click", (e) => {
  const d = e.currentTarget.dataset;
  if (d.roll) learnStep({ action: "skip", roll: Number(d.roll), session: Number(d.session) });
});
byId("learn-save").addEventListener("click", () => learnStep({ action: "save" }));
byId("learn-cancel").addEventListener("click", () => learnStep({ action: "cancel" }));

// every settled frame while a die is taught changes the snapshot's "teaching": look again then
live((snap) => {
  statusPill(byId("status"), snap.status);
  const key = JSON.stringify(snap.teaching || null);
  if (key !== learnKey) { learnKey = key; learnRefresh(); }
});
