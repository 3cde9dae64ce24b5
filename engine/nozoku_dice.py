"""Nozoku Dice (ノゾクダイス), 1-4 players: the solo game in full, the multiplayer game as far as stated.

Sources: ``nozoku-dice.ja.txt`` and RULINGS.md section 3 (the rulings win).  The
document prints the solo rules completely but only outlines the multiplayer
round; everything it leaves unstated about how a round's acquisition works
(who starts, how cards are chosen, which dice a card takes, who may peek)
lives in ONE extension point, :class:`AcquisitionRules`, chosen by the
``acquisition`` option.  The shipped choice, ``"house"``
(:class:`HouseAcquisition`), is a house reading of the outline, not the
publisher's text.  The solo acquisition phase ("as in the normal rules") uses
the same rules object.

Components.  Dice: 8 d6 per colour, 4 colours.  Magic cards: 6 per colour
(numbered 1-6), each with a main-action face, a main action, a sub-action face,
a sub action and a slot for taken dice.  Which action is on which card is not
printed, so the card texts come from a deck data file
(``decks/nozoku-dice.example.toml`` is an example); every colour uses the same
six card texts.

Dice in play (ゲームの準備): 4 players: 4 colours x 8.  3 players: the 3 players'
colours x 8.  2 players: 3 colours x 6 (the two players' colours and one extra
colour).  Solo: own colour x 8, two other colours x 6, the fourth colour boxed.
Each player rolls two own dice into their own area (手元, "held dice"); all
other dice in play are rolled into the centre.

Round.  Preparation phase, acquisition phase, confirmation phase.  The game ends
in the confirmation phase when any colour in play has no die left in the
centre.  Magic = the sum of a player's held dice faces.  Multiplayer
preparation: the document says only that a start player is chosen and that the
centre changes; the engine has the start player reroll every centre die of the
most common face(s), the solo step 2 without removal (the solo text replaces
the normal preparation step by step, and the designer's public rule outline
describes the same reroll).

Solo (ソロルール), as printed: (1) play a prophecy card from the hand; if that
empties the hand, take any one die from the centre and return every played card
to the hand ("all cards played").  (2) Reroll every centre die showing a most
common face (all tied faces).  A: rerolled dice showing the prophecy card's
main-action face are removed (set aside, faces unchanged) and the prophecy
card's main action is carried out.  B: if none matches, the rerolled dice
showing the highest rerolled face are removed and no action happens.  Only
rerolled dice are ever removed.  The acquisition phase is as in the normal game
without other players' peek actions.  The hidden wizard's magic is the sum of
the removed dice; the player wins only on strictly more magic (a tie loses).
Rating: <=20 almost human (ほぼ人間; the document's overlap at 20 resolves
here), 21-24 beginner (初心者), 25-29 novice (初級者), 30-34 intermediate
(中級者), 35-39 apprentice graduate (見習い卒業), 40-49 advanced (上級者),
50-59 expert (熟練者), 60-69 legendary (伝説級), >=70 divine (神の領域).

Actions on held dice: Exchange (swap one held die with one own-colour centre
die; both keep their faces), Flip (7 minus the face), Reroll (the die is rolled
for real and read back), Distribute (lower one die by k >= 1 and raise other
held dice by k in total; no die below 1 or above 6), Up (+1, never above 6),
Down (-1, never below 1), Set-to-4 (4 on 4 is allowed).

Decisions the documents leave open (a referee's least surprising reading):

- Setup doubles (ゾロ目): the document says pick one of the two dice and flip it;
  both show the same face, so the engine flips the second one and says so.
  Applied in the solo game too (option ``doubles_flip``, default true).
- An action with no legal use (Up with every held die on 6, Exchange with no
  own-colour die in the centre) is skipped automatically.  Whether a player may
  decline a possible action is option ``optional_actions`` (default true:
  ``{"action": "skip"}``); false makes every possible action compulsory.
- The prophecy card is played by the player's choice; option
  ``prophecy = "random"`` draws it from the hand with the game's seeded RNG
  instead (for players who want the cave to choose).
- "All cards played" in the acquisition phase is handled after the card's
  actions (and any peeks) are done, so the card still holds its dice while it
  acts; in the prophecy step it happens at once, as the solo text says.  With
  an empty centre nothing is taken and the cards still return.
- A card's hand is hidden information: ``state_json`` shows hands only in the
  solo game; in a multiplayer game it shows hand sizes and each player's top
  played card (the public one).  ``private_json(player)`` has one player's hand.
- Colours: ``palette`` (default red, blue, green, yellow) names the four dice
  colours as the camera reports them; ``colours`` maps players to colours
  (default: palette order); ``extra_colours`` picks the solo game's two kept
  colours and the two-player game's third colour (default: palette order).
- Multiplayer ties for most magic: shared victory (the document is silent).
- Camera: the centre roll may list only the dice that were (re)rolled or the
  whole centre; in the latter case the dice that were not rerolled must still be
  there, and the rest are taken as the rerolled ones (same-colour dice showing
  the same face are interchangeable, so this is exact).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Protocol

from engine.core import (
    JSON,
    ChoiceField,
    Context,
    DataError,
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
from engine.throws import by_colour, count_question, die_json, doubt, of_colour, reading_ids, thrown_again

FACES = tuple(range(1, 7))
DICE_PER_COLOUR = 8
HAND_DICE = 2
CARD_NUMBERS = tuple(range(1, 7))
DEFAULT_PALETTE = ("red", "blue", "green", "yellow")
HIDDEN_WIZARD = "hidden-wizard"

#: (highest magic in the band or None for "and above", English, the document's wording)
RATINGS: tuple[tuple[int | None, str, str], ...] = (
    (20, "almost human", "ほぼ人間"),
    (24, "beginner", "初心者"),
    (29, "novice", "初級者"),
    (34, "intermediate", "中級者"),
    (39, "apprentice graduate", "見習い卒業"),
    (49, "advanced", "上級者"),
    (59, "expert", "熟練者"),
    (69, "legendary", "伝説級"),
    (None, "divine", "神の領域"),
)


def rating(magic: int) -> tuple[str, str]:
    """The solo rating for a magic total: (English, the document's Japanese)."""
    for top, english, japanese in RATINGS:
        if top is None or magic <= top:
            return english, japanese
    raise AssertionError("the last rating band is open-ended")  # pragma: no cover


class Action(StrEnum):
    """The seven actions a magic card can carry."""

    EXCHANGE = "exchange"
    FLIP = "flip"
    REROLL = "reroll"
    DISTRIBUTE = "distribute"
    UP = "up"
    DOWN = "down"
    SET_TO_4 = "set_to_4"


SKIP = "skip"


class OutcomeKind(StrEnum):
    HAND_ROLLED = "hand_rolled"
    DOUBLES_FLIPPED = "doubles_flipped"
    CENTRE_ROLLED = "centre_rolled"
    ROUND_STARTED = "round_started"
    PROPHECY_PLAYED = "prophecy_played"
    CENTRE_REROLLED = "centre_rerolled"
    PROPHECY_FULFILLED = "prophecy_fulfilled"  # case A
    PROPHECY_FAILED = "prophecy_failed"  # case B
    CARD_SELECTED = "card_selected"  # secret: who, never what
    CARDS_REVEALED = "cards_revealed"
    CARD_PLAYED = "card_played"
    DICE_TAKEN = "dice_taken"
    ACTION_DONE = "action_done"
    ACTION_SKIPPED = "action_skipped"
    ACTION_IMPOSSIBLE = "action_impossible"
    DIE_REROLLED = "die_rerolled"
    CARDS_RETURNED = "cards_returned"
    GAME_ENDED = "game_ended"


@dataclass(frozen=True, order=True)
class CaveDie:
    """One d6 of the game: its face and colour (sorted by face, as the table groups them)."""

    value: int
    colour: str

    def to_json(self) -> JSON:
        return {"kind": DieKind.D6.value, "value": self.value, "colour": self.colour}


@dataclass(frozen=True)
class MagicCard:
    """One magic card's text (the same six texts in every colour)."""

    number: int
    main_face: int
    main_action: Action
    sub_face: int
    sub_action: Action

    def to_json(self) -> JSON:
        return {
            "number": self.number,
            "main_face": self.main_face,
            "main_action": self.main_action.value,
            "sub_face": self.sub_face,
            "sub_action": self.sub_action.value,
        }


def parse_deck(raw: Mapping[str, Any], source: str) -> dict[int, MagicCard]:
    """Validate a deck file: ``[[cards]]`` with number, main_face, main_action, sub_face, sub_action."""
    cards = raw.get("cards")
    if not isinstance(cards, list) or len(cards) != len(CARD_NUMBERS):
        raise DataError(source, "cards", "cards", f"expected a list of {len(CARD_NUMBERS)} [[cards]] tables")
    deck: dict[int, MagicCard] = {}
    actions = [a.value for a in Action]
    for i, entry in enumerate(cards):
        name = f"cards[{i}]"
        if not isinstance(entry, Mapping):
            raise DataError(source, name, "-", "expected a table")
        ints: dict[str, int] = {}
        for key, allowed in (("number", CARD_NUMBERS), ("main_face", FACES), ("sub_face", FACES)):
            v = entry.get(key)
            if not isinstance(v, int) or isinstance(v, bool) or v not in allowed:
                raise DataError(source, name, key, f"expected an integer 1-6, got {v!r}")
            ints[key] = v
        acts: dict[str, Action] = {}
        for key in ("main_action", "sub_action"):
            v = entry.get(key)
            if v not in actions:
                raise DataError(source, name, key, f"expected one of {actions}, got {v!r}")
            acts[key] = Action(v)
        if ints["number"] in deck:
            raise DataError(source, name, "number", f"card {ints['number']} appears twice")
        deck[ints["number"]] = MagicCard(
            ints["number"], ints["main_face"], acts["main_action"], ints["sub_face"], acts["sub_action"]
        )
    return deck


# -- the extension point ----------------------------------------------------------------------


class AcquisitionRules(Protocol):
    """Everything the document leaves unstated about a multiplayer round, in one place.

    The printed rules say only: a start player is chosen and the centre changes
    (preparation), each player plays a card from the hand, takes dice and
    carries out actions, and other players may "peek" (acquisition).  A new
    reading of those details is a new class registered in ``ACQUISITION_RULES``.
    """

    def start_player(self, magic: Mapping[str, int], seating: Sequence[str], previous: str | None) -> str:
        """Who starts this round (``previous`` is last round's start player, None in round 1)."""
        ...

    def secret_selection(self, players: int) -> bool:
        """Whether players choose their acquisition cards at once and in secret."""
        ...

    def take(self, centre: Sequence[CaveDie], card: MagicCard) -> list[CaveDie]:
        """Which centre dice a played card takes."""
        ...

    def main_action_needs_dice(self) -> bool:
        """Whether a card that took no dice still gets its main action."""
        ...

    def peekers(
        self,
        actor: str,
        taken: Sequence[CaveDie],
        top_cards: Mapping[str, MagicCard | None],
        order: Sequence[str],
    ) -> list[str]:
        """Who, in order, may carry out the sub action of their own top card after ``actor`` took dice."""
        ...


class HouseAcquisition:
    """The shipped reading: a house rule where the document is silent.

    - Start player: lowest held-dice total (as the designer's public rule
      outline describes it); a tie goes to the first tied player
      in seating order after last round's start player (round 1: seat order).
    - With two or more players, cards are chosen at once in secret and revealed
      together; they resolve from the start player in seating order.
    - A card takes every centre die showing its main-action face (any colour)
      into its slot; "only one face per acquisition" (持ち帰ることのできるダイスの目は1種類だけ).
    - A card that took nothing has no main action (as in solo case B).
    - Peek (ノゾクアクション): when a player takes dice of face F, every other
      player whose own top card has sub-action face F may do that sub action.
    """

    def start_player(self, magic: Mapping[str, int], seating: Sequence[str], previous: str | None) -> str:
        first = 0 if previous is None else (seating.index(previous) + 1) % len(seating)
        rotated = list(seating[first:]) + list(seating[:first])
        return min(rotated, key=lambda p: magic[p])

    def secret_selection(self, players: int) -> bool:
        return players > 1

    def take(self, centre: Sequence[CaveDie], card: MagicCard) -> list[CaveDie]:
        return [d for d in centre if d.value == card.main_face]

    def main_action_needs_dice(self) -> bool:
        return True

    def peekers(
        self,
        actor: str,
        taken: Sequence[CaveDie],
        top_cards: Mapping[str, MagicCard | None],
        order: Sequence[str],
    ) -> list[str]:
        if not taken:
            return []
        face = taken[0].value
        out = []
        for p in order:
            card = top_cards.get(p)
            if p != actor and card is not None and card.sub_face == face:
                out.append(p)
        return out


ACQUISITION_RULES: dict[str, Callable[[], AcquisitionRules]] = {"house": HouseAcquisition}


# -- the flow ---------------------------------------------------------------------------------


class StepKind(StrEnum):
    ROLL_HAND = "roll_hand"
    ROLL_CENTRE = "roll_centre"
    START_ROUND = "start_round"  # automatic
    PROPHECY = "prophecy"
    REFILL = "refill"  # all cards played: take one die, cards return
    PREP_REROLL = "prep_reroll"
    SELECT = "select"  # simultaneous secret card selection
    PLAY = "play"  # one player plays a card openly
    RESOLVE = "resolve"  # automatic: take dice, queue actions
    ACTION = "action"
    ACTION_ROLL = "action_roll"  # the reroll action's die, read back
    CONFIRM = "confirm"  # automatic: end check


AUTOMATIC = {StepKind.START_ROUND, StepKind.RESOLVE, StepKind.CONFIRM}


@dataclass(frozen=True)
class Step:
    """One pending step of the round; the queue of steps is the game's position."""

    kind: StepKind
    player: str | None = None
    card: int | None = None
    role: str | None = None  # "main" or "sub"
    source: str | None = None  # "prophecy", "acquisition" or "peek"
    die: int | None = None


@dataclass(frozen=True)
class Options:
    palette: tuple[str, ...]
    colours: dict[str, str]
    extra_colours: tuple[str, ...]
    prophecy: str
    optional_actions: bool
    doubles_flip: bool
    acquisition: str


OPTION_NAMES = (
    "palette",
    "colours",
    "extra_colours",
    "prophecy",
    "optional_actions",
    "doubles_flip",
    "acquisition",
)


def _bad_option(name: str, value: object, expected: str) -> RuleError:
    return RuleError(f"nozoku-dice option {name!r} = {value!r}: expected {expected}")


def parse_options(options: Mapping[str, Any], players: Sequence[str]) -> Options:
    """Validate the options; a bad one raises RuleError naming it and what was expected."""
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise RuleError(f"unknown nozoku-dice option(s) {unknown}; expected some of {list(OPTION_NAMES)}")
    palette = options.get("palette", list(DEFAULT_PALETTE))
    if (
        not isinstance(palette, list)
        or len(palette) != 4
        or len(set(palette)) != 4
        or not all(isinstance(c, str) and c for c in palette)
    ):
        raise _bad_option("palette", palette, "a list of 4 different colour names")
    colours = options.get("colours", {})
    if (
        not isinstance(colours, Mapping)
        or not all(p in players and c in palette for p, c in colours.items())
        or len(set(colours.values())) != len(colours)
    ):
        raise _bad_option(
            "colours", colours, f"a mapping of players {list(players)} to different colours of {palette}"
        )
    chosen = dict(colours)
    free = [c for c in palette if c not in chosen.values()]
    for p in players:
        if p not in chosen:
            chosen[p] = free.pop(0)
    n_extra = {1: 2, 2: 1}.get(len(players), 0)
    extra = options.get("extra_colours", free[:n_extra])
    if (
        not isinstance(extra, list)
        or len(extra) != n_extra
        or len(set(extra)) != n_extra
        or not all(c in free for c in extra)
    ):
        raise _bad_option("extra_colours", extra, f"{n_extra} different colour(s) of {free}")
    prophecy = options.get("prophecy", "choice")
    if prophecy not in ("choice", "random"):
        raise _bad_option("prophecy", prophecy, '"choice" or "random"')
    flags = {}
    for name in ("optional_actions", "doubles_flip"):
        v = options.get(name, True)
        if not isinstance(v, bool):
            raise _bad_option(name, v, "true or false")
        flags[name] = v
    acquisition = options.get("acquisition", "house")
    if acquisition not in ACQUISITION_RULES:
        raise _bad_option("acquisition", acquisition, f"one of {sorted(ACQUISITION_RULES)}")
    return Options(
        tuple(palette),
        chosen,
        tuple(extra),
        prophecy,
        flags["optional_actions"],
        flags["doubles_flip"],
        acquisition,
    )


def _int(payload: Mapping[str, Any], key: str) -> int:
    v = payload.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"{key!r} must be an integer, got {v!r}")
    return v


class NozokuDice(Game):
    """Nozoku Dice: see the module docstring for the rules and every decision taken."""

    name: ClassVar[str] = "nozoku-dice"
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 4
    data_files: ClassVar[dict[str, str]] = {"cards": "nozoku-dice.example.toml"}

    @classmethod
    def parse_data(cls, key: str, raw: Mapping[str, Any], source: str) -> Any:
        if key == "cards":
            return parse_deck(raw, source)
        return raw

    def __init__(
        self,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(players, options, rng, data)
        self.opts = parse_options(self.options, self.players)
        if len(self.players) == 1 and HIDDEN_WIZARD in self.players:
            raise RuleError(f"the solo player cannot be called {HIDDEN_WIZARD!r}: that is the opponent")
        deck = self.data.get("cards")
        if deck is None:
            raise RuleError(
                "nozoku-dice needs its card texts as data 'cards' (decks/nozoku-dice.example.toml)"
            )
        if not isinstance(deck, dict) or not all(isinstance(c, MagicCard) for c in deck.values()):
            deck = parse_deck(deck, "data['cards']")
        self.deck: dict[int, MagicCard] = deck
        self.rules: AcquisitionRules = ACQUISITION_RULES[self.opts.acquisition]()
        self.solo = len(self.players) == 1
        self.in_play: dict[str, int] = self._dice_in_play()
        self.hands: dict[str, list[int]] = {p: list(CARD_NUMBERS) for p in self.players}
        self.played: dict[str, list[int]] = {p: [] for p in self.players}
        self.held: dict[str, list[CaveDie]] = {p: [] for p in self.players}
        self.centre: list[CaveDie] = []
        self.removed: list[CaveDie] = []
        self.round = 0
        self.start_player: str | None = None
        self.prophecy: int | None = None
        self.selections: dict[str, int] = {}
        self.rolled_hands: list[str] = []
        self.finished = False
        self.queue: list[Step] = [
            Step(StepKind.ROLL_HAND),
            Step(StepKind.ROLL_CENTRE),
            Step(StepKind.START_ROUND),
        ]

    def _dice_in_play(self) -> dict[str, int]:
        n = len(self.players)
        own = 6 if n == 2 else DICE_PER_COLOUR
        extra = 6
        out = {c: 0 for c in self.opts.palette}
        for p in self.players:
            out[self.opts.colours[p]] = own
        for c in self.opts.extra_colours:
            out[c] = extra
        return out

    # -- helpers ---------------------------------------------------------------------------
    def colour(self, player: str) -> str:
        return self.opts.colours[player]

    def seating_from(self, first: str) -> list[str]:
        i = self.players.index(first)
        return list(self.players[i:]) + list(self.players[:i])

    def top_card(self, player: str) -> MagicCard | None:
        pile = self.played[player]
        return self.deck[pile[-1]] if pile else None

    def magic(self, player: str) -> int:
        return sum(d.value for d in self.held[player])

    def box(self) -> dict[str, int]:
        return {c: DICE_PER_COLOUR - n for c, n in self.in_play.items()}

    def _head(self) -> Step | None:
        return self.queue[0] if self.queue else None

    def _centre_faces(self) -> list[int]:
        counts = Counter(d.value for d in self.centre)
        if not counts:
            return []
        most = max(counts.values())
        return sorted(f for f, n in counts.items() if n == most)

    def _centre_expected(self) -> Counter[str]:
        held = Counter(d.colour for p in self.players for d in self.held[p])
        return Counter({c: n - held[c] for c, n in self.in_play.items() if n - held[c] > 0})

    def _read_dice(self, inp: Input, expected: Counter[str], kept: Sequence[CaveDie] = ()) -> list[CaveDie]:
        """The (re)rolled dice of a reading that holds either only them or them plus ``kept``."""
        dice: list[CaveDie] = []
        for die in inp.dice():
            if die.kind is not DieKind.D6:
                raise self.refuse(f"nozoku-dice uses d6 only, got a {die.kind.value}", inp)
            if die.colour not in self.opts.palette:
                raise self.refuse(f"die colour {die.colour!r} is not one of {list(self.opts.palette)}", inp)
            dice.append(CaveDie(die.value, die.colour))
        n = sum(expected.values())
        if kept and len(dice) == n + len(kept):
            rest = Counter(dice)
            rest.subtract(Counter(kept))
            if any(v < 0 for v in rest.values()):
                raise self.refuse(
                    "the whole-centre reading lacks dice that were not rerolled "
                    f"({[d.to_json() for d in kept]})",
                    inp,
                )
            dice = sorted(rest.elements())
        got = Counter(d.colour for d in dice)
        if got != expected:
            what = f"{n} dice ({dict(sorted(expected.items()))})"
            if kept:
                what += f", or the whole centre of {n + len(kept)}"
            raise self.refuse(
                f"expected a reading of {what}, got {len(dice)} ({dict(sorted(got.items()))})", inp
            )
        return sorted(dice)

    # -- the protocol ------------------------------------------------------------------------
    def expects(self) -> Expectation:
        step = self._head()
        if step is None or self.finished:
            return Expectation(None)
        k = step.kind
        if k is StepKind.ROLL_HAND:
            waiting = tuple(p for p in self.players if p not in self.rolled_hands)
            return Expectation(InputKind.ROLL, waiting, {"roll": "hand", "dice": HAND_DICE})
        if k is StepKind.ROLL_CENTRE:
            exp = self._centre_expected()
            return Expectation(
                InputKind.ROLL,
                self.players,
                {"roll": "centre", "dice": sum(exp.values()), "colours": dict(sorted(exp.items()))},
            )
        if k is StepKind.PREP_REROLL:
            faces = self._centre_faces()
            rr = [d for d in self.centre if d.value in faces]
            colours = Counter(d.colour for d in rr)
            return Expectation(
                InputKind.ROLL,
                (str(step.player),),
                {"roll": "reroll", "faces": faces, "dice": len(rr), "colours": dict(sorted(colours.items()))},
            )
        if k is StepKind.ACTION_ROLL:
            assert step.player is not None and step.die is not None
            return Expectation(
                InputKind.ROLL,
                (step.player,),
                {"roll": "held die", "die": step.die, "colour": self.held[step.player][step.die].colour},
            )
        if k is StepKind.SELECT:
            waiting = tuple(p for p in self.players if p not in self.selections)
            return Expectation(
                InputKind.SECRET, waiting, {"select": "card", "confirmed": sorted(self.selections)}
            )
        if k in (StepKind.PROPHECY, StepKind.PLAY):
            return Expectation(InputKind.CHOICE, (str(step.player),), {"play": k.value})
        if k is StepKind.REFILL:
            return Expectation(InputKind.CHOICE, (str(step.player),), {"take": "one centre die"})
        assert k is StepKind.ACTION and step.player is not None
        detail: JSON = {
            "action": self._step_action(step).value,
            "role": step.role,
            "source": step.source,
            "card": step.card,
        }
        if self.opts.optional_actions:
            detail["may_skip"] = True
        return Expectation(InputKind.CHOICE, (step.player,), detail)

    def _apply(self, inp: Input) -> list[Outcome]:
        if inp.kind is InputKind.SECRET:
            out = self._apply_secret(inp)
        else:
            step = self._head()
            if step is None or self.finished:
                raise self.refuse("the game is over", inp)
            self.require(inp, self.expects().kind or InputKind.START)
            out = self.HANDLERS[step.kind](self, step, inp)
        return out + self._advance()

    # -- automatic steps --------------------------------------------------------------------
    def _advance(self) -> list[Outcome]:
        out: list[Outcome] = []
        while self.queue and not self.finished:
            step = self.queue[0]
            if step.kind is StepKind.START_ROUND:
                self.queue.pop(0)
                out += self._start_round()
            elif step.kind is StepKind.RESOLVE:
                self.queue.pop(0)
                out += self._resolve(step)
            elif step.kind is StepKind.CONFIRM:
                self.queue.pop(0)
                out += self._confirm()
            elif step.kind is StepKind.PROPHECY and self.opts.prophecy == "random":
                assert step.player is not None
                card = self.rng.choice(sorted(self.hands[step.player]))
                out += self._play_prophecy(step, card)
            elif step.kind in (StepKind.REFILL, StepKind.PREP_REROLL) and not self.centre:
                self.queue.pop(0)
                if step.kind is StepKind.REFILL:
                    assert step.player is not None
                    out.append(self._return_cards(step.player, None))
            elif step.kind is StepKind.ACTION and not self._can_use(step):
                self.queue.pop(0)
                out.append(
                    Outcome(
                        OutcomeKind.ACTION_IMPOSSIBLE.value,
                        step.player,
                        {"action": self._step_action(step).value, "card": step.card},
                    )
                )
            else:
                break
        if not self.queue:
            self.finished = True
        return out

    def _start_round(self) -> list[Outcome]:
        self.round += 1
        magic = {p: self.magic(p) for p in self.players}
        start = self.rules.start_player(magic, self.players, self.start_player)
        self.start_player = start
        self.prophecy = None
        order = self.seating_from(start)
        steps: list[Step] = []
        if self.solo:
            steps += [
                Step(StepKind.PROPHECY, start),
                Step(StepKind.PREP_REROLL, start),
                Step(StepKind.PLAY, start),
            ]
        else:
            steps.append(Step(StepKind.PREP_REROLL, start))
            if self.rules.secret_selection(len(self.players)):
                steps.append(Step(StepKind.SELECT))
            else:
                steps += [Step(StepKind.PLAY, p) for p in order]
        steps.append(Step(StepKind.CONFIRM))
        self.queue[0:0] = steps
        return [Outcome(OutcomeKind.ROUND_STARTED.value, start, {"round": self.round, "order": order})]

    def _resolve(self, step: Step) -> list[Outcome]:
        p = str(step.player)
        card = self.top_card(p)
        assert card is not None
        taken = self.rules.take(self.centre, card)
        for d in taken:
            self.centre.remove(d)
        self.held[p].extend(taken)
        out = [
            Outcome(
                OutcomeKind.DICE_TAKEN.value,
                p,
                {"card": card.number, "face": card.main_face, "dice": [d.to_json() for d in taken]},
            )
        ]
        steps: list[Step] = []
        if taken or not self.rules.main_action_needs_dice():
            steps.append(Step(StepKind.ACTION, p, card.number, "main", "acquisition"))
        top = {q: self.top_card(q) for q in self.players}
        for q in self.rules.peekers(p, taken, top, self.seating_from(p)):
            peek_card = top[q]
            assert peek_card is not None
            steps.append(Step(StepKind.ACTION, q, peek_card.number, "sub", "peek"))
        if not self.hands[p]:
            steps.append(Step(StepKind.REFILL, p))
        self.queue[0:0] = steps
        return out

    def _confirm(self) -> list[Outcome]:
        counts = Counter(d.colour for d in self.centre)
        gone = sorted(c for c, n in self.in_play.items() if n and not counts[c])
        if not gone:
            self.queue.insert(0, Step(StepKind.START_ROUND))
            return []
        self.finished = True
        self.queue.clear()
        res = self.result()
        assert res is not None
        return [Outcome(OutcomeKind.GAME_ENDED.value, None, {"colours_gone": gone, **res.to_json()})]

    # -- input handlers --------------------------------------------------------------------
    def _roll_hand(self, step: Step, inp: Input) -> list[Outcome]:
        p = str(inp.player)
        dice = self._read_dice(inp, Counter({self.colour(p): HAND_DICE}))
        out = [Outcome(OutcomeKind.HAND_ROLLED.value, p, {"dice": [d.to_json() for d in dice]})]
        if self.opts.doubles_flip and dice[0].value == dice[1].value:
            dice[1] = CaveDie(7 - dice[1].value, dice[1].colour)
            out.append(
                Outcome(OutcomeKind.DOUBLES_FLIPPED.value, p, {"from": dice[0].value, "to": dice[1].value})
            )
        self.held[p] = dice
        self.rolled_hands.append(p)
        if len(self.rolled_hands) == len(self.players):
            self.queue.pop(0)
        return out

    def _roll_centre(self, step: Step, inp: Input) -> list[Outcome]:
        self.centre = self._read_dice(inp, self._centre_expected())
        self.queue.pop(0)
        return [Outcome(OutcomeKind.CENTRE_ROLLED.value, inp.player, {"dice": len(self.centre)})]

    def _card_from(self, step: Step, inp: Input) -> int:
        card = _int(inp.data, "card")
        hand = self.hands[str(step.player)]
        if card not in hand:
            raise self.refuse(
                f"player {step.player!r} cannot play card {card!r}: the hand holds {sorted(hand)}", inp
            )
        return card

    def _play_prophecy(self, step: Step, card: int) -> list[Outcome]:
        p = str(step.player)
        self.queue.pop(0)
        self.hands[p].remove(card)
        self.played[p].append(card)
        self.prophecy = card
        if not self.hands[p]:
            self.queue.insert(0, Step(StepKind.REFILL, p))
        return [Outcome(OutcomeKind.PROPHECY_PLAYED.value, p, {"card": self.deck[card].to_json()})]

    def _prophecy(self, step: Step, inp: Input) -> list[Outcome]:
        return self._play_prophecy(step, self._card_from(step, inp))

    def _play(self, step: Step, inp: Input) -> list[Outcome]:
        p = str(step.player)
        card = self._card_from(step, inp)
        self.queue.pop(0)
        self.hands[p].remove(card)
        self.played[p].append(card)
        self.queue.insert(0, Step(StepKind.RESOLVE, p))
        return [Outcome(OutcomeKind.CARD_PLAYED.value, p, {"card": self.deck[card].to_json()})]

    def _refill(self, step: Step, inp: Input) -> list[Outcome]:
        p = str(step.player)
        take = inp.data.get("take")
        if not isinstance(take, Mapping):
            raise self.refuse('expected "take": {"value": 1-6, "colour": ...} naming one centre die', inp)
        value = _int(take, "value")
        matching = sorted(
            {d for d in self.centre if d.value == value and take.get("colour") in (None, d.colour)}
        )
        if not matching:
            raise self.refuse(f"no centre die shows {value!r} in colour {take.get('colour')!r}", inp)
        if len(matching) > 1:
            raise self.refuse(
                f"several colours show {value}: name one of {[d.colour for d in matching]}", inp
            )
        self.queue.pop(0)
        self.centre.remove(matching[0])
        self.held[p].append(matching[0])
        return [self._return_cards(p, matching[0])]

    def _return_cards(self, player: str, die: CaveDie | None) -> Outcome:
        self.hands[player] = sorted(self.hands[player] + self.played[player])
        self.played[player] = []
        return Outcome(
            OutcomeKind.CARDS_RETURNED.value, player, {"die": None if die is None else die.to_json()}
        )

    def _prep_reroll(self, step: Step, inp: Input) -> list[Outcome]:
        p = str(step.player)
        faces = self._centre_faces()
        kept = [d for d in self.centre if d.value not in faces]
        old = [d for d in self.centre if d.value in faces]
        new = self._read_dice(inp, Counter(d.colour for d in old), kept)
        self.queue.pop(0)
        out = [
            Outcome(
                OutcomeKind.CENTRE_REROLLED.value, p, {"faces": faces, "dice": [d.to_json() for d in new]}
            )
        ]
        if self.solo:
            assert self.prophecy is not None
            card = self.deck[self.prophecy]
            removed = [d for d in new if d.value == card.main_face]
            if removed:
                self.queue.insert(0, Step(StepKind.ACTION, p, card.number, "main", "prophecy"))
                kind = OutcomeKind.PROPHECY_FULFILLED
            else:
                top = max(d.value for d in new)
                removed = [d for d in new if d.value == top]
                kind = OutcomeKind.PROPHECY_FAILED
            for d in removed:
                new.remove(d)
            self.removed.extend(removed)
            out.append(
                Outcome(
                    kind.value,
                    p,
                    {
                        "card": card.number,
                        "removed": [d.to_json() for d in removed],
                        "hidden_wizard": self.wizard_magic(),
                    },
                )
            )
        self.centre = sorted(kept + new)
        return out

    def _apply_secret(self, inp: Input) -> list[Outcome]:
        """A card chosen in secret: errors and outcomes never say which card."""
        step = self._head()
        exp = self.expects()

        def refuse(why: str) -> RuleError:
            return RuleError(
                f"secret selection from {inp.player!r} refused: {why}", expected=exp, state=self.state_json()
            )

        if step is None or step.kind is not StepKind.SELECT or self.finished:
            raise refuse("no secret selection is expected now")
        if inp.player not in exp.players:
            raise refuse("that player may not select now (unknown, or already confirmed)")
        card = inp.data.get("card")
        if set(inp.data) != {"card"} or not isinstance(card, int) or isinstance(card, bool):
            raise refuse('expected exactly {"card": <number of a card in the hand>}')
        if card not in self.hands[inp.player]:
            raise refuse("that card is not in the player's hand")
        self.selections[inp.player] = card
        out = [Outcome(OutcomeKind.CARD_SELECTED.value, inp.player)]
        if len(self.selections) == len(self.players):
            out += self._reveal()
        return out

    def _reveal(self) -> list[Outcome]:
        self.queue.pop(0)
        assert self.start_player is not None
        order = self.seating_from(self.start_player)
        for p in order:
            card = self.selections[p]
            self.hands[p].remove(card)
            self.played[p].append(card)
        cards = {p: self.deck[self.selections[p]].to_json() for p in order}
        self.selections = {}
        self.queue[0:0] = [Step(StepKind.RESOLVE, p) for p in order]
        return [Outcome(OutcomeKind.CARDS_REVEALED.value, None, {"cards": cards, "order": order})]

    # -- actions ---------------------------------------------------------------------------
    def _step_action(self, step: Step) -> Action:
        card = self.deck[int(step.card or 0)]
        return card.main_action if step.role == "main" else card.sub_action

    def _can_use(self, step: Step) -> bool:
        action = self._step_action(step)
        values = [d.value for d in self.held[str(step.player)]]  # never empty: two dice from setup on
        if action is Action.EXCHANGE:
            return any(d.colour == self.colour(str(step.player)) for d in self.centre)
        if action is Action.UP:
            return min(values) < 6
        if action is Action.DOWN:
            return max(values) > 1
        if action is Action.DISTRIBUTE:
            return any(
                v > 1 and any(w < 6 for j, w in enumerate(values) if j != i) for i, v in enumerate(values)
            )
        return True

    def _action(self, step: Step, inp: Input) -> list[Outcome]:
        p = str(step.player)
        action = self._step_action(step)
        name = inp.data.get("action")
        detail: JSON = {"action": action.value, "card": step.card, "role": step.role, "source": step.source}
        if name == SKIP:
            if not self.opts.optional_actions:
                raise self.refuse(
                    f"{action.value} is compulsory here (option optional_actions is false)", inp
                )
            self.queue.pop(0)
            return [Outcome(OutcomeKind.ACTION_SKIPPED.value, p, detail)]
        if name != action.value:
            skip = ' or "skip"' if self.opts.optional_actions else ""
            raise self.refuse(
                f"card {step.card}'s {step.role} action is {action.value!r}{skip}, not {name!r}", inp
            )
        held = self.held[p]
        i = _int(inp.data, "die")
        if not 0 <= i < len(held):
            raise self.refuse(f"die {i} is not one of player {p!r}'s held dice 0-{len(held) - 1}", inp)
        die = held[i]
        if action is Action.REROLL:
            self.queue.pop(0)
            self.queue.insert(0, Step(StepKind.ACTION_ROLL, p, step.card, step.role, step.source, i))
            return [
                Outcome(OutcomeKind.ACTION_DONE.value, p, {**detail, "die": i, "from": die.value, "to": None})
            ]
        new = self.ACTIONS[action](self, p, i, inp)
        self.queue.pop(0)
        # Exchange brings an own-colour die in; every other action only turns the die.
        held[i] = CaveDie(new, self.colour(p) if action is Action.EXCHANGE else die.colour)
        return [Outcome(OutcomeKind.ACTION_DONE.value, p, {**detail, "die": i, "from": die.value, "to": new})]

    def _exchange(self, p: str, i: int, inp: Input) -> int:
        value = _int(inp.data, "centre_value")
        mine = CaveDie(value, self.colour(p))
        if mine not in self.centre:
            raise self.refuse(f"no {mine.colour} die shows {value!r} in the centre", inp)
        self.centre.remove(mine)
        self.centre = sorted([*self.centre, self.held[p][i]])
        return value

    def _flip(self, p: str, i: int, inp: Input) -> int:
        return 7 - self.held[p][i].value

    def _up(self, p: str, i: int, inp: Input) -> int:
        v = self.held[p][i].value
        if v == 6:
            raise self.refuse(f"held die {i} shows 6 and cannot go up", inp)
        return v + 1

    def _down(self, p: str, i: int, inp: Input) -> int:
        v = self.held[p][i].value
        if v == 1:
            raise self.refuse(f"held die {i} shows 1 and cannot go down", inp)
        return v - 1

    def _set_to_4(self, p: str, i: int, inp: Input) -> int:
        return 4

    def _distribute(self, p: str, i: int, inp: Input) -> int:
        held = self.held[p]
        raise_by = inp.data.get("raise")
        if not isinstance(raise_by, Mapping) or not raise_by:
            raise self.refuse('distribute needs "raise": {"<held die>": amount, ...}', inp)
        raised: dict[int, int] = {}
        for key, amount in raise_by.items():
            j = int(key)
            if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1:
                raise self.refuse(
                    f"raise amount for die {key!r} must be a positive integer, got {amount!r}", inp
                )
            if j == i or not 0 <= j < len(held):
                raise self.refuse(
                    f"die {j} cannot be raised: raise other held dice (0-{len(held) - 1}, not {i})", inp
                )
            if held[j].value + amount > 6:
                raise self.refuse(f"held die {j} shows {held[j].value}: +{amount} would pass 6", inp)
            raised[j] = amount
        total = sum(raised.values())
        if held[i].value - total < 1:
            raise self.refuse(f"held die {i} shows {held[i].value}: lowering it by {total} would pass 1", inp)
        for j, amount in raised.items():
            held[j] = CaveDie(held[j].value + amount, held[j].colour)
        return held[i].value - total

    def _action_roll(self, step: Step, inp: Input) -> list[Outcome]:
        p = str(step.player)
        i = int(step.die or 0)
        old = self.held[p][i]
        (new,) = self._read_dice(inp, Counter({old.colour: 1}))
        self.held[p][i] = new
        self.queue.pop(0)
        return [Outcome(OutcomeKind.DIE_REROLLED.value, p, {"die": i, "from": old.value, "to": new.value})]

    HANDLERS: ClassVar[dict[StepKind, Callable[[NozokuDice, Step, Input], list[Outcome]]]] = {
        StepKind.ROLL_HAND: _roll_hand,
        StepKind.ROLL_CENTRE: _roll_centre,
        StepKind.PROPHECY: _prophecy,
        StepKind.REFILL: _refill,
        StepKind.PREP_REROLL: _prep_reroll,
        StepKind.PLAY: _play,
        StepKind.ACTION: _action,
        StepKind.ACTION_ROLL: _action_roll,
    }
    ACTIONS: ClassVar[dict[Action, Callable[[NozokuDice, str, int, Input], int]]] = {
        Action.EXCHANGE: _exchange,
        Action.FLIP: _flip,
        Action.UP: _up,
        Action.DOWN: _down,
        Action.SET_TO_4: _set_to_4,
        Action.DISTRIBUTE: _distribute,
    }

    # -- views -----------------------------------------------------------------------------
    def wizard_magic(self) -> int:
        return sum(d.value for d in self.removed)

    def private_json(self, player: str) -> JSON:
        """What only ``player`` may see: the hand and a pending secret selection."""
        if player not in self.players:
            raise ValueError(f"unknown player {player!r}; expected one of {list(self.players)}")
        return {"player": player, "hand": sorted(self.hands[player]), "selected": self.selections.get(player)}

    # -- queries -------------------------------------------------------------------------------
    @classmethod
    def read_throw(cls, ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
        """What a settled throw means (engine.throws): its inputs, or the question to ask first."""
        detail = ctx.expected.detail
        what = detail.get("roll")
        if what == "hand":
            return by_colour(
                ctx, readings, dict.fromkeys(ctx.expected.players, int(detail["dice"])), InputKind.ROLL
            )
        player = ctx.expected.players[0]
        if what == "held die":
            mine = of_colour(readings, str(detail.get("colour")))
            if len(mine) != 1 and ctx.previous:
                mine = thrown_again(mine, ctx.previous)
            q = count_question(mine, 1, f"newly thrown {detail.get('colour')} dice") or doubt(
                mine, ctx.threshold
            )
            return q if q is not None else [Input(InputKind.ROLL, player, {"dice": [die_json(mine[0])]})]
        if what == "reroll":
            # the rerolled dice alone, or the whole centre with them (the dice not rerolled still there)
            centre = ctx.state.get("centre")
            whole = len(centre) if isinstance(centre, list) else None
            n = int(detail.get("dice", 0))
            if whole is not None and len(readings) not in (n, whole):
                return Question(
                    f"The camera sees {len(readings)} dice in the centre; this reroll needs the {n} rerolled "
                    f"dice or the whole centre of {whole}. Rethrow, or correct the reading.",
                    reading_ids(readings),
                    "count",
                )
        # the centre (setup) or the whole centre after the preparation reroll
        want = int(detail.get("dice", 0)) if what == "centre" else None
        q = (count_question(readings, want, "dice in the centre") if want is not None else None) or doubt(
            readings, ctx.threshold
        )
        if q is None and what == "centre":
            seen = Counter(str(d.get("colour")) for d in readings)
            expected = {str(k): int(v) for k, v in detail.get("colours", {}).items()}
            if dict(seen) != expected:
                q = Question(
                    f"The centre should hold {expected} dice by colour; the camera sees {dict(seen)}. "
                    "Rethrow, or correct the reading.",
                    reading_ids(readings),
                    "count",
                )
        if q is not None:
            return q
        return [Input(InputKind.ROLL, player, {"dice": [die_json(d) for d in readings]})]

    def secret_fields(self, player: str) -> tuple[ChoiceField, ...]:
        """A card from the player's own hand (shown only on that player's panel)."""
        exp = self.expects()
        if exp.kind is not InputKind.SECRET or player not in self.hands or not self.hands[player]:
            return super().secret_fields(player)
        return (ChoiceField("card", tuple((str(c), c) for c in sorted(self.hands[player]))),)

    def dice_colours(self, player_colours: Mapping[str, str]) -> frozenset[str] | None:
        """The colours in play (all colours before the game has set them up)."""
        return frozenset(str(c).lower() for c, n in self.in_play.items() if n) or None

    def state_json(self) -> JSON:
        step = self._head()
        by_face = Counter(d.value for d in self.centre)
        by_colour = Counter(d.colour for d in self.centre)
        out: JSON = {
            "phase": "over" if self.finished or step is None else step.kind.value,
            "round": self.round,
            "mode": "solo" if self.solo else "multiplayer",
            "acquisition": self.opts.acquisition,
            "start_player": self.start_player,
            "colours": dict(self.opts.colours),
            "centre": [d.to_json() for d in self.centre],
            "centre_by_face": {str(f): by_face[f] for f in FACES if by_face[f]},
            "centre_by_colour": {c: by_colour[c] for c, n in self.in_play.items() if n},
            "held": {p: [d.to_json() for d in self.held[p]] for p in self.players},
            "hand_size": {p: len(self.hands[p]) for p in self.players},
            "top_card": {p: (c.to_json() if (c := self.top_card(p)) else None) for p in self.players},
            "played_count": {p: len(self.played[p]) for p in self.players},
            "in_play": {c: n for c, n in self.in_play.items() if n},
            "box": self.box(),
        }
        if step is not None and step.kind is StepKind.SELECT:
            out["selected"] = sorted(self.selections)
        if self.solo:
            p = self.players[0]
            english, japanese = rating(self.magic(p))
            out["hand"] = {p: sorted(self.hands[p])}
            out["prophecy"] = None if self.prophecy is None else self.deck[self.prophecy].to_json()
            out["removed"] = [d.to_json() for d in self.removed]
            out["hidden_wizard"] = self.wizard_magic()
            out["rating"] = {"magic": self.magic(p), "rating": english, "ja": japanese}
        return out

    def scores(self) -> dict[str, int]:
        return {p: self.magic(p) for p in self.players}

    @classmethod
    def _check_final(
        cls, players: list[str], scores: dict[str, int], winners: list[str], options: dict[str, Any]
    ) -> str | None:
        """At a table of two or more the most magic wins, and equal magic shares the victory."""
        if len(players) < 2:
            return None  # solo: against the hidden wizard, whose magic the result does not give
        best = max(scores.values())
        expected = [p for p in players if scores[p] == best]
        if sorted(winners) != sorted(expected):
            return (
                f"winners: the most magic ({best}) wins and a tie shares the victory, so {expected}, "
                f"got {winners}"
            )
        return None

    def result(self) -> Result | None:
        if not self.finished:
            return None
        scores = self.scores()
        if self.solo:
            p = self.players[0]
            wizard = self.wizard_magic()
            english, japanese = rating(scores[p])
            win = scores[p] > wizard
            verdict = "beats" if win else ("ties, and a tie loses to" if scores[p] == wizard else "loses to")
            return Result(
                winners=(p,) if win else (HIDDEN_WIZARD,),
                ranking=(p, HIDDEN_WIZARD) if win else (HIDDEN_WIZARD, p),
                scores={p: scores[p], HIDDEN_WIZARD: wizard},
                reason=f"{p} {verdict} the hidden wizard, {scores[p]} to {wizard}; "
                f"rating: {english} ({japanese})",
            )
        ranking = tuple(sorted(self.players, key=lambda q: -scores[q]))
        best = scores[ranking[0]]
        winners = tuple(q for q in ranking if scores[q] == best)
        why = "most magic" if len(winners) == 1 else f"shared victory on {best} magic"
        return Result(winners, ranking, scores, why)
