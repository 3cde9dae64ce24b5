"""Dice fairness: per die, its face counts from the event logs, 95 % intervals, a χ² test and a flag.

A die is known by what the table can tell about it: the table (the log file's
name), its colour and its kind (``d6``, ``d10``, ``d20``, ``dN`` with its sides).
The counts come from the logs themselves (a game is its event log): every
standing ``roll`` or ``throw`` input's ``dice`` list, undone inputs left out.
Dice that an input shows but that were not rolled again are not counted twice:
Dice Hunter's kept dice, and the dice DICETAR WARS leaves lying on the board
between the throws of a half (those two games are replayed to know; see
:func:`thrown`). A game is counted once, whatever log (or logs) it was appended
to: its identity is what its log holds (:func:`game_identity`), so ``dicetable
demo`` run twice into one log does not make the recorded dice look loaded.

"After enough rolls" is a sequential rule, so that a fair die that is looked
at again and again is not flagged by chance sooner or later:

* a die is only tested once every face is expected at least ``MIN_PER_FACE``
  times (``n >= MIN_PER_FACE * faces``);
* it is tested at looks that grow geometrically (``n0``, ``n0 * LOOK_RATIO``, ...),
  never at every roll; the verdict between looks is the last look's;
* it is flagged when the χ² p-value is below ``ALPHA`` (0.001) at
  ``LOOKS_BELOW`` (2) looks in a row *and* still below it on all the rolls so
  far ("stays below"); one look below is noted, not flagged.

``benchmarks/fairness.py`` measures the rule's false-flag rate on simulated fair
dice over a tournament's worth of rolls, and how many rolls it needs to catch
a die loaded by 5 points on one face.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import Die, DieKind, Game, Input, find_game

if TYPE_CHECKING:
    from controller.eventlog import EventLog

ALPHA = 0.001
MIN_PER_FACE = 10
LOOK_RATIO = 1.25
LOOKS_BELOW = 2
Z95 = 1.959963984540054


# -- the statistics --------------------------------------------------------------------
def _gammainc_upper(a: float, x: float) -> float:
    """The regularized upper incomplete gamma Q(a, x) (Numerical Recipes' series / fraction)."""
    if x <= 0:
        return 1.0
    lg = math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - lg))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-x + a * math.log(x) - lg) * h)


def chi2_sf(x: float, df: int) -> float:
    """P(χ²_df >= x)."""
    if df < 1:
        raise ValueError(f"χ² degrees of freedom must be >= 1, got {df}")
    return _gammainc_upper(df / 2, x / 2)


def chi2_uniform(counts: Sequence[int]) -> tuple[float, float]:
    """The χ² statistic against equal faces and its p-value."""
    n = sum(counts)
    k = len(counts)
    if n == 0 or k < 2:
        return 0.0, 1.0
    expected = n / k
    stat = sum((c - expected) ** 2 for c in counts) / expected
    return stat, chi2_sf(stat, k - 1)


def wilson(count: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = count / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def looks(faces: int, upto: int) -> list[int]:
    """The roll counts at which a die of ``faces`` faces is tested, up to ``upto``."""
    n = MIN_PER_FACE * faces
    out: list[int] = []
    while n <= upto:
        out.append(n)
        n = max(n + 1, math.ceil(n * LOOK_RATIO))
    return out


def first_flag(p_at_looks: Sequence[float], looks_below: int = LOOKS_BELOW) -> int | None:
    """The index of the look at which the rule flags, given the p-values at the looks so far."""
    run = 0
    for i, p in enumerate(p_at_looks):
        run = run + 1 if p < ALPHA else 0
        if run >= looks_below:
            return i
    return None


def flagged_at(values: Sequence[int], faces: Sequence[int]) -> int | None:
    """The roll count at which the rule first flags this sequence of faces, or None."""
    index = {f: i for i, f in enumerate(faces)}
    counts = [0] * len(faces)
    checks = looks(len(faces), len(values))
    ps: list[float] = []
    j = 0
    for i, v in enumerate(values, start=1):
        counts[index[v]] += 1
        if j < len(checks) and i == checks[j]:
            j += 1
            ps.append(chi2_uniform(counts)[1])
            if first_flag(ps) is not None:
                return i
    return None


# -- one die's record -------------------------------------------------------------------
@dataclass
class DieStats:
    table: str
    colour: str | None
    kind: str
    faces: tuple[int, ...]
    values: list[int] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.table}/{self.colour or 'no colour'}/{self.kind}"

    def counts(self) -> list[int]:
        return self._counts(self.values)

    def _counts(self, values: Sequence[int]) -> list[int]:
        index = {f: i for i, f in enumerate(self.faces)}
        out = [0] * len(self.faces)
        for v in values:
            out[index[v]] += 1
        return out

    def verdict(self) -> dict[str, Any]:
        n = len(self.values)
        counts = self.counts()
        stat, p = chi2_uniform(counts)
        checks = looks(len(self.faces), n)
        ps = [chi2_uniform(self._counts(self.values[:m]))[1] for m in checks]
        at = first_flag(ps)
        flagged = at is not None and ps[-1] < ALPHA and p < ALPHA
        need = MIN_PER_FACE * len(self.faces)
        if not checks:
            note = f"too few rolls to test (needs {need})"
        elif flagged:
            note = f"FLAGGED: p < {ALPHA} at {LOOKS_BELOW} looks in a row and on all rolls"
        elif at is not None:
            note = f"was below p < {ALPHA} at {checks[at]} rolls, no longer"
        else:
            note = "no sign of bias"
        return {
            "die": self.key,
            "table": self.table,
            "colour": self.colour,
            "kind": self.kind,
            "rolls": n,
            "faces": [
                {"face": f, "count": c, "share": c / n if n else 0.0, "low": lo, "high": hi}
                for f, c, (lo, hi) in ((f, c, wilson(c, n)) for f, c in zip(self.faces, counts, strict=True))
            ],
            "expected_share": 1 / len(self.faces),
            "chi2": stat,
            "df": len(self.faces) - 1,
            "p": p,
            "looks": checks,
            "p_at_looks": ps,
            "enough": bool(checks),
            "flagged": flagged,
            "note": note,
        }


def _kind_name(die: Die) -> str:
    return f"d{die.sides}" if die.kind is DieKind.DN else die.kind.value


def collect(logs: Iterable[Path]) -> list[DieStats]:
    """Every scored die of every game in these logs, grouped by table (the file's name), colour and kind."""
    from controller.eventlog import EventLog

    paths = [Path(p) for p in logs]
    stems = [p.stem for p in paths]
    dice: dict[tuple[str, str | None, str], DieStats] = {}
    seen: set[str] = set()  # games already counted, by identity, across all the logs
    for path in paths:
        # a table is its log's name (a table's log is <table id>.sqlite3); two logs of one name keep apart
        table = path.stem if stems.count(path.stem) == 1 else f"{path.parent.name}/{path.stem}"
        with EventLog(path, read_only=True) as log:  # stats never write (read-only media too)
            add_log(dice, log, table, seen)
    return sorted(dice.values(), key=lambda d: d.key)


def game_identity(log: EventLog, game_no: int, inputs: Sequence[Any]) -> str:
    """What makes a logged game that game: its setup row and its standing inputs in order, hashed.

    A log's game number and its rows' times are where and when it was appended, not which game
    it is: the same recorded game appended twice (two ``dicetable demo`` runs) has one identity.
    Two games that are really played differ in their inputs (every die's value, in order).
    """
    return prefix_identities(log, game_no, inputs)[-1]


def prefix_identities(log: EventLog, game_no: int, inputs: Sequence[Any]) -> list[str]:
    """The identity of the game after each of its inputs (the setup alone first; the last is
    :func:`game_identity`): a game whose identity is a proper prefix's of another is that game
    stopped part way (a demo interrupted, or still playing while an earlier run of its recording
    stands in the same log), not another game."""
    h = hashlib.sha256(json.dumps(log.setup(game_no).to_json(), sort_keys=True).encode())
    out = [h.hexdigest()]
    for e in inputs:
        h.update(b"\n" + json.dumps(e.data, sort_keys=True).encode())
        out.append(h.hexdigest())
    return out


def add_log(
    dice: dict[tuple[str, str | None, str], DieStats],
    log: EventLog,
    table: str,
    seen: set[str] | None = None,
) -> None:
    """Add every die thrown in every game of one open log to ``dice`` (see :func:`thrown`).

    A game whose identity is in ``seen`` (counted already, from this log or another, or part of a
    game counted) is skipped, and so is one that another game of this log carries on from (the same
    recording played again, stopped or still playing): two runs of one recording count once.
    """
    from engine import Input

    seen = set() if seen is None else seen
    games = []
    for game_no in range(1, (log.latest_game() or 0) + 1):
        if log.count(game_no) == 0:
            continue
        inputs = list(log.inputs(game_no))
        games.append((game_no, inputs, prefix_identities(log, game_no, inputs)))
    carried_on = {i for _, _, ids in games for i in ids[:-1]}  # a game with more inputs follows on
    for game_no, inputs, ids in games:
        identity = ids[-1]
        if identity in seen or identity in carried_on:
            continue
        seen.update(ids)
        game = _replayer(log, game_no)
        for e in inputs:
            inp = Input.from_json(e.data)
            if inp.kind.value in ("roll", "throw") and isinstance(inp.data.get("dice"), list):
                for die in thrown(game, inp):
                    name = _kind_name(die)
                    k = (table, die.colour, name)
                    if k not in dice:
                        dice[k] = DieStats(table, die.colour, name, die.kind.face_range(die.sides))
                    dice[k].values.append(die.value)
            if game is not None:
                game.apply(inp)


def _replayer(log: EventLog, game_no: int) -> Any:
    """A fresh game to follow the log with, for the games whose rolls show dice that were not
    rolled again (``Game.shows_unthrown_dice``); None for the others."""
    from controller.eventlog import LogError
    from controller.scenario import new_game

    setup = log.setup(game_no)
    try:
        if not find_game(setup.game).shows_unthrown_dice:
            return None
        return new_game(setup, log.path.parent)
    except (ValueError, OSError) as e:
        raise LogError(
            f"{log.path}: game {game_no} ({setup.game}) cannot be replayed to tell thrown dice "
            f"from dice left lying: {e}"
        ) from None


def thrown(game: Game | None, inp: Input) -> list[Die]:
    """The dice of a roll or throw input that were really rolled, given the game before it
    (``Game.thrown``: e.g. Dice Hunter's kept dice and the dice left lying on a DICETAR WARS board
    are not); without a game, every die of the input."""
    return list(inp.dice()) if game is None else game.thrown(inp)


def log_report(log: EventLog, table: str) -> list[dict[str, Any]]:
    """The verdicts of every die in one open log (the table's own, for its /stats page)."""
    dice: dict[tuple[str, str | None, str], DieStats] = {}
    add_log(dice, log, table)
    return [d.verdict() for d in sorted(dice.values(), key=lambda d: d.key)]
