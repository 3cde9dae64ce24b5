"""DICETAR WARS (ダイスターウォーズ): throw dice onto a board of scoring zones.

Rules: ``dicetar-wars.ja.txt`` with RULINGS.md section 4 (which overrides it).
Input vocabulary and examples: ``engine/SCENARIOS.md``.

Two players, five dice each in their own colour.  A *half*: the first player
throws five, the second throws five, then the first player gathers every die
(of both players) that does not touch the board and throws those again.  If
none of the rethrown dice ends touching the board, the second player's score
for the half is doubled; when no die is off the board nothing is rethrown and
nothing is doubled.  Two halves with the order swapped; higher total wins; a
tie is replayed as a new pair of halves.

Every throw input lists every die the camera sees on and around the board
after that throw; a die belongs to the player whose colour it shows.  The last
list of a half is what scores:

* a die touching scoring zones: face x the lowest multiplier among them;
* a die touching no zone (or off the board): 0;
* a die resting on another die: face x the lowest multiplier among the zones
  touched by the die at the bottom of its stack x 4 (once, whatever the height).

Zone multipliers come from the board data file (key ``board``, default
``boards/dicetar-wars.example.toml``; only its zones' names and multipliers are
read, whatever shapes the zones are drawn with).  When a
die gives ``zones`` but no ``min_multiplier``, the engine computes it; when it
gives both, they must agree.

Decisions the documents leave open (a referee's least surprising reading):

* The ``players`` list gives the first player of the first half; the second
  half swaps.  A replay after a tie starts again with the first player of the
  original first half; only the replay's totals decide.
* Dice stacked on a die that touches the board count as on the board (they
  stay for scoring and are not gathered for the rethrow); a stacked die takes
  its on/off status from the bottom of its stack.  Option
  ``"stacked_dice_on_board": false`` makes stacked dice count as off the board
  (rethrown), the literal reading of 「ボードに全く接触していない」.
* Which dice were rethrown: the rethrow input may mark them per die with
  ``"rethrown": true`` (the tracker keeps die identities).  Unmarked, the engine
  assumes dice that stayed on the board were not knocked off, so the rethrown
  dice all ended off the board exactly when at least as many dice are off
  after the rethrow as were rethrown.
* Every throw must show exactly five dice of each player who has thrown in
  this half (the first throw: five of the first player's colour only).  A die
  the camera lost is a question for a human, never a guess: the input is
  refused and the controller asks for a correction.
* Advanced rule (option ``"advanced": true``): any dice numbered 1..N (kinds
  d6, d20 and dN with ``sides``); a d10 numbered 0-9 does not qualify.  Without
  it only d6 are accepted.
* Every die needs ``field_status`` except stacked dice, which inherit it from
  the bottom of their stack.  ``card_slot`` counts as on the board.

Options: ``colours`` (player -> colour; default red for the first player,
blue for the second), ``advanced`` (bool, default false),
``stacked_dice_on_board`` (bool, default true).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from engine.core import (
    JSON,
    Context,
    DataError,
    Die,
    DieEntry,
    DieKind,
    Expectation,
    FieldStatus,
    Game,
    Input,
    InputKind,
    Outcome,
    Question,
    Reading,
    Result,
    RuleError,
)
from engine.throws import colour_doubt, die_json, doubt, reading_ids, support_doubt

DICE_PER_PLAYER = 5
STACK_FACTOR = 4
DEFAULT_COLOURS = ("red", "blue")
OPTIONS = ("colours", "advanced", "stacked_dice_on_board")


@dataclass(frozen=True)
class Zone:
    """One scoring zone of the board: its name and multiplier.

    Where the zone lies (a polygon, a circle, a ring sector, an imported SVG path...) is
    calibration's business: the engine only scores the zone names a die touches.
    """

    name: str
    multiplier: int


@dataclass(frozen=True)
class Board:
    """The scoring zones of a DICETAR WARS board (from the board data file)."""

    zones: tuple[Zone, ...]
    source: str = ""

    @property
    def multipliers(self) -> dict[str, int]:
        return {z.name: z.multiplier for z in self.zones}


def parse_board(raw: Mapping[str, Any], source: str) -> Board:
    """Validate the names and multipliers of a board file's ``[[zones]]``.

    Every other key of a zone (its shape) and every other table of the file belong to
    calibration (``calibration.board``), which checks them when the table places dice.
    """
    entries = raw.get("zones")
    if not isinstance(entries, list) or not entries:
        raise DataError(source, "zones", "zones", "expected at least one [[zones]] entry")
    zones: list[Zone] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        where = f"zones[{i}]"
        if not isinstance(entry, Mapping):
            raise DataError(source, where, "-", f"expected a table, got {entry!r}")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise DataError(source, where, "name", f"expected a non-empty string, got {name!r}")
        where = f"zones[{i}] ({name})"
        if name in seen:
            raise DataError(source, where, "name", "duplicate zone name")
        seen.add(name)
        mult = entry.get("multiplier")
        if not isinstance(mult, int) or isinstance(mult, bool) or mult <= 0:
            raise DataError(source, where, "multiplier", f"expected an int > 0, got {mult!r}")
        zones.append(Zone(name, mult))
    return Board(tuple(zones), source)


class OutcomeKind(StrEnum):
    """Events a DICETAR WARS input can cause."""

    THROWN = "thrown"
    RETHROW_NEEDED = "rethrow_needed"
    HALF_SCORED = "half_scored"
    REPLAY_NEEDED = "replay_needed"
    GAME_OVER = "game_over"


@dataclass(frozen=True)
class ScoredDie:
    """One die of a throw with what it is worth."""

    index: int
    owner: str
    value: int
    on_board: bool
    multiplier: int | None  # the multiplier applied (bottom die's for a stack); None: no zone
    stacked: bool
    points: int

    def to_json(self) -> JSON:
        return {
            "index": self.index,
            "owner": self.owner,
            "value": self.value,
            "on_board": self.on_board,
            "multiplier": self.multiplier,
            "stacked": self.stacked,
            "points": self.points,
        }


def _ident(d: Die) -> str:
    """A die's facts as the camera gives them, to match a die lying where it lay."""
    return json.dumps(
        {k: v for k, v in d.to_json().items() if k not in ("confidence", "rests_on")}, sort_keys=True
    )


class DicetarWars(Game):
    """The DICETAR WARS state machine (see the module docstring for the rulings)."""

    name = "dicetar-wars"
    min_players = 2
    max_players = 2
    data_files: ClassVar[dict[str, str]] = {"board": "dicetar-wars.example.toml"}
    throw_shows_board: ClassVar[bool] = True
    shows_unthrown_dice: ClassVar[bool] = True

    @classmethod
    def parse_data(cls, key: str, raw: Mapping[str, Any], source: str) -> Any:
        if key == "board":
            return parse_board(raw, source)
        raise DataError(source, "-", key, "dicetar-wars reads only a 'board' data file")

    def __init__(
        self,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(players, options, rng, data)
        unknown = sorted(set(self.options) - set(OPTIONS))
        if unknown:
            raise RuleError(f"dicetar-wars has no option {unknown[0]!r}; expected some of {list(OPTIONS)}")
        self.colours: dict[str, str] = self._colours_option()
        for flag in ("advanced", "stacked_dice_on_board"):
            if not isinstance(self.options.get(flag, False), bool):
                raise RuleError(f"option {flag!r} must be true or false, got {self.options[flag]!r}")
        self.advanced: bool = self.options.get("advanced", False)
        self.stacked_on_board: bool = self.options.get("stacked_dice_on_board", True)
        board = self.data.get("board")
        if board is not None and not isinstance(board, Board):
            raise RuleError(f"data 'board' must be a parsed board, got {type(board).__name__}")
        self.board: Board | None = board
        self.game_no = 1
        self.half = 1
        self.step = "first_throw"  # "first_throw", "second_throw", "rethrow" or "over"
        self.table: list[Die] = []  # the dice of the last throw of this half
        self.scored: list[ScoredDie] = []
        self.to_rethrow = 0
        self.halves: list[JSON] = []  # the halves of the current game (replay)
        self.tied_games: list[JSON] = []
        self.last_half: JSON | None = None  # the half scored last (kept across a replay)

    def _colours_option(self) -> dict[str, str]:
        raw = self.options.get("colours")
        if raw is None:
            return dict(zip(self.players, DEFAULT_COLOURS, strict=True))
        if not isinstance(raw, Mapping) or set(raw) != set(self.players):
            raise RuleError(
                f"option 'colours' must map each of {list(self.players)} to a colour, got {raw!r}"
            )
        colours = {p: raw[p] for p in self.players}
        if not all(isinstance(c, str) and c for c in colours.values()):
            raise RuleError(f"option 'colours' must give colour names, got {raw!r}")
        if len({c.lower() for c in colours.values()}) != 2:
            raise RuleError(f"option 'colours' must give the players different colours, got {raw!r}")
        return {p: c.lower() for p, c in colours.items()}

    # -- queries --------------------------------------------------------------
    @property
    def first(self) -> str:
        return self.players[0] if self.half == 1 else self.players[1]

    @property
    def second(self) -> str:
        return self.players[1] if self.half == 1 else self.players[0]

    def totals(self) -> dict[str, int]:
        out = dict.fromkeys(self.players, 0)
        for h in self.halves:
            for p, s in h["scores"].items():
                out[p] += s
        return out

    def scores(self) -> dict[str, int]:
        return self.totals()

    def expects(self) -> Expectation:
        if self.step == "over":
            return Expectation(None)
        who = self.second if self.step == "second_throw" else self.first
        detail: JSON = {"game": self.game_no, "half": self.half, "step": self.step}
        if self.step == "rethrow":
            detail["dice"] = self.to_rethrow
            detail["off_board"] = self._off_by_colour()
        else:
            detail["dice"] = DICE_PER_PLAYER
            detail["colour"] = self.colours[who]
        return Expectation(InputKind.THROW, (who,), detail)

    @classmethod
    def _check_final(
        cls, players: list[str], scores: dict[str, int], winners: list[str], options: dict[str, Any]
    ) -> str | None:
        """One winner, with the higher total: equal totals are replayed, never shared."""
        if len(winners) != 1:
            return f"winners: DICETAR WARS has one winner (equal totals are replayed), got {winners}"
        (winner,) = winners
        beaten = [p for p in players if p != winner and scores[p] >= scores[winner]]
        if beaten:
            other = beaten[0]
            return (
                f"winner {winner} has {scores[winner]}, not more than {other}'s {scores[other]} "
                "(the higher total wins; equal totals are replayed)"
            )
        return None

    def result(self) -> Result | None:
        if self.step != "over":
            return None
        totals = self.totals()
        ranking = tuple(sorted(self.players, key=lambda p: -totals[p]))
        reason = f"higher total ({totals[ranking[0]]} to {totals[ranking[1]]})"
        if self.tied_games:
            reason += f" in replay {self.game_no - 1} after {len(self.tied_games)} tied game(s)"
        return Result((ranking[0],), ranking, totals, reason)

    # -- queries -------------------------------------------------------------------------------
    @classmethod
    def read_throw(cls, ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
        """What a settled throw means (engine.throws): its inputs, or the question to ask first."""
        detail = ctx.expected.detail
        player = ctx.expected.players[0]
        if detail.get("step") == "first_throw":
            want = {str(detail.get("colour", ctx.colours[player])).lower(): 5}
        else:
            want = {ctx.colours[p].lower(): 5 for p in ctx.players}
        # only the players' dice are game dice: anything else the reader reports (a marker, a
        # die from another game) is left out, and stacks are re-indexed into the dice kept
        colours = {ctx.colours[p].lower() for p in ctx.players}
        kept = [i for i, d in enumerate(readings) if str(d.get("colour", "")).lower() in colours]
        index = {old: new for new, old in enumerate(kept)}
        # a die between two players' colours is asked before it is counted for either (issue 45)
        q = colour_doubt(readings, sorted(colours))
        if q is not None:
            return q
        every = readings
        readings = [readings[i] for i in kept]
        seen = Counter(str(d.get("colour", "")).lower() for d in readings)
        if dict(seen) != want:
            return Question(
                f"This throw needs {want} dice by colour on and around the board; the camera sees "
                f"{dict(seen)}. Rethrow, or correct the reading (a die lying under another cannot be seen: "
                "say its colour and value).",
                reading_ids(readings),
                "count",
            )
        q = doubt(readings, ctx.threshold) or support_doubt(every)
        if q is not None:
            return q
        return [Input(InputKind.THROW, player, {"dice": [die_json(d, index) for d in readings]})]

    def dice_colours(self, player_colours: Mapping[str, str]) -> frozenset[str] | None:
        return frozenset(c.lower() for c in player_colours.values())

    def board_colours(self, player_colours: Mapping[str, str]) -> frozenset[str] | None:
        return frozenset(c.lower() for c in player_colours.values())

    def entry_dice(self, player: str | None, player_colours: Mapping[str, str]) -> tuple[DieEntry, ...]:
        """Every die on and around the board: five in the colour of each player who has thrown this
        half, each in one of the board's zones (or in none, or off the board)."""
        if self.expects().kind is not InputKind.THROW:
            return ()
        throwers = (self.first,) if self.step == "first_throw" else self.players
        kinds = (DieKind.D6, DieKind.D20) if self.advanced else (DieKind.D6,)
        zones = tuple(self.board.multipliers) if self.board is not None else ()
        return tuple(
            DieEntry(kinds, (self.colours[p],), zones) for p in throwers for _ in range(DICE_PER_PLAYER)
        )

    def thrown(self, inp: Input) -> list[Die]:
        """A throw lists every die on and around the board: in the second throw only the thrower's
        colour is new, and in the rethrow only the dice marked ``rethrown`` (or, unmarked, the dice
        that are not where the last throw left them; when that count is not the number rethrown,
        none of it is taken as thrown)."""
        dice = list(inp.dice())
        if self.step == "second_throw":
            return [d for d in dice if d.colour == self.colours[self.second]]
        if self.step != "rethrow":
            return dice
        raw = inp.data["dice"]
        marked = [d for d, r in zip(dice, raw, strict=True) if isinstance(r, dict) and r.get("rethrown")]
        if marked:
            return marked
        stayed = Counter(_ident(d) for d in self.table if d.field_status is not FieldStatus.OFF)
        new = []
        for d in dice:
            if stayed[_ident(d)] > 0:
                stayed[_ident(d)] -= 1
            else:
                new.append(d)
        return new if len(new) == self.to_rethrow else []

    def state_json(self) -> JSON:
        return {
            "phase": "over" if self.step == "over" else "playing",
            "game_no": self.game_no,
            "half": self.half,
            "step": self.step,
            "first": None if self.step == "over" else self.first,
            "second": None if self.step == "over" else self.second,
            "current_player": self.expects().players[0] if self.step != "over" else None,
            "colours": dict(self.colours),
            "advanced": self.advanced,
            "dice": [d.to_json() for d in self.table],
            "table": [s.to_json() for s in self.scored],
            "provisional": self._sum_by_owner(self.scored),
            "to_rethrow": self.to_rethrow,
            "halves": [dict(h) for h in self.halves],
            "last_half": dict(self.last_half) if self.last_half else None,
            "totals": self.totals(),
            "tied_games": [dict(g) for g in self.tied_games],
            "zones": {} if self.board is None else self.board.multipliers,
        }

    def _off_by_colour(self) -> dict[str, int]:
        """How many dice of each colour lie off the board (what the rethrow gathers)."""
        off = Counter(self.colours[s.owner] for s in self.scored if not s.on_board)
        return {c: off[c] for c in self.colours.values()}

    def _sum_by_owner(self, scored: Sequence[ScoredDie]) -> dict[str, int]:
        out = dict.fromkeys(self.players, 0)
        for s in scored:
            out[s.owner] += s.points
        return out

    # -- inputs ---------------------------------------------------------------
    def _apply(self, inp: Input) -> list[Outcome]:
        self.require(inp, InputKind.THROW)
        extra = sorted(set(inp.data) - {"dice"})
        if extra:
            raise self.refuse(f"unknown field {extra[0]!r} (a throw has only 'dice')", inp)
        raw = inp.data.get("dice")
        if not isinstance(raw, list):
            raise self.refuse(f"a throw needs 'dice' as a list of dice, got {raw!r}", inp)
        dice = [self._parse_die(i, d, inp) for i, d in enumerate(raw)]
        self._check_counts(dice, inp)
        scored = self._score(dice, inp)
        outcomes = [Outcome(OutcomeKind.THROWN.value, inp.player, {"step": self.step, "dice": len(dice)})]
        if self.step == "rethrow":
            doubled = self._rethrown_all_off(raw, scored, inp)
            self.table, self.scored = dice, scored
            return outcomes + self._end_half(doubled, rethrown=self.to_rethrow)
        self.table, self.scored = dice, scored
        if self.step == "first_throw":
            self.step = "second_throw"
            return outcomes
        off = sum(1 for s in scored if not s.on_board)
        if off == 0:
            return outcomes + self._end_half(False, rethrown=0)
        self.step = "rethrow"
        self.to_rethrow = off
        return [
            *outcomes,
            Outcome(
                OutcomeKind.RETHROW_NEEDED.value,
                self.first,
                {"dice": off, "off_board": self._off_by_colour()},
            ),
        ]

    def _parse_die(self, i: int, raw: Any, inp: Input) -> Die:
        if isinstance(raw, Mapping):
            zones = raw.get("zones", [])
            if not isinstance(zones, list) or not all(isinstance(z, str) for z in zones):
                raise self.refuse(f"die {i}: 'zones' must be a list of zone names, got {zones!r}", inp)
            if not isinstance(raw.get("colour"), str):
                raise self.refuse(f"die {i}: needs 'colour' naming its owner's colour", inp)
        try:
            die = Die.from_json(raw)
        except ValueError as e:
            raise self.refuse(f"die {i}: {e}", inp) from None
        if self.advanced:
            if die.kind in (DieKind.D10, DieKind.D10P):
                raise self.refuse(f"die {i}: a {die.kind.value} is not numbered 1..N", inp)
        elif die.kind is not DieKind.D6:
            raise self.refuse(f"die {i}: only d6 without the advanced rule, got {die.kind.value}", inp)
        if die.colour is None or die.colour.lower() not in self.colours.values():
            raise self.refuse(
                f"die {i}: colour {die.colour!r} is neither player's (expected one of "
                f"{sorted(self.colours.values())})",
                inp,
            )
        if die.min_multiplier is not None and (
            not isinstance(die.min_multiplier, int)
            or isinstance(die.min_multiplier, bool)
            or die.min_multiplier <= 0
        ):
            raise self.refuse(f"die {i}: min_multiplier must be an int > 0, got {die.min_multiplier!r}", inp)
        if die.stack_level > 0 and die.rests_on is None:
            raise self.refuse(f"die {i}: a stacked die (stack_level {die.stack_level}) needs 'rests_on'", inp)
        if die.rests_on is None and die.field_status is None:
            raise self.refuse(f"die {i}: needs 'field_status' (field or off)", inp)
        if die.field_status is FieldStatus.OFF and die.zones:
            raise self.refuse(f"die {i}: is off the board but touches zones {list(die.zones)}", inp)
        return die

    def _owner(self, die: Die) -> str:
        colour = (die.colour or "").lower()
        return next(p for p, c in self.colours.items() if c == colour)

    def _check_counts(self, dice: Sequence[Die], inp: Input) -> None:
        counts = Counter(self._owner(d) for d in dice)
        throwers = (self.first,) if self.step == "first_throw" else self.players
        for p in self.players:
            want = DICE_PER_PLAYER if p in throwers else 0
            if counts[p] != want:
                raise self.refuse(
                    f"expected {want} {self.colours[p]} dice ({p}) on and around the board, got {counts[p]}",
                    inp,
                )

    def _bottom(self, dice: Sequence[Die], i: int, inp: Input) -> int:
        seen = {i}
        while (below := dice[i].rests_on) is not None:
            if not isinstance(below, int) or isinstance(below, bool) or not 0 <= below < len(dice):
                raise self.refuse(f"die {i}: rests_on must index a die of this throw, got {below!r}", inp)
            if below in seen:
                raise self.refuse(f"die {i}: its stack loops back on itself", inp)
            seen.add(below)
            i = below
        return i

    def _lowest_multiplier(self, die: Die, i: int, inp: Input) -> int | None:
        if not die.zones:
            return die.min_multiplier
        if self.board is None:
            if die.min_multiplier is None:
                raise self.refuse(f"die {i}: zones {list(die.zones)} given but no board is loaded", inp)
            return die.min_multiplier
        mults = self.board.multipliers
        unknown = [z for z in die.zones if z not in mults]
        if unknown:
            raise self.refuse(
                f"die {i}: zone {unknown[0]!r} is not on the board {self.board.source!r} "
                f"(zones: {sorted(mults)})",
                inp,
            )
        lowest = min(mults[z] for z in die.zones)
        if die.min_multiplier is not None and die.min_multiplier != lowest:
            raise self.refuse(
                f"die {i}: min_multiplier {die.min_multiplier} disagrees with its zones "
                f"{list(die.zones)} (lowest {lowest})",
                inp,
            )
        return lowest

    def _score(self, dice: Sequence[Die], inp: Input) -> list[ScoredDie]:
        out: list[ScoredDie] = []
        for i, die in enumerate(dice):
            bottom_i = self._bottom(dice, i, inp)
            bottom = dice[bottom_i]
            stacked = bottom_i != i
            # The bottom of a stack has no rests_on, so _parse_die made sure it has a field_status.
            bottom_on = bottom.field_status is not FieldStatus.OFF
            if stacked:
                on_board = bottom_on and self.stacked_on_board
            else:
                on_board = bottom_on
            mult = self._lowest_multiplier(bottom, bottom_i, inp) if bottom_on else None
            if stacked:
                self._lowest_multiplier(die, i, inp)  # its own readings must still make sense
            points = 0 if mult is None else die.value * mult * (STACK_FACTOR if stacked else 1)
            out.append(ScoredDie(i, self._owner(die), die.value, on_board, mult, stacked, points))
        return out

    def _rethrown_all_off(self, raw: Sequence[Any], scored: Sequence[ScoredDie], inp: Input) -> bool:
        marks = [isinstance(d, Mapping) and d.get("rethrown") is True for d in raw]
        off = sum(1 for s in scored if not s.on_board)
        if not any(marks):
            return off >= self.to_rethrow
        if sum(marks) != self.to_rethrow:
            raise self.refuse(
                f"{sum(marks)} dice are marked rethrown but {self.to_rethrow} were off the board", inp
            )
        return not any(s.on_board for s, m in zip(scored, marks, strict=True) if m)

    # -- halves and games -----------------------------------------------------
    def _end_half(self, doubled: bool, rethrown: int) -> list[Outcome]:
        scores = self._sum_by_owner(self.scored)
        if doubled:
            scores[self.second] *= 2
        self.last_half = {
            "game_no": self.game_no,
            "half": self.half,
            "first": self.first,
            "second": self.second,
            "rethrown": rethrown,
            "doubled": doubled,
            "scores": scores,
            "dice": [s.to_json() for s in self.scored],
        }
        self.halves.append(self.last_half)
        out = [
            Outcome(
                OutcomeKind.HALF_SCORED.value,
                None,
                {"half": self.half, "scores": dict(scores), "doubled": doubled, "rethrown": rethrown},
            )
        ]
        self.to_rethrow = 0
        self.step = "first_throw"
        if self.half == 1:
            self.half = 2
            return out
        totals = self.totals()
        a, b = self.players
        if totals[a] == totals[b]:
            self.tied_games.append({"game_no": self.game_no, "totals": totals})
            self.halves = []
            self.game_no += 1
            self.half = 1
            return [*out, Outcome(OutcomeKind.REPLAY_NEEDED.value, None, {"totals": totals})]
        self.step = "over"
        winner = a if totals[a] > totals[b] else b
        return [*out, Outcome(OutcomeKind.GAME_OVER.value, winner, {"totals": totals})]
