// One picture per game, drawn as inline SVG from the engine's state JSON.
// Every renderer is defensive: a key it does not find is simply not drawn, and a
// game it does not know gets the generic view (scores + the state's fields).
"use strict";

const GAME_TITLES = {
  "die-angler": "Die-angler", "dice-hunter": "Dice Hunter", "nozoku-dice": "Nozoku Dice",
  "dicetar-wars": "DICETAR WARS", "dice-fighter": "Dice Fighter",
};
// Names in one language per page (display/names.py): the page's language (LANG, common.js: ?lang=ja or
// the table's [display] language) and the game's cards' and tiles' names by id in it, from /api/names
// (table.js loads them); every other word of a picture is t(key) from the page's catalogue.
let NAMES = {};
const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff\uff01-\uff60]/;
function inLanguage(name) {  // "Sardine (イワシ)" -> "Sardine" or "イワシ"
  const m = /^(.*?\S)\s*[(（]([^()（）]+)[)）]$/.exec(String(name ?? "").trim());
  if (m && JAPANESE.test(m[2]) && !JAPANESE.test(m[1])) return LANG === "ja" ? m[2].trim() : m[1];
  return name;
}
function nameOf(id, fallback) { return NAMES[id] ?? inLanguage(fallback ?? id); }
const NEEDS_READINGS = new Set(["dicetar-wars"]);
const NEEDS_BOARD = new Set(["dicetar-wars"]);
const PIP_AT = {
  1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

function first(obj, ...keys) {
  if (!obj || typeof obj !== "object") return undefined;
  for (const k of keys) if (obj[k] !== undefined && obj[k] !== null) return obj[k];
  return undefined;
}
function asNumber(v) { return typeof v === "number" ? v : (v && typeof v === "object" ? first(v, "value") : undefined); }
function lightInk(colour) { return ["white", "yellow"].includes(colour) ? "#222" : "#fff"; }

// One die at (x, y) (top-left), side `size`: pips for a d6, the number otherwise.
function dieSvg(x, y, size, die, opts) {
  const d = typeof die === "number" ? { kind: "d6", value: die } : (die || {});
  const value = asNumber(d.value ?? d);
  const colour = d.colour || (opts && opts.colour) || "white";
  const g = s("g", { class: "die" + (opts && opts.dim ? " dim" : ""), "data-value": value });
  g.append(s("rect", { x, y, width: size, height: size, rx: size * 0.18, fill: colourOf(colour),
    stroke: opts && opts.highlight ? "var(--accent)" : "rgba(0,0,0,.5)", "stroke-width": opts && opts.highlight ? 3 : 1.5,
    opacity: opts && opts.dim ? 0.45 : 1 }));
  const ink = lightInk(colour);
  if ((d.kind || "d6") === "d6" && PIP_AT[value]) {
    for (const [a, b] of PIP_AT[value]) {
      g.append(s("circle", { cx: x + size / 2 + a * size * 0.27, cy: y + size / 2 + b * size * 0.27,
        r: size * 0.085, fill: ink }));
    }
  } else {
    const text = d.kind === "d10p" ? String(value).padStart(2, "0") : String(value ?? "?");
    g.append(s("text", { x: x + size / 2, y: y + size * 0.64, "text-anchor": "middle",
      "font-size": size * 0.45, "font-weight": 700, fill: ink }, text));
  }
  return g;
}

function label(x, y, text, attrs) {
  return s("text", Object.assign({ x, y, fill: "var(--ink)", "font-size": 15 }, attrs || {}), text);
}

// How wide `text` is at font size `fs` in the page's font (measured, so that a Japanese name, whose
// glyphs are about twice as wide as Latin ones, is measured as it is drawn); a generous guess
// where no canvas can measure.
let measurer = null;
function textWidth(text, fs, weight) {
  if (measurer === null) measurer = document.createElement("canvas").getContext("2d") || false;
  if (!measurer) return [...text].reduce((w, c) => w + (JAPANESE.test(c) || c === "〜" ? 1.05 : 0.62), 0) * fs;
  measurer.font = `${weight || 400} ${fs}px ${getComputedStyle(document.body).fontFamily}`;
  return measurer.measureText(text).width * 1.04;  // a little room for the SVG's own rounding
}

// Text that never runs past `width`: a long text gets a smaller font (down to 60 %) and, past that,
// is squeezed to the width (SVG textLength), so a tile's label stays inside its tile.
function fittedText(x, y, width, size, text, attrs) {
  const weight = (attrs || {})["font-weight"];
  const full = textWidth(text, size, weight);
  const fs = full <= width ? size : Math.max(size * 0.6, size * width / full);
  const el = s("text", Object.assign({ x, y, "font-size": fs.toFixed(1) }, attrs || {}), text);
  if (textWidth(text, fs, weight) > width) {
    el.setAttribute("textLength", width); el.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return el;
}

function isOver(snap) {
  const st = snap.state || {};
  return snap.status === "over" || st.phase === "over" || Boolean(st.result);
}

// A game's picture with its lines of text under it (HTML: they wrap instead of being cut off).
function withLines(svg, lines) {
  const box = h("div", { class: "board-view" }, svg);
  for (const [key, text] of lines) if (text) box.append(h("p", { class: "board-line", [`data-${key}`]: "" }, text));
  return box;
}

function svgBox(w, hgt) {
  return s("svg", { class: "board", viewBox: `0 0 ${w} ${hgt}`, role: "img" });
}

function playerColour_(snap, name) {
  const p = (snap.players || []).find((x) => x.name === name);
  return p ? p.colour : null;
}

// -- Dice Hunter: the dice, the face-up tiles, and who holds what ------------------------
function renderDiceHunter(snap) {
  const st = snap.state || {};
  const tiles = st.tiles || {};
  const players = (snap.players || []).map((p) => p.name);
  const faceUp = st.face_up || [];
  const rowsNeeded = players.length;
  const svg = svgBox(900, 230 + rowsNeeded * 80);
  const over = isOver(snap);
  const info = (over ? [t("g.game_over")] : [st.phase ? t("hunter.phase", { phase: tw(st.phase) }) : "",
    st.round ? t("hunter.round", { round: st.round, of: st.rounds_in_phase || "?" }) : "",
    st.final_round ? t("hunter.final_round") : "", st.current_player ? t("g.turn_of", { player: st.current_player }) : "",
    st.roll ? t("hunter.roll", { roll: st.roll }) : ""]).concat([t("hunter.deck", { n: st.deck_remaining ?? "?" }),
    t("hunter.chips_left", { n: st.chip_supply ?? "?" })]).filter(Boolean).join(" · ");
  svg.append(label(10, 22, info, { fill: "var(--dim)", "data-info": "" }));
  const kept = (st.kept || []).slice();
  (st.dice || []).forEach((v, i) => {
    const k = kept.indexOf(v);
    const isKept = k >= 0;
    if (isKept) kept.splice(k, 1);
    svg.append(dieSvg(10 + i * 62, 36, 52, v, { colour: playerColour_(snap, st.current_player) || "white",
      highlight: isKept }));
  });
  if (!(st.dice || []).length && !over) svg.append(label(10, 70, t("hunter.no_dice"), { fill: "var(--dim)" }));
  svg.append(label(340, 60, (st.kept || []).length ? t("hunter.kept", { dice: st.kept.join(" ") }) : "", { fill: "var(--accent)" }));
  const tileCard = (x, y, id, owner) => {
    const tile = tiles[id] || { label: id, points: "?" };
    const name = nameOf(id, tile.label);
    const g = s("g", { class: "tile", "data-tile": id, "data-owner": owner || "" });
    g.append(s("rect", { x, y, width: 96, height: 54, rx: 6, fill: owner ? colourOf(playerColour_(snap, owner)) : "#f4ecd8",
      stroke: "#000", "stroke-opacity": 0.35 }));
    const ink = owner && !["white", "yellow"].includes(playerColour_(snap, owner)) ? "#fff" : "#222";
    g.append(fittedText(x + 48, y + 22, 86, 13, String(name || id), { "text-anchor": "middle", fill: ink }));
    g.append(s("text", { x: x + 48, y: y + 44, "text-anchor": "middle", "font-size": 17, "font-weight": 700, fill: ink },
      String(tile.points)));
    return g;
  };
  svg.append(label(10, 120, t("hunter.face_up"), { fill: "var(--dim)", "font-size": 13 }));
  faceUp.forEach((id, i) => svg.append(tileCard(10 + (i % 8) * 110, 128 + Math.floor(i / 8) * 62, id, null)));
  const top = 128 + Math.ceil(Math.max(faceUp.length, 1) / 8) * 62 + 14;
  players.forEach((p, r) => {
    const y = top + r * 80;
    svg.append(s("rect", { x: 10, y: y + 6, width: 14, height: 14, rx: 3, fill: colourOf(playerColour_(snap, p)) }));
    svg.append(label(30, y + 19, t("hunter.chips", { player: p, n: ((st.chips || {})[p]) ?? 0 })));
    ((st.holdings || {})[p] || []).forEach((id, i) => svg.append(tileCard(170 + i * 104, y, id, p)));
  });
  svg.setAttribute("viewBox", `0 0 900 ${top + players.length * 80}`);
  if (st.reversal && st.reversal !== "reserve") {
    svg.append(label(600, 120, st.reversal === "face_up" ? t("hunter.reversal_out") : t("hunter.reversal", { where: tw(st.reversal) }),
      { fill: "var(--warn)", "font-size": 13 }));
  }
  return svg;
}

// -- DICETAR WARS: the board with every die in place (board millimetres) --------------
// The board (outline, zones) comes from /api/board; each die's place from the camera's
// readings (board_center_mm, where the table placed it), matched to the engine's scored dice by their index in the throw.
function renderDicetar(snap, readings, board) {
  const st = snap.state || {};
  const outline = (board && board.outline) || [[0, 0], [420, 0], [420, 297], [0, 297]];
  const xs = outline.map((p) => p[0]); const ys = outline.map((p) => p[1]);
  const minX = Math.min(...xs); const minY = Math.min(...ys);
  const w = Math.max(...xs) - minX; const hgt = Math.max(...ys) - minY;
  const svg = s("svg", { class: "board", viewBox: `${minX - 10} ${minY - 10} ${w + 20} ${hgt + 56}`, role: "img" });
  svg.append(s("polygon", { points: outline.map((p) => p.join(",")).join(" "), fill: "#1d3b2a", stroke: "#3d5c48" }));
  for (const z of (board && board.zones) || []) {
    svg.append(s("polygon", { points: z.polygon.map((p) => p.join(",")).join(" "), fill: `rgba(240,180,41,${0.05 + (z.multiplier || 0) * 0.025})`,
      stroke: "rgba(240,180,41,.6)", "stroke-width": 1 }));
    const cx = z.polygon.reduce((a, p) => a + p[0], 0) / z.polygon.length;
    const cy = z.polygon.reduce((a, p) => a + p[1], 0) / z.polygon.length;
    if (z.multiplier !== undefined && z.multiplier !== null) {
      svg.append(label(cx, cy + 5, `×${z.multiplier}`, { "text-anchor": "middle", "font-size": 13, fill: "var(--accent)", opacity: 0.55 }));
    }
  }
  const scored = Array.isArray(st.table) ? st.table : [];
  const colours = st.colours || {};
  const size = 16;
  // dice lying on (or touching) each other form one group: drawn as a stack, lowest first, with one
  // label of their points ("12 + 24"), so that neither the dice nor their labels overprint
  const groups = [];
  (readings || []).forEach((r, i) => {
    const c = r.board_center_mm;
    if (!c) return;
    const sd = scored.find((x) => x.index === i) || {};
    const die = { r, sd, c, level: r.stack_level || 0 };
    const near = groups.find((g) => g.some((o) => Math.hypot(o.c[0] - c[0], o.c[1] - c[1]) < size));
    if (near) near.push(die); else groups.push([die]);
  });
  for (const group of groups) {
    group.sort((a, b) => a.level - b.level);
    const step = size * 0.45;
    const [x0, y0] = group[0].c;
    group.forEach(({ r, sd }, k) => {
      const owner = sd.owner;
      const colour = r.colour || colours[owner] || playerColour_(snap, owner);
      const g = dieSvg(x0 - size / 2 + k * step, y0 - size / 2 - k * step, size,
        { kind: "d6", value: r.value, colour }, { highlight: sd.stacked });
      g.setAttribute("data-owner", owner || "");
      if (r.id) g.setAttribute("data-fix", r.id);  // tap to fix (fix.js)
      if (sd.points !== undefined) g.setAttribute("data-points", sd.points);
      svg.append(g);
    });
    const points = group.map(({ sd }) => sd.points).filter((p) => p !== undefined);
    if (points.length) {
      const top = y0 - size / 2 - (group.length - 1) * step - 3;
      const cx = x0 + (group.length - 1) * step / 2;
      svg.append(label(cx, top, points.join(" + "), { "text-anchor": "middle", "font-size": 11,
        "font-weight": 700, class: "points-label", fill: points.some(Boolean) ? "#fff" : "var(--dim)" }));
    }
  }
  svg.setAttribute("viewBox", `${minX - 10} ${minY - 24} ${w + 20} ${hgt + 34}`);
  const prov = st.provisional || {};
  const over = isOver(snap);
  const parts = over ? [t("g.game_over"), st.half ? t("dicetar.halves_played", { n: st.half }) : ""]
    : [st.half ? t("dicetar.half", { n: st.half }) : "",
      st.step ? tw(st.step) : "", st.current_player ? t("dicetar.throws", { player: st.current_player }) : "",
      Object.keys(prov).length ? t("dicetar.this_half", { scores: tList(Object.entries(prov).map(([p, v]) => `${p} ${v}`)) }) : "",
      st.to_rethrow ? t("dicetar.to_rethrow", { n: st.to_rethrow }) : ""];
  const halves = Array.isArray(st.halves) ? st.halves : [];
  const halvesText = halves.map((hv, i) => t("dicetar.half_scores", { n: i + 1,
    scores: tList(Object.entries(hv.scores || hv).filter(([, v]) => typeof v === "number").map(([p, v]) => `${p} ${v}`)) })
    + (hv.doubled ? t("dicetar.doubled") : "")).join(" · ");
  return withLines(svg, [["info", parts.filter(Boolean).join(" · ")], ["halves", halvesText]]);
}

// -- Dice Fighter: HP, damage and burst tokens, dice by side -----------------------------
function renderDiceFighter(snap) {
  const st = snap.state || {};
  const names = (snap.players || []).map((p) => p.name);
  const info = st.players || {};
  const svg = svgBox(900, 330);
  names.forEach((p, i) => {
    const x = i === 0 ? 20 : 470;
    const pi = info[p] || {};
    const hp = pi.hp || 0; const tokens = pi.damage_tokens || 0;
    svg.append(s("rect", { x, y: 10, width: 410, height: 30, rx: 6, fill: "#2a313c" }));
    const frac = hp ? Math.max(0, (pi.hp_left ?? hp - tokens * 10) / hp) : 0;
    svg.append(s("rect", { x, y: 10, width: 410 * frac, height: 30, rx: 6, fill: colourOf(playerColour_(snap, p)) }));
    svg.append(label(x + 8, 31, t("fighter.bar", { player: p, fighter: pi.fighter ? nameOf(pi.fighter) : t("fighter.none"),
      left: pi.hp_left ?? "?", hp }),
      { "font-weight": 700, "data-hp": p }));
    for (let k = 0; k < Math.min(tokens, 20); k++) {
      svg.append(s("circle", { cx: x + 10 + k * 20, cy: 56, r: 7, fill: "var(--bad)", class: "damage-token" }));
    }
    svg.append(label(x, 84, [t("fighter.level", { n: pi.level ?? "?" }), t("fighter.ko_levels", { n: pi.ko_levels ?? 0 }),
      t("fighter.rung_out_count", { n: (st.rung_out || {})[p] ?? 0 })].join(" · "), { fill: "var(--dim)", "font-size": 13 }));
  });
  const burst = typeof st.burst_tokens === "number" ? st.burst_tokens : 0;
  for (let b = 0; b < burst; b++) svg.append(s("circle", { cx: 430 + b * 22, cy: 112, r: 8, fill: "var(--accent)", class: "burst-token" }));
  svg.append(label(450, 140, burst ? t("fighter.burst", { n: burst, plus: burst * 10 }) : (st.phase ? t("g.phase", { phase: tw(st.phase) }) : ""),
    { "text-anchor": "middle", fill: burst ? "var(--accent)" : "var(--dim)", "font-size": 14 }));
  svg.append(s("line", { x1: 450, y1: 150, x2: 450, y2: 320, stroke: "#ccc", "stroke-dasharray": "6 4" }));
  const dice = Array.isArray(st.dice) ? st.dice : [];
  names.forEach((p, i) => {
    const x0 = i === 0 ? 40 : 490;
    svg.append(label(x0, 172, t("fighter.side", { player: p, side: (info[p] || {}).side || "?" }), { fill: "var(--dim)" }));
    dice.filter((d) => d.owner === p).forEach((d, j) =>
      svg.append(dieSvg(x0 + j * 74, 185, 60, { kind: "d10p", value: d.value, colour: d.colour }, {})));
    if (!dice.some((d) => d.owner === p) && dice.length) svg.append(label(x0, 225, "<0>", { "font-size": 28 }));
  });
  const out = dice.filter((d) => d.rung_out);
  if (out.length) svg.append(label(450, 318, t("fighter.rung_out", { dice: tList(out.map((d) => `${tc(d.colour)} ${String(d.value).padStart(2, "0")}`)) }),
    { "text-anchor": "middle", fill: "var(--bad)", "font-size": 13 }));
  return svg;
}

// -- Die-angler: fish cards, carry-over and roll order -----------------------------------
function renderDieAngler(snap) {
  const st = snap.state || {};
  const svg = svgBox(900, 300);
  const drawCard = (x, y, c, note) => {
    const g = s("g", { class: "fish-card", "data-card": (c && c.id) || "" });
    g.append(s("rect", { x, y, width: 130, height: 170, rx: 10, fill: "#d8ecf7", stroke: "#4a7ba0", "stroke-width": 2 }));
    g.append(s("text", { x: x + 65, y: y + 28, "text-anchor": "middle", "font-size": 14, fill: "#0f3b5c" }, c ? nameOf(c.id, c.name) : ""));
    g.append(s("text", { x: x + 65, y: y + 85, "text-anchor": "middle", "font-size": 44, "font-weight": 800, fill: "#0f3b5c" },
      c && c.target !== undefined ? String(c.target) : "?"));
    const cond = (c && c.conditions) || {};
    const bits = [];
    if ((cond.faces || []).length) bits.push(cond.faces.join(" "));
    if ((cond.equals || []).length) bits.push(cond.equals.map((n) => "=".repeat(n)).join(" "));
    if (cond.distinct) bits.push("≠");
    g.append(s("text", { x: x + 65, y: y + 120, "text-anchor": "middle", "font-size": 16, fill: "#0f3b5c" }, bits.join("  ")));
    g.append(s("text", { x: x + 65, y: y + 158, "text-anchor": "middle", "font-size": 12, fill: "#4a7ba0" }, note || ""));
    return g;
  };
  const carried = Array.isArray(st.carried) ? st.carried : [];
  carried.forEach((id, i) => {
    const g = s("g", { class: "carried" });
    g.append(s("rect", { x: 20 + i * 10, y: 20 - i * 4, width: 130, height: 170, rx: 10, fill: "#9fc3da", stroke: "#4a7ba0" }));
    svg.append(g);
  });
  if (st.card) svg.append(drawCard(20 + carried.length * 10, 20 - carried.length * 4, st.card,
    carried.length ? t("angler.carried", { n: carried.length }) : t("angler.bout", { bout: st.bout ?? "?", of: st.bouts ?? "?" })));
  svg.append(label(190, 40, t("angler.order"), { fill: "var(--dim)" }));
  (Array.isArray(st.order) ? st.order : []).forEach((grp, i) => {
    const names = Array.isArray(grp) ? grp : [grp];
    svg.append(label(190, 66 + i * 24, `${i + 1}. ${names.join(" + ")}${i === st.group ? "  ◀" : ""}`));
  });
  let y = 40;
  svg.append(label(420, y, t("angler.rolls"), { fill: "var(--dim)" }));
  for (const [p, r] of Object.entries(st.rolls || {})) {
    y += 34;
    svg.append(label(420, y + 4, p, { "font-size": 14 }));
    (r.dice || []).forEach((d, i) => svg.append(dieSvg(480 + i * 34, y - 18, 28,
      { kind: r.rolled ? d.kind : "dN", value: r.rolled ? d.value : "?", colour: (st.colours || {})[p] || playerColour_(snap, p) },
      { dim: !r.rolled || d.mode === "re-approach" })));
    if (r.sum !== undefined) svg.append(label(480 + (r.dice || []).length * 34 + 6, y + 4, `= ${r.sum}${r.success ? " ✔" : ""}`,
      { fill: r.success ? "var(--ok)" : "var(--ink)" }));
  }
  const held = st.held || {};
  svg.append(label(20, 230, Object.entries(held).map(([p, cs]) => t("angler.fish", { player: p, n: cs.length })).join("    ")));
  const confirmed = st.confirmed || [];
  svg.append(label(20, 258, [st.phase ? t("g.phase", { phase: tw(st.phase) }) : "",
    confirmed.length && st.phase === "select" ? t("angler.confirmed", { players: tList(confirmed) }) : "",
    t("angler.face_down", { n: st.face_down ?? "?" })].filter(Boolean).join(" · "), { fill: "var(--dim)" }));
  return svg;
}

// -- Nozoku Dice: the centre dice grouped by face ------------------------------------------
function renderNozoku(snap) {
  const st = snap.state || {};
  const centre = Array.isArray(st.centre) ? st.centre : [];
  const byFace = {};
  for (const d of centre) (byFace[d.value] = byFace[d.value] || []).push(d);
  const svg = svgBox(900, 400);
  svg.append(label(10, 22, t("nozoku.info", { n: centre.length, round: st.round ?? "?", mode: st.mode ? tw(st.mode) : "" }), { fill: "var(--dim)" }));
  for (let f = 1; f <= 6; f++) {
    const y = 40 + (f - 1) * 56;
    svg.append(label(10, y + 30, `${f}`, { "font-size": 22, "font-weight": 700 }));
    (byFace[f] || []).forEach((d, i) => svg.append(dieSvg(40 + i * 48, y, 42, { kind: "d6", value: d.value, colour: d.colour }, {})));
  }
  const held = st.held || {};
  let y = 40;
  svg.append(label(640, y, t("nozoku.held"), { fill: "var(--dim)" }));
  for (const [p, ds] of Object.entries(held)) {
    y += 28;
    svg.append(label(640, y, t("nozoku.held_dice", { player: p, n: ds.length })));
  }
  if (st.rating) svg.append(label(640, y + 40, t("nozoku.rating", { magic: st.rating.magic, rating: tw(st.rating.rating) }), { fill: "var(--accent)" }));
  return svg;
}

// -- anything else: the state's fields as a list ------------------------------------------
function renderGeneric(snap) {
  const st = snap.state || {};
  const skip = new Set(["scores", "expects", "result", "game"]);
  const dl = h("dl", { class: "kv" });
  for (const [k, v] of Object.entries(st)) {
    if (skip.has(k)) continue;
    let text = typeof v === "object" ? JSON.stringify(v) : String(v);
    if (text.length > 160) text = text.slice(0, 157) + "…";
    dl.append(h("dt", {}, k), h("dd", {}, text));
  }
  const wrap = h("div", {});
  const last = st.last_roll && st.current_player !== undefined ? st.last_roll : null;
  if (last && Object.keys(last).length) {
    const svg = svgBox(900, 70 * Object.keys(last).length);
    Object.entries(last).forEach(([p, vals], r) => {
      svg.append(label(0, r * 70 + 38, p, { "font-size": 18 }));
      (vals || []).forEach((v, i) => svg.append(dieSvg(90 + i * 62, r * 70 + 6, 54, v, { colour: playerColour_(snap, p) })));
    });
    wrap.append(svg);
  }
  wrap.append(dl);
  return wrap;
}

function renderGame(snap, readings, board) {
  const fn = { "dice-hunter": renderDiceHunter, "dicetar-wars": renderDicetar, "dice-fighter": renderDiceFighter,
    "die-angler": renderDieAngler, "nozoku-dice": renderNozoku }[snap.game];
  try {
    const out = fn ? fn(snap, readings, board) : renderGeneric(snap);
    return out instanceof SVGElement ? withLines(out, []) : out;
  } catch (e) {
    // the engine's state changed shape: show it plainly rather than nothing
    console.error(e);
    return renderGeneric(snap);
  }
}
