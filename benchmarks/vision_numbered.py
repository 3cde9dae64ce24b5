"""Benchmark the numbered-dice reader: REAL photos never trained on first, then the held-out renders.

    nice -n 10 .venv/bin/python -m benchmarks.vision_numbered [--scenes DIR ...] [--out FILE.md]

Real photos (`benchmarks/vision_numbered_heldout.py`, split in `training/numbered/real.py`): the
d20_lurig set-ups held out, the d20 desk scenes and the negatives of `../shared/fixtures/real/`,
read as `dicetable read` reads (`read_all`), per models folder; they come first in the report.

Scenes: tests/fixtures/numbered/scene_*.jpg (1280x960 video frames) and
tests/fixtures/numbered_still/scene_*.jpg (3456x2592 stills), made by
tools/render_numbered/generate.py with the TEST generator; never used for training
or tuning.  Each set is reported on its own.  Reports detection
(true dice matched), kind accuracy, value accuracy per kind (kind and value right,
over all true dice of that kind), the confusions left, false readings, and the
time on one core (cv2.setNumThreads(1)): the detector per frame, and crop plus
classifier per die, median over frames.  The nadir-aware top-face net is given the nadir
from the board's pose solved from the markers in each frame (not the scene's true pose), as
the table does; `--models DIR,nadir=estimate` reads as `dicetable read --numbered` does
without a board.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.harness import (
    REAL,
    RESULTS,
    ROOT,
    add_smoke,
    markdown_table,
    run_header,
    shown,
    spaced,
    write,
)
from training.numbered.evaluate import Score, load_truth
from vision.numbered.labels import KINDS, parse_kinds
from vision.numbered.reader import (
    MODELS,
    OCR,
    SHRINKS,
    VIDEO_AREA,
    Copies,
    NumberedReader,
    scaled,
    still_copies,
)
from vision.palette import Palette

DEFAULT_OUT = RESULTS / "vision_numbered.md"
#: --smoke: real photos a set, rendered scenes a folder
SMOKE_PHOTOS, SMOKE_SCENES = 2, 2


def combined_cost(
    folder: Path, reader: NumberedReader, nadir_mode: str = "estimate", limit: int | None = None
) -> tuple[list[float], list[float], Score]:
    """Per frame: ms of the d6 reader alone and ms added by the numbered reader (as read_all runs
    them), and the score of read_all's merged readings (``limit``: that many scenes, spaced)."""
    from vision.numbered.combined import add_numbered, read_pips

    base: list[float] = []
    added: list[float] = []
    score = Score()
    for meta in spaced(sorted(folder.glob("scene_*.json")), limit):
        truth = load_truth(meta)
        img = cv2.imread(str(folder / truth["image"]))
        nadir = frame_nadir(img, truth, nadir_mode)
        add_numbered(img, read_pips(img), nadir=nadir, reader=reader)  # warm caches
        t0 = time.process_time()
        # a still's copies (read_all): made for the pip reader, shared with the numbered reader
        copies = still_copies(img) if reader.copy_stills else Copies(img, 1.0, _area_copy(img))
        d6 = read_pips(img, small=copies.video)
        t1 = time.process_time()
        merged = add_numbered(img, d6, nadir=nadir, reader=reader, copies=copies)
        t2 = time.process_time()
        base.append((t1 - t0) * 1000)
        added.append((t2 - t1) * 1000)
        score.add(truth["dice"], merged)
    return base, added, score


NADIRS = ("pose", "estimate", "none")
NADIR_TEXT = {
    "pose": "from the board's pose solved from its markers in each frame (as the table reads)",
    "estimate": "fitted to the frame's dice (as `dicetable read --numbered` without --board reads)",
    "none": "not used (the older top-face net)",
}


def frame_nadir(img: np.ndarray, truth: dict[str, Any], mode: str) -> tuple[float, float] | None:
    """The nadir the reader is given for a frame: with `mode` "pose", from the board's pose solved
    from the markers in the frame (as the table has it: the camera's intrinsics calibrated, the board
    layout configured; the scene's true pose is never used); else None (the reader fits it to the
    dice, or with "none" reads with the older top-face net)."""
    if mode != "pose":
        return None
    from calibration.board import load_board
    from calibration.camera import pi_camera3_calibration
    from controller.perceive import frame_nadir as solved

    h, w = img.shape[:2]
    return solved(img, pi_camera3_calibration(w, h), load_board(ROOT / truth["board_file"]))


def run(
    folder: Path, reader: NumberedReader, nadir_mode: str = "estimate", limit: int | None = None
) -> tuple[Score, list[float], list[float], int, str]:
    palette = Palette.default()
    score = Score()
    det_ms: list[float] = []
    die_ms: list[float] = []
    frames = 0
    size = "?"
    for meta in spaced(sorted(folder.glob("scene_*.json")), limit):
        truth = load_truth(meta)
        img = cv2.imread(str(folder / truth["image"]))
        if img is None:
            raise SystemExit(f"{meta}: image {truth['image']} is missing or unreadable")
        size = f"{img.shape[1]}x{img.shape[0]}"
        nadir = frame_nadir(img, truth, nadir_mode)  # not timed: the table solves the pose anyway
        reader.read(img, nadir=nadir)  # warm caches for this frame size
        t0 = time.process_time()
        # as reader.read: a still's copies, then the detector on the work image
        copies = still_copies(img) if reader.copy_stills else Copies(img, 1.0, None)
        work, k = copies.work, copies.k
        found = reader.detect(work, shrunk=copies.video)
        t1 = time.process_time()
        found = reader.locate(work, found, nadir=None if nadir is None else (nadir[0] / k, nadir[1] / k))
        crops = reader.crops(work, found)
        probs = reader.numeral_values(work, found, reader.classify(crops))
        readings = [scaled(r, k) for r in reader.readings(work, found, probs, palette)]
        t2 = time.process_time()
        det_ms.append((t1 - t0) * 1000)
        die_ms.append((t2 - t1) * 1000 / max(1, len(found)))
        score.add(truth["dice"], readings)
        frames += 1
    if not frames:
        raise SystemExit(f"{folder}: no scene_*.json files (expected the held-out scenes there)")
    return score, det_ms, die_ms, frames, size


def report(
    score: Score,
    det_ms: list[float],
    die_ms: list[float],
    frames: int,
    title: str,
    combined: tuple[list[float], list[float], Score] | None = None,
    top_face: bool = False,
    turns: int = 4,
    sure: float | None = None,
) -> str:
    total = sum(score.dice.values())

    def accuracy(kind: str) -> str:
        return f"{100 * score.value_accuracy(kind):.2f} %"

    lines = [
        f"## {title}",
        "",
        f"{frames} frames, {total} dice; one core (cv2.setNumThreads(1), onnxruntime one thread).",
        "",
        *markdown_table(
            ("kind", "dice", "found", "kind right", "value right", "value accuracy"),
            (
                (k, score.dice[k], score.found[k], score.kind_right[k], score.value_right[k], accuracy(k))
                for k in KINDS
            ),
        ),
    ]
    lines += [
        "",
        f"Kind accuracy (all dice, a missed die counts wrong): **{100 * score.kind_accuracy():.2f} %**.  "
        f"False readings (no die there): {score.false_readings}.",
        "",
        f"Taken without asking (confidence >= {score.sure}, the table's threshold): "
        f"{score.wrong_sure} of the {sum(score.found.values()) - sum(score.value_right.values())} wrong "
        f"readings of found dice, {score.false_sure} of the {score.false_readings} false readings; the "
        "table asks the referee about the rest.",
        "",
        "Targets (issue 6): kind >= 99.5 %: "
        + ("met" if score.kind_accuracy() >= 0.995 else "NOT met")
        + "; value >= 99 % per kind: "
        + ", ".join(f"{k} {'met' if score.value_accuracy(k) >= 0.99 else 'NOT met'}" for k in KINDS)
        + "; <= 3 ms per numbered die: per-die stages "
        + ("met" if statistics.median(die_ms) <= 3.0 else "NOT met")
        + (
            ""
            if combined is None
            else "; added by the numbered reader, its detector included, per numbered die "
            + ("met" if _added_per_die(score, frames, combined) <= 3.0 else "NOT met")
        )
        + " (below).",
        "",
        f"Time (CPU time, median over frames): detector {statistics.median(det_ms):.1f} ms per frame "
        f"(resizing the frame for it included; JPEG decoding not), "
        + ("top-face net + " if top_face else "")
        + f"crop + classifier {statistics.median(die_ms):.2f} ms per die (all of a frame's dice in one "
        + (
            f"batch, {turns} quarter turn{'s' if turns > 1 else ''} each)."
            if sure is None or turns == 1
            else f"batch; each read upright, and at {turns - 1} more quarter turns when under {sure} sure)."
        ),
        "",
    ]
    if combined is not None:
        base, added, merged = combined
        n_numbered = _numbered_per_frame(score, frames)
        lines += [
            f"With the pip-d6 reader (`vision.numbered.read_all`; the d6 reader reads a still shrunk to "
            "1280x960): the d6 reader alone takes "
            f"{statistics.median(base):.1f} ms per frame (median), the numbered reader adds "
            f"{statistics.median(added):.1f} ms per frame, {statistics.median(added) / n_numbered:.1f} ms "
            f"per numbered die at this set's {n_numbered:.1f} numbered dice per frame.  Merged: kind "
            f"accuracy {100 * merged.kind_accuracy():.2f} %, values "
            + ", ".join(f"{k} {100 * merged.value_accuracy(k):.2f} %" for k in KINDS)
            + f", false readings {merged.false_readings}.",
            "",
        ]
    lines += [
        "Confusions left (truth -> read, count; the numbered reader alone):",
        "",
    ]
    if not score.confusions:
        lines.append("none")
    common = score.confusions.most_common()
    for (a, b), n in common[:25]:
        lines.append(f"- {a} -> {b}: {n}")
    if len(common) > 25:
        lines.append(f"- ... {len(common) - 25} more pairs, {sum(n for _, n in common[25:])} dice")
    return "\n".join(lines) + "\n"


def _area_copy(img: np.ndarray) -> np.ndarray | None:
    """Session 6's copy of a still for the pip-d6 reader: one INTER_AREA resize (`copy=off`)."""
    h, w = img.shape[:2]
    s = (VIDEO_AREA / (w * h)) ** 0.5
    return None if s >= 0.75 else cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)


def _numbered_per_frame(score: Score, frames: int) -> float:
    return sum(v for k, v in score.dice.items() if k != "d6") / max(1, frames)


def _added_per_die(score: Score, frames: int, combined: tuple[list[float], list[float], Score]) -> float:
    """ms the numbered reader adds to a frame (median) per numbered die in the set's frames."""
    return statistics.median(combined[1]) / max(1e-9, _numbered_per_frame(score, frames))


def _files(models: Path) -> str:
    """The numbered model files in a folder, with the first 8 hex digits of their SHA-256."""
    got = [
        f"{p.name} {hashlib.sha256(p.read_bytes()).hexdigest()[:8]}"
        for p in sorted(models.glob("numbered_*.onnx"))
    ]
    return ", ".join(got)


def _short(p: Path) -> str:
    return shown(p)


def _probability(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if 0.0 <= v <= 1.0 else None


def _kinds(text: str) -> tuple[str, ...] | None:
    try:
        return parse_kinds(text.replace("/", ","))
    except ValueError:
        return None


def spec(text: str, ap: argparse.ArgumentParser) -> tuple[Path, dict[str, Any]]:
    """ "DIR[,key=value...]" -> (DIR, reader options); a bad key or value ends with a clear message."""
    folder, *pairs = text.split(",")
    opts: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key == "det_area" and value.isdigit() and int(value) >= 256:
            opts[key] = int(value)
        elif (key == "nadir" and value in NADIRS) or (key == "shrink" and value in SHRINKS):
            opts[key] = value
        elif key in ("turns", "numeral_turns") and value in ("1", "2", "4"):
            opts[key] = int(value)
        elif key in ("det", "sure") and _probability(value) is not None:
            opts["det_threshold" if key == "det" else key] = _probability(value)
        elif key == "sure" and value == "none":
            opts[key] = None
        elif key == "floor" and _probability(value) is not None:
            opts["die_floor"] = _probability(value)
        elif key == "kinds" and _kinds(value) is not None:
            opts[key] = _kinds(value)
        elif key == "ocr" and value in ("on", "off"):
            opts["ocr"] = OCR if value == "on" else False
        elif key in ("second", "copy", "backbone", "verify", "numeral") and value in ("on", "off"):
            opts[{"second": "second_look", "copy": "copy_stills", "numeral": "value_head"}.get(key, key)] = (
                value == "on"
            )
        else:
            ap.error(
                f"--models {text}: {pair!r} is not det_area=PIXELS (256 or more), "
                f"nadir={'|'.join(NADIRS)}, shrink={'|'.join(SHRINKS)}, turns=1|2|4, det=P, "
                "sure=P|none (P a probability), floor=P, numeral_turns=1|2|4, kinds=K/K/... (of d6, d10, "
                "d10p, d20: the real photos only), second=on|off, copy=on|off, backbone=on|off (on: "
                "numbered_backbone.onnx where the folder holds it; off: numbered_classifier.onnx, the "
                "default), verify=on|off (the not-a-die net numbered_notadie.onnx; on requires it in the "
                "folder), numeral=on|off (on: d20 values from the folder's numbered_numeral.onnx; off: "
                "the classifier's, the default) or ocr=on|off (the OCR head beside the classifier on d10, "
                "d10p and d20: on, the default since session 13; off: the classifier alone)"
            )
    if not Path(folder).is_dir():
        ap.error(f"--models {text}: {folder} is not a folder")
    return Path(folder), opts


def real_runs(
    specs: list[tuple[Path, dict[str, Any]]], root: Path, limit: int | None, table: bool = False
) -> str:
    """The real held-out section: each models folder read as `dicetable read` reads (`read_all`)."""
    from benchmarks.vision_numbered_heldout import report as real_report
    from benchmarks.vision_numbered_heldout import run as real_run
    from vision.numbered.combined import add_numbered, read_pips

    runs = []
    for models, spec_opts in specs:
        opts = {k: v for k, v in spec_opts.items() if k not in ("nadir", "kinds")}
        kinds = spec_opts.get("kinds", KINDS)
        reader = NumberedReader(models=models, estimate_nadir=spec_opts.get("nadir") != "none", **opts)

        def read(
            img: np.ndarray, reader: NumberedReader = reader, kinds: tuple[str, ...] = kinds
        ) -> list[Any]:
            copies = still_copies(img) if reader.copy_stills else Copies(img, 1.0, _area_copy(img))
            pips = read_pips(img, small=copies.video) if "d6" in kinds else []
            return add_numbered(img, pips, reader=reader, copies=copies, kinds=kinds)

        head = f" + {reader.numeral_file}" if reader.numeral_file else ""
        name = f"`{_short(models)}` ({reader.classifier_file}{head})" + "".join(
            f", {k}={v}" for k, v in spec_opts.items() if k != "kinds"
        )
        runs.append((name + f", kinds {','.join(kinds)}", real_run(read, root, limit, table)))
    return real_report(runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--real",
        type=Path,
        default=REAL,
        help="the shared real photos (d20_lurig, d20_desk_scenes, negatives)",
    )
    ap.add_argument("--real-only", action="store_true", help="the real photos alone, no renders")
    ap.add_argument(
        "--table-scale",
        action="store_true",
        help="d20_lurig read again at the table's scale (training.numbered.real.at_table), reported beside",
    )
    ap.add_argument(
        "--limit", type=int, help="at most this many real photos a set, evenly spaced (a quick look)"
    )
    ap.add_argument(
        "--scenes",
        type=Path,
        nargs="+",
        default=[ROOT / "tests" / "fixtures" / "numbered", ROOT / "tests" / "fixtures" / "numbered_still"],
    )
    ap.add_argument("--out", type=Path, help=f"where to store the report (default {shown(DEFAULT_OUT)})")
    ap.add_argument("--no-combined", action="store_true", help="skip the run with the pip-d6 reader")
    ap.add_argument(
        "--models",
        nargs="+",
        default=[str(MODELS)],
        metavar="DIR[,key=value...]",
        help="folders of numbered_*.onnx to compare, each reported in turn (default: the committed models);"
        " keys: det_area (pixels the detector sees, e.g. 307200 for session 2's detector), nadir (pose:"
        " from the board's markers, as the table does, the default; estimate: fitted to the dice; none:"
        " the older top-face net), shrink (halve: the default; area: one INTER_AREA resize), turns"
        " (quarter turns, 1, 2 or 4), det (the detector's peak threshold), sure (crops read less surely"
        " upright are read at the other turns; none: every crop at `turns` turns), second (on: read again"
        " the dice only the d6 reader found, combined.second_look; off: as session 6), copy (on: a still"
        " read through reader.still_copies; off: read whole, as session 6), backbone (on: the pretrained"
        " backbone's classifier, numbered_backbone.onnx; off: numbered_classifier.onnx, the default),"
        " verify (on: the not-a-die net, numbered_notadie.onnx, drops what it calls no die; off: without"
        " it; default: on when the folder holds it), numeral (on: d20 values from the numeral head,"
        " numbered_numeral.onnx; off: the classifier's, the default), ocr (on: the OCR head beside the"
        " classifier, the default; off: the classifier alone)",
    )
    ap.add_argument(
        "--turns",
        type=int,
        nargs="+",
        help="quarter turns the classifier averages (1, 2 or 4), one for all --models or one each "
        "(default: the reader's)",
    )
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.out is None and not args.smoke:
        args.out = DEFAULT_OUT
    scene_limit = SMOKE_SCENES if args.smoke else None
    if args.smoke:
        args.limit = min(args.limit or SMOKE_PHOTOS, SMOKE_PHOTOS)
    cv2.setNumThreads(1)
    parts = [
        "# Numbered dice reader: real held-out photos, then the held-out rendered scenes",
        "",
        run_header(argv),
    ]
    specs = [spec(m, ap) for m in args.models]
    turns = args.turns or [None]
    if len(turns) == 1:
        turns = turns * len(args.models)
    if len(turns) != len(args.models) or any(t not in (None, 1, 2, 4) for t in turns):
        ap.error(f"--turns: expected one value or one per --models folder, each 1, 2 or 4; got {args.turns}")
    if not (args.real / "d20_lurig" / "labels.csv").is_file():
        ap.error(f"--real: {args.real} has no d20_lurig/labels.csv (expected the shared real photos)")
    parts.append(real_runs(specs, args.real, args.limit, args.table_scale))
    for folder in [] if args.real_only else args.scenes:
        for (models, spec_opts), n_turns in zip(specs, turns, strict=True):
            opts = {k: v for k, v in spec_opts.items() if k != "kinds"}
            nadir_mode = str(opts.pop("nadir", "pose"))
            if n_turns is not None and "turns" not in opts:
                opts["turns"] = n_turns
            reader = NumberedReader(models=models, estimate_nadir=nadir_mode != "none", **opts)
            score, det_ms, die_ms, frames, size = run(folder, reader, nadir_mode, scene_limit)
            combined = None if args.no_combined else combined_cost(folder, reader, nadir_mode, scene_limit)
            title = f"{size} frames, JPEG q85: `{_short(folder)}`"
            if args.models != [str(MODELS)] or args.turns:
                title += f"; models `{_short(models)}`, {reader.turns} quarter turns"
                title += (
                    f" (crops read upright less surely than {reader.sure})" if reader.sure is not None else ""
                )
                title += f", detector peaks from {reader.det_threshold}"
                title += f", detector input {reader.det_area} px ({reader.shrink})"
            if reader.has_nadir_net:
                title += f"; nadir-aware top-face net, nadir: {NADIR_TEXT[nadir_mode]}"
            title += f"; classifier `{reader.classifier_file}`"
            title += f"; not-a-die net {'on' if reader.notadie is not None else 'off'}"
            if reader.numeral_file:
                title += f", d20 values from `{reader.numeral_file}`"
            title += "; OCR head " + ("beside the classifier" if reader.ocr is not None else "off")
            title += f"\n\nModels (SHA-256 prefixes): {_files(models)}."
            parts.append(
                report(
                    score,
                    det_ms,
                    die_ms,
                    frames,
                    title,
                    combined,
                    reader.has_top_face,
                    reader.turns,
                    reader.sure,
                )
            )
    write("\n".join(parts), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
