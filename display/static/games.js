// One picture per game, drawn as inline SVG from the engine's state JSON.
// Every renderer is defensive: a key it does not find is simply not drawn, and a
// game it does not know gets the generic view (scores + the state's fields).
"use strict";

const GAME_TITLES = {
  "die-angler": "Die-angler", "dice-hunter": "Dice Hunter", "nozoku-dice": "Nozoku Dice",
  "dicetar-wars": "DICETAR WARS", "dice-fighter": "Dice Fighter", "demo-sum": "Demo: sum of faces",
};
const NEEDS_READINGS = new Set(["dicetar-wars", "dice-fighter"]);
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
  const info = [`${st.phase || ""} game`, st.round ? `round ${st.round}/${st.rounds_in_phase || "?"}` : "",
    st.final_round ? "final round" : "", st.current_player ? `${st.current_player}'s turn` : "",
    st.roll ? `roll ${st.roll} of 3` : "", `deck: ${st.deck_remaining ?? "?"} left`,
    `chips left: ${st.chip_supply ?? "?"}`].filter(Boolean).join(" · ");
  svg.append(label(10, 22, info, { fill: "var(--dim)" }));
  const kept = (st.kept || []).slice();
  (st.dice || []).forEach((v, i) => {
    const k = kept.indexOf(v);
    const isKept = k >= 0;
    if (isKept) kept.splice(k, 1);
    svg.append(dieSvg(10 + i * 62, 36, 52, v, { colour: playerColour_(snap, st.current_player) || "white",
      highlight: isKept }));
  });
  if (!(st.dice || []).length) svg.append(label(10, 70, "no dice rolled yet this turn", { fill: "var(--dim)" }));
  svg.append(label(340, 60, (st.kept || []).length ? `kept: ${st.kept.join(" ")}` : "", { fill: "var(--accent)" }));
  const tileCard = (x, y, id, owner) => {
    const t = tiles[id] || { label: id, points: "?" };
    const g = s("g", { class: "tile", "data-tile": id, "data-owner": owner || "" });
    g.append(s("rect", { x, y, width: 96, height: 54, rx: 6, fill: owner ? colourOf(playerColour_(snap, owner)) : "#f4ecd8",
      stroke: "#000", "stroke-opacity": 0.35 }));
    const ink = owner && !["white", "yellow"].includes(playerColour_(snap, owner)) ? "#fff" : "#222";
    g.append(s("text", { x: x + 48, y: y + 22, "text-anchor": "middle", "font-size": 13, fill: ink }, t.label || id));
    g.append(s("text", { x: x + 48, y: y + 44, "text-anchor": "middle", "font-size": 17, "font-weight": 700, fill: ink },
      String(t.points)));
    return g;
  };
  svg.append(label(10, 120, "Face up", { fill: "var(--dim)", "font-size": 13 }));
  faceUp.forEach((id, i) => svg.append(tileCard(10 + (i % 8) * 110, 128 + Math.floor(i / 8) * 62, id, null)));
  const top = 128 + Math.ceil(Math.max(faceUp.length, 1) / 8) * 62 + 14;
  players.forEach((p, r) => {
    const y = top + r * 80;
    svg.append(s("rect", { x: 10, y: y + 6, width: 14, height: 14, rx: 3, fill: colourOf(playerColour_(snap, p)) }));
    svg.append(label(30, y + 19, `${p} · chips ${((st.chips || {})[p]) ?? 0}`));
    ((st.holdings || {})[p] || []).forEach((id, i) => svg.append(tileCard(170 + i * 104, y, id, p)));
  });
  svg.setAttribute("viewBox", `0 0 900 ${top + players.length * 80}`);
  if (st.reversal && st.reversal !== "reserve") {
    svg.append(label(600, 120, st.reversal === "face_up" ? "reversal tile is out" : `reversal tile: ${st.reversal}`,
      { fill: "var(--warn)", "font-size": 13 }));
  }
  return svg;
}

// -- DICETAR WARS: the board with every die in place (board millimetres) --------------
function renderDicetar(snap, readings) {
  const st = snap.state || {};
  const board = first(st, "board", "layout") || {};
  const zones = first(board, "zones") || first(st, "zones") || [];
  const w = first(board, "width_mm", "width") || 600;
  const hgt = first(board, "height_mm", "height") || 400;
  const svg = svgBox(w, hgt + 40);
  svg.append(s("rect", { x: 0, y: 0, width: w, height: hgt, fill: "#1d3b2a", rx: 8 }));
  const zlist = Array.isArray(zones) ? zones : Object.entries(zones).map(([k, v]) => Object.assign({ name: k }, v));
  for (const z of zlist) {
    const poly = first(z, "polygon", "polygon_mm", "points") || [];
    if (!poly.length) continue;
    const mult = first(z, "multiplier", "mult");
    svg.append(s("polygon", { points: poly.map((p) => p.join(",")).join(" "), fill: "rgba(240,180,41,.10)",
      stroke: "var(--accent)", "stroke-width": 1.5 }));
    const cx = poly.reduce((a, p) => a + p[0], 0) / poly.length;
    const cy = poly.reduce((a, p) => a + p[1], 0) / poly.length;
    if (mult !== undefined) svg.append(label(cx, cy, `×${mult}`, { "text-anchor": "middle", "font-size": 22, fill: "var(--accent)", opacity: 0.7 }));
  }
  let dice = first(st, "dice", "board_dice", "on_board") || [];
  if (!Array.isArray(dice) || !dice.some((d) => d && first(d, "centre_mm", "center_mm"))) dice = readings || [];
  for (const d of dice) {
    const c = first(d, "centre_mm", "center_mm");
    if (!c) continue;
    const owner = first(d, "owner", "player");
    const colour = d.colour || playerColour_(snap, owner);
    const size = 16;
    svg.append(dieSvg(c[0] - size / 2, c[1] - size / 2, size, Object.assign({}, d, { colour }), {}));
    const pts = first(d, "points", "score");
    const shown = pts !== undefined ? pts : (d.min_multiplier ? d.value * d.min_multiplier * (d.stack_level ? 4 : 1) : null);
    if (shown !== null) svg.append(label(c[0], c[1] - size / 2 - 3, String(shown), { "text-anchor": "middle", "font-size": 11, fill: "#fff" }));
  }
  const half = first(st, "half"); const thrower = first(st, "thrower", "current_player");
  svg.append(label(6, hgt + 28, [half ? `half ${half}` : "", thrower ? `${thrower} throws` : "",
    st.doubled ? "second player's score doubled" : ""].filter(Boolean).join(" · ") || " ", { fill: "var(--dim)" }));
  return svg;
}

// -- Dice Fighter: HP, damage and burst tokens, dice by side -----------------------------
function renderDiceFighter(snap, readings) {
  const st = snap.state || {};
  const names = (snap.players || []).map((p) => p.name);
  const svg = svgBox(900, 300);
  const hp = first(st, "hp") || {};
  const dmg = first(st, "damage_tokens", "damage") || {};
  const burst = first(st, "burst_tokens", "burst") ?? 0;
  names.forEach((p, i) => {
    const x = i === 0 ? 20 : 470;
    const hpv = typeof hp === "object" ? asNumber(hp[p]) : undefined;
    const tokens = typeof dmg === "object" ? asNumber(dmg[p]) ?? 0 : 0;
    svg.append(s("rect", { x, y: 10, width: 410, height: 30, rx: 6, fill: "#2a313c" }));
    const frac = hpv ? Math.max(0, 1 - (tokens * 10) / hpv) : 1;
    svg.append(s("rect", { x, y: 10, width: 410 * frac, height: 30, rx: 6, fill: colourOf(playerColour_(snap, p)) }));
    svg.append(label(x + 8, 31, `${p}  HP ${hpv ?? "?"}  damage ${tokens * 10}`, { "font-weight": 700, "data-hp": p }));
    for (let t = 0; t < Math.min(tokens, 20); t++) {
      svg.append(s("circle", { cx: x + 12 + t * 20, cy: 58, r: 8, fill: "var(--bad)" }));
    }
  });
  const burstN = typeof burst === "number" ? burst : Object.values(burst).reduce((a, b) => a + (b || 0), 0);
  svg.append(label(450, 95, burstN ? `burst tokens: ${burstN} (+${burstN * 10} on the next hit)` : "", { "text-anchor": "middle", fill: "var(--accent)" }));
  svg.append(s("line", { x1: 450, y1: 110, x2: 450, y2: 290, stroke: "#ccc", "stroke-dasharray": "6 4" }));
  let sides = first(st, "sides", "dice_by_side");
  if (!sides) {
    sides = {};
    for (const r of readings || []) (sides[r.side || "?"] = sides[r.side || "?"] || []).push(r);
  }
  const keys = Object.keys(sides);
  keys.forEach((k, i) => {
    const x0 = i === 0 ? 40 : 490;
    const who = names.includes(k) ? k : (k === "a" ? names[0] : k === "b" ? names[1] : k);
    svg.append(label(x0, 130, `${who}'s side`, { fill: "var(--dim)" }));
    (sides[k] || []).forEach((d, j) => svg.append(dieSvg(x0 + j * 74, 145, 60, d, {})));
  });
  return svg;
}

// -- Die-angler: fish cards, carry-over and roll order -----------------------------------
function renderDieAngler(snap) {
  const st = snap.state || {};
  const svg = svgBox(900, 260);
  const card = first(st, "card", "current_card", "fish_card");
  const carried = first(st, "carried", "carry_over", "carried_over") || [];
  const drawCard = (x, y, c, note) => {
    const g = s("g", { class: "fish-card" });
    g.append(s("rect", { x, y, width: 130, height: 170, rx: 10, fill: "#d8ecf7", stroke: "#4a7ba0", "stroke-width": 2 }));
    const target = first(c, "target", "number");
    g.append(s("text", { x: x + 65, y: y + 70, "text-anchor": "middle", "font-size": 44, "font-weight": 800, fill: "#0f3b5c" },
      target !== undefined ? String(target) : "?"));
    const conds = first(c, "conditions", "condition") || [];
    const condText = Array.isArray(conds) ? conds.map((x) => typeof x === "object" ? JSON.stringify(x) : String(x)).join(" ") : String(conds);
    g.append(s("text", { x: x + 65, y: y + 110, "text-anchor": "middle", "font-size": 14, fill: "#0f3b5c" }, condText.slice(0, 18)));
    g.append(s("text", { x: x + 65, y: y + 155, "text-anchor": "middle", "font-size": 12, fill: "#4a7ba0" },
      note || first(c, "name", "id") || ""));
    return g;
  };
  if (card) svg.append(drawCard(20, 20, card, "this bout"));
  (Array.isArray(carried) ? carried : []).forEach((c, i) => svg.append(drawCard(170 + i * 40, 30, c, "carried")));
  const order = first(st, "roll_order", "order") || [];
  svg.append(label(420, 40, "Roll order", { fill: "var(--dim)" }));
  (Array.isArray(order) ? order : []).forEach((p, i) => {
    const name = Array.isArray(p) ? p.join(" + ") : (typeof p === "object" ? JSON.stringify(p) : p);
    svg.append(label(420, 68 + i * 24, `${i + 1}. ${name}`));
  });
  const won = first(st, "cards", "won", "taken", "holdings") || {};
  let y = 215;
  svg.append(label(20, y, Object.entries(typeof won === "object" && !Array.isArray(won) ? won : {})
    .map(([p, cs]) => `${p}: ${Array.isArray(cs) ? cs.length : cs} card(s)`).join("   "), {}));
  const bout = first(st, "bout"); const left = first(st, "cards_left", "deck_remaining");
  y += 28;
  svg.append(label(20, y, [bout ? `bout ${bout}` : "", left !== undefined ? `${left} cards left` : "",
    carried.length ? `${carried.length} carried over` : ""].filter(Boolean).join(" · "), { fill: "var(--dim)" }));
  return svg;
}

// -- Nozoku Dice: the centre dice grouped by face ------------------------------------------
function renderNozoku(snap) {
  const st = snap.state || {};
  const centre = first(st, "centre", "center", "centre_dice") || [];
  let dice = [];
  if (Array.isArray(centre)) dice = centre.map((d) => (typeof d === "number" ? { value: d } : d));
  else for (const [colour, vals] of Object.entries(centre)) for (const v of vals || []) dice.push({ colour, value: asNumber(v) });
  const byFace = {};
  for (const d of dice) (byFace[d.value] = byFace[d.value] || []).push(d);
  const svg = svgBox(900, 120 + 6 * 50);
  svg.append(label(10, 22, `${dice.length} dice in the centre`, { fill: "var(--dim)" }));
  for (let f = 1; f <= 6; f++) {
    const y = 40 + (f - 1) * 56;
    svg.append(label(10, y + 30, `${f}`, { "font-size": 22, "font-weight": 700 }));
    (byFace[f] || []).forEach((d, i) => svg.append(dieSvg(40 + i * 50, y, 42, Object.assign({ kind: "d6" }, d), {})));
  }
  const wizard = first(st, "wizard", "rating");
  if (wizard !== undefined) svg.append(label(600, 22, typeof wizard === "object" ? JSON.stringify(wizard) : String(wizard), { fill: "var(--accent)" }));
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

function renderGame(snap, readings) {
  const fn = { "dice-hunter": renderDiceHunter, "dicetar-wars": renderDicetar, "dice-fighter": renderDiceFighter,
    "die-angler": renderDieAngler, "nozoku-dice": renderNozoku }[snap.game];
  try {
    return fn ? fn(snap, readings) : renderGeneric(snap);
  } catch (e) {
    // the engine's state changed shape: show it plainly rather than nothing
    console.error(e);
    return renderGeneric(snap);
  }
}
