"""Pairings and standings of a tournament of two-player games: Swiss or round robin.

Pure functions of the players (in seeding order) and the finished matches.

Points, as Best Coast Pairings and melee.gg count them by default: a win 3, a
shared victory (a draw) 1, a loss 0, a bye 3 (and no game score).

Standings, and the order Swiss pairs in, are decided by, in turn:

1. points;
2. Buchholz: the sum of the points of every opponent met (a bye adds nothing),
   the usual strength-of-schedule tie-break (Challonge's and melee.gg's
   "opponents' points");
3. game score: the sum of the player's own in-game scores over all matches;
4. the seeding order of the tournament file (earlier first).

Swiss: round one pairs the seeding order top half against bottom half (1-v-3,
2-v-4 with four players). Later rounds pair down the standings: each player, from
the top, meets the highest-placed player still unpaired whom they have not met;
when no pairing of everyone without a rematch exists, rematches are allowed.
With an odd number of players the lowest-placed player who has not had a bye
gets one.  Round robin: the circle method; everyone meets everyone once, with a
bye each round when the number is odd.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

WIN, DRAW, LOSS, BYE = 3, 1, 0, 3


@dataclass(frozen=True)
class Finished:
    """One finished match: its two players (or one, with a bye), their scores and the winners."""

    players: tuple[str, ...]
    scores: Mapping[str, float] = field(default_factory=dict)
    winners: tuple[str, ...] = ()

    @property
    def bye(self) -> bool:
        return len(self.players) == 1


@dataclass
class Row:
    name: str
    seed: int
    points: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    buchholz: int = 0
    score: float = 0
    opponents: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "points": self.points,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "byes": self.byes,
            "buchholz": self.buchholz,
            "score": self.score,
            "opponents": list(self.opponents),
        }


def standings(players: Sequence[str], finished: Sequence[Finished]) -> list[Row]:
    """Every player's row, best first (see the module docstring for the order)."""
    rows = {name: Row(name, seed) for seed, name in enumerate(players)}
    for m in finished:
        if m.bye:
            row = rows[m.players[0]]
            row.points, row.byes = row.points + BYE, row.byes + 1
            continue
        for name in m.players:
            row = rows[name]
            row.opponents += [p for p in m.players if p != name]
            row.score += m.scores.get(name, 0)
            if name in m.winners and len(m.winners) == 1:
                row.points, row.wins = row.points + WIN, row.wins + 1
            elif name in m.winners:
                row.points, row.draws = row.points + DRAW, row.draws + 1
            else:
                row.points, row.losses = row.points + LOSS, row.losses + 1
    for row in rows.values():
        row.buchholz = sum(rows[o].points for o in row.opponents)
    return sorted(rows.values(), key=lambda r: (-r.points, -r.buchholz, -r.score, r.seed))


def _pair_down(order: list[str], met: set[frozenset[str]]) -> list[tuple[str, str]] | None:
    """Pair ``order`` from the top without rematches (backtracking); None when impossible."""
    if not order:
        return []
    first, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        if frozenset((first, other)) in met:
            continue
        tail = _pair_down(rest[:i] + rest[i + 1 :], met)
        if tail is not None:
            return [(first, other), *tail]
    return None


def swiss(players: Sequence[str], finished: Sequence[Finished]) -> list[tuple[str, ...]]:
    """The next Swiss round: pairs (and a one-player bye last, if the number is odd)."""
    rows = standings(players, finished)
    order = [r.name for r in rows]
    bye: list[tuple[str, ...]] = []
    if len(order) % 2:
        had = {m.players[0] for m in finished if m.bye}
        lowest = next((n for n in reversed(order) if n not in had), order[-1])
        order.remove(lowest)
        bye = [(lowest,)]
    if not finished:  # round one: top half against bottom half of the seeding
        half = len(order) // 2
        return [(order[i], order[i + half]) for i in range(half)] + bye
    met = {frozenset(m.players) for m in finished if not m.bye}
    pairs = _pair_down(order, met) or [(order[i], order[i + 1]) for i in range(0, len(order), 2)]
    return [*pairs, *bye]


def round_robin(players: Sequence[str], round_no: int) -> list[tuple[str, ...]]:
    """Round ``round_no`` (1-based) of a round robin by the circle method."""
    ring: list[str | None] = list(players) + ([None] if len(players) % 2 else [])
    n = len(ring)
    if not 1 <= round_no <= n - 1:
        raise ValueError(f"round {round_no}: a round robin of {len(players)} players has rounds 1..{n - 1}")
    for _ in range(round_no - 1):
        ring = [ring[0], ring[-1], *ring[1:-1]]
    out: list[tuple[str, ...]] = []
    bye: list[tuple[str, ...]] = []
    for i in range(n // 2):
        a, b = ring[i], ring[n - 1 - i]
        if a is None or b is None:
            bye.append((a or b,))  # type: ignore[arg-type]
        else:
            out.append((a, b))
    return out + bye
