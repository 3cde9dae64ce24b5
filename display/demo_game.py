"""A tiny dice game for the display's fake table: each player in turn rolls, the faces add up.

It exists so that ``dicetable serve-fake``, the display tests and the push
benchmark run whatever engine games are installed.  It follows the engine's
``Game`` protocol exactly (expects/apply/state), so everything the display does
with it it does the same way with a real game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random
from typing import Any

from engine.core import Expectation, Game, Input, InputKind, Outcome, Result


class DemoSum(Game):
    """Players roll in turn for ``rounds`` rounds; the highest total of faces wins."""

    name = "demo-sum"
    min_players = 1
    max_players = 6

    def __init__(
        self,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        rng: Random | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(players, options, rng, data)
        rounds = self.options.get("rounds", 3)
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
            raise ValueError(f"option 'rounds' must be a positive integer, got {rounds!r}")
        self.rounds = rounds
        self.round = 1
        self.turn = 0
        self.totals = {p: 0 for p in self.players}
        self.last_roll: dict[str, list[int]] = {}

    def expects(self) -> Expectation:
        if self.round > self.rounds:
            return Expectation(None)
        return Expectation(InputKind.ROLL, (self.players[self.turn],), {"dice": "any", "round": self.round})

    def _apply(self, inp: Input) -> list[Outcome]:
        self.require(inp, InputKind.ROLL)
        dice = inp.dice()
        if not dice:
            raise self.refuse("a roll needs at least one die", inp)
        player = self.players[self.turn]
        total = sum(d.value for d in dice)
        self.totals[player] += total
        self.last_roll[player] = [d.value for d in dice]
        out = [Outcome("scored", player, {"points": total})]
        self.turn += 1
        if self.turn == len(self.players):
            self.turn = 0
            self.round += 1
            if self.round > self.rounds:
                res = self.result()
                out.append(Outcome("game_over", None, {"winners": list(res.winners) if res else []}))
        return out

    def state_json(self) -> dict[str, Any]:
        return {
            "round": min(self.round, self.rounds),
            "rounds": self.rounds,
            "current_player": None if self.round > self.rounds else self.players[self.turn],
            "last_roll": {p: list(v) for p, v in self.last_roll.items()},
        }

    def scores(self) -> dict[str, int]:
        return dict(self.totals)

    def result(self) -> Result | None:
        if self.round <= self.rounds:
            return None
        ranking = tuple(sorted(self.players, key=lambda p: -self.totals[p]))
        best = self.totals[ranking[0]]
        winners = tuple(p for p in ranking if self.totals[p] == best)
        return Result(winners, ranking, dict(self.totals), "highest total")
