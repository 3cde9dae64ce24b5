"""A budget per stage of a throw (issue 32 item 1): what each step from the camera's frame to the
display costs on one core, over the recorded demo sessions, with a Raspberry Pi 4 estimate.

    nice -n 10 .venv/bin/python -m benchmarks.stages [--session NAME ...] [--pi-factor 4]
        [--repeat 3] [--out FILE.md] [--smoke]

Each session (default: all five ``tests/fixtures/sessions/*-demo``) is played as ``dicetable demo
--no-serve`` plays it (`controller.demo.run_demo`: recorded frames, the motion gate, the table's
perception step, the engine, the SQLite event log, the recorded referee), with a display hub
listening as ``dicetable run`` attaches it.  Nothing in the product is changed for the measurement:
for the run, this module wraps the functions each stage is (below) with a CPU clock, so the
product's hot path carries no timing hooks.  Stages:

- frame decode: ``hardware.frames.read_image`` (a recorded JPEG; a camera gives raw frames);
- motion gate: ``vision.motion.MotionGate.update``, every frame;
- the throw's motion record: ``vision.tumble.ThrowRecorder.add``, every frame;
- the perception step, ``controller.perceive.Perceiver.perceive``, and inside it: the board's pose
  (``BoardGeometry.pose``), the palette (``Perceiver.reading_palette``, the board light's balance),
  the where-steps (``TableWhere.steps`` and ``lying``), the empty-table difference
  (``vision.where.EmptyTable.check``, which the reader calls on its candidates; its ``relearn``
  when the gate's empty frame changes is its own row), the reader (the table's reader's
  ``examine`` less the empty-table check inside it; per frame and per die read) and placing on
  the board (``BoardGeometry.place``);
- the tumble check: ``vision.tumble.ThrowRecorder.judge``, once a throw;
- log append: ``controller.eventlog.EventLog._insert``, one SQLite transaction (a throw's reading,
  its inputs and outcomes, questions);
- display push: ``Table._emit`` (the snapshot and every listener) and, inside it, the hub's
  ``display.hub.Hub.notify`` (the JSON pushed to every page).

Times are the CPU ms of the thread a stage ran on (``time.thread_time``: not inflated by other
jobs on a shared machine, nor by the table's other threads: the tumble check and the empty-table
learner's judging run on threads of their own, and a process clock counted their work in whatever
stage the camera thread was in) with OpenCV, onnxruntime and the BLAS held to one thread (so a
stage's work is its thread's).  The Pi 4 column multiplies
the median and p95 by ``--pi-factor`` (an assumption, not a measurement: see PI_FACTOR_WHY).
The perception step's row is checked against the sum of its parts (what the parts leave out is
shown as "perceive: the rest").  Sessions with a board and without one are two tables (without a
board there is no pose, palette balance or placing, and the reader has no board's steps).
``--repeat``: plays of each session (more throws for the p95).  ``--smoke``: one play of the
DICETAR WARS session (6 throws), no results file unless ``--out`` names one.
"""

from __future__ import annotations

import os

# one core: set before numpy loads its BLAS
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import cv2  # noqa: E402

from benchmarks.harness import SESSIONS, markdown_table, median, quantile, run_header, write  # noqa: E402

DEMOS = ("dice-hunter", "dicetar-wars", "die-angler", "nozoku-dice", "dice-fighter")
#: the Pi 4 estimate's factor: a Pi 4 core's time for this machine's core's
PI_FACTOR = 4.0
PI_FACTOR_WHY = (
    "an assumption, not measured here (no Pi at hand): a Raspberry Pi 4's Cortex-A72 core at 1.5 GHz "
    "is taken as 4x slower than one core of this x86 machine, about the ratio of published "
    "single-core scores (Geekbench 5 single-core: Pi 4 ~250-300, a current x86 server or desktop core "
    "~1,000-1,400); NEON kernels in OpenCV and onnxruntime are narrower than AVX2, so SIMD-heavy "
    "stages (the reader's nets, matchTemplate) may fare worse than 4x; measure on a Pi before "
    "trusting a margin under 2x"
)


@dataclass
class Clock:
    """CPU ms per stage (its thread's), each call a sample; each thread's ``stack``: the stages'
    times inside the open call of each stage (to take an inner stage out of an outer one)."""

    samples: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    dice: list[int] = field(default_factory=list)
    local: threading.local = field(default_factory=threading.local)

    @property
    def stack(self) -> list[dict[str, float]]:
        """This thread's open timed calls, innermost last."""
        if not hasattr(self.local, "stack"):
            self.local.stack = []
        stack: list[dict[str, float]] = self.local.stack
        return stack

    def timed(self, stage: str, fn: Callable[..., Any], exclude: tuple[str, ...] = ()) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            inner: dict[str, float] = defaultdict(float)
            stack = self.stack
            stack.append(inner)
            c = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                ms = (time.thread_time() - c) * 1000
                stack.pop()
                if stack:  # the timed call this one ran in (its direct timed parent)
                    stack[-1][stage] += ms
                self.samples[stage].append(ms - sum(inner[s] for s in exclude))
                if stage == "perceive":  # what the timed parts inside it leave out
                    self.samples["perceive rest"].append(ms - sum(inner.values()))

        return wrapper


#: (module, class or None, attribute, stage, stages whose time inside it is not its own)
HOOKS: tuple[tuple[str, str | None, str, str, tuple[str, ...]], ...] = (
    ("hardware.frames", None, "read_image", "frame decode", ()),
    ("vision.motion", "MotionGate", "update", "motion gate", ()),
    ("vision.tumble", "ThrowRecorder", "add", "motion record", ()),
    ("controller.perceive", "Perceiver", "perceive", "perceive", ()),
    ("controller.perceive", "BoardGeometry", "pose", "pose", ()),
    ("controller.perceive", "Perceiver", "reading_palette", "palette", ()),
    ("controller.where", "TableWhere", "steps", "where-steps", ()),
    ("controller.where", "TableWhere", "lying", "where-steps (lying)", ()),
    ("vision.where", "EmptyTable", "relearn", "empty-table relearn", ()),
    ("vision.where", "EmptyTable", "check", "empty-table difference", ()),
    ("controller.perceive", "BoardGeometry", "place", "placing", ()),
    ("vision.tumble", "ThrowRecorder", "judge", "tumble check", ()),
    ("controller.eventlog", "EventLog", "_insert", "log append", ()),
    ("controller.table", "Table", "_emit", "display push", ()),
    ("display.hub", "Hub", "notify", "hub notify", ()),
)


@contextlib.contextmanager
def hooked(clock: Clock) -> Iterator[None]:
    """The stages' functions wrapped with ``clock`` for the block (restored after it); a stage whose
    function is gone is an error naming it (the benchmark must follow the product)."""
    import importlib

    undo: list[tuple[Any, str, Any]] = []
    try:
        for mod_name, cls_name, attr, stage, exclude in HOOKS:
            owner = importlib.import_module(mod_name)
            if cls_name is not None:
                owner = getattr(owner, cls_name)
            original = owner.__dict__.get(attr) if cls_name else getattr(owner, attr, None)
            if original is None:
                raise SystemExit(
                    f"benchmarks.stages: {mod_name}.{cls_name or ''}.{attr} is gone: update HOOKS"
                )
            undo.append((owner, attr, original))
            setattr(owner, attr, clock.timed(stage, original, exclude))
        yield
    finally:
        for owner, attr, original in reversed(undo):
            setattr(owner, attr, original)


class TimedReader:
    """The table's reader, its ``examine`` timed (less the empty-table check inside it) and its dice
    counted; everything else is the reader's own."""

    def __init__(self, reader: Any, clock: Clock) -> None:
        self._reader, self._clock = reader, clock
        examine = clock.timed("reader", reader.examine, exclude=("empty-table difference",))

        def counted(*args: Any, **kwargs: Any) -> Any:
            seen = examine(*args, **kwargs)
            clock.dice.append(len(seen.readings))
            return seen

        self.examine = counted

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)


def play(game: str, clock: Clock) -> dict[str, Any]:
    """One demo session played headless with a display hub, its stages timed into ``clock``."""
    from controller.demo import run_demo
    from display.hub import Hub

    def attach(table: Any) -> None:
        hub = Hub()
        table.listeners.append(hub.notify)  # as `dicetable run` attaches the display (table_app)
        table.perceiver.reader = TimedReader(table.perceiver.reader, clock)

    with tempfile.TemporaryDirectory() as tmp, hooked(clock):
        return run_demo(
            game,
            db=Path(tmp) / f"stages-{game}.sqlite3",
            serve=False,
            quiet=True,
            observe=attach,
        )


#: the report's rows: (label, stage, how many of it a throw has: "frame", "throw" or "call")
ROWS = (
    ("frame decode (JPEG, `read_image`)", "frame decode", "frame"),
    ("motion gate (`MotionGate.update`)", "motion gate", "frame"),
    ("throw's motion record (`ThrowRecorder.add`)", "motion record", "frame"),
    ("pose (`BoardGeometry.pose`)", "pose", "throw"),
    ("palette, balanced by the board (`reading_palette`)", "palette", "throw"),
    ("where-steps (`TableWhere.steps` + `lying`)", "where-steps+", "throw"),
    ("empty-table difference (`EmptyTable.check`)", "empty-table difference", "throw"),
    ("empty-table relearn (`EmptyTable.relearn`, a new empty frame)", "empty-table relearn", "call"),
    ("reader, per frame (`examine` less the empty-table check)", "reader", "throw"),
    ("reader, per die", "reader per die", "die"),
    ("placing (`BoardGeometry.place`)", "placing", "throw"),
    ("perceive: the rest (ids, unsure, the reading set)", "perceive rest", "throw"),
    ("**perception step** (`Perceiver.perceive`, all of the above from pose)", "perceive", "throw"),
    ("tumble check (`ThrowRecorder.judge`)", "tumble check", "throw"),
    ("log append (`EventLog._insert`, one transaction)", "log append", "call"),
    ("display push (`Table._emit`: snapshot + listeners)", "display push", "call"),
    ("of which the hub (`Hub.notify`: JSON to every page)", "hub notify", "call"),
)


def derived(clock: Clock) -> dict[str, list[float]]:
    """The samples with the rows made of several stages: where-steps with ``lying``, the reader per
    die (per frame / its dice, frames with dice), and perceive less its parts."""
    s = dict(clock.samples)
    steps, lying = s.get("where-steps", []), s.get("where-steps (lying)", [])
    s["where-steps+"] = [a + (lying[i] if i < len(lying) else 0.0) for i, a in enumerate(steps)]
    s["reader per die"] = [ms / n for ms, n in zip(s.get("reader", []), clock.dice, strict=False) if n]
    return s


def table(clock: Clock, factor: float) -> list[str]:
    """One group's Markdown table: each stage's count and median / p95 CPU ms, x86 and Pi 4 est."""
    s = derived(clock)
    throws = len(s.get("perceive", []))

    def cell(values: list[float], f: float = 1.0) -> str:
        if not values:
            return "–"
        return f"{f * median(values):.2f} / {f * quantile(values, 0.95):.2f}"

    rows = []
    for label, stage, per in ROWS:
        v = s.get(stage, [])
        n = f"{len(v)} ({len(v) / max(1, throws):.1f} a throw)" if per == "call" else str(len(v))
        rows.append((label, per, n, cell(v), cell(v, factor)))
    return markdown_table(
        ("stage", "per", "n", "x86 median / p95 ms", f"Pi 4 est. (x{factor:g}) median / p95 ms"), rows
    )


def report(
    groups: dict[str, tuple[Clock, Clock, list[dict[str, Any]]]], factor: float, argv: list[str] | None
) -> str:
    lines = [
        "# A budget per stage of a throw (issue 32 item 1)",
        "",
        run_header(argv),
        f"CPU ms on one core of this machine, median / p95; Pi 4 estimate = x86 x {factor:g} "
        f"({PI_FACTOR_WHY}).",
        "",
        "Each stage's first call in each play of a session (the models and modules load then) is "
        "left out of the tables and said below each. The display push has no page connected (the "
        "snapshot and the hub's JSON; a page's send is the event loop's, measured by "
        "`benchmarks.display`). Reader: the pip-d6 reader; the numbered reader (d10p) for Dice Fighter.",
    ]
    for title, (clock, cold, results) in groups.items():
        if not results:
            continue
        plays: dict[str, int] = {}
        for r in results:
            plays[r["game"]] = plays.get(r["game"], 0) + 1
        games = ", ".join(
            f"{g} x{n} ({next(r['rolls_read'] for r in results if r['game'] == g)} throws read a play)"
            for g, n in plays.items()
        )
        first = cold.samples
        lines += [
            "",
            f"## {title}",
            "",
            f"Sessions: {games}; {len(clock.samples.get('motion gate', []))} frames, "
            f"{len(clock.samples.get('perceive', []))} perception steps (a settled or changed frame "
            "while the game expects a throw).",
            "",
            *table(clock, factor),
            "",
            "First calls, left out: the perception step "
            + ", ".join(f"{ms:.0f}" for ms in first.get("perceive", []))
            + " ms; the tumble check "
            + ", ".join(f"{ms:.0f}" for ms in first.get("tumble check", []))
            + " ms.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    from benchmarks.harness import add_smoke

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--session", action="append", choices=DEMOS, help="a demo session (repeatable; default: all five)"
    )
    ap.add_argument("--repeat", type=int, default=3, help="plays of each session (default 3)")
    ap.add_argument(
        "--pi-factor", type=float, default=PI_FACTOR, help="the Pi 4 estimate's factor (default 4)"
    )
    ap.add_argument("--out", type=Path, help="write the report here as Markdown")
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.pi_factor <= 0:
        raise SystemExit(f"--pi-factor {args.pi_factor}: expected a positive number")
    if args.repeat < 1:
        raise SystemExit(f"--repeat {args.repeat}: expected 1 or more")
    if args.smoke:
        args.repeat = 1
    games = args.session or (["dicetar-wars"] if args.smoke else list(DEMOS))
    for g in games:
        if not (SESSIONS / f"{g}-demo").is_dir():
            raise SystemExit(f"{SESSIONS / (g + '-demo')}: recorded session not found")
    cv2.setNumThreads(1)
    groups: dict[str, tuple[Clock, Clock, list[dict[str, Any]]]] = {
        BOARD: (Clock(), Clock(), []),
        PLAIN: (Clock(), Clock(), []),
    }
    for g in games:
        meta = json.loads((SESSIONS / f"{g}-demo" / "session.json").read_text(encoding="utf-8"))
        warm, cold, results = groups[BOARD if meta.get("board") else PLAIN]
        for _ in range(args.repeat):
            own = Clock()
            results.append(play(g, own))
            merge(warm, cold, own)
    write(report(groups, args.pi_factor, argv), args.out)


BOARD = "Sessions with a board (every stage: pose, board light, placing)"
PLAIN = "Sessions without a board (no pose, palette balance or placing)"


def merge(warm: Clock, cold: Clock, own: Clock) -> None:
    """A session's samples into ``warm``, less each stage's first call (models and modules load
    then), which goes to ``cold``."""
    for stage, values in own.samples.items():
        cold.samples[stage] += values[:1]
        warm.samples[stage] += values[1:]
    cold.dice += own.dice[:1]
    warm.dice += own.dice[1:]


if __name__ == "__main__":
    main()
