"""Common types of the rules engine and the one protocol every game follows.

The engine is pure: no I/O, no clock, randomness only from the seeded
``random.Random`` handed to a game.  Everything here is a frozen value with a
JSON form, so that a game is fully described by its setup plus the inputs it
was given (its event log).
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

JSON = dict[str, Any]


class RuleError(ValueError):
    """An input the rules do not allow at this point.

    The message quotes the input, what was expected and the state, so that a
    referee reading a log line knows exactly what was refused and why.
    """

    def __init__(
        self,
        why: str,
        *,
        inp: Input | None = None,
        expected: Expectation | None = None,
        state: Mapping[str, Any] | None = None,
    ) -> None:
        parts = [why]
        if inp is not None:
            parts.append(f"input: {inp.to_json()!r}")
        if expected is not None:
            parts.append(f"expected: {expected.describe()}")
        if state is not None:
            parts.append(f"state: {_short_state(state)}")
        super().__init__("; ".join(parts))
        self.why = why
        self.input = inp
        self.expected = expected


class DataError(ValueError):
    """A data file (deck, cards, board zones) that does not hold what the game needs.

    The message names the file, the entry and the field.
    """

    def __init__(self, source: str, entry: str, field_name: str, why: str) -> None:
        super().__init__(f"{source}: entry {entry!r}, field {field_name!r}: {why}")
        self.source = source
        self.entry = entry
        self.field = field_name


def _short_state(state: Mapping[str, Any]) -> str:
    """A one-line summary of a state for error messages (phase, turn, scores)."""
    keys = ("phase", "round", "turn", "current_player", "scores")
    picked = {k: state[k] for k in keys if k in state}
    return repr(picked or dict(list(state.items())[:4]))


class DieKind(StrEnum):
    """Kinds of dice the table reads.  ``d10p`` is the percentile d10 (00-90)."""

    D6 = "d6"
    D10 = "d10"
    D10P = "d10p"
    D20 = "d20"
    DN = "dN"

    def face_range(self, sides: int | None = None) -> tuple[int, ...]:
        """All faces this kind can show, as the camera reports them."""
        if self is DieKind.D6:
            return tuple(range(1, 7))
        if self is DieKind.D10:
            return tuple(range(0, 10))
        if self is DieKind.D10P:
            return tuple(range(0, 100, 10))
        if self is DieKind.D20:
            return tuple(range(1, 21))
        if sides is None or sides < 2:
            raise ValueError(f"a dN die needs sides >= 2, got {sides!r}")
        return tuple(range(1, sides + 1))


#: where a die a person enters (engine.entry) may lie besides a zone or a side: off the field
OFF = "off"


@dataclass(frozen=True)
class DieEntry:
    """One die of an expected roll or throw, as a person may enter it.

    ``kinds``: the kinds it may be (the usual first); ``colours``: the colours it may be (none: its
    colour is not asked); ``zones``: the board's zones it may lie in when the game scores dice by
    zone (it may also lie on the board in none, or off it); ``sides``: the game asks which side of
    the centre line it lies on (or off the field, thrown by whom: ``throwers``).
    """

    kinds: tuple[DieKind, ...]
    colours: tuple[str, ...] = ()
    zones: tuple[str, ...] = ()
    sides: bool = False
    throwers: tuple[str, ...] = ()

    def to_json(self) -> JSON:
        return {
            "kinds": [k.value for k in self.kinds],
            "faces": {k.value: list(k.face_range()) for k in self.kinds},
            "colours": list(self.colours),
            "zones": list(self.zones),
            "sides": self.sides,
            "throwers": list(self.throwers),
        }


class Side(StrEnum):
    """Which side of a board's centre line a die lies on."""

    A = "a"
    B = "b"
    LINE = "line"  # straddles the line: a referee question, never guessed


class FieldStatus(StrEnum):
    """Where a die lies relative to the play field."""

    FIELD = "field"
    CARD_SLOT = "card_slot"
    OFF = "off"


@dataclass(frozen=True)
class Die:
    """One die as seen on the table, with whatever geometry the camera knows.

    Only ``kind`` and ``value`` are always present.  Games that need geometry
    (DICETAR WARS zones and stacks, Dice Fighter sides and ring-outs) read the
    optional facts and refuse an input that lacks them.
    """

    kind: DieKind
    value: int
    colour: str | None = None
    sides: int | None = None  # only for DieKind.DN
    zones: tuple[str, ...] = ()
    min_multiplier: int | None = None  # lowest multiplier of the zones touched
    side: Side | None = None
    field_status: FieldStatus | None = None
    card_slot: str | None = None  # which card slot it rests on, when on one
    stack_level: int = 0
    rests_on: int | None = None  # index, in the same throw, of the die beneath
    confidence: float = 1.0

    def __post_init__(self) -> None:
        if self.value not in self.kind.face_range(self.sides):
            raise ValueError(f"{self.kind.value} die cannot show {self.value!r}")

    def to_json(self) -> JSON:
        out: JSON = {"kind": self.kind.value, "value": self.value}
        for name in ("colour", "sides", "min_multiplier", "card_slot", "rests_on"):
            v = getattr(self, name)
            if v is not None:
                out[name] = v
        if self.zones:
            out["zones"] = list(self.zones)
        if self.side is not None:
            out["side"] = self.side.value
        if self.field_status is not None:
            out["field_status"] = self.field_status.value
        if self.stack_level:
            out["stack_level"] = self.stack_level
        if self.confidence != 1.0:
            out["confidence"] = self.confidence
        return out

    @classmethod
    def from_json(cls, data: Any) -> Die:
        """Parse a die from JSON; a bare int means a d6 showing that value."""
        if isinstance(data, bool):
            raise ValueError(f"a die must be an int or an object, got {data!r}")
        if isinstance(data, int):
            return cls(DieKind.D6, data)
        if not isinstance(data, Mapping):
            raise ValueError(f"a die must be an int or an object, got {data!r}")
        try:
            kind = DieKind(data.get("kind", "d6"))
            value = data["value"]
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"die value must be an int, got {value!r}")
            return cls(
                kind=kind,
                value=value,
                colour=data.get("colour"),
                sides=data.get("sides"),
                zones=tuple(data.get("zones", ())),
                min_multiplier=data.get("min_multiplier"),
                side=Side(data["side"]) if data.get("side") is not None else None,
                field_status=FieldStatus(data["field_status"]) if data.get("field_status") else None,
                card_slot=data.get("card_slot"),
                stack_level=int(data.get("stack_level", 0)),
                rests_on=data.get("rests_on"),
                confidence=float(data.get("confidence", 1.0)),
            )
        except KeyError as e:
            raise ValueError(f"die {dict(data)!r} lacks {e.args[0]!r}") from None


class InputKind(StrEnum):
    """What kind of input a game can wait for."""

    ROLL = "roll"  # dice rolled in the air and read off the table
    THROW = "throw"  # dice thrown onto a board, where position matters
    SECRET = "secret"  # one player's secret selection (revealed when all are in)
    REVEAL = "reveal"  # a card or tile turned face up
    CHOICE = "choice"  # a player's decision (keep dice, take a tile, use a card)
    START = "start"  # begin the game / next game (after setup or an extra game)


@dataclass(frozen=True)
class Input:
    """One input to a game.  ``data`` is the game-specific payload (JSON)."""

    kind: InputKind
    player: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSON:
        out: JSON = {"type": self.kind.value}
        if self.player is not None:
            out["player"] = self.player
        out.update(self.data)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Input:
        """Parse ``{"type": ..., "player": ..., ...payload}``."""
        if not isinstance(data, Mapping):
            raise ValueError(f"an input must be a JSON object, got {data!r}")
        if "type" not in data:
            raise ValueError(f"input {dict(data)!r} lacks 'type' (one of {[k.value for k in InputKind]})")
        try:
            kind = InputKind(data["type"])
        except ValueError:
            raise ValueError(
                f"input type {data['type']!r} is not one of {[k.value for k in InputKind]}"
            ) from None
        player = data.get("player")
        if player is not None and not isinstance(player, str):
            raise ValueError(f"input player must be a string, got {player!r}")
        payload = {k: v for k, v in data.items() if k not in ("type", "player")}
        return cls(kind, player, payload)

    def dice(self, key: str = "dice") -> tuple[Die, ...]:
        """The payload's list of dice, parsed."""
        raw = self.data.get(key)
        if not isinstance(raw, list):
            raise ValueError(f"input needs {key!r} as a list of dice, got {raw!r}")
        return tuple(Die.from_json(d) for d in raw)


@dataclass(frozen=True)
class Expectation:
    """What a game waits for next, and from whom.

    ``players`` is everyone who may give this input now (several at once for
    simultaneous secret selection or a simultaneous throw).  ``detail`` says
    more in the game's words, e.g. ``{"dice": 5, "roll": 2}`` or the choices on
    offer; it never holds a secret.  ``hidden``: the players choose at once and
    in secret (a choice the game reveals only when everyone has chosen, like
    Dice Fighter's attack declarations); see :attr:`secret`.
    """

    kind: InputKind | None  # None: the game is over
    players: tuple[str, ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)
    hidden: bool = False

    @property
    def secret(self) -> bool:
        """The secret rule: each player's input is shown only as "who has chosen" until every
        player asked has given one; then all of them are revealed (and applied) together."""
        return self.hidden or self.kind is InputKind.SECRET

    def describe(self) -> str:
        if self.kind is None:
            return "nothing (the game is over)"
        who = ", ".join(self.players) or "anyone"
        extra = f" {dict(self.detail)!r}" if self.detail else ""
        return f"{self.kind.value} from {who}{extra}"

    def to_json(self) -> JSON:
        out: JSON = {
            "kind": None if self.kind is None else self.kind.value,
            "players": list(self.players),
            "detail": dict(self.detail),
        }
        if self.secret:
            out["secret"] = True
        return out


@dataclass(frozen=True)
class Outcome:
    """Something that happened because of an input, in the game's words.

    ``event`` is a short snake_case name from the game's own ``OutcomeKind``
    enum (e.g. ``tile_taken``, ``card_carried_over``, ``ring_out``).
    """

    event: str
    player: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSON:
        out: JSON = {"event": self.event}
        if self.player is not None:
            out["player"] = self.player
        if self.detail:
            out["detail"] = dict(self.detail)
        return out


@dataclass(frozen=True)
class Result:
    """How a finished game ended.  ``winners`` has several names on a shared victory."""

    winners: tuple[str, ...]
    ranking: tuple[str, ...]
    scores: Mapping[str, int]
    reason: str = ""

    def to_json(self) -> JSON:
        return {
            "winners": list(self.winners),
            "ranking": list(self.ranking),
            "scores": dict(self.scores),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ChoiceField:
    """One thing a player chooses in a secret selection: its name and its options as (label, value)."""

    name: str
    options: tuple[tuple[str, Any], ...]

    def __post_init__(self) -> None:
        if not self.options:
            raise ValueError(f"choice field {self.name!r} needs at least one option")


#: one die as the camera read it (``engine.throws`` lists its keys)
Reading = Mapping[str, Any]


@dataclass(frozen=True)
class Question:
    """Something the table must ask a person before it can score."""

    text: str
    readings: tuple[str, ...] = ()  # ids of the readings in doubt
    kind: str = "unsure"  # unsure | count | cocked | owner | colour | support | illegal

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "readings": list(self.readings), "kind": self.kind}


@dataclass(frozen=True)
class Context:
    """What reading a throw needs to know besides the readings (``Game.read_throw``, ``engine.throws``)."""

    game: str
    expected: Expectation
    players: tuple[str, ...]
    colours: Mapping[str, str]  # player -> dice colour
    threshold: float = 0.8
    #: the readings of the throw scored last, to tell which dice were thrown again
    previous: Sequence[Reading] = ()
    #: the game's state JSON (e.g. which power-card slots hold a card)
    state: Mapping[str, Any] = field(default_factory=dict)


#: one complete choice a player may make now: a label for people and the input's payload
Choice = tuple[str, JSON]


class Game(ABC):
    """Base class of the five games: one protocol, atomic ``apply``.

    A subclass sets ``name``, ``min_players``/``max_players``, builds its state
    in ``__init__`` and implements ``expects``, ``_apply``, ``state_json``,
    ``scores`` and ``result``.  ``apply`` makes every input all-or-nothing: if
    ``_apply`` raises, the game's attributes and the RNG are restored.
    """

    name: ClassVar[str] = ""
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 8
    #: data key -> file name of the shipped example under ``decks/`` or ``boards/``
    data_files: ClassVar[dict[str, str]] = {}
    #: the kinds of dice the game is played with
    dice_kinds: ClassVar[tuple[DieKind, ...]] = (DieKind.D6,)
    #: a throw lists every die lying on the board, not only the dice just thrown
    throw_shows_board: ClassVar[bool] = False
    #: a roll or throw may show dice that were not rolled again (kept, left lying): ``thrown`` tells
    #: which were, given the game before the input
    shows_unthrown_dice: ClassVar[bool] = False
    #: keys of a choice's payload that the game keeps hidden until everyone has chosen
    hidden_choices: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def die_kind(cls) -> DieKind | None:
        """The one kind all of the game's dice are, or None when it mixes kinds."""
        return cls.dice_kinds[0] if len(cls.dice_kinds) == 1 else None

    @classmethod
    def parse_data(cls, key: str, raw: Mapping[str, Any], source: str) -> Any:
        """Validate one loaded data file (already parsed from TOML/JSON).

        Raise ``DataError(source, entry, field, why)`` on a bad entry.  The
        result is what the game finds in ``self.data[key]``.
        """
        return raw

    def __init__(
        self,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        if not (self.min_players <= len(players) <= self.max_players):
            raise RuleError(
                f"{self.name} takes {self.min_players}-{self.max_players} players, "
                f"got {len(players)}: {list(players)!r}"
            )
        if len(set(players)) != len(players):
            raise RuleError(f"player names must differ, got {list(players)!r}")
        self.players: tuple[str, ...] = tuple(players)
        self.options: dict[str, Any] = dict(options or {})
        self.rng = rng if rng is not None else random.Random(0)
        self.data: dict[str, Any] = dict(data or {})

    # -- the protocol -------------------------------------------------------
    @abstractmethod
    def expects(self) -> Expectation:
        """What the game waits for next, and from whom (``kind`` None when over)."""

    def apply(self, inp: Input) -> list[Outcome]:
        """Apply one input; on a rule error nothing changes and the error is raised."""
        snapshot = copy.deepcopy({k: v for k, v in self.__dict__.items() if k != "rng"})
        rng_state = self.rng.getstate()
        try:
            return self._apply(inp)
        except RuleError:
            self.__dict__.update(snapshot)
            self.rng.setstate(rng_state)
            raise
        except (ValueError, KeyError, TypeError) as e:
            self.__dict__.update(snapshot)
            self.rng.setstate(rng_state)
            raise RuleError(
                f"malformed input: {e}", inp=inp, expected=self.expects(), state=self.state_json()
            ) from e

    @abstractmethod
    def _apply(self, inp: Input) -> list[Outcome]:
        """Apply one input (``apply`` makes it atomic); raise ``RuleError`` when illegal."""

    @abstractmethod
    def state_json(self) -> JSON:
        """The game's own state as JSON (public: never a secret before its reveal)."""

    @property
    def state(self) -> JSON:
        """The whole state as JSON, with scores, expectation and result."""
        out = self.state_json()
        out["game"] = self.name
        out["scores"] = self.scores()
        out["expects"] = self.expects().to_json()
        res = self.result()
        out["result"] = None if res is None else res.to_json()
        return out

    @abstractmethod
    def scores(self) -> dict[str, int]:
        """Each player's score in the game's own terms."""

    @abstractmethod
    def result(self) -> Result | None:
        """How the game ended, or None while it goes on."""

    @classmethod
    def check_result(
        cls,
        players: Sequence[str],
        scores: Mapping[str, Any],
        winners: Sequence[str],
        options: Mapping[str, Any] | None = None,
    ) -> str | None:
        """Why a final result given from elsewhere cannot be one this game's rules give, or None.

        For a result that did not come from replaying the game here: a table's ``result``
        message, read by a tournament.  ``players`` in seating order, ``scores`` as ``scores()``
        gives them, ``winners`` as ``Result.winners``; ``options`` as the table played (the
        game's defaults for what is not given).  Each game adds what its rules say about
        winners and scores (``_check_final``); a result that passes may still be false, but one
        that fails cannot have been played.
        """
        names = list(players)
        if not cls.min_players <= len(names) <= cls.max_players or len(set(names)) != len(names):
            return f"{cls.name} seats {cls.min_players}-{cls.max_players} different players, got {names}"
        if set(scores) != set(names):
            return f"scores: expected one for each of {names}, got {sorted(scores)}"
        for p in names:
            if isinstance(scores[p], bool) or not isinstance(scores[p], int) or scores[p] < 0:
                return f"score of {p}: expected a whole number 0 or more, got {scores[p]!r:.40}"
        if not winners or len(set(winners)) != len(winners) or not set(winners) <= set(names):
            return f"winners: expected one or more of {names}, each once, got {list(winners)!r:.80}"
        return cls._check_final(names, dict(scores), list(winners), dict(options or {}))

    @classmethod
    def _check_final(
        cls, players: list[str], scores: dict[str, int], winners: list[str], options: dict[str, Any]
    ) -> str | None:
        """This game's own rules about a final result (``check_result`` has checked its shape)."""
        return None

    # -- queries: what the rules say now, for the table (pure, like python-chess's legal_moves) --
    def choices(self, player: str) -> list[Choice]:
        """The complete choices ``player`` may make now, each as (label, payload), when the game
        expects a choice from them and the rules offer a short list (empty: enter it another way)."""
        return []

    def reveals(self) -> list[Choice]:
        """The cards or tiles that may be turned up now, each as (label, payload), when the game
        expects a reveal and knows what is left to turn up (empty: nothing, or not known)."""
        return []

    def secret_fields(self, player: str) -> tuple[ChoiceField, ...]:
        """What ``player`` chooses in the secret selection the game expects now (their own options:
        a private hand is shown only to its player)."""
        raise RuleError(f"{self.name} has no secret selection for player {player!r} now")

    def secret_payload(self, values: Mapping[str, Any]) -> JSON:
        """The secret input's payload from the value chosen for each of ``secret_fields``."""
        return dict(values)

    def dice_colours(self, player_colours: Mapping[str, str]) -> frozenset[str] | None:
        """The colours the game's dice come in now (None: any colour), given each player's colour."""
        return None

    def names(self) -> dict[str, str]:
        """What people call each of the game's named things (cards, tiles) by its id, as the game's
        data gives it; a data file may name one in English with the Japanese name in brackets
        ("Sardine (イワシ)"), the display shows one language per page (display/names.py)."""
        return {}

    def board_colours(self, player_colours: Mapping[str, str]) -> frozenset[str] | None:
        """The colours of the dice that belong to a board game (None: every die seen may be one)."""
        return None

    @classmethod
    def read_throw(cls, ctx: Context, readings: Sequence[Mapping[str, Any]]) -> list[Input] | Question:
        """What a settled throw means (``engine.throws``): the inputs for what the game expects in
        ``ctx``, from the camera's ``readings``, or the question to ask a person first."""
        raise ValueError(f"no camera adapter for game {cls.name!r}")

    def thrown(self, inp: Input) -> list[Die]:
        """The dice of a roll or throw input that were really rolled, given the game before it."""
        return list(inp.dice())

    def entry_dice(self, player: str | None, player_colours: Mapping[str, str]) -> tuple[DieEntry, ...]:
        """The dice of the roll or throw the game expects now from ``player``, as a person enters them
        by hand (the admin page's form; checked by ``engine.entry.check_entered``): one ``DieEntry``
        each.  Empty when the game expects no roll or throw.  By default the expectation's ``dice``
        (a count) of the game's kinds, in the colours the game's dice come in now."""
        exp = self.expects()
        n = exp.detail.get("dice")
        if exp.kind not in (InputKind.ROLL, InputKind.THROW) or not isinstance(n, int) or n < 1:
            return ()
        colours = tuple(sorted(self.dice_colours(player_colours) or ()))
        kinds = tuple(k for k in self.dice_kinds if k is not DieKind.DN)
        return tuple(DieEntry(kinds, colours) for _ in range(n))

    # -- helpers for subclasses --------------------------------------------
    def refuse(self, why: str, inp: Input) -> RuleError:
        """Build the error for an illegal input, quoting input, expectation and state."""
        return RuleError(why, inp=inp, expected=self.expects(), state=self.state_json())

    def require(self, inp: Input, kind: InputKind, players: Sequence[str] | None = None) -> None:
        """Refuse an input of the wrong kind or from the wrong player."""
        exp = self.expects()
        if exp.kind is None:
            raise self.refuse("the game is over", inp)
        if inp.kind is not kind:
            raise self.refuse(f"expected a {kind.value} input, got {inp.kind.value}", inp)
        allowed = exp.players if players is None else tuple(players)
        if allowed and inp.player not in allowed:
            raise self.refuse(f"player {inp.player!r} may not give this input now", inp)
