"""Die colours with no palette file: before (the default palette, as the camera sees) and after
(the palette the table names them with, controller.perceive: the board's white and black balance the
light; each die named among the game's colours and white and black), same run; the table's naming
before issue 30 (the body's colour by `vision.face.body_labs`, Lab distance, lightness weighted 0.5)
and after (`vision.face.body_colour_labs`, `vision.palette.chroma_distance`); the chroma distance's
first weights (session 13, `vision.palette.session13`) beside today's; issue 30's body (the crop's
middle) beside issue 45's (the die told from its surroundings, pips left out: `vision.face.die_pixels`).

Scenes: the rendered test split (`tests/fixtures/rendered`, 150 scenes, white light of varied
strength) and the DICETAR WARS demo session's six throws, each also under held-out lights the
renderer never makes: a colour cast and an exposure change applied to the frame in linear light
(warm and very warm tungsten, cool shade, green fluorescent, dim, warm and dim).  Every frame is read once by
`vision.read_dice` (value, place and each die's body colour as the reader measures it); the same
body colours are then named both ways.  A die counts when a reading lies within 0.6 of a face of
its true top face's centre.

    nice -n 10 .venv/bin/python benchmarks/colours.py [--limit N] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

import vision.face
from benchmarks.harness import ROOT, add_smoke, run_header, write
from benchmarks.scenes import SCENES, load_scenes, match
from calibration.board import load_board
from calibration.boardlight import board_light
from calibration.camera import load_calibration, parse_calibration
from controller.config import VisionSection
from controller.perceive import BoardGeometry, Perceiver
from vision.palette import Palette, blue_before, session13

SESSION = ROOT / "tests" / "fixtures" / "sessions" / "dicetar-wars-demo"
#: held-out lights: linear-light gains (B, G, R) applied to the frame
LIGHTS: dict[str, tuple[float, float, float]] = {
    "as rendered": (1.0, 1.0, 1.0),
    "warm (tungsten)": (0.55, 0.82, 1.0),
    "very warm (2700 K, daylight camera)": (0.38, 0.68, 1.0),
    "cool (shade)": (1.0, 0.88, 0.72),
    "green (fluorescent)": (0.75, 1.0, 0.8),
    "dim (x0.45)": (0.45, 0.45, 0.45),
    "warm and dim": (0.3, 0.45, 0.55),
}
#: the column of the palette the table names the dice with
BEFORE_30 = "issue 21: board light; game colours + white/black; Lab distance"
S13 = "issue 30, session 13: chroma distance, its first weights"
AFTER_30 = "issue 30: board light; game colours + white/black; chroma distance; body from the crop's middle"
I45 = (
    "issue 45: as the table names them (issue 30's naming; the body told from its surroundings, "
    "pips left out)"
)
AFTER = "after (issue 45 item 3, second round): the same, blue a royal blue as cameras see it"
NOT_DICE = ("white", "black")  # what the table adds to the game's colours today (controller.adapters)


def cast(image: np.ndarray, gains: tuple[float, float, float]) -> np.ndarray:
    """The frame under another light: each channel scaled in linear light (then clipped, as a sensor)."""
    if gains == (1.0, 1.0, 1.0):
        return image
    v = image.astype(np.float32) / 255.0
    lin = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4) * np.asarray(gains, np.float32)
    lin = np.clip(lin, 0.0, 1.0)
    out = np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)
    return np.asarray(np.round(out * 255.0), np.uint8)


class _Recorder(Palette):
    """Names the i-th die the reader measures "i", keeping its body Lab (so both namings see it)."""

    def __init__(self) -> None:
        super().__init__({"x": (0.0, 0.0, 0.0)})
        object.__setattr__(self, "seen", [])

    def nearest_lab(self, lab: np.ndarray) -> tuple[str, float]:
        self.seen.append(np.asarray(lab, np.float64))  # type: ignore[attr-defined]
        return str(len(self.seen) - 1), 0.0  # type: ignore[attr-defined]


def body_colours(
    image: np.ndarray, read: Any, mode: bool, body: bool = True
) -> tuple[list[np.ndarray], list[Any]]:
    """The dice ``read`` (`vision.read_dice`) finds and the body Lab it names each by: as after issue 30
    (``mode``: `vision.face.body_colour_labs`) or as before (`vision.face.body_labs`); ``body``: the
    die told from its surroundings, pips left out (issue 45), else the crop's middle (issue 30)."""
    vision.face.COLOUR_BY_MODE, vision.face.COLOUR_BY_BODY = mode, body
    try:
        rec = _Recorder()
        readings = read(image, rec)
    finally:
        vision.face.COLOUR_BY_MODE, vision.face.COLOUR_BY_BODY = True, True
    return [rec.seen[int(r.colour)] for r in readings], readings  # type: ignore[attr-defined]


def frames() -> list[dict[str, Any]]:
    """Every frame with its truth dice, game colours, board and calibration."""
    out = []
    for t in load_scenes("test", SCENES):
        cam = t["camera"]
        cal = parse_calibration(
            {
                "camera_matrix": cam["camera_matrix"],
                "dist_coeffs": cam["dist_coeffs"],
                "image_size": t["image_size"],
            }
        )
        out.append(
            {
                "image": SCENES / t["image"],
                "dice": t["dice"],
                "colours": sorted({d["colour"] for d in t["dice"]}),
                "board": str(ROOT / t["board_file"]),
                "cal": cal,
                "source": "rendered",
            }
        )
    meta = json.loads((SESSION / "session.json").read_text())
    truth = json.loads((SESSION / "truth.json").read_text())
    for th in truth["throws"]:
        out.append(
            {
                "image": SESSION / th["frame"],
                "dice": th["dice"],
                "colours": sorted(set(meta["colours"].values())),
                "board": str(ROOT / "boards" / meta["board"]),
                "cal": load_calibration(SESSION / meta["calibration"]),
                "source": "session",
            }
        )
    return out


def run(limit: int = 0) -> dict[str, Any]:
    from vision.reader import default_reader, read_dice

    todo = frames()
    if limit:
        todo = todo[:limit] + [f for f in todo if f["source"] == "session"]
    boards: dict[str, Any] = {}
    tally: dict[str, Counter[str]] = {name: Counter() for name in LIGHTS}
    wrong: dict[str, Counter[str]] = {name: Counter() for name in LIGHTS}
    lights: list[dict[str, Any]] = []
    t_light: list[float] = []
    for f in todo:
        board = boards.setdefault(f["board"], load_board(f["board"]))
        cal = f["cal"]
        image0 = cv2.imread(str(f["image"]))
        for light, gains in LIGHTS.items():
            image = cast(image0, gains)
            labs, readings = body_colours(image, read_dice, True)
            old_labs, old_readings = body_colours(image, read_dice, False)
            mid_labs, _ = body_colours(image, read_dice, True, body=False)
            assert [r.center for r in readings] == [r.center for r in old_readings]
            pairs = match(f["dice"], [np.asarray(r.center) for r in readings])
            lab_default = blue_before(replace(Palette.default(), metric="lab"))  # before issue 30
            before_game = lab_default.only(set(f["colours"]) | set(NOT_DICE))
            # the palette the table names them with (controller.perceive: the board's pose, its light)
            table = Perceiver.of(default_reader(), VisionSection(), BoardGeometry.of(board, cal))
            t0 = time.perf_counter()
            pose = table.geometry.pose(image) if table.geometry is not None else None
            after = table.reading_palette(image, pose, f["colours"])
            t_light.append(time.perf_counter() - t0)
            try:
                if pose is None:
                    raise ValueError("no pose")
                if light == "as rendered":
                    lights.append(board_light(image, pose, cal, board).to_json())
            except ValueError:
                tally[light]["no board light"] += 1
            c = tally[light]
            c["dice"] += len(f["dice"])
            for i, j in pairs.items():
                want = f["dice"][i]["colour"]
                c["found"] += 1
                c[f"found {f['source']}"] += 1
                names = {
                    "before: default palette": lab_default.nearest_lab(old_labs[j])[0],
                    "before: default palette, game colours + white/black": before_game.nearest_lab(
                        old_labs[j]
                    )[0],
                    BEFORE_30: replace(blue_before(after), metric="lab").nearest_lab(old_labs[j])[0],
                    S13: session13(blue_before(after)).nearest_lab(mid_labs[j])[0],
                    AFTER_30: blue_before(after).nearest_lab(mid_labs[j])[0],
                    I45: blue_before(after).nearest_lab(labs[j])[0],
                    AFTER: after.nearest_lab(labs[j])[0],
                }
                for k, got in names.items():
                    c[k] += got == want
                    c[f"{k} | {f['source']}"] += got == want
                    if got != want and k.startswith("after"):
                        wrong[light][f"{want}->{got}"] += 1
    return {"tally": tally, "wrong": wrong, "frames": len(todo), "light_ms": 1000 * float(np.median(t_light))}


def markdown(res: dict[str, Any]) -> str:
    heads = [
        "before: default palette",
        "before: default palette, game colours + white/black",
        BEFORE_30,
        S13,
        AFTER_30,
        I45,
        AFTER,
    ]
    lines = [
        f"Frames: {res['frames']} (rendered test split + the DICETAR WARS demo's throws), each under "
        "every light; colour right among the dice the reader found.",
        "",
        "| light | dice found | " + " | ".join(heads) + " | after: wrong (truth->named) |",
        "|---|---|" + "---|" * (len(heads) + 1),
    ]
    for light, c in res["tally"].items():
        cells = [f"{100 * c[h] / max(1, c['found']):.2f} %" for h in heads]
        worst = ", ".join(f"{k} {n}" for k, n in res["wrong"][light].most_common(4)) or "-"
        lines.append(f"| {light} | {c['found']}/{c['dice']} | " + " | ".join(cells) + f" | {worst} |")
    lines += ["", f"Board light (pose + white/black read), median ms a frame: {res['light_ms']:.1f}"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=0, help="only the first N rendered scenes")
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    add_smoke(ap)
    args = ap.parse_args(argv)
    text = run_header(argv) + "\n" + markdown(run(1 if args.smoke else args.limit))
    write(text, args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
