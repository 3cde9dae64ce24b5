"""What a settled throw means: the readings of a frame as the inputs a game expects, or a question.

Each game answers it (``Game.read_throw``, one place per game, next to its rules); the
table asks a person rather than guess, and gets a :class:`Question` (shown on the display
and the LEDs) when:

* a die count does not match what the rules allow for this throw (``count``);
* a die is cocked, not lying flat (``cocked``);
* a reading is below the confidence threshold (``unsure``);
* a die's support cannot be told from the picture: on the board, or on which die
  (``support``, :func:`support_doubt`);
* a die's owner cannot be told from the picture, e.g. Dice Fighter's off-field
  dice come in identical colours
  (``owner``; a die between two players' colours: ``colour``, :func:`colour_doubt`).

Only the dice that matter are looked at: the roller's colour in Die-angler and
Nozoku Dice, the whole board in DICETAR WARS and Dice Fighter, all five dice
in Dice Hunter.  Readings are mappings: ``id``, ``kind``, ``value``,
``confidence``, ``colour``, ``cocked``, ``center`` and, with a board
calibration, ``zones``, ``min_multiplier``, ``side``, ``field_status``,
``card_slot``, ``stack_level`` and ``rests_on`` (an index into the same list);
a person's answers add ``confirmed`` and ``thrower``.  This module holds what
every game's reading shares: the context, the question and the common checks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import Context, Input, InputKind, Question, Reading

#: the reading keys passed on to the engine's die objects
DIE_KEYS = ("colour", "zones", "min_multiplier", "side", "field_status", "card_slot", "stack_level")

#: a die within this many pixels of where it lay before, showing the same face, was not thrown again
SAME_PLACE_PX = 12.0


# -- the checks every game shares ------------------------------------------------------------------


def reading_ids(dice: Sequence[Reading]) -> tuple[str, ...]:
    return tuple(str(d.get("id", "?")) for d in dice)


def doubt(dice: Sequence[Reading], threshold: float) -> Question | None:
    cocked = [d for d in dice if d.get("cocked") and not d.get("confirmed")]
    if cocked:
        ids = ", ".join(reading_ids(cocked))
        return Question(
            f"Die {ids} is cocked (not lying flat): rethrow it, or confirm its value.",
            reading_ids(cocked),
            "cocked",
        )
    unsure = [d for d in dice if float(d.get("confidence", 1.0)) < threshold and not d.get("confirmed")]
    if unsure:
        d = unsure[0]
        return Question(
            f"Is die {d.get('id')} ({d.get('colour') or ''} {d.get('kind', 'd6')}) a {d.get('value')}? "
            "Confirm or correct it.",
            reading_ids(unsure),
            "unsure",
        )
    return None


def colour_doubt(dice: Sequence[Reading], colours: Sequence[str]) -> Question | None:
    """A die whose colour lies between two players' colours (the reader's ``colour_near``, issue 45),
    that no person has confirmed or named: whose die it is is asked, never guessed."""
    mine = {c.lower() for c in colours}
    torn = [
        d
        for d in dice
        if not d.get("confirmed")
        and not d.get("colour_confirmed")
        and str(d.get("colour", "")).lower() in mine
        and str(d.get("colour_near") or "").lower() in mine - {str(d.get("colour", "")).lower()}
    ]
    if not torn:
        return None
    d = torn[0]
    return Question(
        f"Is die {d.get('id')} {d.get('colour')} or {d.get('colour_near')}? Its colour lies between the two "
        "players' colours: say whose it is (its colour), or confirm it as read.",
        reading_ids(torn),
        "colour",
    )


def support_doubt(dice: Sequence[Reading]) -> Question | None:
    """A die whose support the frame cannot tell (the reading's ``support_options``, issue 45 item 4:
    on the board, or on which die), that no person has answered yet: asked with one tap an answer,
    never scored flat or stacked silently.  An option's ``on`` is ``"board"``, ``"hidden"`` (a die no
    frame shows) or the index in ``dice`` of the die it may rest on."""
    torn = [d for d in dice if d.get("support_options") and not d.get("support_confirmed")]
    if not torn:
        return None
    d = torn[0]
    said = []
    for o in d["support_options"]:
        on = o.get("on")
        if on == "board":
            said.append("on the board")
        elif on == "hidden":
            said.append("on a die the camera cannot see (say its colour and value)")
        elif isinstance(on, int) and 0 <= on < len(dice):
            said.append(f"on die {dice[on].get('id')}")
    return Question(
        f"What does die {d.get('id')} ({d.get('colour') or ''} {d.get('value')}) rest on: "
        f"{' or '.join(dict.fromkeys(said))}? The camera cannot tell.",
        reading_ids(torn),
        "support",
    )


def kind_doubt(dice: Sequence[Reading], kind: str) -> Question | None:
    """A die read as another kind than the game's only kind, that no person has confirmed yet."""
    odd = [d for d in dice if d.get("kind", "d6") != kind and not d.get("confirmed")]
    if not odd:
        return None
    d = odd[0]
    return Question(
        f"Die {d.get('id')} ({d.get('colour') or ''}) reads as a {d.get('kind', 'd6')} showing "
        f"{d.get('value')}; this game's dice are all {kind}. What does it show? Confirm or correct it.",
        reading_ids(odd),
        "unsure",
    )


def as_kind(d: Reading, kind: str) -> Reading:
    """A reading a person confirmed or corrected, as the game's one kind of die."""
    return d if d.get("kind", "d6") == kind else {**d, "kind": kind}


def count_question(seen: Sequence[Reading], want: int, what: str) -> Question | None:
    if len(seen) == want:
        return None
    return Question(
        f"The camera sees {len(seen)} {what}; this throw needs {want}. Rethrow, or correct the reading.",
        reading_ids(seen),
        "count",
    )


def die_json(d: Reading, index: Mapping[int, int] | None = None) -> dict[str, Any]:
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


def of_colour(readings: Sequence[Reading], colour: str | None) -> list[Reading]:
    return [d for d in readings if colour is not None and str(d.get("colour", "")).lower() == colour.lower()]


def thrown_again(now: Sequence[Reading], before: Sequence[Reading]) -> list[Reading]:
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


def by_colour(
    ctx: Context, readings: Sequence[Reading], wanted: Mapping[str, int], kind: InputKind
) -> list[Input] | Question:
    """One input per expected player from the dice of that player's colour (Die-angler, Nozoku hands).

    A player none of whose dice are seen has not thrown yet; any other count is a question.
    """
    inputs: list[Input] = []
    doubts: list[Question] = []
    for p in ctx.expected.players:
        mine = of_colour(readings, ctx.colours.get(p))
        if not mine:
            continue
        want = wanted[p]
        if len(mine) != want and ctx.previous:  # a reroll: only the dice thrown again count
            again = thrown_again(mine, of_colour(ctx.previous, ctx.colours.get(p)))
            mine = again if len(again) == want else mine
        q = count_question(mine, want, f"{ctx.colours.get(p)} dice of {p}") or doubt(mine, ctx.threshold)
        if q is not None:
            doubts.append(q)
            continue
        inputs.append(Input(kind, p, {"dice": [die_json(d) for d in mine]}))
    if doubts:
        return doubts[0]
    if not inputs:
        colours = ", ".join(f"{ctx.colours.get(p)} ({p})" for p in ctx.expected.players)
        return Question(
            f"The camera sees none of the dice expected now: {colours}. Throw them, or correct the reading.",
            reading_ids(readings),
            "count",
        )
    return inputs
