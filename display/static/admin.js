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
  if (!who) { say("Write your name first: every correction is recorded with who made it.", false); whoBox.focus(); return; }
  let r;
  try {
    r = await fetch("/api/admin/correct", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ who, command }) });
  } catch (e) { say("The table did not answer; try again.", false); return; }
  const body = await r.json().catch(() => ({}));
  if (r.ok) say(body.message || "done", true);
  else say(body.error || `refused (${r.status})`, false);
}

for (const b of document.querySelectorAll("button[data-action]")) {
  b.addEventListener("click", () => correct({ action: b.dataset.action }));
}
// What the rules offer now (display/offers.py: the engine's choices and reveals), one button each.
async function refreshOffers() {
  let got;
  try {
    const r = await fetch("/api/admin/offers", { cache: "no-store" });
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
  const rows = [h("tr", {}, h("th", {}, "id"), h("th", {}, "die"), h("th", {}, "read as"), h("th", {}, "conf."),
    h("th", {}, ""), h("th", {}, "correct to"))];
  for (const r of data.dice || []) {
    const box = h("input", { type: "number", value: r.value, "data-value-for": r.id });
    rows.push(h("tr", { class: r.unsure ? "unsure" : "", "data-reading": r.id },
      h("td", {}, r.id), h("td", {}, `${r.colour || ""} ${r.kind}`), h("td", {}, r.value),
      h("td", {}, `${Math.round((r.confidence ?? 1) * 100)}%`),
      h("td", {}, r.unsure ? h("button", { "data-confirm": r.id, class: "primary" }, "Confirm") : "✔"),
      h("td", {}, box, " ", h("button", { "data-set": r.id }, "Set"))));
  }
  const table = document.getElementById("readings");
  table.replaceChildren(...rows);
  for (const b of table.querySelectorAll("button[data-confirm]")) {
    b.addEventListener("click", () => correct({ action: "confirm", reading: b.dataset.confirm }));
  }
  for (const b of table.querySelectorAll("button[data-set]")) {
    b.addEventListener("click", () => {
      const raw = table.querySelector(`input[data-value-for="${b.dataset.set}"]`).value;
      const value = Number(raw);
      if (!Number.isInteger(value)) { say(`"${raw}" is not a whole number`, false); return; }
      correct({ action: "set_value", reading: b.dataset.set, value });
    });
  }
}

function onSnapshot(snap) {
  document.getElementById("title").textContent = `Admin · ${snap.table} · ${snap.game}`;
  statusPill(document.getElementById("status"), snap.status);
  document.getElementById("waiting").textContent = snap.waiting_for || "";
  document.body.dataset.seq = snap.seq;
  const st = snap.state || {};
  const exp = st.expects || {};
  document.getElementById("expects").textContent = exp.kind
    ? `The game expects: ${exp.kind} from ${(exp.players || []).join(", ") || "anyone"}` : "The game is over.";
  const scores = st.scores || {};
  document.getElementById("scores").replaceChildren(...(snap.players || []).map((p) =>
    h("tr", {}, h("td", {}, h("span", { class: "swatch", style: `background:${colourOf(p.colour)}` }), p.name),
      h("td", { class: "score", "data-score": p.name }, scores[p.name] ?? "–"))));
  refreshReadings();
  refreshOffers();
}

live(onSnapshot);
