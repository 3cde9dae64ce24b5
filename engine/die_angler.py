"""Die-angler (「ダイ公望」): secretly pick your fishing rods (dice), fewest dice roll first.

Rules: ``die-angler.ja.txt`` with RULINGS.md section 1 (which overrides it).
2-5 players, each with five d6, one d10 and one d20 in their own colour.
Input vocabulary, with an example per input: ``engine/SCENARIOS.md``.

Shape of a game
    15 fish cards (a deck data file); 5 are removed unseen, the other 10 are
    played one per bout.  A bout: a card is turned up, every player secretly
    selects a number of d6 and which of their rested d10/d20 to take, with a
    mode for each (chum / re-approach / lure), the selections are revealed
    when everyone has confirmed, and players roll in order (fewest dice first;
    equal: fewer special dice first; still equal: simultaneously).  The first
    in order to succeed takes the card (and any carried cards); the rest do
    not roll.  Nobody succeeds, or an exact tie among simultaneous rollers:
    carry-over.  After the 10th bout the most cards wins; a tie for most plays
    an extra game with the 5 removed cards, all players taking part.

A player's roll
    ``roll`` gives what the camera reads of the selected dice (a d10 shows 0-9,
    0 counts as 10).  The engine keeps them in a canonical order: the d6 in the
    order given, then the d10, then the d20; ``choice`` inputs name dice by that
    index or as ``"d10"``/``"d20"``.  With re-approach rights or a lure budget
    left, the player then gives ``choice`` inputs (reroll, lure, done); a
    ``reroll`` choice is followed by a ``roll`` input holding only the new
    values of the dice picked up.  When nothing is left to use, the roll counts
    at once.

Decisions the documents leave open (a referee's least surprising reading):

* A confirmed secret selection is final (the closed hands are already in the
  middle of the table); a second ``secret`` from the same player is refused.
  Error messages about a secret never quote the selection.
* Modes of special dice are declared when the player's group is called to roll
  (RULINGS: "only the counts are public before rolling"); the reveal shows
  each player's d6 count and which special dice they hold.  The modes of a
  player who never got to roll are never shown, not even after the bout.
  Option ``"modes_public": "reveal"`` shows every mode at the reveal instead.
* A lure die's own value is the size of its adjustment, so it is neither added
  nor counted for conditions nor for "≠" (like re-approach).  Option
  ``"lure_die_counts": true`` adds and counts it like chum.  A lure never
  adjusts its own die.  A lure's budget may be spent over several ``choice``
  inputs, need not be spent in full, and (even value) touches at most two dice.
* Rights are derived from the current value: re-approach grants 1 (odd) or 2
  (even), a lure budget is 1 (odd) or 2 (even); what the die already spent is
  subtracted (never below 0).  So a re-approach/lure die rerolled by another
  die's right is recomputed from its new value.  A lure may change a
  re-approach or lure die only before that die has spent anything ("before its
  right is counted").
* No cycles: once die X's ability has rerolled or lured special die Y, Y's
  ability may never reroll or lure X.  A right never rerolls its own die.
* Required faces are a multiset: ``faces = [4, 4]`` needs two 4s.  ``equals``
  groups are matched to different faces, each needing at least that many dice
  (``[2, 2]``: two pairs of different faces; a triple satisfies ``[2]``).
* A deck file holds exactly 15 cards (10 played, 5 removed), as in the box;
  required faces may be 1-20 (a chum d20 can show them), "=" groups 2 or more.
* Selecting no dice at all passes the bout.  If everybody passes, or everyone
  who rolled failed, the card is carried over.
* Cooldown: special dice selected in a bout rest during the next bout (shown
  in the state, refused in a selection).  Option ``"cooldown_into_extra"``
  (default true): the extra game continues the sequence of bouts, so dice
  taken into the last main bout also rest in the first extra bout.
* End: after the last bout of the deck.  Cards carried over from the last bout
  are claimed by nobody (``unclaimed``).  A tie for most cards (0 included)
  starts an extra game after a ``start`` input: the 5 removed cards, all
  players, extra-game cards counted from zero.  Most extra-game cards wins;
  several: shared victory.  If nobody takes a card in the extra game, the
  players tied after the main game share the victory.  Option
  ``"extra_game": false`` skips the extra game: the tied players share the
  victory at once.  ``scores()`` is all cards held (main and extra).

Options: ``deck`` ("physical", default: a ``reveal`` input names each card
turned up at the table; "virtual": the engine removes 5 and turns cards with
its seeded rng), ``advanced`` (bool, allows lure), ``colours`` ({player:
colour}, default red, blue, green, purple, yellow in seating order; dice in a
roll that carry a colour must be the player's), plus the three above.  The
state never shows face-down or removed cards, nor a selection before its reveal.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from engine.core import (
    JSON,
    Choice,
    ChoiceField,
    Context,
    DataError,
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
from engine.throws import by_colour

DECK_SIZE = 15
REMOVED = 5
D6_PER_PLAYER = 5
SPECIALS = ("d10", "d20")
COLOURS = ("red", "blue", "green", "purple", "yellow")
FACES = {"d6": (1, 6), "d10": (1, 10), "d20": (1, 20)}
MODE_ALIASES = {"chum": "chum", "reapproach": "reapproach", "re-approach": "reapproach", "lure": "lure"}
OPTION_KEYS = {
    "deck",
    "advanced",
    "colours",
    "modes_public",
    "lure_die_counts",
    "extra_game",
    "cooldown_into_extra",
}


class OutcomeKind(StrEnum):
    """Events of a Die-angler game."""

    CARD_REVEALED = "card_revealed"
    SELECTION_CONFIRMED = "selection_confirmed"
    SELECTIONS_REVEALED = "selections_revealed"
    PASSED = "passed"
    GROUP_CALLED = "group_called"
    ROLLED = "rolled"
    REROLL_CALLED = "reroll_called"
    REROLLED = "rerolled"
    LURED = "lured"
    ROLL_COUNTED = "roll_counted"
    FISH_ON = "fish_on"
    CARRY_OVER = "carry_over"
    COOLDOWN = "cooldown"
    MAIN_GAME_OVER = "main_game_over"
    EXTRA_GAME_STARTED = "extra_game_started"
    GAME_OVER = "game_over"


# -- the deck -----------------------------------------------------------------


@dataclass(frozen=True)
class FishCard:
    """One fish card: its target number and the conditions printed on it."""

    id: str
    name: str
    target: int
    faces: tuple[int, ...] = ()
    equals: tuple[int, ...] = ()
    distinct: bool = False

    def to_json(self) -> JSON:
        return {
            "id": self.id,
            "name": self.name,
            "target": self.target,
            "conditions": {"faces": list(self.faces), "equals": list(self.equals), "distinct": self.distinct},
        }

    def caught_by(self, values: Sequence[int]) -> bool:
        """Whether counted dice showing ``values`` land this fish."""
        return sum(values) >= self.target and self.conditions_met(values)

    def conditions_met(self, values: Sequence[int]) -> bool:
        counts = Counter(values)
        if any(counts[f] < n for f, n in Counter(self.faces).items()):
            return False
        if self.distinct and len(counts) != len(values):
            return False
        # Largest groups against the most common faces: a match exists iff this one works.
        groups = sorted(self.equals, reverse=True)
        common = sorted(counts.values(), reverse=True)
        return len(common) >= len(groups) and all(g <= c for g, c in zip(groups, common, strict=False))


def _int_list(source: str, entry: str, name: str, raw: Any, low: int, high: int) -> tuple[int, ...]:
    if not isinstance(raw, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw):
        raise DataError(source, entry, name, f"expected a list of whole numbers, got {raw!r}")
    bad = [v for v in raw if not low <= v <= high]
    if bad:
        raise DataError(source, entry, name, f"values must be {low}-{high}, got {bad!r}")
    return tuple(raw)


def parse_card(raw: Any, source: str, index: int) -> FishCard:
    """Validate one ``[[cards]]`` entry of a deck file."""
    if not isinstance(raw, Mapping):
        raise DataError(source, f"cards[{index}]", "-", f"expected a table, got {raw!r}")
    cid = raw.get("id")
    if not isinstance(cid, str) or not cid.strip():
        raise DataError(source, f"cards[{index}]", "id", f"expected a non-empty string, got {cid!r}")
    unknown = sorted(set(raw) - {"id", "name", "target", "conditions"})
    if unknown:
        raise DataError(source, cid, unknown[0], "unknown field (expected id, name, target, conditions)")
    name = raw.get("name", cid)
    if not isinstance(name, str) or not name.strip():
        raise DataError(source, cid, "name", f"expected a non-empty string, got {name!r}")
    target = raw.get("target")
    if not isinstance(target, int) or isinstance(target, bool) or not 1 <= target <= 200:
        raise DataError(source, cid, "target", f"expected a whole number 1-200, got {target!r}")
    cond = raw.get("conditions", {})
    if not isinstance(cond, Mapping):
        raise DataError(source, cid, "conditions", f"expected a table, got {cond!r}")
    unknown = sorted(set(cond) - {"faces", "equals", "distinct"})
    if unknown:
        raise DataError(
            source, cid, f"conditions.{unknown[0]}", "unknown condition (expected faces, equals, distinct)"
        )
    faces = _int_list(source, cid, "conditions.faces", cond.get("faces", []), 1, 20)
    equals = _int_list(source, cid, "conditions.equals", cond.get("equals", []), 2, 20)
    distinct = cond.get("distinct", False)
    if not isinstance(distinct, bool):
        raise DataError(source, cid, "conditions.distinct", f"expected true or false, got {distinct!r}")
    if distinct and (equals or len(set(faces)) != len(faces)):
        raise DataError(
            source,
            cid,
            "conditions.distinct",
            "a card cannot need all faces different and equal faces at once",
        )
    return FishCard(cid, name, target, faces, equals, distinct)


def parse_deck(raw: Mapping[str, Any], source: str) -> tuple[FishCard, ...]:
    """Validate a whole deck file: exactly 15 cards with distinct ids."""
    unknown = sorted(set(raw) - {"example", "cards", "title", "description"})
    if unknown:
        raise DataError(source, "-", unknown[0], "unknown top-level key (expected example, title, cards)")
    example = raw.get("example", False)
    if not isinstance(example, bool):
        raise DataError(source, "-", "example", f"expected true or false, got {example!r}")
    cards_raw = raw.get("cards")
    if not isinstance(cards_raw, list):
        raise DataError(source, "-", "cards", "expected a list of [[cards]] tables")
    cards = tuple(parse_card(c, source, i) for i, c in enumerate(cards_raw))
    seen: set[str] = set()
    for c in cards:
        if c.id in seen:
            raise DataError(source, c.id, "id", "duplicate card id")
        seen.add(c.id)
    if len(cards) != DECK_SIZE:
        raise DataError(
            source, "-", "cards", f"a Die-angler deck has {DECK_SIZE} fish cards, got {len(cards)}"
        )
    return cards


# -- a player's roll ----------------------------------------------------------


@dataclass
class RolledDie:
    """One die of a player's roll, with its mode and what its ability has spent."""

    kind: str  # "d6", "d10", "d20"
    value: int = 0  # effective value: a d10 "0" is 10
    mode: str | None = None  # None for a d6; chum / reapproach / lure
    spent: int = 0  # rerolls (re-approach) or lure points already used
    acted_on: set[int] = field(default_factory=set)  # special dice its ability touched

    @property
    def grant(self) -> int:
        """Rerolls or lure points the current value grants: odd 1, even 2."""
        return 1 if self.value % 2 else 2

    @property
    def left(self) -> int:
        return max(0, self.grant - self.spent) if self.mode in ("reapproach", "lure") else 0

    def to_json(self, public_mode: bool) -> JSON:
        out: JSON = {"kind": self.kind, "value": self.value}
        if self.mode is not None and public_mode:
            out["mode"] = self.mode
            if self.mode != "chum":
                out["left"] = self.left
        return out


@dataclass
class Roll:
    """A player's dice in this bout, from the first throw to ``done``."""

    dice: list[RolledDie]
    rolled: bool = False
    pending: list[int] | None = None  # dice picked up by a reroll, waiting for new values
    done: bool = False

    def left(self) -> int:
        return sum(d.left for d in self.dice)

    def index_of(self, kind: str) -> int | None:
        return next((i for i, d in enumerate(self.dice) if d.kind == kind), None)


@dataclass(frozen=True)
class Selection:
    """A player's secret selection: how many d6 and which special dice, in which mode."""

    d6: int
    specials: tuple[tuple[str, str], ...]  # (kind, mode), d10 before d20

    @property
    def count(self) -> int:
        return self.d6 + len(self.specials)

    def public_json(self, with_modes: bool) -> JSON:
        out: JSON = {
            "d6": self.d6,
            "specials": [k for k, _ in self.specials],
            "count": self.count,
            "special_count": len(self.specials),
        }
        if with_modes:
            out["modes"] = dict(self.specials)
        return out


class DieAngler(Game):
    """Die-angler for 2-5 players; see the module docstring for every ruling."""

    name = "die-angler"
    min_players = 2
    max_players = 5
    data_files: ClassVar[dict[str, str]] = {"deck": "die-angler.example.toml"}
    dice_kinds: ClassVar[tuple[DieKind, ...]] = (DieKind.D6, DieKind.D10, DieKind.D20)

    @classmethod
    def parse_data(cls, key: str, raw: Mapping[str, Any], source: str) -> Any:
        if key != "deck":
            raise DataError(source, "-", key, "Die-angler only reads a 'deck' data file")
        return parse_deck(raw, source)

    def __init__(
        self,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(players, options, rng, data)
        self._read_options()
        deck = self.data.get("deck")
        if isinstance(deck, Mapping):
            deck = parse_deck(deck, "data['deck']")
        if not isinstance(deck, tuple) or not all(isinstance(c, FishCard) for c in deck):
            raise ValueError("Die-angler needs data['deck']: the fish cards parsed from a deck file")
        self.data["deck"] = deck
        self._cards: dict[str, FishCard] = {c.id: c for c in deck}
        self._part = "main"
        self._bout = 0
        self._bouts_total = DECK_SIZE - REMOVED
        self._face_down = self._bouts_total  # cards still to turn up in this part
        self._removed = REMOVED
        self._hidden_deck: list[str] = []  # virtual deck only: face-down order
        self._hidden_removed: list[str] = []  # virtual deck only
        self._seen: list[str] = []  # every card turned up so far, both parts
        self._card: str | None = None
        self._carried: list[str] = []
        self._unclaimed: list[str] = []
        self._held: dict[str, list[str]] = {p: [] for p in self.players}
        self._extra_held: dict[str, list[str]] = {p: [] for p in self.players}
        self._resting: dict[str, list[str]] = {p: [] for p in self.players}
        self._selections: dict[str, Selection] = {}
        self._order: list[list[str]] = []
        self._group = 0
        self._declared: set[str] = set()
        self._rolls: dict[str, Roll] = {}
        self._tied: list[str] = []
        self._phase = "reveal"
        self._last_bout: JSON | None = None
        if self._virtual:
            ids = [c.id for c in deck]
            self.rng.shuffle(ids)
            self._hidden_removed, self._hidden_deck = ids[:REMOVED], ids[REMOVED:]
            self._turn_card(self._hidden_deck.pop(0))

    def _read_options(self) -> None:
        o = self.options
        unknown = sorted(set(o) - OPTION_KEYS)
        if unknown:
            raise ValueError(
                f"unknown Die-angler option {unknown[0]!r}; expected one of {sorted(OPTION_KEYS)}"
            )
        deck = o.get("deck", "physical")
        if deck not in ("physical", "virtual"):
            raise ValueError(f"option 'deck' must be 'physical' or 'virtual', got {deck!r}")
        self._virtual = deck == "virtual"
        modes_public = o.get("modes_public", "roll")
        if modes_public not in ("roll", "reveal"):
            raise ValueError(f"option 'modes_public' must be 'roll' or 'reveal', got {modes_public!r}")
        self._modes_at_reveal = modes_public == "reveal"
        for key in ("advanced", "lure_die_counts", "extra_game", "cooldown_into_extra"):
            if key in o and not isinstance(o[key], bool):
                raise ValueError(f"option {key!r} must be true or false, got {o[key]!r}")
        self._advanced = bool(o.get("advanced", False))
        self._lure_counts = bool(o.get("lure_die_counts", False))
        self._extra_game = bool(o.get("extra_game", True))
        self._cooldown_into_extra = bool(o.get("cooldown_into_extra", True))
        colours = o.get("colours", dict(zip(self.players, COLOURS, strict=False)))
        if not isinstance(colours, Mapping) or set(colours) != set(self.players):
            raise ValueError(
                f"option 'colours' must map every player {list(self.players)} to a colour, got {colours!r}"
            )
        bad = [c for c in colours.values() if c not in COLOURS]
        if bad or len(set(colours.values())) != len(colours):
            raise ValueError(
                f"option 'colours' needs different colours from {list(COLOURS)}, got {colours!r}"
            )
        self._colours: dict[str, str] = dict(colours)

    # -- the protocol -------------------------------------------------------

    def expects(self) -> Expectation:
        if self._phase == "over":
            return Expectation(None)
        if self._phase == "reveal":
            return Expectation(
                InputKind.REVEAL, (), {"part": self._part, "bout": self._bout + 1, "cards": self._unseen()}
            )
        if self._phase == "start":
            return Expectation(InputKind.START, (), {"part": "extra", "tied": list(self._tied)})
        if self._phase == "select":
            waiting = tuple(p for p in self.players if p not in self._selections)
            return Expectation(
                InputKind.SECRET,
                waiting,
                {
                    "confirmed": [p for p in self.players if p in self._selections],
                    "available": {p: [k for k in SPECIALS if k not in self._resting[p]] for p in waiting},
                    "lure": self._advanced,
                },
            )
        group = self._order[self._group]
        to_roll = [p for p in group if not self._rolls[p].rolled or self._rolls[p].pending is not None]
        choosing = [p for p in group if p not in to_roll and not self._rolls[p].done]
        if to_roll:
            return Expectation(
                InputKind.ROLL,
                tuple(to_roll),
                {"dice": {p: self._dice_to_roll(p) for p in to_roll}, "choosing": choosing},
            )
        return Expectation(
            InputKind.CHOICE, tuple(choosing), {"rights": {p: self._rights(p) for p in choosing}}
        )

    def _apply(self, inp: Input) -> list[Outcome]:
        exp = self.expects()
        if inp.kind is InputKind.SECRET:
            if self._phase == "select":
                return self._apply_secret(inp)
            why = "the game is over" if exp.kind is None else "a secret selection is not expected now"
            raise self._refuse_secret(f"{why} (waiting for {exp.describe()})", inp)
        if exp.kind is None:
            raise self.refuse("the game is over", inp)
        if self._phase == "approach":
            return self._apply_approach(inp)
        self.require(inp, exp.kind)
        if self._phase == "reveal":
            return self._apply_reveal(inp)
        return self._start_extra(inp)

    # -- queries -------------------------------------------------------------------------------
    @classmethod
    def read_throw(cls, ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
        """What a settled throw means (engine.throws): its inputs, or the question to ask first."""
        dice = ctx.expected.detail.get("dice", {})
        wanted = {p: len(dice.get(p, [])) for p in ctx.expected.players}
        return by_colour(ctx, readings, wanted, InputKind.ROLL)

    def choices(self, player: str) -> list[Choice]:
        """Stop rolling (a lure or a reroll is entered on the admin page)."""
        exp = self.expects()
        if exp.kind is not InputKind.CHOICE or player not in exp.players:
            return []
        return [("done", {"done": True})]

    def secret_fields(self, player: str) -> tuple[ChoiceField, ...]:
        """How many d6 to roll, then how to use each special die that is not resting."""
        exp = self.expects()
        if exp.kind is not InputKind.SECRET or player not in self.players:
            return super().secret_fields(player)
        available = exp.detail.get("available", {}).get(player, SPECIALS)
        modes: list[tuple[str, Any]] = [("none", None), ("chum", "chum"), ("reapproach", "reapproach")]
        if exp.detail.get("lure"):
            modes.append(("lure", "lure"))
        fields = [ChoiceField("d6", tuple((str(n), n) for n in range(6)))]
        fields += [ChoiceField(kind, tuple(modes)) for kind in SPECIALS if kind in available]
        return tuple(fields)

    def secret_payload(self, values: Mapping[str, Any]) -> JSON:
        specials = {k: values[k] for k in SPECIALS if values.get(k) is not None}
        return {"d6": values["d6"], "specials": specials}

    def dice_colours(self, player_colours: Mapping[str, str]) -> frozenset[str] | None:
        return frozenset(c.lower() for c in player_colours.values())

    def entry_dice(self, player: str | None, player_colours: Mapping[str, str]) -> tuple[DieEntry, ...]:
        """The dice ``player`` rolls now (the expectation's kinds for them), in their colour."""
        exp = self.expects()
        kinds = exp.detail.get("dice", {}).get(player) if exp.kind is InputKind.ROLL else None
        if not isinstance(kinds, list):
            return ()
        colour = player_colours.get(str(player))
        return tuple(DieEntry((DieKind(k),), (colour.lower(),) if colour else ()) for k in kinds)

    def reveals(self) -> list[Choice]:
        """The fish cards not yet turned up, when a card is to be turned up."""
        if self.expects().kind is not InputKind.REVEAL:
            return []
        return [(f"turn up {self._cards[c].name}", {"card": c}) for c in self._unseen()]

    def names(self) -> dict[str, str]:
        return {c.id: c.name for c in self._cards.values()}

    def state_json(self) -> JSON:
        revealed = self._phase == "approach"
        return {
            "phase": self._phase,
            "part": self._part,
            "bout": self._bout,
            "bouts": self._bouts_total,
            "deck": self.deck_mode,
            "face_down": self._face_down,
            "removed": self._removed,
            "card": None if self._card is None else self._cards[self._card].to_json(),
            "carried": list(self._carried),
            "unclaimed": list(self._unclaimed),
            "held": {p: list(v) for p, v in self._held.items()},
            "extra_held": {p: list(v) for p, v in self._extra_held.items()},
            "resting": {p: list(v) for p, v in self._resting.items()},
            "colours": dict(self._colours),
            "confirmed": [p for p in self.players if p in self._selections],
            "selections": {p: s.public_json(self._public_modes(p)) for p, s in self._selections.items()}
            if revealed
            else {},
            "order": [list(g) for g in self._order],
            "group": self._group,
            "rolls": {p: self._roll_json(p) for p in self._rolls},
            "tied": list(self._tied),
            "last_bout": self._last_bout,
        }

    def scores(self) -> dict[str, int]:
        return {p: len(self._held[p]) + len(self._extra_held[p]) for p in self.players}

    @classmethod
    def _check_final(
        cls, players: list[str], scores: dict[str, int], winners: list[str], options: dict[str, Any]
    ) -> str | None:
        """Without the extra game the most fish cards win, and a tie shares the victory.  With it
        (the default) a score adds the extra game's catches, which decide alone, so any winner fits."""
        if options.get("extra_game", True) is not False:
            return None
        best = max(scores.values())
        expected = [p for p in players if scores[p] == best]
        if sorted(winners) != sorted(expected):
            return f"winners: the most fish cards ({best}) win and a tie shares, so {expected}, got {winners}"
        return None

    def result(self) -> Result | None:
        if self._phase != "over":
            return None
        main = {p: len(v) for p, v in self._held.items()}
        extra = {p: len(v) for p, v in self._extra_held.items()}
        ranking = tuple(sorted(self.players, key=lambda p: (-extra[p], -main[p])))
        best_main = max(main.values())
        leaders = [p for p in self.players if main[p] == best_main]
        if len(leaders) == 1:
            return Result((leaders[0],), ranking, self.scores(), f"most fish cards ({best_main})")
        if self._part == "main":
            return Result(
                tuple(leaders),
                ranking,
                self.scores(),
                f"shared victory: tied on {best_main} fish cards (no extra game)",
            )
        best_extra = max(extra.values())
        if best_extra == 0:
            return Result(
                tuple(self._tied),
                ranking,
                self.scores(),
                "shared victory: nobody landed a fish in the extra game",
            )
        winners = tuple(p for p in self.players if extra[p] == best_extra)
        why = (
            "most fish cards in the extra game"
            if len(winners) == 1
            else "shared victory after the extra game"
        )
        return Result(winners, ranking, self.scores(), f"{why} ({best_extra})")

    @property
    def deck_mode(self) -> str:
        return "virtual" if self._virtual else "physical"

    # -- cards --------------------------------------------------------------

    def _unseen(self) -> list[str]:
        return [c for c in self._cards if c not in self._seen]

    def _turn_card(self, cid: str) -> Outcome:
        self._bout += 1
        self._face_down -= 1
        self._seen.append(cid)
        self._card = cid
        self._phase = "select"
        self._selections = {}
        self._rolls = {}
        self._order = []
        self._group = 0
        self._declared = set()
        return Outcome(
            OutcomeKind.CARD_REVEALED,
            None,
            {
                "card": self._cards[cid].to_json(),
                "part": self._part,
                "bout": self._bout,
                "carried": list(self._carried),
                "resting": {p: list(v) for p, v in self._resting.items() if v},
            },
        )

    def _apply_reveal(self, inp: Input) -> list[Outcome]:
        cid = inp.data.get("card")
        unseen = self._unseen()
        if not isinstance(cid, str) or cid not in self._cards:
            raise self.refuse(f"unknown fish card {cid!r}; expected one of {unseen}", inp)
        if cid not in unseen:
            raise self.refuse(f"fish card {cid!r} was already turned up; expected one of {unseen}", inp)
        return [self._turn_card(cid)]

    # -- secret selection -----------------------------------------------------

    def _refuse_secret(self, why: str, inp: Input) -> RuleError:
        """A refusal that never quotes the selection (it may be logged or shown)."""
        hidden = Input(InputKind.SECRET, inp.player, {"selection": "<hidden>"})
        return RuleError(why, inp=hidden, expected=self.expects(), state=self.state_json())

    def _parse_selection(self, inp: Input) -> Selection:
        p = inp.player
        data = inp.data
        extra = sorted(set(data) - {"d6", "specials"})
        if extra:
            raise self._refuse_secret(f"unknown field {extra[0]!r} in a secret (expected d6, specials)", inp)
        d6 = data.get("d6", 0)
        if not isinstance(d6, int) or isinstance(d6, bool) or not 0 <= d6 <= D6_PER_PLAYER:
            raise self._refuse_secret(f"'d6' must be a whole number from 0 to {D6_PER_PLAYER}", inp)
        specials = data.get("specials", {})
        if not isinstance(specials, Mapping):
            raise self._refuse_secret("'specials' must map 'd10'/'d20' to a mode", inp)
        picked: list[tuple[str, str]] = []
        for kind in SPECIALS:
            if kind not in specials:
                continue
            mode = MODE_ALIASES.get(specials[kind]) if isinstance(specials[kind], str) else None
            if mode is None:
                raise self._refuse_secret(
                    f"the mode of a special die must be one of {sorted(MODE_ALIASES)}", inp
                )
            if mode == "lure" and not self._advanced:
                raise self._refuse_secret("lure is an advanced rule and this game has advanced: false", inp)
            assert p is not None
            if kind in self._resting[p]:
                raise self._refuse_secret(
                    f"a selected special die is resting this bout (cooldown); resting: {self._resting[p]}",
                    inp,
                )
            picked.append((kind, mode))
        if set(specials) - set(SPECIALS):
            raise self._refuse_secret(f"'specials' may only name {list(SPECIALS)}", inp)
        return Selection(d6, tuple(picked))

    def _apply_secret(self, inp: Input) -> list[Outcome]:
        p = inp.player
        if p not in self.players:
            raise self._refuse_secret(f"unknown player {p!r}; expected one of {list(self.players)}", inp)
        if p in self._selections:
            raise self._refuse_secret(f"player {p!r} already confirmed a selection; it is final", inp)
        self._selections[p] = self._parse_selection(inp)
        out = [
            Outcome(
                OutcomeKind.SELECTION_CONFIRMED,
                p,
                {"confirmed": [q for q in self.players if q in self._selections]},
            )
        ]
        if len(self._selections) == len(self.players):
            out += self._reveal_selections()
        return out

    def _reveal_selections(self) -> list[Outcome]:
        sel = self._selections
        out = [
            Outcome(
                OutcomeKind.SELECTIONS_REVEALED,
                None,
                {"selections": {p: s.public_json(self._modes_at_reveal) for p, s in sel.items()}},
            )
        ]
        rollers = [p for p in self.players if sel[p].count > 0]
        out += [Outcome(OutcomeKind.PASSED, p) for p in self.players if sel[p].count == 0]
        keys = sorted({(sel[p].count, len(sel[p].specials)) for p in rollers})
        self._order = [[p for p in rollers if (sel[p].count, len(sel[p].specials)) == k] for k in keys]
        self._group = 0
        if not self._order:
            return out + self._end_bout(None, "everybody passed")
        return out + self._call_group()

    def _public_modes(self, p: str) -> bool:
        return self._modes_at_reveal or p in self._declared

    # -- approach ---------------------------------------------------------------

    def _call_group(self) -> list[Outcome]:
        self._phase = "approach"
        group = self._order[self._group]
        self._declared.update(group)
        for p in group:
            s = self._selections[p]
            dice = [RolledDie("d6") for _ in range(s.d6)] + [RolledDie(k, mode=m) for k, m in s.specials]
            self._rolls[p] = Roll(dice)
        return [
            Outcome(
                OutcomeKind.GROUP_CALLED,
                None,
                {
                    "players": list(group),
                    "simultaneous": len(group) > 1,
                    "modes": {p: dict(self._selections[p].specials) for p in group},
                },
            )
        ]

    def _dice_to_roll(self, p: str) -> list[str]:
        r = self._rolls[p]
        idx = range(len(r.dice)) if r.pending is None else r.pending
        return [r.dice[i].kind for i in idx]

    def _rights(self, p: str) -> JSON:
        r = self._rolls[p]
        return {d.kind: {"mode": d.mode, "left": d.left} for d in r.dice if d.left}

    def _roll_json(self, p: str) -> JSON:
        r = self._rolls[p]
        out: JSON = {"dice": [d.to_json(True) for d in r.dice], "rolled": r.rolled, "done": r.done}
        if r.rolled:
            values = self._counted(r)
            out["sum"] = sum(values)
            out["success"] = self._card is not None and self._cards[self._card].caught_by(values)
        if r.pending is not None:
            out["pending_reroll"] = list(r.pending)
        return out

    def _counted(self, r: Roll) -> list[int]:
        modes = ("chum", "lure") if self._lure_counts else ("chum",)
        return [d.value for d in r.dice if d.mode is None or d.mode in modes]

    def _apply_approach(self, inp: Input) -> list[Outcome]:
        group = self._order[self._group]
        p = inp.player
        if inp.kind not in (InputKind.ROLL, InputKind.CHOICE):
            raise self.refuse(f"expected a roll or a choice from {group}, got {inp.kind.value}", inp)
        if p not in group:
            raise self.refuse(f"player {p!r} is not rolling now (rolling: {group})", inp)
        r = self._rolls[p]
        if inp.kind is InputKind.ROLL:
            if r.rolled and r.pending is None:
                raise self.refuse(f"player {p!r} has already rolled and picked up no dice to reroll", inp)
            out = self._apply_roll(p, r, inp)
        else:
            if not r.rolled or r.pending is not None:
                raise self.refuse(f"player {p!r} must first roll {self._dice_to_roll(p)}", inp)
            if r.done:
                raise self.refuse(f"player {p!r} has finished this roll", inp)
            out = self._apply_choice(p, r, inp)
        if r.rolled and r.pending is None and not r.done and r.left() == 0:
            r.done = True
            out.append(self._counted_outcome(p, r))
        if all(self._rolls[q].done for q in group):
            out += self._settle_group()
        return out

    def _read_dice(self, p: str, inp: Input, kinds: list[str]) -> list[int]:
        """Match the camera's dice to the kinds expected; return effective values in that order."""
        dice = inp.dice()
        got = sorted(d.kind.value for d in dice)
        if got != sorted(kinds):
            raise self.refuse(f"player {p!r} must roll {sorted(kinds)}, the roll shows {got}", inp)
        for d in dice:
            if d.colour is not None and d.colour != self._colours[p]:
                raise self.refuse(f"a {d.colour} {d.kind.value} is not {p}'s ({self._colours[p]})", inp)
        pools: dict[str, list[int]] = {}
        for d in dice:
            pools.setdefault(d.kind.value, []).append(
                10 if d.kind is DieKind.D10 and d.value == 0 else d.value
            )
        return [pools[k].pop(0) for k in kinds]

    def _apply_roll(self, p: str, r: Roll, inp: Input) -> list[Outcome]:
        idx = list(range(len(r.dice))) if r.pending is None else r.pending
        values = self._read_dice(p, inp, [r.dice[i].kind for i in idx])
        for i, v in zip(idx, values, strict=True):
            r.dice[i].value = v
        event = OutcomeKind.ROLLED if r.pending is None else OutcomeKind.REROLLED
        r.rolled, r.pending = True, None
        return [
            Outcome(
                event,
                p,
                {
                    "dice": [d.to_json(True) for d in r.dice],
                    "rerolled": idx,
                    "sum": sum(self._counted(r)),
                    "left": self._rights(p),
                },
            )
        ]

    def _die_ref(self, p: str, r: Roll, ref: Any, inp: Input) -> int:
        if isinstance(ref, str) and ref in SPECIALS:
            i = r.index_of(ref)
            if i is None:
                raise self.refuse(f"player {p!r} did not roll a {ref}", inp)
            return i
        if isinstance(ref, int) and not isinstance(ref, bool) and 0 <= ref < len(r.dice):
            return ref
        raise self.refuse(
            f"no die {ref!r} in {p}'s roll: name a die by index 0-{len(r.dice) - 1}, 'd10' or 'd20'", inp
        )

    def _ability(self, p: str, r: Roll, ref: Any, mode: str, inp: Input) -> int:
        i = self._die_ref(p, r, ref, inp)
        d = r.dice[i]
        if d.mode != mode:
            raise self.refuse(f"{p}'s {d.kind} is not in {mode} mode", inp)
        if d.left == 0:
            raise self.refuse(f"{p}'s {d.kind} has no {mode} left", inp)
        return i

    def _check_target(self, r: Roll, by: int, t: int, what: str, p: str, inp: Input) -> None:
        if t == by:
            raise self.refuse(f"{p}'s {r.dice[by].kind} cannot {what} itself", inp)
        if by in r.dice[t].acted_on:
            raise self.refuse(
                f"{p}'s {r.dice[by].kind} cannot {what} the {r.dice[t].kind} whose ability "
                f"already acted on it (no cycles)",
                inp,
            )

    def _apply_choice(self, p: str, r: Roll, inp: Input) -> list[Outcome]:
        keys = set(inp.data) & {"reroll", "lure", "done"}
        if len(keys) != 1 or set(inp.data) - keys:
            raise self.refuse("a choice holds exactly one of 'reroll', 'lure' or 'done'", inp)
        if "done" in keys:
            if inp.data["done"] is not True:
                raise self.refuse("'done' must be true", inp)
            r.done = True
            return [self._counted_outcome(p, r)]
        if "reroll" in keys:
            return self._choose_reroll(p, r, inp)
        return self._choose_lure(p, r, inp)

    def _choose_reroll(self, p: str, r: Roll, inp: Input) -> list[Outcome]:
        spec = inp.data["reroll"]
        if not isinstance(spec, Mapping) or not isinstance(spec.get("dice"), list) or not spec["dice"]:
            raise self.refuse('a reroll is {"by": "d10"|"d20", "dice": [indexes or "d10"/"d20"]}', inp)
        by = self._ability(p, r, spec.get("by"), "reapproach", inp)
        targets = [self._die_ref(p, r, t, inp) for t in spec["dice"]]
        if len(set(targets)) != len(targets):
            raise self.refuse("a reroll names each die once", inp)
        for t in targets:
            self._check_target(r, by, t, "reroll", p, inp)
        r.dice[by].spent += 1
        r.dice[by].acted_on.update(t for t in targets if r.dice[t].kind != "d6")
        r.pending = sorted(targets)
        return [
            Outcome(
                OutcomeKind.REROLL_CALLED,
                p,
                {
                    "by": r.dice[by].kind,
                    "dice": list(r.pending),
                    "kinds": [r.dice[t].kind for t in r.pending],
                },
            )
        ]

    def _choose_lure(self, p: str, r: Roll, inp: Input) -> list[Outcome]:
        spec = inp.data["lure"]
        changes = spec.get("changes") if isinstance(spec, Mapping) else None
        if not isinstance(changes, list) or not changes or not all(isinstance(c, Mapping) for c in changes):
            raise self.refuse(
                'a lure is {"by": "d10"|"d20", "changes": [{"die": index, "delta": +-1 or 2}]}', inp
            )
        assert isinstance(spec, Mapping)
        by = self._ability(p, r, spec.get("by"), "lure", inp)
        lure = r.dice[by]
        moves: list[tuple[int, int]] = []
        for c in changes:
            t = self._die_ref(p, r, c.get("die"), inp)
            delta = c.get("delta")
            if not isinstance(delta, int) or isinstance(delta, bool) or delta == 0:
                raise self.refuse(f"a lure delta must be a non-zero whole number, got {delta!r}", inp)
            self._check_target(r, by, t, "lure", p, inp)
            if r.dice[t].mode in ("reapproach", "lure") and r.dice[t].spent:
                raise self.refuse(
                    f"{p}'s {r.dice[t].kind} already used its ability: its right is counted", inp
                )
            moves.append((t, delta))
        cost = sum(abs(d) for _, d in moves)
        if cost > lure.left:
            raise self.refuse(
                f"{p}'s lure {lure.kind} has {lure.left} point(s) left, the changes need {cost}", inp
            )
        new = {t: r.dice[t].value for t, _ in moves}
        for t, delta in moves:
            new[t] += delta
        for t, v in new.items():
            low, high = FACES[r.dice[t].kind]
            if not low <= v <= high:
                raise self.refuse(
                    f"the lure would take {p}'s {r.dice[t].kind} to {v}, outside {low}-{high}", inp
                )
        lure.spent += cost
        for t, v in new.items():
            r.dice[t].value = v
            if r.dice[t].kind != "d6":
                lure.acted_on.add(t)
        return [
            Outcome(
                OutcomeKind.LURED,
                p,
                {
                    "by": lure.kind,
                    "changes": [{"die": t, "delta": d} for t, d in moves],
                    "dice": [d.to_json(True) for d in r.dice],
                    "sum": sum(self._counted(r)),
                    "left": self._rights(p),
                },
            )
        ]

    def _counted_outcome(self, p: str, r: Roll) -> Outcome:
        values = self._counted(r)
        assert self._card is not None
        return Outcome(
            OutcomeKind.ROLL_COUNTED,
            p,
            {"values": values, "sum": sum(values), "success": self._cards[self._card].caught_by(values)},
        )

    def _settle_group(self) -> list[Outcome]:
        assert self._card is not None
        card = self._cards[self._card]
        group = self._order[self._group]
        sums = {p: sum(self._counted(self._rolls[p])) for p in group}
        hits = [p for p in group if card.caught_by(self._counted(self._rolls[p]))]
        if hits:
            best = min(sums[p] for p in hits)
            closest = [p for p in hits if sums[p] == best]
            if len(closest) == 1:
                return self._end_bout(closest[0], f"fish on with {best} against {card.target}")
            return self._end_bout(None, f"{closest} tied on {best}, closest to {card.target}")
        self._group += 1
        if self._group < len(self._order):
            return self._call_group()
        return self._end_bout(None, "nobody landed the fish")

    # -- end of a bout, of a part, of the game ---------------------------------------

    def _end_bout(self, winner: str | None, why: str) -> list[Outcome]:
        assert self._card is not None
        cards = [*self._carried, self._card]
        out: list[Outcome] = []
        if winner is not None:
            (self._extra_held if self._part == "extra" else self._held)[winner].extend(cards)
            self._carried = []
            out.append(Outcome(OutcomeKind.FISH_ON, winner, {"cards": cards, "why": why}))
        else:
            self._carried = cards
            out.append(Outcome(OutcomeKind.CARRY_OVER, None, {"cards": cards, "why": why}))
        self._last_bout = {
            "part": self._part,
            "bout": self._bout,
            "card": self._card,
            "winner": winner,
            "cards": cards,
            "why": why,
            "selections": {p: s.public_json(self._public_modes(p)) for p, s in self._selections.items()},
            "rolls": {p: self._roll_json(p) for p in self._rolls},
        }
        self._card = None
        self._resting = {p: [k for k, _ in self._selections[p].specials] for p in self.players}
        resting = {p: v for p, v in self._resting.items() if v}
        if resting:
            out.append(Outcome(OutcomeKind.COOLDOWN, None, {"resting": resting}))
        self._selections, self._rolls, self._order, self._group = {}, {}, [], 0
        if self._face_down > 0:
            return out + self._next_card()
        self._unclaimed += self._carried
        self._carried = []
        return out + self._end_part()

    def _next_card(self) -> list[Outcome]:
        if self._virtual:
            return [self._turn_card(self._hidden_deck.pop(0))]
        self._phase = "reveal"
        return []

    def _end_part(self) -> list[Outcome]:
        held = self._held if self._part == "main" else self._extra_held
        best = max(len(v) for v in held.values())
        leaders = [p for p in self.players if len(held[p]) == best]
        if self._part == "main":
            summary = {"held": {p: len(v) for p, v in held.items()}, "leaders": leaders}
            out = [Outcome(OutcomeKind.MAIN_GAME_OVER, None, summary)]
            if len(leaders) > 1 and self._extra_game:
                self._tied = leaders
                self._phase = "start"
                return out
        else:
            out = []
        self._phase = "over"
        res = self.result()
        assert res is not None
        return [*out, Outcome(OutcomeKind.GAME_OVER, None, res.to_json())]

    def _start_extra(self, inp: Input) -> list[Outcome]:
        extra = sorted(set(inp.data) - {"part"})
        if extra or inp.data.get("part", "extra") != "extra":
            raise self.refuse('start takes nothing but an optional "part": "extra"', inp)
        self._part = "extra"
        self._bout = 0
        self._bouts_total = self._face_down = REMOVED
        self._removed = 0
        if not self._cooldown_into_extra:
            self._resting = {p: [] for p in self.players}
        out = [
            Outcome(
                OutcomeKind.EXTRA_GAME_STARTED,
                None,
                {"tied": list(self._tied), "cards": REMOVED, "players": list(self.players)},
            )
        ]
        if self._virtual:
            self._hidden_deck = list(self._hidden_removed)
            self._hidden_removed = []
            self.rng.shuffle(self._hidden_deck)
        return out + self._next_card()
