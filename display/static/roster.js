// The table's roster of its dice on the admin page (issue 44 item 1; display/roster_page.py,
// controller/roster.py): one row a die (kind, owner, colour, size, notes, the faces taught), its owner
// and colour renamed in place, its size and notes set, or the die removed. Admin: the page's session.
"use strict";

function rosterSay(text, ok) {
  const m = document.getElementById("roster-msg");
  m.className = "msg " + (ok ? "ok" : "err");
  m.textContent = text;
}

async function rosterApi(body) {
  let r;
  try {
    r = await fetch("/api/admin/roster", { method: body ? "POST" : "GET", cache: "no-store",
      headers: { "Content-Type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
  } catch (e) { rosterSay(t("fix.no_answer"), false); return null; }
  const got = await r.json().catch(() => ({}));
  if (!r.ok) { rosterSay(got.error || t("fix.refused", { status: r.status }), false); return null; }
  return got;
}

async function rosterStep(command) {
  const who = document.getElementById("who").value.trim();
  if (!who) { rosterSay(t("fix.name_first"), false); document.getElementById("who").focus(); return; }
  const got = await rosterApi({ who, command });
  if (got) { rosterSay(LANG === "en" && got.message ? got.message : t("fix.done"), true); rosterRender(got); }
}

function rosterFaces(d) {
  if (!d.faces) return t("roster.no_faces");
  return t("roster.faces", { n: d.faces.taught.length, crops: d.faces.crops });
}

function rosterRow(d) {
  const input = (field, value, size) => h("input", { "data-field": field, value: value ?? "", size });
  const owner = input("owner", d.owner, 10), colour = input("colour", d.colour, 8);
  const sizeMm = input("size_mm", d.size_mm, 4), notes = input("appearance", d.appearance, 16);
  const save = h("button", { "data-save": d.id }, t("roster.save"));
  save.addEventListener("click", () => {
    const command = { action: "edit", id: d.id, owner: owner.value.trim(), colour: colour.value.trim(),
      appearance: notes.value.trim() };
    const mm = sizeMm.value.trim();
    command.size_mm = mm === "" ? null : Number(mm);
    rosterStep(command);
  });
  const remove = h("button", { "data-remove": d.id }, t("roster.remove"));
  remove.addEventListener("click", () => rosterStep({ action: "remove", id: d.id }));
  return h("tr", { "data-die": d.id }, h("td", {}, h("b", {}, d.kind), h("br"), h("small", {}, d.id)),
    h("td", {}, owner), h("td", {}, colour), h("td", {}, sizeMm, " mm"), h("td", {}, notes),
    h("td", { "data-faces": d.id }, rosterFaces(d)), h("td", {}, save, " ", remove));
}

function rosterRender(st) {
  document.getElementById("roster-path").textContent = st.path;
  const error = document.getElementById("roster-error");
  error.hidden = !st.error;
  error.textContent = st.error || "";
  const head = h("tr", {}, ...["roster.kind", "roster.owner", "roster.colour", "roster.size", "roster.notes",
    "roster.learnt", ""].map((k) => h("th", {}, k ? t(k) : "")));
  const rows = st.dice.length ? st.dice.map(rosterRow) : [h("tr", {}, h("td", { class: "muted", colspan: 7 }, t("roster.none")))];
  document.getElementById("roster").replaceChildren(head, ...rows);
}

(async () => { const got = await rosterApi(); if (got) rosterRender(got); })();
