// The corrections page: every button becomes one POST /api/admin/correct.
"use strict";

const whoBox = document.getElementById("who");
whoBox.value = localStorage.getItem("dicetable-who") || "";
whoBox.addEventListener("change", () => localStorage.setItem("dicetable-who", whoBox.value.trim()));

function say(text, ok) {
  const m = document.getElementById("msg");
  m.className = "msg " + (ok ? "ok" : "err");
  m.textContent = text;
}

async function correct(command) {
  const who = whoBox.value.trim();
  if (!who) { say(t("fix.name_first"), false); whoBox.focus(); return; }
  let r;
  try {
    r = await fetch("/api/admin/correct", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ who, command }) });
  } catch (e) { say(t("fix.no_answer"), false); return; }
  const body = await r.json().catch(() => ({}));
  if (r.ok) say(LANG === "en" && body.message ? body.message : t("fix.done"), true);  // the table's words are English
  else say(body.error || t("fix.refused", { status: r.status }), false);
}

for (const b of document.querySelectorAll("button[data-action]")) {
  b.addEventListener("click", () => correct({ action: b.dataset.action }));
}
// What the rules offer now (display/offers.py: the engine's choices and reveals), one button each.
async function refreshOffers() {
  let got;
  try {
    const r = await fetch(`/api/admin/offers?lang=${LANG}`, { cache: "no-store" });
    if (!r.ok) return;
    got = await r.json();
  } catch (e) { return; }
  renderEntryForms(got.forms || []);
  const box = document.getElementById("offers");
  const buttons = (got.offers || []).map((o) => {
    const b = h("button", { "data-offer": o.choice, "data-player": o.player || "" },
      o.player ? `${o.player}: ${o.label}` : o.label);
    b.addEventListener("click", () => correct({ action: "input", input: o.input }));
    return b;
  });
  box.replaceChildren(...(buttons.length ? buttons : [h("span", { class: "muted" }, got.why || "")]));
}

// A roll or throw typed in when the camera cannot read it (display/offers.py `forms`, from the
// engine's Game.entry_dice): one row per die, each field a list of what the rules allow (its kind,
// the kind's faces, the colours in play, the board's zones or the sides of the centre line).
let entryShown = "";
function renderEntryForms(forms) {
  const box = document.getElementById("entry-forms");
  const key = JSON.stringify(forms);
  if (key === entryShown) return;  // keep what the referee has chosen so far
  entryShown = key;
  box.replaceChildren(...forms.map(entryForm));
}

function option(value, text, selected) { return h("option", { value, selected: selected ? "" : null }, text); }
function entryFace(kind, v) { return kind === "d10p" ? String(v).padStart(2, "0") : String(v); }

function entryRow(d, i, zoneNames) {
  const kind = h("select", { "data-field": "kind", "aria-label": t("entry.kind") }, ...d.kinds.map((k) => option(k, k)));
  const face = h("select", { "data-field": "value", "aria-label": t("entry.value") });
  const faces = () => face.replaceChildren(...d.faces[kind.value].map((v) => option(v, entryFace(kind.value, v))));
  kind.addEventListener("change", faces);
  faces();
  const colour = d.colours.length ? h("select", { "data-field": "colour", "aria-label": t("entry.colour") },
    ...d.colours.map((c) => option(c, tc(c)))) : null;
  let where = null;
  let thrower = null;
  if (d.zones.length) {
    where = h("select", { "data-field": "where", "aria-label": t("entry.where") },
      ...d.zones.map((z) => option(`zone:${z}`, t("entry.zone", { zone: (zoneNames || {})[z] || z }))),
      option("field", t("entry.no_zone")), option("off", t("entry.off_board")));
  } else if (d.sides) {
    where = h("select", { "data-field": "where", "aria-label": t("entry.where") },
      option("side:a", t("entry.side", { side: "a" })), option("side:b", t("entry.side", { side: "b" })),
      option("off", t("entry.off_field")));
    thrower = h("select", { "data-field": "thrower", "aria-label": t("entry.thrower") },
      ...d.throwers.map((p) => option(p, p)));
  }
  return h("tr", { "data-die": i + 1 }, h("td", {}, t("entry.die", { n: i + 1 })),
    h("td", {}, d.kinds.length > 1 ? kind : d.kinds[0]), h("td", {}, face), h("td", {}, colour || ""),
    h("td", {}, where || ""), h("td", {}, thrower || ""));
}

// a row's die as the engine takes it (engine.entry.check_entered checks it again)
function entryDie(row, d) {
  const get = (f) => { const el = row.querySelector(`[data-field="${f}"]`); return el ? el.value : null; };
  const die = { kind: get("kind") || d.kinds[0], value: Number(get("value")) };
  if (get("colour")) die.colour = get("colour");
  const where = get("where");
  if (where === null) return die;
  if (where === "off") {
    die.field_status = "off";
    if (d.sides) die.thrower = get("thrower");
  } else {
    die.field_status = "field";
    if (where.startsWith("zone:")) die.zones = [where.slice(5)];
    if (where.startsWith("side:")) die.side = where.slice(5);
  }
  return die;
}

function entryForm(form) {
  const rows = form.dice.map((d, i) => entryRow(d, i, form.zone_names));
  // the colours in turn, so that a throw of everyone's dice starts as five of each
  const colours = [...new Set(form.dice.flatMap((d) => d.colours))];
  rows.forEach((row, i) => {
    const sel = row.querySelector('[data-field="colour"]');
    const per = Math.max(1, Math.round(form.dice.length / Math.max(1, colours.length)));
    if (sel && form.dice[i].colours.length > 1) sel.value = colours[Math.min(colours.length - 1, Math.floor(i / per))];
  });
  const what = t(`input.${form.type}`);
  const send = h("button", { type: "button", class: "primary", "data-entry-send": form.type },
    form.player ? t("entry.send_for", { what, player: form.player }) : t("entry.send", { what }));
  send.addEventListener("click", () => correct({ action: "input", input: Object.assign({ type: form.type },
    form.player ? { player: form.player } : {}, { dice: rows.map((row, i) => entryDie(row, form.dice[i])) }) }));
  return h("div", { class: "entry-form", "data-entry": form.type, "data-player": form.player || "" },
    h("h3", {}, form.player ? t("entry.title_for", { what, player: form.player }) : t("entry.title", { what })),
    h("p", { class: "muted" }, t("entry.how")),
    h("table", { class: "readings-list" }, ...rows), h("p", {}, send));
}

// what the referee typed into a reading's "correct to" box, kept across the list's redraws (every
// settled frame and every answer redraws it): reading id -> { raw: typed, shown: the value it corrects }
const typedValues = new Map();

async function refreshReadings() {
  let data;
  try {
    const r = await fetch("/api/readings", { cache: "no-store" });
    if (!r.ok) return;
    data = await r.json();
  } catch (e) { return; }
  const rows = [h("tr", {}, h("th", {}, t("admin.col.id")), h("th", {}, t("admin.col.die")), h("th", {}, t("admin.col.read_as")),
    h("th", {}, t("admin.col.confidence")), h("th", {}, ""), h("th", {}, t("admin.col.correct_to")))];
  // each die's picture cut from the settled frame (fix.js), so that a question is answered by looking
  const dice = data.dice || [];
  const img = dice.length ? await fixFrameImage(dice.map((r) => `${r.id}:${r.value}`).join(",")) : null;
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.valueFor : undefined;
  for (const r of dice) {
    // a value typed for this reading while it still shows what it showed is kept, never redrawn away
    const typed = typedValues.get(r.id);
    const box = h("input", { type: "number", value: typed && typed.shown === r.value ? typed.raw : r.value, "data-value-for": r.id });
    box.addEventListener("input", () => typedValues.set(r.id, { raw: box.value, shown: r.value }));
    rows.push(h("tr", { class: r.unsure ? "unsure" : "", "data-reading": r.id },
      h("td", {}, r.id), h("td", {}, fixCrop(img, r, 56), " ", `${r.colour ? tc(r.colour) : ""} ${r.kind}`), h("td", {}, r.value),
      h("td", {}, `${Math.round((r.confidence ?? 1) * 100)}%`),
      h("td", {}, r.unsure ? h("button", { "data-confirm": r.id, class: "primary" }, t("admin.confirm")) : "✔", " ",
        h("button", { "data-not-die": r.id }, t("admin.not_a_die"))),
      h("td", {}, ...candidateFaces(r).map((v) => [h("button", { "data-candidate-for": r.id, "data-value": v,
        class: "primary" }, String(v)), " "]), box, " ", h("button", { "data-set": r.id }, t("admin.set")))));
  }
  if ((data.not_dice || []).length) {  // a person said these are no dice: out of the throw, until put back
    rows.push(h("tr", {}, h("th", { colspan: "6" }, t("admin.not_dice"))));
    for (const r of data.not_dice) {
      rows.push(h("tr", { class: "not-die", "data-not-die-reading": r.id }, h("td", {}, r.id),
        h("td", {}, `${r.colour ? tc(r.colour) : ""} ${r.kind}`), h("td", {}, r.value), h("td", {}, ""),
        h("td", {}, h("button", { "data-is-die": r.id }, t("admin.is_a_die"))), h("td", {}, "")));
    }
  }
  const table = document.getElementById("readings");
  table.replaceChildren(...rows);
  if (focused) table.querySelector(`input[data-value-for="${focused}"]`)?.focus();
  // each answer names the version of the reading shown (a reading answered meanwhile: refused, 409)
  const versions = new Map([...(data.dice || []), ...(data.not_dice || [])].map((r) => [r.id, r.version ?? 0]));
  const v = (id) => versions.get(id) ?? 0;
  for (const b of table.querySelectorAll("button[data-not-die]")) {
    b.addEventListener("click", () => correct({ action: "not_a_die", reading: b.dataset.notDie, version: v(b.dataset.notDie) }));
  }
  for (const b of table.querySelectorAll("button[data-is-die]")) {
    b.addEventListener("click", () => correct({ action: "confirm", reading: b.dataset.isDie, version: v(b.dataset.isDie) }));
  }
  for (const b of table.querySelectorAll("button[data-confirm]")) {
    b.addEventListener("click", () => correct({ action: "confirm", reading: b.dataset.confirm, version: v(b.dataset.confirm) }));
  }
  for (const b of table.querySelectorAll("button[data-candidate-for]")) {  // one tap: a value the reader was torn between
    b.addEventListener("click", () => correct({ action: "set_value", reading: b.dataset.candidateFor,
      value: Number(b.dataset.value), version: v(b.dataset.candidateFor) }));
  }
  for (const b of table.querySelectorAll("button[data-set]")) {
    b.addEventListener("click", () => {
      const raw = table.querySelector(`input[data-value-for="${b.dataset.set}"]`).value;
      const value = Number(raw);
      if (!Number.isInteger(value)) { say(t("admin.not_whole", { raw }), false); return; }
      typedValues.delete(b.dataset.set);
      correct({ action: "set_value", reading: b.dataset.set, value, version: v(b.dataset.set) });
    });
  }
}

// The answers that taught the table a die's picture (issue 29: a logged answer with `learnt`) and
// not yet taken back: each with a button posting `unlearn` for its reading. The last 500 events.
async function refreshTaught(total) {
  let events;
  try {
    const r = await fetch(`/api/events?offset=${Math.max(0, total - 500)}&limit=500&lang=${LANG}`, { cache: "no-store" });
    if (!r.ok) return;
    events = (await r.json()).events || [];
  } catch (e) { return; }
  const taught = new Map();
  for (const e of events) {
    const d = (e.kind === "control" && e.data) || {};
    if (d.learnt && d.reading) taught.set(d.reading, { e, learnt: d.learnt });
    else if (d.correction === "unlearn") taught.delete(d.reading);
  }
  const rows = [...taught.values()].map(({ e, learnt }) => h("li", { "data-taught": e.data.reading },
    `${e.text || e.data.correction} · ${t("admin.taught_a", { kind: learnt.kind, value: learnt.value })} `,
    h("button", { "data-unlearn": e.data.reading }, t("admin.forget"))));
  const list = document.getElementById("taught");
  list.replaceChildren(...(rows.length ? rows : [h("li", { class: "muted" }, t("admin.taught_none"))]));
  for (const b of list.querySelectorAll("button[data-unlearn]")) {
    b.addEventListener("click", () => correct({ action: "unlearn", reading: b.dataset.unlearn }));
  }
}

function onSnapshot(snap) {
  document.getElementById("title").textContent = t("admin.heading", { table: snap.table, game: snap.game });
  statusPill(document.getElementById("status"), snap.status);
  document.getElementById("waiting").textContent = waitingFor(snap);
  emptyTableLine(document.getElementById("empty-table"), snap.empty_table, true);
  document.body.dataset.seq = snap.seq;
  const st = snap.state || {};
  const exp = st.expects || {};
  document.getElementById("expects").textContent = exp.kind
    ? t("admin.expects", { kind: typeof CATALOGUE[`input.${exp.kind}`] === "string" ? t(`input.${exp.kind}`) : exp.kind,
      players: tList(exp.players) || t("admin.anyone") }) : t("admin.over");
  const scores = st.scores || {};
  document.getElementById("scores").replaceChildren(...(snap.players || []).map((p) =>
    h("tr", {}, h("td", {}, h("span", { class: "swatch", style: `background:${colourOf(p.colour)}` }), p.name),
      h("td", { class: "score", "data-score": p.name }, scores[p.name] ?? "–"))));
  refreshReadings();
  refreshOffers();
  refreshTaught(Number(snap.seq) || 0);
}

live(onSnapshot);
