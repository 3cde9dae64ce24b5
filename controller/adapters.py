"""Turn a settled frame's readings into the engine inputs the game expects, or a question.

The controller asks a human rather than guess.  :func:`plan` returns either
the inputs for what the engine ``expects()`` now or a :class:`Question` (shown
on the display and the LEDs) when:

* a die count does not match what the rules allow for this throw (``count``);
* a die is cocked, not lying flat (``cocked``);
* a reading is below the confidence threshold (``unsure``);
* a die's owner cannot be told from the picture, e.g. Dice Fighter's off-field
  dice come in identical colours (``owner``).

Only the dice that matter are looked at: the roller's colour in Die-angler and
Nozoku Dice, the whole board in DICETAR WARS and Dice Fighter, all five dice
in Dice Hunter.  Readings are dicts: ``id``, ``kind``, ``value``,
``confidence``, ``colour``, ``cocked``, ``center`` and, with a board
calibration, ``zones``, ``min_multiplier``, ``side``, ``field_status``,
``card_slot``, ``stack_level`` and ``rests_on`` (an index into the same list);
a person's answers add ``confirmed`` and ``thrower``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import Expectation, Input, InputKind

Reading = Mapping[str, Any]

#: the reading keys passed on to the engine's die objects
DIE_KEYS = ("colour", "zones", "min_multiplier", "side", "field_status", "card_slot", "stack_level")

#: a die within this many pixels of where it lay before, showing the same face, was not thrown again
SAME_PLACE_PX = 12.0


@dataclass(frozen=True)
class Question:
    """Something the table must ask a person before it can score."""

    text: str
    readings: tuple[str, ...] = ()  # ids of the readings in doubt
    kind: str = "unsure"  # unsure | count | cocked | owner | illegal

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "readings": list(self.readings), "kind": self.kind}


@dataclass
class TableReadings:
    """The readings of one settled frame as the table scores them: the dice of the frame's
    `controller.perceive.ReadingSet` in their dict form (`Reading.to_json`), with the human's
    confirmations, and whether (and by which inputs) they were scored."""

    seq: int
    t: float
    dice: list[dict[str, Any]] = field(default_factory=list)
    applied: bool = False  # scored: the engine has these dice
    #: the log seqs of the inputs that scored these dice (a camera throw, or a roll typed over it)
    input_seqs: tuple[int, ...] = ()

    def by_id(self, rid: Any) -> dict[str, Any]:
        for d in self.dice:
            if d["id"] == rid:
                return d
        raise ValueError(
            f"reading {rid!r} is not in the latest frame (readings: {[d['id'] for d in self.dice]})"
        )


@dataclass(frozen=True)
class Context:
    """What the adapters need to know besides the readings."""

    game: str
    expected: Expectation
    players: tuple[str, ...]
    colours: Mapping[str, str]  # player -> dice colour
    threshold: float = 0.8
    #: the readings of the throw scored last, to tell which dice were thrown again
    previous: Sequence[Reading] = ()
    #: the game's state JSON (e.g. which power-card slots hold a card)
    state: Mapping[str, Any] = field(default_factory=dict)
    #: the colours of the game's own dice on a board (``Game.board_colours``; None: any)
    board_colours: frozenset[str] | None = None
    #: the one kind all the game's dice are (``Game.die_kind``; None: they mix kinds)
    die_kind: str | None = None


# -- the checks every game shares ------------------------------------------------------------------


def _ids(dice: Sequence[Reading]) -> tuple[str, ...]:
    return tuple(str(d.get("id", "?")) for d in dice)


def _doubt(dice: Sequence[Reading], threshold: float) -> Question | None:
    cocked = [d for d in dice if d.get("cocked") and not d.get("confirmed")]
    if cocked:
        ids = ", ".join(_ids(cocked))
        return Question(
            f"Die {ids} is cocked (not lying flat): rethrow it, or confirm its value.", _ids(cocked), "cocked"
        )
    unsure = [d for d in dice if float(d.get("confidence", 1.0)) < threshold and not d.get("confirmed")]
    if unsure:
        d = unsure[0]
        return Question(
            f"Is die {d.get('id')} ({d.get('colour') or ''} {d.get('kind', 'd6')}) a {d.get('value')}? "
            "Confirm or correct it.",
            _ids(unsure),
            "unsure",
        )
    return None


def _kind_doubt(dice: Sequence[Reading], kind: str) -> Question | None:
    """A die read as another kind than the game's only kind, that no person has confirmed yet."""
    odd = [d for d in dice if d.get("kind", "d6") != kind and not d.get("confirmed")]
    if not odd:
        return None
    d = odd[0]
    return Question(
        f"Die {d.get('id')} ({d.get('colour') or ''}) reads as a {d.get('kind', 'd6')} showing "
        f"{d.get('value')}; this game's dice are all {kind}. What does it show? Confirm or correct it.",
        _ids(odd),
        "unsure",
    )


def _as_kind(d: Reading, kind: str) -> Reading:
    """A reading a person confirmed or corrected, as the game's one kind of die."""
    return d if d.get("kind", "d6") == kind else {**d, "kind": kind}


def _count(seen: Sequence[Reading], want: int, what: str) -> Question | None:
    if len(seen) == want:
        return None
    return Question(
        f"The camera sees {len(seen)} {what}; this throw needs {want}. Rethrow, or correct the reading.",
        _ids(seen),
        "count",
    )


def _die(d: Reading, index: Mapping[int, int] | None = None) -> dict[str, Any]:
    """The engine's die object for a reading; ``index`` maps reading positions to input positions."""
    die: dict[str, Any] = {"kind": d.get("kind", "d6"), "value": int(d["value"])}
    for key in DIE_KEYS:
        if d.get(key) not in (None, [], ()):
            die[key] = list(d[key]) if isinstance(d[key], tuple) else d[key]
    if d.get("sides") is not None:
        die["sides"] = d["sides"]
    rests_on = d.get("rests_on")
    if rests_on is not None and (index is None or rests_on in index):
        die["rests_on"] = rests_on if index is None else index[rests_on]
    if d.get("thrower"):
        die["thrower"] = d["thrower"]
    return die


def _of_colour(readings: Sequence[Reading], colour: str | None) -> list[Reading]:
    return [d for d in readings if colour is not None and str(d.get("colour", "")).lower() == colour.lower()]


def _thrown_again(now: Sequence[Reading], before: Sequence[Reading]) -> list[Reading]:
    """The dice in ``now`` that are not where a die of ``before`` lay with the same colour and face."""
    left = list(before)
    moved = []
    for d in now:
        match = next(
            (
                b
                for b in left
                if b.get("colour") == d.get("colour")
                and b.get("value") == d.get("value")
                and "center" in b
                and "center" in d
                and math.dist(b["center"], d["center"]) <= SAME_PLACE_PX
            ),
            None,
        )
        if match is None:
            moved.append(d)
        else:
            left.remove(match)
    return moved


# -- per game ----------------------------------------------------------------------------------------


def _dice_hunter(ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
    q = _count(readings, 5, "dice") or _doubt(readings, ctx.threshold)
    if q is not None:
        return q
    player = ctx.expected.players[0] if ctx.expected.players else None
    return [Input(InputKind.ROLL, player, {"dice": sorted(int(d["value"]) for d in readings)})]


def _by_colour(
    ctx: Context, readings: Sequence[Reading], wanted: Mapping[str, int], kind: InputKind
) -> list[Input] | Question:
    """One input per expected player from the dice of that player's colour (Die-angler, Nozoku hands).

    A player none of whose dice are seen has not thrown yet; any other count is a question.
    """
    inputs: list[Input] = []
    doubts: list[Question] = []
    for p in ctx.expected.players:
        mine = _of_colour(readings, ctx.colours.get(p))
        if not mine:
            continue
        want = wanted[p]
        if len(mine) != want and ctx.previous:  # a reroll: only the dice thrown again count
            again = _thrown_again(mine, _of_colour(ctx.previous, ctx.colours.get(p)))
            mine = again if len(again) == want else mine
        q = _count(mine, want, f"{ctx.colours.get(p)} dice of {p}") or _doubt(mine, ctx.threshold)
        if q is not None:
            doubts.append(q)
            continue
        inputs.append(Input(kind, p, {"dice": [_die(d) for d in mine]}))
    if doubts:
        return doubts[0]
    if not inputs:
        colours = ", ".join(f"{ctx.colours.get(p)} ({p})" for p in ctx.expected.players)
        return Question(
            f"The camera sees none of the dice expected now: {colours}. Throw them, or correct the reading.",
            _ids(readings),
            "count",
        )
    return inputs


def _die_angler(ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
    dice = ctx.expected.detail.get("dice", {})
    wanted = {p: len(dice.get(p, [])) for p in ctx.expected.players}
    return _by_colour(ctx, readings, wanted, InputKind.ROLL)


def _nozoku(ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
    detail = ctx.expected.detail
    what = detail.get("roll")
    if what == "hand":
        return _by_colour(
            ctx, readings, dict.fromkeys(ctx.expected.players, int(detail["dice"])), InputKind.ROLL
        )
    player = ctx.expected.players[0]
    if what == "held die":
        mine = _of_colour(readings, str(detail.get("colour")))
        if len(mine) != 1 and ctx.previous:
            mine = _thrown_again(mine, ctx.previous)
        q = _count(mine, 1, f"newly thrown {detail.get('colour')} dice") or _doubt(mine, ctx.threshold)
        return q if q is not None else [Input(InputKind.ROLL, player, {"dice": [_die(mine[0])]})]
    if what == "reroll":
        # the rerolled dice alone, or the whole centre with them (the dice not rerolled still there)
        centre = ctx.state.get("centre")
        whole = len(centre) if isinstance(centre, list) else None
        n = int(detail.get("dice", 0))
        if whole is not None and len(readings) not in (n, whole):
            return Question(
                f"The camera sees {len(readings)} dice in the centre; this reroll needs the {n} rerolled "
                f"dice or the whole centre of {whole}. Rethrow, or correct the reading.",
                _ids(readings),
                "count",
            )
    # the centre (setup) or the whole centre after the preparation reroll
    want = int(detail.get("dice", 0)) if what == "centre" else None
    q = (_count(readings, want, "dice in the centre") if want is not None else None) or _doubt(
        readings, ctx.threshold
    )
    if q is None and what == "centre":
        seen = Counter(str(d.get("colour")) for d in readings)
        expected = {str(k): int(v) for k, v in detail.get("colours", {}).items()}
        if dict(seen) != expected:
            q = Question(
                f"The centre should hold {expected} dice by colour; the camera sees {dict(seen)}. "
                "Rethrow, or correct the reading.",
                _ids(readings),
                "count",
            )
    if q is not None:
        return q
    return [Input(InputKind.ROLL, player, {"dice": [_die(d) for d in readings]})]


def _dicetar_wars(ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
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
    readings = [readings[i] for i in kept]
    seen = Counter(str(d.get("colour", "")).lower() for d in readings)
    if dict(seen) != want:
        return Question(
            f"This throw needs {want} dice by colour on and around the board; the camera sees "
            f"{dict(seen)}. Rethrow, or correct the reading (a die lying under another cannot be seen: "
            "say its colour and value).",
            _ids(readings),
            "count",
        )
    q = _doubt(readings, ctx.threshold)
    if q is not None:
        return q
    return [Input(InputKind.THROW, player, {"dice": [_die(d, index) for d in readings]})]


def _dice_fighter(ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
    detail = ctx.expected.detail
    kind = ctx.die_kind or "d10p"
    if ctx.expected.kind is InputKind.ROLL:  # the order roll-off: one die each, on its side
        by_side = {str(d.get("side")): d for d in readings}
        if len(readings) != 2 or set(by_side) != {"a", "b"}:
            return Question(
                "The order roll needs one die on each side of the centre line. Rethrow.",
                _ids(readings),
                "count",
            )
        q = _kind_doubt(readings, kind) or _doubt(readings, ctx.threshold)
        if q is not None:
            return q
        values = {ctx.players[0]: int(by_side["a"]["value"]), ctx.players[1]: int(by_side["b"]["value"])}
        return [Input(InputKind.ROLL, None, {"values": values})]
    if "special_roll" in detail:
        moved = list(readings)
        if len(moved) != 1 and ctx.previous:
            moved = _thrown_again(readings, ctx.previous)
        q = _count(moved, 1, "newly thrown dice") or _kind_doubt(moved, kind) or _doubt(moved, ctx.threshold)
        if q is not None:
            return q
        return [Input(InputKind.THROW, ctx.expected.players[0], {"dice": [_die(_as_kind(moved[0], kind))]})]
    kept = [
        i for i, d in enumerate(readings) if ctx.board_colours is None or d.get("colour") in ctx.board_colours
    ]
    index = {old: new for new, old in enumerate(kept)}
    readings = [readings[i] for i in kept]
    q = (
        _count(readings, int(detail.get("dice", 6)), "dice")
        or _kind_doubt(readings, kind)
        or _doubt(readings, ctx.threshold)
    )
    if q is not None:
        return q
    readings = [_as_kind(d, kind) for d in readings]
    # off the field, or on a slot with no card laid (that is off the field too): whose throw was it?
    players = ctx.state.get("players") or {}
    laid = {
        c.get("slot") for p in players.values() if isinstance(p, Mapping) for c in p.get("power_cards", [])
    }
    unowned = [
        d
        for d in readings
        if not d.get("thrower")
        and (
            d.get("field_status") == "off"
            or (d.get("field_status") == "card_slot" and d.get("card_slot") not in laid)
        )
    ]
    if unowned:
        d = unowned[0]
        names = " or ".join(ctx.players)
        return Question(
            f"Who threw the {d.get('colour') or ''} die {d.get('id')} that is off the field: {names}? "
            "The camera cannot tell dice of one colour apart.",
            _ids(unowned),
            "owner",
        )
    return [Input(InputKind.THROW, None, {"dice": [_die(d, index) for d in readings]})]


#: colours no game die has here unless the game says so: what the reader calls other things
#: on the table (markers, board art) keeps its own name instead of the nearest die colour's
NOT_DICE = ("white", "black")


ADAPTERS = {
    "dice-hunter": _dice_hunter,
    "die-angler": _die_angler,
    "nozoku-dice": _nozoku,
    "dicetar-wars": _dicetar_wars,
    "dice-fighter": _dice_fighter,
}


def plan(ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
    """The inputs for a settled throw given what the game expects now, or the question to ask first."""
    if ctx.expected.kind not in (InputKind.ROLL, InputKind.THROW):
        raise ValueError(f"the game expects {ctx.expected.describe()}, not a throw")
    if ctx.game not in ADAPTERS:
        raise ValueError(f"no camera adapter for game {ctx.game!r}; expected one of {sorted(ADAPTERS)}")
    return ADAPTERS[ctx.game](ctx, readings)
