"""End to end from pixels: what the table scores from a frame with its board (issue 21 item 7).

Each rendered scene is read by the table's own perception step (`controller.perceive.Perceiver.perceive`,
as `controller.table.Table.on_settled` calls it with a board and no palette file): the board's pose
from its markers, the palette cut to the game's colours and the colours of things that are not dice
and balanced by the board's white and black (`calibration.boardlight`), the `vision.where` steps the
table's default `[vision]` gives with a board (die size from the dice set, play area, board look; no
empty-table frame: the scenes have none), the view from the pose, the d6 reader, then
`calibration.geometry.place` (top faces from the reader's boxes, `fit="body"`, the dice set's sizes).
Nothing of the truth goes in but the game's colours; the rest is only compared with.

Per die (truth dice matched one to one with readings, nearest first, within 0.6 of a top face): found,
value, colour, zone (lowest multiplier and field status), stack (level >= 1 or not), and the points the
DICETAR WARS engine gives it (`engine.dicetar_wars`, its own `_score` on the whole throw, truth and
reading alike; DICETAR WARS scenes only: the Dice Fighter mat has no multipliers). A die's failure is
the first of missed / wrong value / wrong colour / wrong zone / wrong stack; a reading with no die is a
phantom. Times: CPU ms a 1280x960 frame for the whole table path (pose, board light, steps, reader,
place), one OpenCV thread.
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.harness import ROOT
from benchmarks.scenes import match
from calibration.board import load_board
from calibration.camera import parse_calibration
from controller.config import VisionSection
from controller.perceive import BoardGeometry, Perceiver
from engine.core import Die, Input, InputKind
from engine.dice_fighter import COLOURS as FIGHTER_COLOURS
from engine.dicetar_wars import DicetarWars, parse_board

FAILURES = ("missed", "wrong value", "wrong colour", "wrong zone", "wrong stack")
DICE_FIGHTER_COLOURS = sorted(FIGHTER_COLOURS)


def _engine(colours: list[str], board_file: str) -> DicetarWars:
    path = ROOT / board_file
    board = parse_board(tomllib.loads(path.read_text()), str(path))
    return DicetarWars(
        ["p1", "p2"], {"colours": dict(zip(["p1", "p2"], colours, strict=True))}, data={"board": board}
    )


def points(game: DicetarWars, dice: list[dict[str, Any]]) -> list[int] | None:
    """Each die's points as the engine scores the throw, or None when the engine refuses it."""
    inp = Input(InputKind.THROW, "p1", {"dice": dice})
    try:
        parsed = [Die.from_json(d) for d in dice]
        return [s.points for s in game._score(parsed, inp)]
    except (ValueError, KeyError):
        return None


def _die_json(d: dict[str, Any], rests_on: int | None) -> dict[str, Any]:
    out = {
        "kind": "d6",
        "value": int(d["value"]),
        "colour": d["colour"],
        "zones": list(d["zones"]),
        "field_status": d["field_status"],
        "card_slot": d.get("card_slot"),
        "stack_level": int(d["stack_level"]),
        "rests_on": rests_on,
    }
    if out["field_status"] == "off":
        out["zones"] = []
    return out


def size_bucket(size_mm: float) -> str:
    """A dice set's size as itself (14 mm); the test split's sizes (12-19 mm, any) in three bands."""
    if abs(size_mm - round(size_mm)) < 1e-6:
        return f"{size_mm:g} mm"
    for lo, hi in ((12.0, 14.0), (14.0, 16.0), (16.0, 19.0)):
        if size_mm < hi:
            return f"{lo:g}-{hi:g} mm"
    return "19 mm"


def scene_perceiver(
    truth: dict[str, Any], reader: Any, boards: dict[str, Any], vision: VisionSection | None = None
) -> tuple[Perceiver, np.ndarray, list[str]]:
    """A rendered scene as the table sees it: its perception step (``reader``, the scene's board,
    its camera's calibration and dice sizes; ``boards`` caches the boards by file), the scene's
    video frame, and the game's colours (the scene's)."""
    board = boards.setdefault(truth["board_file"], load_board(ROOT / truth["board_file"]))
    cam = truth["camera"]
    cal = parse_calibration(
        {
            "camera_matrix": cam["camera_matrix"],
            "dist_coeffs": cam["dist_coeffs"],
            "image_size": truth["image_size"],
        }
    )
    image = cv2.imread(str(Path(truth["_dir"]) / truth["image"]), cv2.IMREAD_COLOR)
    colours = sorted({d["colour"] for d in truth["dice"]})
    sizes = list(truth.get("die_sizes_mm") or [truth["die_size_mm"]])
    perceiver = Perceiver.of(
        reader, vision or VisionSection(), BoardGeometry.of(board, cal, "body", sizes), die_sizes_mm=sizes
    )
    return perceiver, np.asarray(image), colours


def read_scene(
    truth: dict[str, Any],
    reader: Any,
    boards: dict[str, Any],
    before: list[dict[str, Any]] | None = None,
    vision: VisionSection | None = None,
    empty: np.ndarray | None = None,
    expected: dict[str, int] | None = None,
) -> dict[str, Any]:
    """One frame through the table's own perception step (controller.perceive, the game's colours
    being the scene's): the game's readings as the table keeps them (dicts, placed: zones,
    min_multiplier, field_status, card_slot, stack_level, rests_on, footprint_mm), and the CPU ms it
    took.  ``before``: the readings of the throw scored before (the table's memory); ``empty``: the
    empty table the camera saw before the throw (None: none seen); ``expected``: how many dice of
    which colours the game says the throw shows (`game_counts`; None: the table is not told)."""
    perceiver, image, colours = scene_perceiver(truth, reader, boards, vision)
    seen = perceiver.perceive(
        image, empty=empty, colours=colours, place_colours=colours, before=before or [], expected=expected
    )
    if not seen.pose_found:
        return {"readings": [], "ms": seen.ms, "pose": False}
    if seen.board_problem is not None:
        raise ValueError(f"scene {truth['scene']}: {seen.board_problem}")
    # the game's dice (a die read in another colour is no game die); rests_on indexes this list
    dice = [d.to_json() for d in seen.dice]
    keep = [i for i, d in enumerate(dice) if d.get("colour") in colours]
    at = {i: n for n, i in enumerate(keep)}
    readings = []
    for i in keep:
        r = dice[i]
        r["rests_on"] = None if r.get("rests_on") is None else at[r["rests_on"]]
        r["support_hidden"] = bool(r.get("support_hidden"))
        readings.append(r)
    return {"readings": readings, "ms": seen.ms, "pose": True}


def game_counts(truth: dict[str, Any]) -> dict[str, int] | None:
    """How many dice of which colours the scene's game says a throw shows, by its rules (the engine's
    own constants): DICETAR WARS five of each player's colour (`engine.dicetar_wars.DICE_PER_PLAYER`),
    Dice Fighter three a player in its three colours; None for another board."""
    from engine import dice_fighter, dicetar_wars

    colours = sorted({d["colour"] for d in truth["dice"]})
    if truth["board"] == "dicetar-wars":
        return {c: dicetar_wars.DICE_PER_PLAYER for c in colours}
    if truth["board"] == "dice-fighter":
        return {"|".join(DICE_FIGHTER_COLOURS): 2 * dice_fighter.DICE_PER_PLAYER}
    return None


def evaluate(
    scenes: list[dict[str, Any]],
    reader: Any,
    earlier: Path | None = None,
    vision: VisionSection | None = None,
    empty: Any = None,
    counts: bool = False,
    visible_first: bool = False,
) -> dict[str, Any]:
    """Every scene read as the table reads it (``vision``: the table's ``[vision]``, default as
    shipped).  ``earlier``: a folder of earlier frames
    (tools/render/generate.py --earlier); then only the scenes with one, each read after it as the
    table would (the earlier frame's readings are the ``before`` of calibration.memory).  ``empty``: a
    function of a scene's truth giving its empty table (`benchmarks.scenes.empty_frame`; None: the
    table has seen none).  ``counts``: the table is told how many dice of which colours the game
    expects (`game_counts`, as `controller.perceive.throw_colours` tells it); ``visible_first``: a
    reading is matched to a die whose top face is seen before one hidden under it (`scenes.match`).
    Each die's row says whether the game's count question (a colour short of its dice: "a die lying
    under another cannot be seen, say its colour and value") covers it: ``count_asked``."""
    cv2.setNumThreads(1)
    boards: dict[str, Any] = {}
    dice_rows: list[dict[str, Any]] = []
    phantoms: list[dict[str, Any]] = []
    scene_rows: list[dict[str, Any]] = []
    for truth in scenes:
        before = None
        if earlier is not None:
            path = earlier / f"scene_{truth['scene']:04d}.json"
            if not path.exists():
                continue
            first = {**json.loads(path.read_text()), "_dir": str(earlier)}
            before = read_scene(
                first, reader, boards, vision=vision, empty=None if empty is None else empty(first)
            )["readings"]
        rule = game_counts(truth)
        got = read_scene(
            truth,
            reader,
            boards,
            before,
            vision,
            None if empty is None else empty(truth),
            expected=rule if counts else None,
        )
        readings = got["readings"]
        dice = truth["dice"]
        pairs = match(dice, [np.asarray(r["center"], np.float64) for r in readings], visible_first)
        # the game's count question (engine.dicetar_wars / dice_fighter read_throw): a group of colours
        # short of the dice the game expects: the referee says where the die not seen lies
        short = {
            k for k, n in (rule or {}).items() if sum(1 for r in readings if r["colour"] in k.split("|")) < n
        }
        back = {j: i for i, j in pairs.items()}
        read_json = [_die_json(r, r["rests_on"]) for r in readings]
        colours = sorted({d["colour"] for d in dice})
        scored = truth["board"] == "dicetar-wars"
        t_pts = r_pts = None
        if scored:
            game = _engine(colours, truth["board_file"])
            t_pts = points(game, [_die_json(d, d["rests_on"]) for d in dice])
            r_pts = points(game, read_json)
        for j in range(len(readings)):
            if j not in back:
                phantoms.append(
                    {
                        "scene": truth["scene"],
                        "stacked": readings[j]["stack_level"] > 0,
                        "unsure": bool(readings[j].get("unsure")),
                    }
                )
        under = {d["rests_on"] for d in dice if d["rests_on"] is not None}
        centres = np.asarray([d["center_mm"] for d in dice], np.float64).reshape(-1, 2)
        for i, d in enumerate(dice):
            j = pairs.get(i)
            row = {
                "covered": i in under,
                # on another die, or beside one (centres under 1.5 faces apart): where dice touch
                "crowded": d["stack_level"] > 0
                or any(
                    k != i and np.hypot(*(centres[k] - centres[i])) < 1.5 * d["size_mm"]
                    for k in range(len(dice))
                ),
                # an upper die over a die of another colour: its colour is one short, the case the
                # memory can tell from a die picked up or knocked away
                "over_other": d["rests_on"] is not None and dice[d["rests_on"]]["colour"] != d["colour"],
                # a die on its own colour: white on the board's paper, red on a red (x8) zone
                "low_contrast": (d["colour"] == "white" and not d["zones"] and d["field_status"] != "off")
                or (d["colour"] == "red" and d["min_multiplier"] == 8),
                # within 2 mm of a zone's edge (or the field's)
                "edge": float(d.get("clearance_mm", 99.0)) < 2.0,
                "scene": truth["scene"],
                "size": size_bucket(d["size_mm"]),
                "colour": d["colour"],
                "stacked": d["stack_level"] > 0,
                "cocked": d["cocked"],
                "found": j is not None,
                # the count question asks for this die (not seen) or for the die under it (not seen)
                "count_asked": any(
                    dice[k]["colour"] in g.split("|") and k not in pairs
                    for g in short
                    for k in ([i] if j is None else [d["rests_on"]] if d["rests_on"] is not None else [])
                ),
            }
            if j is None:
                row["failure"] = "missed"
            else:
                r = readings[j]
                checks = [
                    ("wrong value", r["value"] == d["value"]),
                    ("wrong colour", r["colour"] == d["colour"]),
                    (
                        "wrong zone",
                        (r["min_multiplier"], r["field_status"]) == (d["min_multiplier"], d["field_status"])
                        or d["stack_level"] > 0,  # a raised die scores by the die under it
                    ),
                    ("wrong stack", (r["stack_level"] > 0) == (d["stack_level"] > 0)),
                ]
                row["failure"] = next((k for k, ok in checks if not ok), None)
                row["stack_got"] = r["stack_level"] > 0
                # what the table asks about the die's support: a raised die with no die seen under it
                # (before issue 45, and still), and a die whose support the frame cannot tell (issue 45)
                row["support_hidden"] = bool(r.get("support_hidden"))
                row["support_asked"] = bool(r.get("support_options"))
                # a die whose colour lies between two of the scene's colours is asked whose it is (issue 45)
                near = r.get("colour_near")
                row["colour_asked"] = near in colours and near != r["colour"]
                row["carried"] = bool(r.get("carried"))
                row["value_ok"] = checks[0][1]
                row["colour_ok"] = checks[1][1]
            if scored:
                row["score_ok"] = (
                    j is not None and t_pts is not None and r_pts is not None and t_pts[i] == r_pts[j]
                )
            dice_rows.append(row)
        totals_ok = None
        if scored and t_pts is not None:
            want = Counter()
            for d, p in zip(dice, t_pts, strict=True):
                want[d["colour"]] += p
            have: Counter[str] = Counter()
            if r_pts is not None:
                for d, p in zip(read_json, r_pts, strict=True):
                    have[d["colour"]] += p
            totals_ok = r_pts is not None and all(want[c] == have[c] for c in colours)
        scene_rows.append(
            {"scene": truth["scene"], "ms": got["ms"], "totals_ok": totals_ok, "pose": got["pose"]}
        )
    return {"dice": dice_rows, "phantoms": phantoms, "scenes": scene_rows}


def _ratio(ok: int, n: int) -> str:
    return f"{100.0 * ok / n:.2f} % ({ok}/{n})" if n else "n/a (0)"


def summary(res: dict[str, Any]) -> list[tuple[str, str]]:
    dice, ph, sc = res["dice"], res["phantoms"], res["scenes"]
    found = [d for d in dice if d["found"]]
    scored = [d for d in dice if "score_ok" in d]
    tot = [s for s in sc if s["totals_ok"] is not None]
    tp = sum(1 for d in found if d["stacked"] and d["stack_got"])
    fp = sum(1 for d in found if not d["stacked"] and d["stack_got"]) + sum(1 for p in ph if p["stacked"])
    fn = sum(1 for d in dice if d["stacked"] and not (d["found"] and d["stack_got"]))
    ms = np.array([s["ms"] for s in sc]) if sc else np.zeros(1)
    open_dice = [d for d in dice if not d["covered"]]
    missed = [d for d in dice if not d["found"]]
    return [
        ("scenes (frames)", str(len(sc))),
        ("dice", str(len(dice))),
        ("dice found (target >= 99 %)", _ratio(len(found), len(dice))),
        (
            "dice found, leaving out the dice under another die",
            _ratio(sum(d["found"] for d in open_dice), len(open_dice)),
        ),
        (
            "missed dice: under another die / cocked / flat in plain view",
            f"{sum(d['covered'] for d in missed)} / {sum(d['cocked'] for d in missed)} / "
            f"{sum(not d['covered'] and not d['cocked'] for d in missed)}",
        ),
        (
            "missed flat in plain view: on or beside another die (centres < 1.5 faces apart) / apart",
            f"{sum(d['crowded'] for d in missed if not d['covered'] and not d['cocked'])} / "
            f"{sum(not d['crowded'] for d in missed if not d['covered'] and not d['cocked'])}",
        ),
        ("phantoms: readings of a game colour on no die (target 0)", str(len(ph))),
        ("value right, all dice (missed = wrong)", _ratio(sum(d["value_ok"] for d in found), len(dice))),
        (
            "colour right, all dice (board-balanced, game colours only; missed = wrong)",
            _ratio(sum(d["colour_ok"] for d in found), len(dice)),
        ),
        (
            "per-die score right, DICETAR WARS engine (target >= 99 %)",
            _ratio(sum(d["score_ok"] for d in scored), len(scored)),
        ),
        (
            "scenes with every colour's total exact, DICETAR WARS (target >= 90 %)",
            _ratio(sum(bool(s["totals_ok"]) for s in tot), len(tot)),
        ),
        ("upper dice of stacks found as stacked, one frame: precision (target >= 95 %)", _ratio(tp, tp + fp)),
        ("upper dice of stacks found as stacked, one frame: recall (target >= 95 %)", _ratio(tp, tp + fn)),
        ("frames whose board pose failed", str(sum(1 for s in sc if not s["pose"]))),
        (
            "CPU ms a 1280x960 frame with its board, one core: median / p95 (target <= 60)",
            f"{np.median(ms):.1f} / {np.percentile(ms, 95):.1f}",
        ),
    ]


def by_size(res: dict[str, Any]) -> list[str]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in res["dice"]:
        groups[d["size"]].append(d)
    lines = [
        "| die size | dice | found | value right | colour right | score right (DICETAR WARS) | "
        + " | ".join(FAILURES)
        + " |",
        "|---|---|---|---|---|---|" + "---|" * len(FAILURES),
    ]
    for size in sorted(groups, key=lambda s: float(s.split()[0].split("-")[0])):
        g = groups[size]
        f = [d for d in g if d["found"]]
        sc = [d for d in g if "score_ok" in d]
        fails = Counter(d["failure"] for d in g)
        cells = [
            _ratio(len(f), len(g)),
            _ratio(sum(d["value_ok"] for d in f), len(g)),
            _ratio(sum(d["colour_ok"] for d in f), len(g)),
            _ratio(sum(d["score_ok"] for d in sc), len(sc)),
            *(str(fails[k]) for k in FAILURES),
        ]
        lines.append(f"| {size} | {len(g)} | " + " | ".join(cells) + " |")
    fails = Counter(d["failure"] for d in res["dice"])
    lines.append(
        "| all | "
        + str(len(res["dice"]))
        + " | | | | | "
        + " | ".join(str(fails[k]) for k in FAILURES)
        + " |"
    )
    return lines


def by_colour(res: dict[str, Any]) -> list[str]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in res["dice"]:
        groups[d["colour"]].append(d)
    lines = [
        "| die colour | dice | " + " | ".join(FAILURES) + " | of the missed: flat in plain view |",
        "|---|---|" + "---|" * (len(FAILURES) + 1),
    ]
    for c in sorted(groups):
        fails = Counter(d["failure"] for d in groups[c])
        plain = sum(1 for d in groups[c] if not d["found"] and not d["covered"] and not d["cocked"])
        lines.append(
            f"| {c} | {len(groups[c])} | " + " | ".join(str(fails[k]) for k in FAILURES) + f" | {plain} |"
        )
    return lines


#: why a die was missed, first that applies (the breakdown of the missed dice by cause)
MISS_CAUSES = (
    ("under another die", lambda d: d["covered"]),
    ("on another die (upper die of a stack)", lambda d: d["stacked"]),
    ("cocked", lambda d: d["cocked"]),
    ("touching or beside another die (centres < 1.5 faces apart)", lambda d: d["crowded"]),
    ("on its own colour (white on the paper, red on a x8 zone)", lambda d: d["low_contrast"]),
    ("within 2 mm of a zone's edge", lambda d: d["edge"]),
    ("apart, in plain view, on a contrasting colour", lambda d: True),
)


def missed_causes(res: dict[str, Any]) -> list[str]:
    """The missed dice by cause (first that applies), with how many dice of each kind there are."""
    dice = res["dice"]
    lines = [
        "| cause (first that applies) | missed | dice of that kind found | missed: white / red / other |",
        "|---|---|---|---|",
    ]
    left = list(dice)
    for name, test in MISS_CAUSES:
        group = [d for d in left if test(d)]
        left = [d for d in left if not test(d)]
        miss = [d for d in group if not d["found"]]
        by = Counter(
            "white" if d["colour"] == "white" else "red" if d["colour"] == "red" else "other" for d in miss
        )
        lines.append(
            f"| {name} | {len(miss)} | {_ratio(len(group) - len(miss), len(group))} | "
            f"{by['white']} / {by['red']} / {by['other']} |"
        )
    return lines


def markdown(res: dict[str, Any], title: str) -> str:
    lines = [f"| end to end from pixels: {title} | value |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in summary(res)]
    lines += [
        "",
        "Per die size and kind of failure (a die's first failure; phantoms: "
        + str(len(res["phantoms"]))
        + "):",
        "",
    ]
    lines += by_size(res)
    lines += ["", "Per die colour (kind of failure):", ""]
    lines += by_colour(res)
    lines += ["", "Missed dice by cause:", ""]
    lines += missed_causes(res)
    return "\n".join(lines) + "\n"


MEMORY_ROWS = (
    "scenes (frames)",
    "dice",
    "dice found (target >= 99 %)",
    "per-die score right, DICETAR WARS engine (target >= 99 %)",
    "scenes with every colour's total exact, DICETAR WARS (target >= 90 %)",
    "upper dice of stacks found as stacked, one frame: precision (target >= 95 %)",
    "upper dice of stacks found as stacked, one frame: recall (target >= 95 %)",
)


def memory_markdown(one: dict[str, Any], mem: dict[str, Any], title: str) -> str:
    """The scenes with a stack, read alone and after the frame before the stacks landed."""
    a, b = dict(summary(one)), dict(summary(mem))
    carried = sum(1 for d in mem["dice"] if d.get("carried"))
    lines = [
        f"| stacks across throws: {title} | one frame alone | after the earlier frame "
        "(calibration/memory.py) |",
        "|---|---|---|",
    ]
    for k in MEMORY_ROWS:
        lines.append(f"| {k.replace(', one frame', '')} | {a[k]} | {b[k]} |")
    lines.append(f"| dice the memory carried (lower dice matched to a truth die) | - | {carried} |")

    def other(res: dict[str, Any]) -> str:
        up = [d for d in res["dice"] if d["over_other"]]
        return _ratio(sum(1 for d in up if d["found"] and d["stack_got"]), len(up))

    lines.append(
        f"| recall, upper dice over a die of another colour (the colour count shows the hidden die) | "
        f"{other(one)} | {other(mem)} |"
    )
    return "\n".join(lines) + "\n"
