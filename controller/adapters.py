"""Turn a settled frame's readings into the engine input the game expects.

The controller asks a human rather than guess: a reading below the confidence
threshold, a cocked die, or a die count the rules do not allow becomes a
``Question`` (shown on the display and the LEDs) instead of an input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import Expectation, Input, InputKind

#: how many dice a roll of each game must show (None: any number)
DICE_PER_ROLL: dict[str, int | None] = {
    "dice-hunter": 5,
    "die-angler": None,
    "nozoku-dice": None,
    "dicetar-wars": None,
    "dice-fighter": None,
}


@dataclass(frozen=True)
class Question:
    """Something the table must ask a person before it can score."""

    text: str
    readings: tuple[str, ...] = ()  # ids of the readings in doubt
    kind: str = "unsure"  # unsure | count | cocked | owner

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "readings": list(self.readings), "kind": self.kind}


@dataclass
class ReadingSet:
    """The readings of one settled frame, with ids and the human's confirmations."""

    seq: int
    t: float
    dice: list[dict[str, Any]] = field(default_factory=list)

    def by_id(self, rid: Any) -> dict[str, Any]:
        for d in self.dice:
            if d["id"] == rid:
                return d
        raise ValueError(
            f"reading {rid!r} is not in the latest frame (readings: {[d['id'] for d in self.dice]})"
        )


def question_for(game: str, readings: Sequence[Mapping[str, Any]], threshold: float) -> Question | None:
    """Why these readings cannot be scored without a person, or None if they can."""
    want = DICE_PER_ROLL.get(game)
    if want is not None and len(readings) != want:
        return Question(
            f"The camera sees {len(readings)} dice; a roll here has {want}. Rethrow, or correct the reading.",
            tuple(d["id"] for d in readings),
            "count",
        )
    cocked = [d for d in readings if d.get("cocked") and not d.get("confirmed")]
    if cocked:
        ids = ", ".join(d["id"] for d in cocked)
        return Question(
            f"Die {ids} is cocked (not lying flat): rethrow it, or confirm its value.",
            tuple(d["id"] for d in cocked),
            "cocked",
        )
    unsure = [d for d in readings if d.get("confidence", 1.0) < threshold and not d.get("confirmed")]
    if unsure:
        d = unsure[0]
        return Question(
            f"Is die {d['id']} ({d.get('colour') or ''} {d.get('kind', 'd6')}) a {d['value']}? "
            "Confirm or correct it.",
            tuple(x["id"] for x in unsure),
            "unsure",
        )
    return None


def to_input(game: str, expected: Expectation, readings: Sequence[Mapping[str, Any]]) -> Input:
    """The engine input for a settled throw, given what the game expects now."""
    if expected.kind not in (InputKind.ROLL, InputKind.THROW):
        raise ValueError(f"the game expects {expected.describe()}, not a throw")
    player = expected.players[0] if len(expected.players) == 1 else None
    if game == "dice-hunter":
        return Input(InputKind.ROLL, player, {"dice": sorted(int(d["value"]) for d in readings)})
    dice = []
    for d in readings:
        die = {"kind": d.get("kind", "d6"), "value": int(d["value"])}
        for key in (
            "colour",
            "zones",
            "min_multiplier",
            "side",
            "field_status",
            "card_slot",
            "stack_level",
            "rests_on",
        ):
            if d.get(key) not in (None, [], ()):
                die[key] = d[key]
        dice.append(die)
    return Input(expected.kind, player, {"dice": dice})
