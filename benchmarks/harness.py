"""What every benchmark shares: the real sets and the project's renders, matching readings to the
truth, tallies, timing, Markdown tables, the run header and the smoke mode (the rendered board
scenes' own truth files and one-to-one matching: ``benchmarks.scenes``).

Benchmarks are modules of the ``benchmarks`` package, run from the repository's root as

    nice -n 10 .venv/bin/python -m benchmarks.NAME [options]

(no benchmark edits ``sys.path``). Each takes ``--smoke``: a few inputs, to show that the script
still runs and prints its table (tests/benchmarks/test_smoke.py runs them all); a smoke run's
figures mean nothing and it writes no results file unless told where.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, TypeVar

import cv2
import numpy as np

from training.dataset import (
    LabelledImage,
    d20_desk_held_out,
    is_held_out,
    load_all,
    load_no_d6,
    load_rendered,
    negative_held_out,
)

ROOT = Path(__file__).resolve().parents[1]
#: the shared real photos (never copied into the repository)
REAL = ROOT.parent / "shared" / "fixtures" / "real"
#: the project's rendered boards (tools/render/generate.py, committed with their seed)
RENDERED = ROOT / "tests" / "fixtures" / "rendered"
#: the recorded demo sessions
SESSIONS = ROOT / "tests" / "fixtures" / "sessions"
RESULTS = ROOT / "benchmarks" / "results"

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels
Point = tuple[float, float]
Truth = list[tuple[Box, int]]  # a labelled die's box and value
T = TypeVar("T")
R = TypeVar("R")


# ---------------------------------------------------------------- loading


def imread(path: Path) -> np.ndarray:
    """A colour image, or exit with a message naming the file (never a traceback)."""
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise SystemExit(f"{path}: not a readable image (expected a JPEG or PNG photo)")
    return img


def shown(path: Path) -> str:
    """A path as the reports show it: relative to the repository when inside it."""
    path = Path(path)
    return str(path.relative_to(ROOT)) if path.is_absolute() and path.is_relative_to(ROOT) else str(path)


@dataclass(frozen=True)
class Set:
    """A set of labelled photos: its kind ("scene", "crops" or "none": no d6 on them) and the split
    of each photo (a function of the photo and its pixels: "held-out", "train", ...)."""

    name: str
    items: list[LabelledImage]
    kind: str
    split: Callable[[LabelledImage, np.ndarray], str]


def _model_split(item: LabelledImage, img: np.ndarray) -> str:
    return "held-out" if is_held_out(item.path.name) else "train"


def real_sets(real: Path = REAL) -> list[Set]:
    """The shared real sets with d6 labels (training.dataset.load_all), then the photos with no d6
    (negatives/, d20_desk_scenes/), each with the split the committed models were made with."""
    out = [
        Set(name, items, "crops" if name.endswith("crops") else "scene", _model_split)
        for name, items in load_all(real).items()
    ]
    if (real / "negatives" / "images").is_dir():
        out.append(
            Set(
                "negatives (no dice)",
                load_no_d6(real, "negatives"),
                "none",
                lambda item, img: "held-out" if negative_held_out(item.path) else "train",
            )
        )
    if (real / "d20_desk_scenes" / "images").is_dir():
        out.append(
            Set(
                "d20_desk_scenes (a d20, no d6)",
                load_no_d6(real, "d20_desk_scenes"),
                "none",
                lambda item, img: "held-out" if d20_desk_held_out(img) else "train",
            )
        )
    return out


def rendered_set(rendered: Path = RENDERED) -> Set | None:
    """The project's rendered boards as a labelled set (None when the folder has no scenes)."""
    if not (rendered.is_dir() and any(rendered.glob("scene_*.json"))):
        return None
    return Set(
        "project rendered boards", load_rendered(rendered), "scene", lambda i, m: "scenes not trained on"
    )


def sets_of(real: Path = REAL, rendered: Path = RENDERED) -> list[Set]:
    """The real sets first, then the renders."""
    extra = rendered_set(rendered)
    return real_sets(real) + ([extra] if extra else [])


SPLIT_RANK = {"held-out": 0, "train": 2}


def split_rank(split: str) -> int:
    """Held-out rows first, train rows last, any other split between."""
    return SPLIT_RANK.get(split, 1)


def truth_of(item: LabelledImage, img: np.ndarray) -> Truth:
    """A photo's labelled dice as (box, value); a die with no box (a crop) is the whole image."""
    h, w = img.shape[:2]
    return [(d.box if d.box[2] > d.box[0] else (0.0, 0.0, float(w), float(h)), d.value) for d in item.dice]


def spaced(items: Sequence[T], limit: int | None) -> list[T]:
    """At most ``limit`` items, evenly spaced from first to last (all of them when ``limit`` is None)."""
    if limit is None or len(items) <= limit:
        return list(items)
    if limit <= 1:
        return list(items[:limit])
    return [items[round(i * (len(items) - 1) / (limit - 1))] for i in range(limit)]


# ---------------------------------------------------------------- matching to the truth


def match_boxes(boxes: Sequence[Box], centres: Sequence[Point]) -> list[int | None]:
    """For each labelled box, the index of the reading matched to it, or None: among the readings
    whose centre lies inside the box and that no earlier box took, the one nearest the box's centre."""
    used: set[int] = set()
    out: list[int | None] = []
    for x0, y0, x1, y1 in boxes:
        inside = [i for i, (x, y) in enumerate(centres) if i not in used and x0 <= x <= x1 and y0 <= y <= y1]
        if not inside:
            out.append(None)
            continue
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        best = min(inside, key=lambda i: (centres[i][0] - cx) ** 2 + (centres[i][1] - cy) ** 2)
        used.add(best)
        out.append(best)
    return out


def nearest_centre(
    centres: Sequence[Point], size: tuple[int, int], within: float | None = None
) -> int | None:
    """The index of the centre nearest the middle of a ``size`` = (width, height) image (the die of
    a one-die crop); with ``within``, only when it is at most that share of the width away."""
    if not centres:
        return None
    w, h = size
    mid = (w / 2, h / 2)
    best = min(range(len(centres)), key=lambda i: math.dist(centres[i], mid))
    if within is not None and math.dist(centres[best], mid) > within * w:
        return None
    return best


# ---------------------------------------------------------------- tallies and timing


@dataclass
class Tally:
    """A benchmark's counts (ints) and samples (lists): a subclass names its fields; tallies of the
    same kind add up (``a + b``) field by field."""

    def __add__(self, other: Self) -> Self:
        if type(other) is not type(self):
            return NotImplemented
        out = type(self)()
        for f in dataclasses.fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            setattr(out, f.name, a + b if not isinstance(a, list) else [*a, *b])
        return out


#: a reading at or above this confidence is scored without asking (controller/config.py's default
#: confidence_threshold)
SURE = 0.8


@dataclass
class DieTally(Tally):
    """One die a frame read, scored (`score`): frames read; the die's reading right; right and sure
    (read unasked); silent (the die sure and wrong, or a phantom sure); phantoms (every other
    reading).  A benchmark's own tally subclasses it with its extra counts."""

    frames: int = 0
    right: int = 0
    unasked: int = 0
    silent: int = 0
    phantoms: int = 0

    def score(self, die: tuple[bool, float] | None, others: Iterable[float], sure: float = SURE) -> None:
        """One frame: ``die`` the die's reading (right, confidence), None when it was not found;
        ``others`` the confidences of every other reading (phantoms)."""
        self.frames += 1
        for conf in others:
            self.phantoms += 1
            self.silent += conf >= sure
        if die is None:
            return
        right, conf = die
        self.right += right
        self.unasked += right and conf >= sure
        self.silent += conf >= sure and not right


def timed(fn: Callable[..., R], *args: Any) -> tuple[R, float, float]:
    """``fn(*args)``, the wall-clock ms and this process's CPU ms it took (CPU time is not
    inflated by other jobs on a shared machine)."""
    c, t = time.process_time(), time.perf_counter()
    out = fn(*args)
    return out, (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000


def quantile(values: Iterable[float], q: float) -> float:
    """The nearest-rank quantile: the sorted value at index int(q * n) (NaN when empty)."""
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def quantile_between(values: Iterable[float], q: float) -> float:
    """The sorted value at index round(q * (n - 1)) (live.py's, kept so its figures do not move)."""
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


def median(values: Sequence[float]) -> float:
    return float(np.median(values)) if len(values) else float("nan")


def share(a: int, b: int, places: int = 2, empty: str = "-") -> str:
    """``99.46 % (370/372)``: a percentage with its counts (99.46 % is not 99.5 %)."""
    return f"{100 * a / b:.{places}f} % ({a}/{b})" if b else empty


def count_share(a: int, b: int) -> str:
    """``364 (98.4 %)``: a count and its share of ``b``."""
    return f"{a} ({100 * a / max(1, b):.1f} %)"


# ---------------------------------------------------------------- reports


def markdown_table(head: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A Markdown table's lines."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def module_name() -> str:
    """This run's benchmark as ``benchmarks.NAME`` (how it is run: ``python -m benchmarks.NAME``)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name.startswith("benchmarks."):
        return str(spec.name)
    return f"benchmarks.{Path(sys.argv[0]).stem}"


def command(argv: Sequence[str] | None = None, module: str | None = None) -> str:
    """The command line that reproduces this run, from the repository's root."""
    args = [
        shown(Path(a)) if a.startswith(str(ROOT)) else a for a in (sys.argv[1:] if argv is None else argv)
    ]
    tail = (" " + shlex.join(args)) if args else ""
    return f"nice -n 10 .venv/bin/python -m {module or module_name()}{tail}"


def revision() -> str:
    """The checked-out commit (short hash), and whether tracked files differ from it."""
    try:
        rev = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"{rev} + uncommitted changes" if dirty else rev


def machine() -> str:
    """The machine in one line: CPU, cores, load, Python and OpenCV."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = " / ".join(f"{v:.1f}" for v in os.getloadavg())
    return (
        f"{model} ({platform.machine()}), {os.cpu_count()} cores shared with other jobs, "
        f"load average {load}; Python {platform.python_version()}, OpenCV {cv2.__version__}"
    )


def run_header(argv: Sequence[str] | None = None, module: str | None = None) -> str:
    """The lines every report starts with: revision, machine, date and the command."""
    date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"Revision: `{revision()}`; date: {date}.  \n"
        f"Machine: {machine()}.  \n"
        f"Command: `{command(argv, module)}`\n"
    )


def add_smoke(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="a few inputs only, to check the script runs and prints its table (figures mean nothing; "
        "no results file is written unless --out names one)",
    )


def add_scene_sets(ap: argparse.ArgumentParser) -> None:
    """``--set`` (folders of rendered scenes, repeatable), ``--split`` and ``--limit``: the options of
    the benchmarks that read sets of rendered scenes with their empty tables."""
    ap.add_argument("--set", type=Path, action="append", help="a folder of rendered scenes (repeatable)")
    ap.add_argument("--split", choices=["test", "tune", "all"], default="all")
    ap.add_argument("--limit", type=int, default=0, help="only the first N scenes of each set")


def report(
    title: str, t0: float, head: Sequence[str], rows: Iterable[Sequence[object]], out: Path | None
) -> None:
    """A one-table report (`write`): its title, `run_header`, the seconds since ``t0`` and the table."""
    lines = [
        f"# {title}",
        "",
        run_header(),
        f"{time.perf_counter() - t0:.0f} s.",
        "",
        *markdown_table(head, rows),
    ]
    write("\n".join(lines) + "\n", out)


def write(text: str, out: Path | None) -> None:
    """Print the report and, when ``out`` is given, store it there."""
    print(text)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        print(f"wrote {shown(out)}", file=sys.stderr)
