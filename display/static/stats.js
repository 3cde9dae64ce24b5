// The dice fairness page: per die a bar plot of face shares with 95 % whiskers (inline SVG).
"use strict";

function fmtP(p) {
  if (p < 1e-4) return p.toExponential(1);
  return p.toFixed(4);
}

function plot(die) {
  const W = 420, H = 190, L = 40, R = 10, T = 10, B = 30;
  const faces = die.faces;
  const top = Math.max(die.expected_share * 2, ...faces.map((f) => f.high)) * 1.05 || 1;
  const x = (i) => L + (i + 0.5) * (W - L - R) / faces.length;
  const y = (v) => T + (H - T - B) * (1 - v / top);
  const bw = Math.max(3, (W - L - R) / faces.length * 0.6);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "fair-plot", role: "img",
    "aria-label": `${die.die}: face shares with 95 % intervals` });
  for (const v of [0, top / 2, top]) {
    svg.append(s("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }),
      s("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end", class: "axis" }, `${Math.round(v * 100)}%`));
  }
  faces.forEach((f, i) => {
    svg.append(
      s("rect", { x: x(i) - bw / 2, y: y(f.share), width: bw, height: y(0) - y(f.share), class: "bar",
        "data-face": f.face }, s("title", {}, `${f.face}: ${f.count} (${(f.share * 100).toFixed(1)} %, ` +
          `95 % ${(f.low * 100).toFixed(1)}–${(f.high * 100).toFixed(1)} %)`)),
      s("line", { x1: x(i), x2: x(i), y1: y(f.low), y2: y(f.high), class: "whisker" }),
      s("line", { x1: x(i) - bw / 4, x2: x(i) + bw / 4, y1: y(f.low), y2: y(f.low), class: "whisker" }),
      s("line", { x1: x(i) - bw / 4, x2: x(i) + bw / 4, y1: y(f.high), y2: y(f.high), class: "whisker" }),
      s("text", { x: x(i), y: H - B + 16, "text-anchor": "middle", class: "axis" }, f.face));
  });
  svg.append(s("line", { x1: L, x2: W - R, y1: y(die.expected_share), y2: y(die.expected_share),
    class: "expected" }));
  return svg;
}

function card(die) {
  return h("section", { class: die.flagged ? "die-card flagged" : "die-card", "data-die": die.die,
    "data-flagged": die.flagged ? "yes" : "no" },
    h("h2", {}, h("span", { class: "swatch", style: `background:${colourOf(die.colour)}` }),
      `${die.table} · ${die.colour || "no colour"} ${die.kind}`),
    h("p", { class: "verdict" }, die.note),
    h("p", { class: "muted" }, `${die.rolls} rolls · χ² ${die.chi2.toFixed(1)} (df ${die.df}) · p ${fmtP(die.p)}`),
    plot(die));
}

async function load() {
  const r = await fetch("/api/stats", { cache: "no-store" });
  const box = document.getElementById("dice");
  if (!r.ok) {
    box.replaceChildren(h("p", {}, `cannot load the dice statistics (${r.status})`));
    return;
  }
  const dice = (await r.json()).dice || [];
  const flagged = dice.filter((d) => d.flagged).length;
  document.getElementById("summary").textContent = dice.length
    ? `${dice.length} dice, ${flagged} flagged` : "No scored dice yet.";
  box.replaceChildren(...dice.map(card));
  document.body.dataset.loaded = "yes";
}

document.getElementById("reload").addEventListener("click", load);
load();
