// Camera view: the latest settled frame with every reading drawn over it (SVG).
"use strict";

let shownReadingsSeq = -1;

function readingLabel(r) {
  const parts = [`${r.value}`, `${Math.round((r.confidence ?? 1) * 100)}%`];
  if (r.zones && r.zones.length) parts.push(r.zones.join("+"));
  if (r.side) parts.push(`side ${r.side}`);
  if (r.stack_level) parts.push(`stack ${r.stack_level}`);
  if (r.hidden) parts.push(r.carried ? `under ${r.under} (seen as ${r.seen_as})` : `under ${r.under}`);
  return (r.unsure ? "? " : "") + parts.join(" · ");
}

function drawOverlay(data, w, hgt) {
  const svg = document.getElementById("overlay");
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`);
  const fontSize = Math.max(12, Math.round(w / 64));
  const items = (data.dice || []).filter((r) => Array.isArray(r.quad) && r.quad.length >= 3).map((r, i) => {
    const g = s("g", { class: "reading" + (r.unsure ? " unsure" : "") + (r.hidden ? " covered" : ""), "data-reading": r.id,
      "data-fix": r.hidden ? null : r.id });  // tap to fix (fix.js)
    g.append(s("polygon", { points: r.quad.map((p) => p.join(",")).join(" ") }));
    // labels alternate above and below the dice so that neighbours do not overlap
    const xs = r.quad.map((p) => p[0]); const ys = r.quad.map((p) => p[1]);
    const cx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const y = i % 2 === 0 ? Math.max(fontSize, Math.min(...ys) - 8) : Math.min(hgt - 4, Math.max(...ys) + fontSize + 4);
    g.append(s("text", { x: cx, y, "text-anchor": "middle", "font-size": fontSize }, readingLabel(r)));
    return g;
  });
  svg.replaceChildren(...items);
}

function drawTable(data) {
  const rows = [h("tr", {}, h("th", {}, "id"), h("th", {}, "die"), h("th", {}, "value"), h("th", {}, "conf."),
    h("th", {}, "zone"), h("th", {}, "side"))];
  for (const r of data.dice || []) {
    rows.push(h("tr", { class: r.unsure ? "unsure" : "" }, h("td", {}, r.id),
      h("td", {}, `${r.colour || ""} ${r.kind}` + (r.hidden ? ` (hidden under ${r.under}` + (r.carried ? `, seen as ${r.seen_as})` : ")") : "")),
      h("td", {}, r.value),
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
  fixReadings = data.dice || [];
  const probe = new Image();
  probe.onload = () => {
    img.src = probe.src;  // shown only once a frame has loaded: never an empty or broken image
    img.hidden = false;
    document.getElementById("noframe").hidden = true;
    drawOverlay(data, probe.naturalWidth, probe.naturalHeight);
  };
  probe.onerror = () => { document.getElementById("noframe").hidden = false; };
  probe.src = `/api/frame.jpg?k=${encodeURIComponent(key)}`;
  const pic = new Image();  // the board picture (/api/board.png): shown once it has loaded
  pic.onload = () => {
    const shown = document.getElementById("boardpic");
    shown.src = pic.src;
    shown.hidden = false;
  };
  pic.src = `/api/board.png?k=${encodeURIComponent(key)}`;
}

live((snap) => {  // the question the table asks: its dice are answered, not undone (fix.js)
  fixQuestion = (snap && snap.question && snap.question.readings) || [];
  fixColours = (snap && snap.dice_colours) || [];
  refresh();
});
