"""Dice Hunter (「ダイスハンター」): roll five d6 to claim tiles, steal them in the late game.

Rules: ``dice-hunter.ja.txt`` with RULINGS.md section 2 (which overrides it).
3-4 players; the ``players`` list is the seating order, starting with the start
player.  Input vocabulary, with an example per input: ``engine/SCENARIOS.md``.

Shape of a game
    Early game: ``rounds_in_phase`` rounds (3 with 4 players, 4 with 3 players),
    the order never changes.  Every turn starts with one regular tile turned up
    (12 turns, 12 tiles, so the deck is empty exactly when the early game ends).
    Late game: the reversal tile is laid out; as many rounds again; each round's
    order is by score, highest first.

A turn
    Up to three rolls.  After a roll the player either keeps some dice and
    rerolls the rest (``keep``, only while a roll is left) or ends the turn by
    claiming one thing: a face-up tile the dice satisfy, in the late game a tile
    held by a player earlier in this round's order, or bonus chips (one per die
    showing 1).

Decisions the documents leave open (a referee's least surprising reading):

* ``keep`` is a fresh choice from all five dice each time: dice kept earlier
  may be picked up again (the document's own example drops a kept 3).  Keeping
  all five is refused: to stop rolling, claim.  The next ``roll`` must still
  show every kept value (multiset containment); the other dice may show anything.
* Bonus chips may be taken with no 1 showing: that claims nothing and is how a
  player with nothing to take ends the turn.  Chips beyond the supply of 20
  are simply not paid out.  Chips are worth 50 each and are never stolen.
* The reversal tile is worth no points; taking it ends the game at once and
  its taker wins.  Five 1s also satisfy the Quintet: the player chooses.
* Stealing: in the late game, from any player earlier in this round's order,
  any opening or regular tile the dice satisfy.  In the final round a steal is
  allowed only if afterwards the taker's score (tiles + chips) is strictly
  higher than every other player's; face-up tiles stay free to take.
* Late-game order: score, highest first; equal scores: whoever played later in
  the previous round goes first (for the first late round, the previous round
  is the last early round).
* Final ranking: score, then earlier in the final round's order.  After a
  reversal win the taker ranks first and the rest follow the same rule, using
  the round being played.
* ``round`` in the state counts within the phase (1..``rounds_in_phase``).

Options: ``{"deck": "physical"}`` (default: each early turn waits for a
``reveal`` input naming the tile turned up at the table) or ``{"deck": "virtual"}``
(the engine shuffles the 12 regular tiles with its seeded rng and turns them up
itself).  The state never shows the order of the face-down deck.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from engine.core import (
    JSON,
    Choice,
    Context,
    Die,
    DieEntry,
    DieKind,
    Expectation,
    Game,
    Input,
    InputKind,
    Outcome,
    Question,
    Reading,
    Result,
    RuleError,
)
from engine.throws import count_question, doubt

DICE = 5
MAX_ROLLS = 3
CHIP_SUPPLY = 20
CHIP_POINTS = 50


@dataclass(frozen=True)
class Tile:
    """One tile: what it needs and what it is worth.

    ``pattern`` is ``kind`` (``count`` dice of ``face``, any face when ``face``
    is None, "N" meaning at least N), ``full-house`` or ``straight`` (``faces``).
    """

    id: str
    label: str
    points: int
    group: str  # "opening", "regular" or "reversal"
    pattern: str
    count: int = 0
    face: int | None = None
    faces: tuple[int, ...] = ()

    def satisfied_by(self, dice: Sequence[int]) -> bool:
        counts = Counter(dice)
        if self.pattern == "full-house":
            return sorted(counts.values()) == [2, 3]
        if self.pattern == "straight":
            return sorted(dice) == list(self.faces)
        if self.face is None:
            return max(counts.values(), default=0) >= self.count
        return counts[self.face] >= self.count

    def to_json(self) -> JSON:
        return {"id": self.id, "label": self.label, "points": self.points, "group": self.group}


def _kind(face: int, count: int, points: int) -> Tile:
    word = {2: "Duo", 3: "Trio", 4: "Quartet", 5: "Quintet"}[count]
    return Tile(f"{face}-{word.lower()}", f"{face} {word}", points, "regular", "kind", count, face)


OPENING_TILES: tuple[Tile, ...] = (
    Tile("trio", "Trio", 200, "opening", "kind", 3),
    Tile("quartet", "Quartet", 300, "opening", "kind", 4),
    Tile("full-house", "Full House", 300, "opening", "full-house"),
    Tile("quintet", "Quintet", 500, "opening", "kind", 5),  # RULINGS: five, not the document's four
)
REGULAR_TILES: tuple[Tile, ...] = (
    _kind(2, 2, 150),
    _kind(2, 3, 250),
    _kind(3, 3, 300),
    _kind(3, 4, 400),
    _kind(4, 3, 300),
    _kind(4, 4, 400),
    _kind(5, 3, 350),
    _kind(5, 4, 450),
    _kind(6, 4, 500),
    _kind(6, 5, 800),
    Tile("straight-1-5", "Straight 1-5", 250, "regular", "straight", faces=(1, 2, 3, 4, 5)),
    Tile("straight-2-6", "Straight 2-6", 300, "regular", "straight", faces=(2, 3, 4, 5, 6)),
)
REVERSAL_TILE = Tile("reversal", "Reversal (1 Quintet)", 0, "reversal", "kind", 5, 1)
TILES: dict[str, Tile] = {t.id: t for t in (*OPENING_TILES, *REGULAR_TILES, REVERSAL_TILE)}
#: the tiles' names in the rule document (/work/shared/rules/dice-hunter.ja.txt), for names()
_JA_KIND = {"duo": "デュオ", "trio": "トリオ", "quartet": "カルテット", "quintet": "クインテット"}
TILE_NAMES_JA: dict[str, str] = {
    "trio": "トリオ",
    "quartet": "カルテット",
    "full-house": "フルハウス",
    "quintet": "クインテット",
    **{t.id: f"{t.face}の{_JA_KIND[t.id.split('-')[1]]}" for t in REGULAR_TILES if t.pattern == "kind"},
    "straight-1-5": "1〜5のストレート",
    "straight-2-6": "2〜6のストレート",
    "reversal": "逆転タイル・1のクインテット",
}


class OutcomeKind(StrEnum):
    """Events a Dice Hunter input can cause."""

    TILE_REVEALED = "tile_revealed"
    ROLLED = "rolled"
    KEPT = "kept"
    TILE_TAKEN = "tile_taken"
    TILE_STOLEN = "tile_stolen"
    CHIPS_TAKEN = "chips_taken"
    ROUND_STARTED = "round_started"
    LATE_GAME_STARTED = "late_game_started"
    GAME_OVER = "game_over"


def _outcome(kind: OutcomeKind, player: str | None = None, **detail: Any) -> Outcome:
    return Outcome(kind.value, player, detail)


class DiceHunter(Game):
    """The Dice Hunter state machine (see the module docstring for the rulings)."""

    name = "dice-hunter"
    min_players = 3
    max_players = 4
    shows_unthrown_dice: ClassVar[bool] = True  # the kept dice are shown again in the next roll

    def __init__(
        self,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(players, options, rng, data)
        unknown = sorted(set(self.options) - {"deck"})
        if unknown:
            raise RuleError(f"dice-hunter has no option {unknown[0]!r}; expected only 'deck'")
        self.deck_mode: str = self.options.get("deck", "physical")
        if self.deck_mode not in ("physical", "virtual"):
            raise RuleError(f"option 'deck' must be 'physical' or 'virtual', got {self.deck_mode!r}")
        # The face-down deck.  Physical: the tiles not yet revealed (order unknown
        # to the engine).  Virtual: the shuffled order.  Never shown in the state.
        self._deck: list[str] = [t.id for t in REGULAR_TILES]
        if self.deck_mode == "virtual":
            self.rng.shuffle(self._deck)
        self.revealed: list[str] = []
        self.face_up: list[str] = [t.id for t in OPENING_TILES]
        self.reversal_laid_out = False
        self.holdings: dict[str, list[str]] = {p: [] for p in self.players}
        self.chips: dict[str, int] = dict.fromkeys(self.players, 0)
        self.chip_supply = CHIP_SUPPLY
        self.phase = "early"
        self.round = 1
        self.rounds_in_phase = 3 if len(self.players) == 4 else 4
        self.order: list[str] = list(self.players)
        self.previous_order: list[str] = []
        self.turn = 0  # index into self.order
        self.step = "roll"  # "reveal", "roll", "choice" or "over"
        self.rolls = 0
        self.dice: list[int] = []
        self.kept: list[int] = []
        self.reversal_winner: str | None = None
        self.last_claim: JSON | None = None
        self._start_turn()

    # -- queries --------------------------------------------------------------
    @property
    def current_player(self) -> str | None:
        return None if self.step == "over" else self.order[self.turn]

    @property
    def final_round(self) -> bool:
        return self.phase == "late" and self.round == self.rounds_in_phase

    def scores(self) -> dict[str, int]:
        return {
            p: sum(TILES[t].points for t in self.holdings[p]) + CHIP_POINTS * self.chips[p]
            for p in self.players
        }

    def takeable(self) -> list[str]:
        """Face-up tiles the current dice satisfy."""
        return [t for t in self.face_up if TILES[t].satisfied_by(self.dice)]

    def steal_options(self) -> list[JSON]:
        """Tiles the current player may steal with the current dice, as ``{"tile", "from"}``."""
        options: list[JSON] = []
        if self.phase != "late" or self.step != "choice":
            return options
        for victim in self.order[: self.turn]:
            for t in self.holdings[victim]:
                if TILES[t].satisfied_by(self.dice) and self._steal_refusal(t, victim) is None:
                    options.append({"tile": t, "from": victim})
        return options

    def _steal_refusal(self, tile: str, victim: str) -> str | None:
        """Why the current player may not take ``tile`` from ``victim`` (None: allowed)."""
        thief = self.order[self.turn]
        if self.phase != "late":
            return "stealing is allowed only in the late game"
        if victim not in self.order[: self.turn]:
            return f"{victim!r} does not play before {thief!r} in this round's order {self.order}"
        if tile not in self.holdings[victim]:
            return f"{victim!r} does not hold it"
        if self.final_round:
            after = self.scores()
            after[thief] += TILES[tile].points
            after[victim] -= TILES[tile].points
            if any(after[thief] <= s for p, s in after.items() if p != thief):
                return (
                    f"in the final round a steal must make the taker the sole leader; "
                    f"after it the scores would be {after}"
                )
        return None

    def chips_on_offer(self) -> int:
        return min(self.dice.count(1), self.chip_supply)

    def expects(self) -> Expectation:
        if self.step == "over":
            return Expectation(None)
        player = self.order[self.turn]
        if self.step == "reveal":
            return Expectation(
                InputKind.REVEAL, (), {"for_player": player, "deck_remaining": len(self._deck)}
            )
        if self.step == "roll":
            return Expectation(
                InputKind.ROLL,
                (player,),
                {"roll": self.rolls + 1, "rolls_left": MAX_ROLLS - self.rolls, "kept": list(self.kept)},
            )
        return Expectation(
            InputKind.CHOICE,
            (player,),
            {
                "roll": self.rolls,
                "rolls_left": MAX_ROLLS - self.rolls,
                "can_keep": self.rolls < MAX_ROLLS,
                "take": self.takeable(),
                "steal": self.steal_options(),
                "chips": self.chips_on_offer(),
            },
        )

    @classmethod
    def _check_final(
        cls, players: list[str], scores: dict[str, int], winners: list[str], options: dict[str, Any]
    ) -> str | None:
        """One winner; a score is made of tiles and chips.  The winner may have any score: the
        reversal tile wins at once, so the highest score alone does not decide."""
        if len(winners) != 1:
            return f"winners: Dice Hunter has one winner (the final round's order breaks ties), got {winners}"
        unit = math.gcd(CHIP_POINTS, *(t.points for t in TILES.values()))
        odd = [p for p in players if scores[p] % unit]
        if odd:
            p = odd[0]
            return f"score of {p}: {scores[p]} is not a sum of tiles and chips (a multiple of {unit})"
        return None

    def result(self) -> Result | None:
        if self.step != "over":
            return None
        scores = self.scores()
        position = {p: i for i, p in enumerate(self.order)}
        ranking = sorted(self.players, key=lambda p: (-scores[p], position[p]))
        if self.reversal_winner is not None:
            ranking.remove(self.reversal_winner)
            ranking.insert(0, self.reversal_winner)
            return Result(
                (self.reversal_winner,),
                tuple(ranking),
                scores,
                f"{self.reversal_winner} took the reversal tile and wins at once",
            )
        top = ranking[0]
        tied = [p for p in ranking if scores[p] == scores[top]]
        reason = f"highest score ({scores[top]})"
        if len(tied) > 1:
            reason += f", tie with {', '.join(tied[1:])} broken by the final round's order"
        return Result((top,), tuple(ranking), scores, reason)

    # -- queries -------------------------------------------------------------------------------
    @classmethod
    def read_throw(cls, ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
        """What a settled throw means (engine.throws): its inputs, or the question to ask first."""
        q = count_question(readings, 5, "dice") or doubt(readings, ctx.threshold)
        if q is not None:
            return q
        player = ctx.expected.players[0] if ctx.expected.players else None
        return [Input(InputKind.ROLL, player, {"dice": sorted(int(d["value"]) for d in readings)})]

    def choices(self, player: str) -> list[Choice]:
        """Take a tile (or steal one), end the turn for chips, or keep every die of one face more."""
        exp = self.expects()
        if exp.kind is not InputKind.CHOICE or player not in exp.players:
            return []
        detail = exp.detail
        out: list[Choice] = [(f"take {t}", {"take": t}) for t in detail.get("take") or []]
        out += [
            (f"take {s['tile']} from {s['from']}", {"take": s["tile"], "from": s["from"]})
            for s in detail.get("steal") or []
        ]
        if detail.get("chips"):
            out.append((f"chips ({detail['chips']})", {"chips": True}))
        if detail.get("can_keep"):
            kept = list(self.kept)
            for face, n in sorted(Counter(self.dice).items()):
                keep = (
                    sorted(kept + [face] * (n - kept.count(face)))
                    if face in kept
                    else sorted(kept + [face] * n)
                )
                if 0 < len(keep) <= 4:
                    out.append((f"keep {' '.join(map(str, keep))}", {"keep": keep}))
        if not out:
            out.append(("end turn (chips)", {"chips": True}))
        return out

    def entry_dice(self, player: str | None, player_colours: Mapping[str, str]) -> tuple[DieEntry, ...]:
        """A roll shows all five dice, the kept ones too."""
        if self.expects().kind is not InputKind.ROLL:
            return ()
        return tuple(DieEntry((DieKind.D6,)) for _ in range(DICE))

    def thrown(self, inp: Input) -> list[Die]:
        """A roll shows the kept dice again: only the others were rolled."""
        kept = list(self.kept)
        out = []
        for d in inp.dice():
            if d.value in kept:
                kept.remove(d.value)  # shown again, not rolled
            else:
                out.append(d)
        return out

    def reveals(self) -> list[Choice]:
        """The tiles still in the deck, when a tile is to be turned up."""
        if self.expects().kind is not InputKind.REVEAL:
            return []
        return [(f"turn up {TILES[t].label}", {"tile": t}) for t in sorted(set(self._deck))]

    def names(self) -> dict[str, str]:
        return {t.id: f"{t.label} ({TILE_NAMES_JA[t.id]})" for t in TILES.values()}

    def state_json(self) -> JSON:
        holder = {t: p for p, ts in self.holdings.items() for t in ts}
        reversal = "reserve"
        if self.reversal_winner is not None:
            reversal = self.reversal_winner
        elif self.reversal_laid_out:
            reversal = "face_up"
        return {
            "phase": "over" if self.step == "over" else self.phase,
            "round": self.round,
            "rounds_in_phase": self.rounds_in_phase,
            "final_round": self.final_round,
            "order": list(self.order),
            "previous_order": list(self.previous_order),
            "turn": self.turn,
            "current_player": self.current_player,
            "step": self.step,
            "roll": self.rolls,
            "rolls_left": MAX_ROLLS - self.rolls,
            "dice": list(self.dice),
            "kept": list(self.kept),
            "deck": self.deck_mode,
            "face_up": list(self.face_up),
            "deck_remaining": len(self._deck),
            "revealed": list(self.revealed),
            "reversal": reversal,
            "holdings": {p: list(ts) for p, ts in self.holdings.items()},
            "holder": holder,
            "chips": dict(self.chips),
            "chip_supply": self.chip_supply,
            "last_claim": self.last_claim,
            "tiles": {t.id: t.to_json() for t in TILES.values()},
        }

    # -- inputs ---------------------------------------------------------------
    def _apply(self, inp: Input) -> list[Outcome]:
        if self.step == "over":
            raise self.refuse("the game is over", inp)
        if self.step == "reveal":
            self.require(inp, InputKind.REVEAL)
            return self._reveal(inp)
        if self.step == "roll":
            self.require(inp, InputKind.ROLL)
            return self._roll(inp)
        if inp.kind is InputKind.ROLL and self.rolls >= MAX_ROLLS:
            raise self.refuse(
                f"no roll left: {inp.player or 'the player'} has rolled {MAX_ROLLS} times this turn "
                f"({MAX_ROLLS} per turn); take a tile or chips",
                inp,
            )
        self.require(inp, InputKind.CHOICE)
        return self._choice(inp)

    def _only_fields(self, inp: Input, allowed: set[str]) -> None:
        extra = sorted(set(inp.data) - allowed)
        if extra:
            raise self.refuse(f"unknown field {extra[0]!r} (expected {sorted(allowed)})", inp)

    def _reveal(self, inp: Input) -> list[Outcome]:
        self._only_fields(inp, {"tile"})
        if inp.player is not None and inp.player not in self.players:
            raise self.refuse(f"{inp.player!r} is not playing (players: {list(self.players)})", inp)
        tile = inp.data.get("tile")
        if not isinstance(tile, str) or tile not in TILES:
            raise self.refuse(f"reveal needs 'tile' naming a tile, one of {sorted(TILES)}; got {tile!r}", inp)
        if TILES[tile].group != "regular":
            raise self.refuse(f"tile {tile!r} is not a regular tile: only regular tiles are in the deck", inp)
        if tile not in self._deck:
            raise self.refuse(f"tile {tile!r} was already revealed", inp)
        self._deck.remove(tile)
        return [self._lay_out(tile)]

    def _lay_out(self, tile: str) -> Outcome:
        self.revealed.append(tile)
        self.face_up.append(tile)
        self.step = "roll"
        return _outcome(OutcomeKind.TILE_REVEALED, None, tile=tile, deck_remaining=len(self._deck))

    def _roll(self, inp: Input) -> list[Outcome]:
        self._only_fields(inp, {"dice"})
        dice = inp.dice()
        if len(dice) != DICE:
            raise self.refuse(f"a roll must show all {DICE} dice (kept ones too), got {len(dice)}", inp)
        if any(d.kind is not DieKind.D6 for d in dice):
            raise self.refuse("Dice Hunter uses d6 only", inp)
        values = [d.value for d in dice]
        missing = Counter(self.kept) - Counter(values)
        if missing:
            raise self.refuse(
                f"the kept dice {self.kept} must still show; missing {sorted(missing.elements())}", inp
            )
        self.rolls += 1
        self.dice = sorted(values)
        self.step = "choice"
        return [_outcome(OutcomeKind.ROLLED, inp.player, roll=self.rolls, dice=list(self.dice))]

    def _choice(self, inp: Input) -> list[Outcome]:
        self._only_fields(inp, {"keep", "take", "from", "chips"})
        given = [k for k in ("keep", "take", "chips") if k in inp.data]
        if len(given) != 1:
            raise self.refuse("a choice needs exactly one of 'keep', 'take' or 'chips'", inp)
        if "from" in inp.data and given != ["take"]:
            raise self.refuse("'from' goes only with 'take'", inp)
        if given == ["keep"]:
            return self._keep(inp)
        if given == ["chips"]:
            if inp.data["chips"] is not True:
                raise self.refuse(f"'chips' must be true, got {inp.data['chips']!r}", inp)
            return self._take_chips(inp)
        return self._take_tile(inp)

    def _keep(self, inp: Input) -> list[Outcome]:
        keep = inp.data["keep"]
        if not isinstance(keep, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in keep
        ):
            raise self.refuse(f"'keep' must be a list of die values, got {keep!r}", inp)
        if self.rolls >= MAX_ROLLS:
            raise self.refuse(f"no roll left ({MAX_ROLLS} per turn): take a tile or chips", inp)
        if len(keep) >= DICE:
            raise self.refuse(f"keep at most {DICE - 1} dice; to stop rolling, take a tile or chips", inp)
        missing = Counter(keep) - Counter(self.dice)
        if missing:
            raise self.refuse(f"cannot keep {sorted(missing.elements())}: the dice show {self.dice}", inp)
        self.kept = sorted(keep)
        self.step = "roll"
        return [_outcome(OutcomeKind.KEPT, inp.player, kept=list(self.kept), reroll=DICE - len(keep))]

    def _take_chips(self, inp: Input) -> list[Outcome]:
        player = self.order[self.turn]
        n = self.chips_on_offer()
        self.chips[player] += n
        self.chip_supply -= n
        self.last_claim = {"player": player, "chips": n}
        out = [_outcome(OutcomeKind.CHIPS_TAKEN, player, chips=n, chip_supply=self.chip_supply)]
        return out + self._end_turn()

    def _take_tile(self, inp: Input) -> list[Outcome]:
        player = self.order[self.turn]
        tile = inp.data["take"]
        if not isinstance(tile, str) or tile not in TILES:
            raise self.refuse(f"'take' must name a tile, one of {sorted(TILES)}; got {tile!r}", inp)
        victim = inp.data.get("from")
        if victim is None:
            if tile not in self.face_up:
                raise self.refuse(f"player {player!r} cannot take tile {tile!r}: it is not face up", inp)
        else:
            if victim not in self.players or victim == player:
                raise self.refuse(f"'from' must name another player, got {victim!r}", inp)
            why = self._steal_refusal(tile, victim)
            if why is not None:
                raise self.refuse(f"player {player!r} cannot take tile {tile!r} from {victim!r}: {why}", inp)
        if not TILES[tile].satisfied_by(self.dice):
            raise self.refuse(
                f"player {player!r} cannot take tile {tile!r}: not satisfied by the dice {self.dice}", inp
            )
        if victim is None:
            self.face_up.remove(tile)
        else:
            self.holdings[victim].remove(tile)
        self.last_claim = {"player": player, "tile": tile, "from": victim}
        self.holdings[player].append(tile)
        if tile == REVERSAL_TILE.id:
            self.reversal_winner = player
            self.step = "over"
            return [
                _outcome(OutcomeKind.TILE_TAKEN, player, tile=tile),
                _outcome(OutcomeKind.GAME_OVER, player, reason="reversal"),
            ]
        if victim is None:
            out = [_outcome(OutcomeKind.TILE_TAKEN, player, tile=tile, points=TILES[tile].points)]
        else:
            out = [
                _outcome(
                    OutcomeKind.TILE_STOLEN, player, tile=tile, points=TILES[tile].points, **{"from": victim}
                )
            ]
        return out + self._end_turn()

    # -- turn and round flow ----------------------------------------------------
    def _end_turn(self) -> list[Outcome]:
        self.rolls = 0
        self.dice = []
        self.kept = []
        self.turn += 1
        out: list[Outcome] = []
        if self.turn == len(self.order):
            out += self._end_round()
        if self.step != "over":
            out += self._start_turn()
        return out

    def _start_turn(self) -> list[Outcome]:
        self.step = "roll"
        if self.phase == "early":
            if self.deck_mode == "virtual":
                return [self._lay_out(self._deck.pop())]
            self.step = "reveal"
        return []

    def _end_round(self) -> list[Outcome]:
        self.turn = 0
        if self.round == self.rounds_in_phase:
            if self.phase == "late":
                self.step = "over"
                return [_outcome(OutcomeKind.GAME_OVER, None, reason="final round played")]
            self.phase = "late"
            self.round = 1
            self.reversal_laid_out = True
            self.face_up.append(REVERSAL_TILE.id)
            self._order_by_score()
            return [_outcome(OutcomeKind.LATE_GAME_STARTED, None, order=list(self.order))]
        self.round += 1
        if self.phase == "late":
            self._order_by_score()
        else:
            self.previous_order = list(self.order)
        return [
            _outcome(
                OutcomeKind.ROUND_STARTED, None, phase=self.phase, round=self.round, order=list(self.order)
            )
        ]

    def _order_by_score(self) -> None:
        """Highest score first; equal scores: later in the previous round goes first."""
        scores = self.scores()
        previous = {p: i for i, p in enumerate(self.order)}
        self.previous_order = list(self.order)
        self.order = sorted(self.players, key=lambda p: (-scores[p], -previous[p]))
