"""What a settled 1280x960 frame with a board costs the table: its perception step (controller.perceive:
the board's pose, the palette balanced by the board, the d6 reader with the table's vision.where steps,
the default [vision] config, on and off, and placing the dice on the board); the reader alone and the
classic pip reader on the same frames, same run (issue 19).

    nice -n 10 .venv/bin/python benchmarks/board_frame.py [--repeat 5] [--out FILE.md]

The frames are the DICETAR WARS demo session's six throws (tests/fixtures/sessions/dicetar-wars-demo:
rendered board with ArUco markers and a calibration; 5 or 10 dice each); the empty table is the
session's first frame (the motion gate labels it empty). CPU ms of this process, one OpenCV thread.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.harness import ROOT, add_smoke, run_header
from controller.config import VisionSection
from controller.perceive import BoardGeometry, Perceiver
from training.baseline import read_dice_classic
from vision.reader import default_reader

SESSION = ROOT / "tests" / "fixtures" / "sessions" / "dicetar-wars-demo"
#: the table's [vision] with every where-step off
NO_STEPS = VisionSection(
    empty_table=False, die_size=False, play_area=False, board_look=False, stacks_by_sides=False
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="times each frame is read per reader")
    ap.add_argument("--out", type=Path, help="write the table as Markdown here")
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:  # one pass over two frames
        args.repeat = 1
    cv2.setNumThreads(1)
    meta = json.loads((SESSION / "session.json").read_text())
    truth = json.loads((SESSION / "truth.json").read_text())
    geometry = BoardGeometry(meta["board"], str(SESSION / meta["calibration"]))
    empty = cv2.imread(str(SESSION / "00001.jpg"), cv2.IMREAD_COLOR)
    frames = [
        (cv2.imread(str(SESSION / t["frame"]), cv2.IMREAD_COLOR), len(t["dice"])) for t in truth["throws"]
    ][: 2 if args.smoke else None]
    reader = default_reader()
    # the table's own perception step (controller.perceive), [vision] as shipped and with every step off
    table = {
        on: Perceiver.of(reader, VisionSection() if on else NO_STEPS, geometry, kinds=("d6",))
        for on in (True, False)
    }
    for p in table.values():
        p.set_empty(empty)
    where = table[True].where
    reader.read(empty)  # load the models before timing

    def table_work(img: np.ndarray, steps_on: bool) -> int:
        return len(table[steps_on].perceive(img).dice)

    runs: dict[str, Any] = {
        "table: pose + d6 reader + where steps on + place": lambda img: table_work(img, True),
        "table: pose + d6 reader, where steps off + place": lambda img: table_work(img, False),
        "d6 reader alone, where steps on (pose solved for them)": lambda img: len(
            reader.read(img, where=where.steps(img, geometry.pose(img)))
        ),
        "d6 reader alone, where steps off": lambda img: len(reader.read(img, where=[])),
        "classic pip reader": lambda img: len(read_dice_classic(img)),
    }
    cpu: dict[str, list[float]] = {k: [] for k in runs}
    found: dict[str, list[int]] = {k: [] for k in runs}
    for _ in range(args.repeat):
        for img, _n in frames:
            for name, run in runs.items():  # interleaved: the machine's load falls on every reader alike
                c = time.process_time()
                found[name].append(run(img))
                cpu[name].append((time.process_time() - c) * 1000)
    classic = statistics.median(cpu["classic pip reader"])
    lines = [
        "| what | dice found / thrown (one pass) | median CPU ms | p95 CPU ms | x classic |",
        "|---|---|---|---|---|",
    ]
    thrown = sum(n for _, n in frames)
    for name in runs:
        v = sorted(cpu[name])
        med = statistics.median(v)
        lines.append(
            f"| {name} | {sum(found[name][: len(frames)])} / {thrown} | {med:.1f} | "
            f"{v[min(len(v) - 1, int(0.95 * len(v)))]:.1f} | {med / classic:.1f}x |"
        )
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    text = (
        run_header()
        + "\n"
        + (
            "\n".join(lines) + f"\n\n{len(frames)} frames x {args.repeat}; load average at the end {load} "
            f"on {os.cpu_count()} cores.\n"
        )
    )
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
