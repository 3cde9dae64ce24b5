// Camera view: the latest settled frame with every reading drawn over it (SVG).
"use strict";

let shownReadingsSeq = -1;

function readingLabel(r) {
  const parts = [`${r.value}`, `${Math.round((r.confidence ?? 1) * 100)}%`];
  if (r.zones && r.zones.length) parts.push(r.zones.join("+"));
  if (r.side) parts.push(`side ${r.side}`);
  if (r.stack_level) parts.push(`stack ${r.stack_level}`);
  return (r.unsure ? "? " : "") + parts.join(" · ");
}

function drawOverlay(data, w, hgt) {
  const svg = document.getElementById("overlay");
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`);
  const items = (data.dice || []).filter((r) => Array.isArray(r.quad) && r.quad.length >= 3).map((r) => {
    const g = s("g", { class: "reading" + (r.unsure ? " unsure" : ""), "data-reading": r.id });
    g.append(s("polygon", { points: r.quad.map((p) => p.join(",")).join(" ") }));
    const top = r.quad.reduce((a, p) => (p[1] < a[1] ? p : a), r.quad[0]);
    g.append(s("text", { x: top[0] - 10, y: Math.max(18, top[1] - 8) }, readingLabel(r)));
    return g;
  });
  svg.replaceChildren(...items);
}

function drawTable(data) {
  const rows = [h("tr", {}, h("th", {}, "id"), h("th", {}, "die"), h("th", {}, "value"), h("th", {}, "conf."),
    h("th", {}, "zone"), h("th", {}, "side"))];
  for (const r of data.dice || []) {
    rows.push(h("tr", { class: r.unsure ? "unsure" : "" }, h("td", {}, r.id),
      h("td", {}, `${r.colour || ""} ${r.kind}`), h("td", {}, r.value),
      h("td", {}, `${Math.round((r.confidence ?? 1) * 100)}%${r.unsure ? " unsure" : ""}`),
      h("td", {}, (r.zones || []).join(", ") || "–"), h("td", {}, r.side || "–")));
  }
  document.getElementById("readings").replaceChildren(...rows);
}

async function refresh() {
  let data;
  try {
    const r = await fetch("/api/readings", { cache: "no-store" });
    if (!r.ok) return;
    data = await r.json();
  } catch (e) { return; }
  const img = document.getElementById("frame");
  const key = `${data.seq}:${JSON.stringify(data.dice.map((d) => [d.id, d.value, d.unsure]))}`;
  if (key === shownReadingsSeq) return;
  shownReadingsSeq = key;
  drawTable(data);
  const probe = new Image();
  probe.onload = () => {
    img.src = probe.src;
    document.getElementById("noframe").hidden = true;
    drawOverlay(data, probe.naturalWidth, probe.naturalHeight);
  };
  probe.onerror = () => { document.getElementById("noframe").hidden = false; };
  probe.src = `/api/frame.jpg?k=${encodeURIComponent(key)}`;
}

live(() => refresh());
