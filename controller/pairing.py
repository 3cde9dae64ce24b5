"""Pairings and standings of a tournament: Swiss (tables of two or more) or round robin (two).

Pure functions of the players (in seeding order) and the finished matches.

Points, as Best Coast Pairings and melee.gg count them by default: a win 3, a
shared victory (a draw) 1, a loss 0, a bye 3 (and no game score).  At a table
of three or more (a pod) the same: the sole winner 3, each of several winners 1,
everyone else 0.

Standings, and the order Swiss pairs in, are decided by, in turn:

1. points;
2. Buchholz: the sum of the points of every opponent met (a bye adds nothing; at
   a pod every other player is an opponent), the usual strength-of-schedule
   tie-break (Challonge's and melee.gg's "opponents' points");
3. placement: over all matches, the number of opponents who finished below the
   player (a two-player win 1; at a pod of four, first 3, second 2, third 1,
   last 0).  A match's places are its winners first, then the others by game
   score, highest first; equal scores share a place.  This is the "points per
   placement" of free-for-all events (Challonge's free-for-all asks each match
   for its ranking), used here to tell apart players whose wins are level;
4. game score: the sum of the player's own in-game scores over all matches;
5. the seeding order of the tournament file (earlier first).

Swiss: round one pairs the seeding order top half against bottom half (1-v-3,
2-v-4 with four players). Later rounds pair down the standings: each player, from
the top, meets the highest-placed player still unpaired whom they have not met;
when no pairing of everyone without a rematch exists, rematches are allowed.
With an odd number of players the lowest-placed player who has not had a bye
gets one.  Round robin: the circle method; everyone meets everyone once, with a
bye each round when the number is odd.

Pods (``seats`` > 2, for Dice Hunter's 3-4 players or Die-angler's 2-5): as many
tables as ``ceil(players / seats)``, their sizes as even as possible (10 players
at tables of 4: 4, 3, 3), never below the game's fewest players; only when no
such split exists do the lowest-placed players with the fewest byes sit out
with a bye, as few as possible (5 players, Dice Hunter: one table of 4 and a
bye); the lowest standings sit at the smaller tables, as TopDeck.gg's "pair low
standings into 3 pods" does for Commander.  Round one deals the seeding round
the tables (with three tables: seeds 1, 4, 7, 10 at the first), the two-player
rule's "top half against bottom half" for more seats.  Later rounds fill the tables down the standings: each
table takes the highest-placed player still unseated, then, one by one,
whoever has met that table's players the fewest times before, the higher
placed first on equal counts (rematches are avoided greedily, not always: with
few players some are unavoidable).
"""

from __future__ import annotations

import math
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
    placement: int = 0
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
            "placement": self.placement,
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
        below = places_below(m)
        for name in m.players:
            row = rows[name]
            row.opponents += [p for p in m.players if p != name]
            row.score += m.scores.get(name, 0)
            row.placement += below[name]
            if name in m.winners and len(m.winners) == 1:
                row.points, row.wins = row.points + WIN, row.wins + 1
            elif name in m.winners:
                row.points, row.draws = row.points + DRAW, row.draws + 1
            else:
                row.points, row.losses = row.points + LOSS, row.losses + 1
    for row in rows.values():
        row.buchholz = sum(rows[o].points for o in row.opponents)
    return sorted(rows.values(), key=lambda r: (-r.points, -r.buchholz, -r.placement, -r.score, r.seed))


def places_below(m: Finished) -> dict[str, int]:
    """For each player of a match, how many of its players finished below them.

    Places: the winners first, then the rest by game score (highest first); equal
    scores share a place.
    """

    def key(name: str) -> tuple[int, float]:
        return (0 if name in m.winners else 1, -float(m.scores.get(name, 0)))

    return {p: sum(key(q) > key(p) for q in m.players) for p in m.players}


def pod_sizes(players: int, seats: int, fewest: int = 2) -> tuple[list[int], int]:
    """(table sizes, largest first; byes) for ``players`` at tables of at most ``seats``.

    The fewest byes for which the players split into tables of ``fewest``..``seats``,
    then as few tables as that allows, their sizes as even as possible.
    """
    if not 2 <= fewest <= seats:
        raise ValueError(f"tables of {fewest}..{seats} players: expected 2 <= fewest <= seats")
    for byes in range(players + 1):
        n = players - byes
        if n == 0:
            return [], byes
        tables = math.ceil(n / seats)
        small, extra = divmod(n, tables)
        if small >= fewest:
            return [small + 1] * extra + [small] * (tables - extra), byes
    return [], players


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


def swiss(
    players: Sequence[str], finished: Sequence[Finished], seats: int = 2, fewest: int = 2
) -> list[tuple[str, ...]]:
    """The next Swiss round: tables of ``seats`` (pairs by default), one-player byes last."""
    if seats > 2:
        return swiss_pods(players, finished, seats, fewest)
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


def swiss_pods(
    players: Sequence[str], finished: Sequence[Finished], seats: int, fewest: int = 2
) -> list[tuple[str, ...]]:
    """The next Swiss round at tables of up to ``seats`` players (see the module docstring)."""
    order = [r.name for r in standings(players, finished)]
    sizes, n_byes = pod_sizes(len(order), seats, fewest)
    byes_had = {name: 0 for name in order}
    for m in finished:
        if m.bye:
            byes_had[m.players[0]] += 1
    # the lowest placed among those with the fewest byes sit out
    out = sorted(reversed(order), key=lambda n: byes_had[n])[:n_byes]
    seated = [n for n in order if n not in out]
    bye_tables = [(n,) for n in order if n in out]
    if not finished:  # round one: deal the seeding round the tables
        tables: list[list[str]] = [[] for _ in sizes]
        for i, name in enumerate(seated):
            tables[i % len(sizes)].append(name)
        return [tuple(t) for t in tables] + bye_tables
    met: dict[frozenset[str], int] = {}
    for m in finished:
        for i, a in enumerate(m.players):
            for b in m.players[i + 1 :]:
                met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    rank = {name: i for i, name in enumerate(seated)}
    left = list(seated)
    result = []
    for size in sizes:
        table = [left.pop(0)]
        while len(table) < size:
            best = min(left, key=lambda c: (sum(met.get(frozenset((c, t)), 0) for t in table), rank[c]))
            left.remove(best)
            table.append(best)
        result.append(tuple(table))
    return result + bye_tables


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
