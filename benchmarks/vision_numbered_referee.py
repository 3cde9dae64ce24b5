"""Learning from the referee on a replayed session (issue 29 item 5): each answer about a numbered die
teaches the table that die's crop, so it asks less the longer it plays.

    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered_referee \\
        --out benchmarks/results/vision_numbered_referee.md

A session is one d20_lurig set-up (one physical d20, one camera set-up) replayed as a d20 table's
throws: each face's clip gives every STEP-th frame, the faces taken in turn (throw 1 shows the first
frame of face a's clip, throw 2 of face b's, ...), each frame at the table's scale
(`training.numbered.real.at_table`).  Each throw is read by the table's perception step
(`controller.perceive.Perceiver` with `vision.numbered.NumberedDice(("d20",))`); when the table
would ask (the die's reading under SURE, the die not found, or another reading under SURE), the
referee answers with the labelled face through `controller.corrections.RefereeLearning` (the table's
own code: the answer's crop is cut from the frame's JPEG, as the table keeps it, and learnt).

Modes, one run (MODES): no learning (the table before issue 29 item 5); learning as before session 14
(a face sure when the classifier agrees or when the referee's crops alone agree, `reader.TRUST_SUPPORT`,
`TRUST_MARGIN`); learning as now (the set's likeness weighed with the OCR head's evidence,
`reader.LEARNT_OCR`, a face also sure when the head reads it).
The held-out set-ups (d20_top, d20_wood) come first; the train set-ups (d20_color, d20_off-angle),
where the trust rule was chosen, after.  Within a clip frames are near-copies: a later frame of a
face is its clip's, as the issue's "learnt" figure reads a clip's last third after its first.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks import harness
from benchmarks.harness import REAL, imread, markdown_table, nearest_centre
from controller.adapters import TableReadings
from controller.config import VisionSection
from controller.corrections import RefereeLearning
from controller.perceive import Perceiver
from training.numbered.real import GROUPS, HELD_OUT_GROUPS, TABLE_SCALE, Lurig, at_table, load_lurig
from vision.numbered import NumberedDice
from vision.numbered.reader import LEARNT_OCR, TRUST_MARGIN, TRUST_SUPPORT, NumberedReader

SURE = 0.8
CENTRE_SHARE = 0.3
STEP = 2


@dataclass
class Session(harness.Tally):
    throws: int = 0
    asked: list[int] = field(default_factory=list)  # 1 a throw the table asked about, else 0
    readings: int = 0
    silent: int = 0
    sure_right: int = 0
    missed: int = 0
    learnt: int = 0
    ms: list[float] = field(default_factory=list)
    #: each die read surely and wrong: (throw, face, value read, confidence, learnt set or "")
    wrong: list[tuple[int, int, int, float, str]] = field(default_factory=list)


def throws(items: list[Lurig], step: int = STEP) -> list[Lurig]:
    """The session's throws: each clip's every `step`-th frame, the clips taken in turn."""
    clips: dict[str, list[Lurig]] = {}
    for x in sorted(items, key=lambda x: (x.clip, x.frame)):
        clips.setdefault(x.clip, []).append(x)
    rows = [c[::step] for c in clips.values()]
    out = []
    for i in range(max(len(r) for r in rows)):
        out += [r[i] for r in rows if i < len(r)]
    return out


def replay(
    items: list[Lurig], mode: str, limit: int | None = None, trust: tuple[int, float] | None = None
) -> Session:
    """One session replayed at a table of `mode` (MODES); `trust`: the trusted mode's (support,
    margin) instead of the reader's defaults."""
    support, margin = trust or (TRUST_SUPPORT, TRUST_MARGIN)
    reader = NumberedReader(
        trust_support=support if mode.startswith("learning, trusted") else None,
        trust_margin=margin,
        learnt_ocr=LEARNT_OCR if mode == MODES[-1] else None,
    )
    perceiver = Perceiver.of(NumberedDice(("d20",), None, reader), VisionSection(), kinds=("d20",))
    learning = RefereeLearning(perceiver)
    s = Session()
    for seq, x in enumerate(throws(items)[:limit], 1):
        img = imread(x.path)
        frame = at_table(img)
        seen = perceiver.perceive(frame, seq=seq)
        s.ms.append(seen.ms)
        dice = [d.to_json() for d in seen.dice]
        h, w = img.shape[:2]
        sh, sw = round(h * TABLE_SCALE), round(w * TABLE_SCALE)
        y0, x0 = (frame.shape[0] - sh) // 2, (frame.shape[1] - sw) // 2
        i = nearest_centre([(d["center"][0] - x0, d["center"][1] - y0) for d in dice], (sw, sh), CENTRE_SHARE)
        s.throws += 1
        s.readings += len(dice)
        others = [d for j, d in enumerate(dice) if j != i]
        s.silent += sum(d["confidence"] >= SURE for d in others)
        die: dict[str, Any] | None = None if i is None else dice[i]
        ask = any(d["confidence"] < SURE for d in others)
        if die is None:
            s.missed += 1
            ask = True
        elif die["confidence"] < SURE:
            ask = True
        elif die["value"] != x.face:
            s.silent += 1
            s.wrong.append((seq, x.face, die["value"], round(die["confidence"], 2), die.get("learnt", "")))
        else:
            s.sure_right += 1
        s.asked.append(int(ask))
        if ask and die is not None and mode != "no learning":
            _, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])  # as the table keeps it
            rs = TableReadings(seq, 0.0, dice)
            command = {"action": "set_value", "reading": die["id"], "value": x.face}
            checked = learning.answer("set_value", command, rs, "referee", "d20", (), jpeg.tobytes())
            checked.apply()
            s.learnt += "learnt" in checked.row
    return s


def share(part: list[int]) -> str:
    return f"{sum(part) / max(1, len(part)):.2f}" if part else "-"


def report(results: list[tuple[str, str, Session]]) -> str:
    rows = []
    for group, mode, s in results:
        q = max(1, len(s.asked) // 4)
        rows.append(
            [
                group,
                mode,
                s.throws,
                share(s.asked),
                share(s.asked[:q]),
                share(s.asked[-q:]),
                f"{s.sure_right} ({100 * s.sure_right / max(1, s.throws):.1f} %)",
                f"{200 * s.silent / max(1, s.readings):.2f} ({s.silent} of {s.readings})",
                s.missed,
                s.learnt,
                f"{np.median(s.ms):.0f}" if s.ms else "-",
            ]
        )
    head = (
        "session (d20_lurig set-up)",
        "table",
        "throws",
        "questions a throw",
        "first quarter",
        "last quarter",
        "scored unasked, right",
        "silent per 200 readings",
        "die not found",
        "crops learnt",
        "ms a throw (CPU)",
    )
    note = (
        f"Trust rule: a learnt face is sure without the classifier with at least {TRUST_SUPPORT} stored "
        f"crops of it alike and a margin of {TRUST_MARGIN} over any other face "
        "(`vision.numbered.reader.TRUST_SUPPORT`, `TRUST_MARGIN`)."
    )
    wrong = [
        f"- {group}, {mode}: "
        + "; ".join(
            f"throw {t}: a {f} read {v} at {c}" + (f" by {k}" if k else "") for t, f, v, c, k in s.wrong
        )
        for group, mode, s in results
        if s.wrong
    ]
    lines = [harness.run_header(), note, "", *markdown_table(head, rows), ""]
    if wrong:
        lines += ["Dice read surely and wrong (the silent errors that are not phantoms):", "", *wrong]
    return "\n".join(lines) + "\n"


#: no learning; learning as before session 14 (a learnt face read by the set alone, sure when the
#: classifier agrees or the referee's crops alone agree: `TRUST_SUPPORT`, `TRUST_MARGIN`); learning as
#: now (the set's likeness weighed with the OCR head's evidence, `LEARNT_OCR`, sure also when the head
#: reads the set's face)
MODES = (
    "no learning",
    "learning, trusted, the set alone (before)",
    "learning, trusted, with the OCR head (now)",
)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument(
        "--groups", nargs="*", default=None, help="d20_lurig set-ups (default: all, held out first)"
    )
    ap.add_argument("--limit", type=int, default=None, help="at most this many throws a session")
    ap.add_argument(
        "--trust",
        nargs="*",
        default=None,
        help="trust rules to compare, each SUPPORT,MARGIN (default: the reader's TRUST_SUPPORT, "
        "TRUST_MARGIN)",
    )
    ap.add_argument("--out", type=Path, default=None)
    harness.add_smoke(ap)
    args = ap.parse_args(argv)
    limit = 4 if args.smoke else args.limit
    groups = args.groups or [*HELD_OUT_GROUPS, *(g for g in GROUPS if g not in HELD_OUT_GROUPS)]
    lurig = load_lurig(args.real)
    results = []
    for group in groups:
        items = [x for x in lurig if x.group == group]
        name = f"{group} (held out)" if group in HELD_OUT_GROUPS else f"{group} (train)"
        results.append((name, MODES[0], replay(items, MODES[0], limit)))
        for mode in MODES[1:]:
            for rule in args.trust or [None]:
                if rule is None:
                    results.append((name, mode, replay(items, mode, limit)))
                    continue
                support, margin = rule.split(",")
                trust = (int(support), float(margin))
                results.append((name, f"{mode} {trust[0]}, {trust[1]}", replay(items, mode, limit, trust)))
    harness.write(report(results), args.out)


if __name__ == "__main__":
    main()
