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
  const box = document.getElementById("offers");
  const buttons = (got.offers || []).map((o) => {
    const b = h("button", { "data-offer": o.choice, "data-player": o.player || "" },
      o.player ? `${o.player}: ${o.label}` : o.label);
    b.addEventListener("click", () => correct({ action: "input", input: o.input }));
    return b;
  });
  box.replaceChildren(...(buttons.length ? buttons : [h("span", { class: "muted" }, got.why || "")]));
}

async function refreshReadings() {
  let data;
  try {
    const r = await fetch("/api/readings", { cache: "no-store" });
    if (!r.ok) return;
    data = await r.json();
  } catch (e) { return; }
  const rows = [h("tr", {}, h("th", {}, t("admin.col.id")), h("th", {}, t("admin.col.die")), h("th", {}, t("admin.col.read_as")),
    h("th", {}, t("admin.col.confidence")), h("th", {}, ""), h("th", {}, t("admin.col.correct_to")))];
  for (const r of data.dice || []) {
    const box = h("input", { type: "number", value: r.value, "data-value-for": r.id });
    rows.push(h("tr", { class: r.unsure ? "unsure" : "", "data-reading": r.id },
      h("td", {}, r.id), h("td", {}, `${r.colour ? tc(r.colour) : ""} ${r.kind}`), h("td", {}, r.value),
      h("td", {}, `${Math.round((r.confidence ?? 1) * 100)}%`),
      h("td", {}, r.unsure ? h("button", { "data-confirm": r.id, class: "primary" }, t("admin.confirm")) : "✔"),
      h("td", {}, ...candidateFaces(r).map((v) => [h("button", { "data-candidate-for": r.id, "data-value": v,
        class: "primary" }, String(v)), " "]), box, " ", h("button", { "data-set": r.id }, t("admin.set")))));
  }
  const table = document.getElementById("readings");
  table.replaceChildren(...rows);
  for (const b of table.querySelectorAll("button[data-confirm]")) {
    b.addEventListener("click", () => correct({ action: "confirm", reading: b.dataset.confirm }));
  }
  for (const b of table.querySelectorAll("button[data-candidate-for]")) {  // one tap: a value the reader was torn between
    b.addEventListener("click", () => correct({ action: "set_value", reading: b.dataset.candidateFor,
      value: Number(b.dataset.value) }));
  }
  for (const b of table.querySelectorAll("button[data-set]")) {
    b.addEventListener("click", () => {
      const raw = table.querySelector(`input[data-value-for="${b.dataset.set}"]`).value;
      const value = Number(raw);
      if (!Number.isInteger(value)) { say(t("admin.not_whole", { raw }), false); return; }
      correct({ action: "set_value", reading: b.dataset.set, value });
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
