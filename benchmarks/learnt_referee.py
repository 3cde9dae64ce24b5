"""The referee's answers add to a taught die's roster entry: does the table ask less as it plays?
(issue 44 item 4)

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m benchmarks.learnt_referee --train \
        --out benchmarks/results/learnt_referee.md

The hidden-test proxy's die and table (`benchmarks.learnt_cli`, its set-up imported: a d20_lurig die of
~60 px with a 5 px motion blur laid in a fixed 1280x720 table with a relay board, 4 rolls a face taught
with `learn-dice see`/`confirm --config`, each group named by its crops' true face; the table.toml
names its empty table), then the later rolls played IN ORDER at one table (`controller.table.Table`
of that table.toml, its event log fresh): each roll is read by the table's perception step as a
settled frame is (`Table.perceiver`, the game's colours), the reading set and the frame's JPEG kept
as `Table.on_settled` keeps them, and when the table would ask (a reading under the table's
``confidence_threshold``), the referee answers through the admin page's path (`Table.correct`): the
die ``confirm``ed, or ``set_value`` to its true face, a reading that is no die ``not_a_die``.  The
answer is logged and its crop joins the die's roster entry (`controller.corrections.RefereeLearning`).
The rolls are shuffled (SEED: a game's rolls come in no clip order); frames of one clip are near
copies, closer than two real rolls of a face are.

Two ways, one run, the same rolls in the same order: "before": nobody answers (the table as taught);
"after": every question answered as above.  Per block of BLOCK rolls: value right, read unasked (right
and sure), silent per 200 (a sure reading wrong, or a sure phantom), rolls asked, and at the block's
end the crops the table reads the die with (the entry's taught crops + the answers learnt).  Held out
first (d20_top, d20_wood), ``--train`` adds d20_off-angle.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import pickle
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks import harness, learnt_cli
from benchmarks.harness import REAL, DieTally, imread, markdown_table, share
from benchmarks.learnt_cli import DIE_PX, Shot

BLOCK = 25
SEED = 4404
WAYS = (
    "before: no answer learnt",
    "answers as a set of their own: the referee's crops cut round the top face, read as a set apart "
    "from the entry's (the code before this benchmark)",
    "after: the referee's answers learnt into the entry's own set, cut as its crops were",
)
#: the way read with the answers kept apart from the entry (the code before this benchmark)
APART = WAYS[1]


@dataclass
class Block(DieTally):
    asked: int = 0
    answers: int = 0
    learnt: int = 0
    crops: int = 0


def table_of(mine: Path, env: dict[str, str], log: Path) -> Any:
    """The table of ``mine``'s table.toml (its roster in ``env``'s data dir), its event log ``log``."""
    from controller.config import load_config
    from controller.eventlog import EventLog
    from controller.table import Table

    was = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return Table(load_config(mine / "table.toml"), EventLog(log), resume=False)
    finally:
        for k, v in was.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def crops(table: Any) -> int:
    """The crops the table reads its numbered dice with: every learnt set's (the entry's and the
    referee's answers)."""
    learnt = table.perceiver.reader.learnt if table.learning.on else None
    if learnt is None:
        return 0
    return sum(len(s.values) for s in getattr(learnt, "sets", [learnt]))


def play(table: Any, rolls: list[Shot], answer: bool, block: int = BLOCK) -> list[Block]:
    """``rolls`` read in order at ``table``; with ``answer`` the referee answers each question."""
    from controller.adapters import TableReadings
    from controller.perceive import player_colours, throw_colours

    sure = table.cfg.table.confidence_threshold
    out: list[Block] = []
    for seq, shot in enumerate(rolls, 1):
        if (seq - 1) % block == 0:
            out.append(Block())
        b = out[-1]
        image = imread(shot.path)
        colours = throw_colours(table.game, player_colours(table.cfg, table.game.state))
        dice = [d.to_json() for d in table.perceiver.perceive(image, seq=seq, **colours).dice]
        near = [d for d in dice if math.dist(d["center"], shot.centre) <= DIE_PX]
        die = min(near, key=lambda d: math.dist(d["center"], shot.centre)) if near else None
        right = die is not None and die["kind"] == "d20" and die["value"] == shot.face
        read = None if die is None else (right, float(die.get("confidence") or 0.0))
        b.score(read, [float(d.get("confidence") or 0.0) for d in dice if d is not die], sure)
        unsure = [d for d in dice if float(d.get("confidence") or 0.0) < sure]
        b.asked += bool(unsure) or die is None
        if answer and unsure:
            # the settled frame as the table keeps it (`Table.on_settled`)
            table.reading_set = TableReadings(seq, float(seq), dice)
            table.frame = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()
            for d in unsure:
                if d is not die:
                    command = {"action": "not_a_die", "reading": d["id"]}
                elif right:
                    command = {"action": "confirm", "reading": d["id"]}
                else:
                    command = {"action": "set_value", "reading": d["id"], "value": shot.face}
                got = table.correct(command, "referee", float(seq))
                b.answers += 1
                b.learnt += "joins" in got["message"]
        b.crops = crops(table)
    return out


def prepared(group: str, step: int, limit: int | None, work: Path, rolls: int) -> tuple[Path, dict, list]:
    """The set-up's table taught (cached in ``work``): (its folder, the commands' env, the later rolls
    in the order played)."""
    cache = work / f"{group}-{step}-{limit}-{rolls}.pickle"
    if cache.exists():
        got: tuple[Path, dict, list] = pickle.loads(cache.read_bytes())
        return got
    folder, taught, later, _ = learnt_cli.frames(group, REAL, step, limit, work, rolls)
    mine, env, _ = learnt_cli.teach(folder, taught, True)
    order = np.random.default_rng(SEED).permutation(len(later))
    got = (mine, env, [later[i] for i in order])
    cache.write_bytes(pickle.dumps(got))
    return got


@contextlib.contextmanager
def apart() -> Iterator[None]:
    """The referee's answers learnt as before this benchmark: each crop cut round the top face (the
    reader's default crop) and read as a set of the answers alone, apart from the entry's."""
    from controller import corrections

    cut, fits = corrections.RefereeLearning.cut, corrections._fits

    def box(self: Any, frame: Any, d: Any, of: Any = None) -> Any:
        return cut(self, frame, d, None)

    corrections.RefereeLearning.cut = box  # type: ignore[method-assign]
    corrections._fits = lambda of, answers: False
    try:
        yield
    finally:
        corrections.RefereeLearning.cut = cut  # type: ignore[method-assign]
        corrections._fits = fits


def run(groups: list[str], step: int, limit: int | None, work: Path, rolls: int, block: int) -> dict:
    out = {}
    for group in groups:
        mine, env, later = prepared(group, step, limit, work, rolls)
        for i, way in enumerate(WAYS):
            log = work / f"{group}-{i}.sqlite3"
            log.unlink(missing_ok=True)
            table = table_of(mine, env, log)
            with apart() if way == APART else contextlib.nullcontext():
                out[(group, way)] = play(table, later, answer=i > 0, block=block)
            table.close()
    return out


HEAD = (
    "set-up",
    "rolls",
    "way",
    "value right",
    "read unasked",
    "silent / 200",
    "rolls asked",
    "answers (learnt)",
    "crops read with, at the end",
)


def report(results: dict, seconds: float, block: int) -> str:
    rows = []
    for (group, way), blocks in results.items():
        first = 1
        name = group + (" (train)" if group in learnt_cli.TRAIN else " (held out)")
        spans = []
        for b in blocks:
            spans.append(f"{first}-{first + b.frames - 1}")
            first += b.frames
        for span, b in zip([*spans, "all"], [*blocks, _total(blocks)], strict=True):
            rows.append(
                [
                    name,
                    span,
                    way.split(":")[0].replace("answers as a set of their own", "answers apart"),
                    share(b.right, b.frames, places=1),
                    share(b.unasked, b.frames, places=1),
                    f"{200 * b.silent / max(1, b.frames):.2f}",
                    f"{b.asked}",
                    f"{b.answers} ({b.learnt})",
                    b.crops,
                ]
            )
    return "\n".join(
        [
            "# The referee's answers learnt as the table plays (issue 44 item 4)",
            "",
            harness.run_header(),
            f"Die {DIE_PX} px, motion blur {learnt_cli.BLUR} px, blocks of {block} rolls; {seconds:.0f} s.",
            "",
            *(f"- {w}" for w in WAYS),
            "",
            *markdown_table(HEAD, rows),
        ]
    )


def _total(blocks: list[Block]) -> Block:
    t = Block()
    for b in blocks:
        for k in ("frames", "right", "unasked", "silent", "phantoms", "asked", "answers", "learnt"):
            setattr(t, k, getattr(t, k) + getattr(b, k))
    t.crops = blocks[-1].crops if blocks else 0
    return t


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description="a taught die's later rolls played, the referee's answers learnt"
    )
    ap.add_argument("--step", type=int, default=learnt_cli.STEP, help="every n-th frame of a clip's 2nd half")
    ap.add_argument("--limit", type=int, default=None, help="at most this many later rolls a set-up")
    ap.add_argument("--block", type=int, default=BLOCK, help="rolls a block of the report")
    ap.add_argument("--train", action="store_true", help="also d20_off-angle (a train set-up)")
    ap.add_argument("--groups", default=None, help="set-ups, comma-separated (default the held-out ones)")
    ap.add_argument(
        "--keep", type=Path, default=None, help="keep (and reuse) the frames and taught tables here"
    )
    ap.add_argument("--out", type=Path, default=None)
    harness.add_smoke(ap)
    a = ap.parse_args(argv)
    if a.block < 1:
        ap.error(f"--block: expected 1 or more rolls, got {a.block}")
    groups = (
        a.groups.split(",")
        if a.groups
        else list(learnt_cli.HELD_OUT) + (list(learnt_cli.TRAIN) if a.train else [])
    )
    unknown = [g for g in groups if g not in (*learnt_cli.HELD_OUT, *learnt_cli.TRAIN)]
    if unknown:
        known = ", ".join((*learnt_cli.HELD_OUT, *learnt_cli.TRAIN))
        ap.error(f"--groups: expected some of {known}, got {', '.join(unknown)}")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) if a.keep is None else a.keep
        work.mkdir(parents=True, exist_ok=True)
        if a.smoke:
            results = run(groups[:1], a.step, 4, work, 1, 2)
        else:
            results = run(groups, a.step, a.limit, work, learnt_cli.ROLLS, a.block)
    harness.write(report(results, time.perf_counter() - t0, 2 if a.smoke else a.block) + "\n", a.out)


if __name__ == "__main__":
    main()
