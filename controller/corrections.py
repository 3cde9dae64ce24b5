"""Referee corrections: a person's answers to the table's questions, and the referee's commands.

An answer (``confirm``, ``set_value``, ``set_colour``, ``set_thrower``, ``set_support``, ``hidden``,
``not_a_die``)
is about the current readings: :func:`answer` checks it against them and returns an :class:`Answer`
(the row to log, the change to make once it is logged, the message), so that nothing changes before
the log holds it.  The table (:mod:`controller.table`) logs it, makes the change and scores the
readings again.

``not_a_die`` answers a question about something that is no die (a phantom: a scrap of paper, a
shadow): the reading leaves the throw (`TableReadings.leave_out`) and the rest is scored or asked
about again; like every answer it waits until the throw is undone once scored, and a ``confirm`` or
``set_value`` of that reading later puts it back ("a die after all").

Learning from the referee (issue 29 item 5, :class:`RefereeLearning`): an answer about a numbered
die (``confirm``, ``set_value``) puts the die's crop, embedded, in the logged row (``learnt``) and,
once logged, in the table's learnt set of dice, so the table reads that face by likeness from then
on and asks less the longer it plays; ``unlearn`` (a logged answer too) takes a reading's crops out
again.  A table rebuilds the set from its log (`RefereeLearning.replay`).  At a table that names
colours by its roster's learnt looks, an answer naming a die's colour (``set_colour``) adds the look
the die was named by to that colour's sightings the same way (`controller.referee_looks`).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from controller.adapters import TableReadings
from controller.referee_looks import LearntByReading
from display.backend import AlreadyAnswered
from engine import Input, InputKind
from engine.entry import check_entered

log = logging.getLogger("dicetable.corrections")

#: corrections that answer a question about the current readings (they wait for one); ``unlearn``
#: takes the crops an answer taught the table (RefereeLearning) out of its learnt set again
ANSWERS = (
    "confirm",
    "set_value",
    "set_colour",
    "set_thrower",
    "set_support",
    "hidden",
    "not_a_die",
    "unlearn",
)
#: every correction the admin page and a recorded referee can make
ACTIONS = (*ANSWERS, "undo", "start", "pause", "end", "input")

#: the board fields a die hidden under another shares with it (seen from above, they cover the same spot)
SHARED_PLACE = (
    "zones",
    "min_multiplier",
    "side",
    "field_status",
    "card_slot",
    "board_center_mm",
    "footprint_mm",
)


@dataclass(frozen=True)
class Answer:
    """A checked answer: ``row`` is logged (a ``control`` event) before ``apply`` changes the readings."""

    row: dict[str, Any]
    apply: Callable[[], None]
    message: str


def check_command(command: Any, who: Any) -> tuple[str, str]:
    """The action of a correction and who makes it; raises ValueError naming what is wrong."""
    if not isinstance(who, str) or not who.strip():
        raise ValueError("a correction needs 'who': the name of the person making it")
    if not isinstance(command, Mapping) or "action" not in command:
        raise ValueError(f"a correction must be an object with 'action', got {command!r}")
    action = command["action"]
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}; expected one of {sorted(ACTIONS)}")
    return str(action), who.strip()


def answer(
    action: str,
    command: Mapping[str, Any],
    rs: TableReadings | None,
    who: str,
    game_kind: str | None,
    players: Sequence[str],
) -> Answer:
    """Check an answer (one of ANSWERS) about the readings ``rs`` of a game played by ``players``
    (``game_kind``: the kind of die the game throws, if it has only one: ``Game.die_kind``)."""
    checked = _checked(action, command, rs, who, game_kind, players)
    if rs is None:
        return checked
    d = rs.by_id(answered(action, command), left_out=True)
    check_version(d, command.get("version"))

    def apply() -> None:
        checked.apply()
        d["version"], d["answered_by"] = int(d.get("version", 0)) + 1, who

    return Answer(checked.row, apply, checked.message)


def check_version(d: Mapping[str, Any], version: Any) -> None:
    """An answer names the version of the reading it answers (the ``version`` each reading carries:
    0 as read, one more with each answer taken): an answer naming an older version, or naming none
    once the reading has been answered, answers a reading someone else answered meanwhile and is
    refused (`AlreadyAnswered`, the display's 409) naming who answered it."""
    now = int(d.get("version", 0))
    if version is not None and (not isinstance(version, int) or isinstance(version, bool) or version < 0):
        raise ValueError(f"'version' must be the reading's version, a whole number >= 0, got {version!r}")
    if (version is None and now == 0) or version == now:
        return
    if version is not None and version > now:
        raise ValueError(f"reading {d['id']} is at version {now}, not {version}: reload the readings")
    raise AlreadyAnswered(
        f"reading {d['id']} was already answered by {d.get('answered_by') or 'someone'} "
        f"(now version {now}{f', not {version}' if version is not None else ''}): "
        "look at it again and answer its new version if it is still wrong",
        str(d.get("answered_by") or ""),
    )


def answered(action: Any, command: Mapping[str, Any]) -> Any:
    """The id of the reading the answer ``action`` is about: a ``hidden`` die's ``under`` (else its
    ``reading``), any other answer's ``reading``."""
    if action == "hidden":
        return command.get("under", command.get("reading"))
    return command.get("reading")


def current_version(rs: TableReadings, command: Mapping[str, Any]) -> int | None:
    """The version of the reading ``command`` answers, as it is now (None: no such reading)."""
    rid = answered(command.get("action"), command)
    for d in [*rs.dice, *(d for _, d in rs.left_out)]:
        if d["id"] == rid:
            return int(d.get("version", 0))
    return None


def _checked(
    action: str,
    command: Mapping[str, Any],
    rs: TableReadings | None,
    who: str,
    game_kind: str | None,
    players: Sequence[str],
) -> Answer:
    if action == "confirm":
        return _confirm(command, rs, who, game_kind)
    if action == "set_value":
        return _set_value(command, rs, who, game_kind)
    if action == "set_colour":
        return _set_colour(command, rs, who)
    if action == "set_thrower":
        return _set_thrower(command, rs, who, players)
    if action == "set_support":
        return _set_support(command, rs, who)
    if action == "hidden":
        return _hidden(command, rs, who)
    if action == "not_a_die":
        return _not_a_die(command, rs, who)
    if action == "unlearn":
        raise ValueError("'unlearn': this table learns no crops from the referee (no numbered dice reader)")
    raise ValueError(f"{action!r} is not an answer; expected one of {list(ANSWERS)}")


def kind_of(game_kind: str | None, d: Mapping[str, Any]) -> str:
    """The kind a person's answer makes a die: the game's only kind, if it has one, else as read."""
    return game_kind if game_kind is not None else str(d.get("kind", "d6"))


def check_face(kind: str, sides: Any, value: Any) -> None:
    """Raise ValueError unless a ``kind`` die (of ``sides``, for kinds that vary) can show ``value``."""
    from engine import DieKind

    faces = DieKind(kind).face_range(sides)
    if value not in faces:
        raise ValueError(f"a {kind} die cannot show {value!r} (faces {faces[0]}..{faces[-1]})")


def _confirm(command: Mapping[str, Any], rs: TableReadings | None, who: str, game_kind: str | None) -> Answer:
    if rs is None:
        raise ValueError("there is no reading to confirm yet")
    d = rs.by_id(command.get("reading"), left_out=True)
    kind = kind_of(game_kind, d)
    check_face(kind, d.get("sides"), d["value"])
    if rs.applied and d not in rs.dice:
        raise ValueError(f"reading {d['id']} was left out of a scored throw: undo the last input first")

    def apply() -> None:
        d["confirmed"], d["unsure"], d["kind"] = True, False, kind
        rs.put_back(d)  # said to be no die, a die after all

    row = {"correction": "confirm", "reading": d["id"], "who": who}
    return Answer(row, apply, f"reading {d['id']} confirmed as {d['value']}")


def _set_value(
    command: Mapping[str, Any], rs: TableReadings | None, who: str, game_kind: str | None
) -> Answer:
    value = command.get("value")
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"'value' must be an integer face, got {value!r}")
    if rs is None:
        raise ValueError("there is no reading to correct yet")
    d = rs.by_id(command.get("reading"), left_out=True)
    kind = kind_of(game_kind, d)
    check_face(kind, d.get("sides"), value)
    if rs.applied:
        raise ValueError(f"reading {d['id']} is already scored: undo the last input first")
    old = d["value"]

    def apply() -> None:
        d["value"], d["confirmed"], d["unsure"], d["kind"] = value, True, False, kind
        rs.put_back(d)  # said to be no die, a die after all

    row = {"correction": "set_value", "reading": d["id"], "from": old, "to": value, "who": who}
    return Answer(row, apply, f"reading {d['id']} set from {old} to {value}")


def _unscored_die(command: Mapping[str, Any], rs: TableReadings | None) -> dict[str, Any]:
    """The die ``command["reading"]`` names among readings not scored yet (else a ValueError)."""
    if rs is None:
        raise ValueError("there is no reading to correct yet")
    d = rs.by_id(command.get("reading"))
    if rs.applied:
        raise ValueError(f"reading {d['id']} is already scored: undo the last input first")
    return d


def _set_colour(command: Mapping[str, Any], rs: TableReadings | None, who: str) -> Answer:
    """The colour a die really is (the camera named it wrong: in a game that tells players' dice by
    colour, the die then counts for its real owner)."""
    from vision.palette import KNOWN_COLOURS

    colour = command.get("colour")
    if colour not in KNOWN_COLOURS:
        raise ValueError(f"'colour' must be one of {', '.join(KNOWN_COLOURS)}, got {colour!r}")
    d = _unscored_die(command, rs)
    old = d.get("colour")

    def apply() -> None:
        d["colour"], d["colour_confirmed"] = colour, True

    row = {"correction": "set_colour", "reading": d["id"], "from": old, "to": colour, "who": who}
    return Answer(row, apply, f"reading {d['id']} set from {old} to {colour}")


#: the board fields a die's support decides (what the perception step offers with each option)
SUPPORT_PLACE = ("stack_level", "zones", "min_multiplier", "side", "field_status", "card_slot")


def _set_support(command: Mapping[str, Any], rs: TableReadings | None, who: str) -> Answer:
    """What a die the frame could not tell the support of rests on (issue 45 item 4): ``on`` is
    ``"board"`` or the id of a die the reading offers (its ``support_options``); a die no frame shows
    is named with ``hidden`` instead.  The die then lies where that option places it."""
    on = command.get("on")
    d = _unscored_die(command, rs)
    assert rs is not None
    options = d.get("support_options") or []
    ids = {i: str(x.get("id")) for i, x in enumerate(rs.dice)}
    offered = [
        "board" if o.get("on") == "board" else ids.get(o.get("on"), "")
        for o in options
        if o.get("on") != "hidden"
    ]
    if not options:
        raise ValueError(
            f"reading {d['id']}: the camera told what it rests on; nothing to answer ('set_support')"
        )
    if on not in offered:
        hidden = any(o.get("on") == "hidden" for o in options)
        raise ValueError(
            f"'on' must be one of {offered} for reading {d['id']}, got {on!r}"
            + (
                "; a die the camera cannot see under it: answer 'hidden' with its colour and value"
                if hidden
                else ""
            )
        )
    chosen = next(
        o
        for o, name in zip((o for o in options if o.get("on") != "hidden"), offered, strict=True)
        if name == on
    )
    old = "board" if d.get("rests_on") is None else ids.get(d["rests_on"], "?")

    def apply() -> None:
        for key in SUPPORT_PLACE:
            if key in chosen:
                d[key] = copy.deepcopy(chosen[key])
        d["rests_on"] = None if chosen["on"] == "board" else chosen["on"]
        d.pop("support_hidden", None)
        d["support_confirmed"] = True

    row = {"correction": "set_support", "reading": d["id"], "from": old, "to": on, "who": who}
    return Answer(
        row, apply, f"reading {d['id']} rests on {'the board' if on == 'board' else 'die ' + str(on)}"
    )


def _set_thrower(
    command: Mapping[str, Any], rs: TableReadings | None, who: str, players: Sequence[str]
) -> Answer:
    """The players' answer to "who threw this die?" (Dice Fighter's dice off the field)."""
    thrower = command.get("thrower")
    if thrower not in players:
        raise ValueError(f"'thrower' must be one of the players {list(players)}, got {thrower!r}")
    d = _unscored_die(command, rs)

    def apply() -> None:
        d["thrower"] = thrower

    row = {"correction": "set_thrower", "reading": d["id"], "thrower": thrower, "who": who}
    return Answer(row, apply, f"reading {d['id']} thrown by {thrower}")


def _not_a_die(command: Mapping[str, Any], rs: TableReadings | None, who: str) -> Answer:
    """A person's answer that a reading is no die (paper, a shadow, a crumb): it leaves the throw."""
    if rs is not None and any(d["id"] == command.get("reading") for _, d in rs.left_out):
        raise ValueError(f"reading {command.get('reading')!r} is already left out as not a die")
    d = _unscored_die(command, rs)
    assert rs is not None
    if d.get("hidden"):
        raise ValueError(
            f"reading {d['id']} is the die a person said lies under reading {d.get('under')}: "
            "undo the last input and answer again"
        )

    def apply() -> None:
        rs.leave_out(d)

    row = {"correction": "not_a_die", "reading": d["id"], "who": who}
    return Answer(row, apply, f"reading {d['id']} is not a die: left out of the throw")


def _hidden(command: Mapping[str, Any], rs: TableReadings | None, who: str) -> Answer:
    """A person's answer to a count question: a die lies under the reading ``under``.

    Its top face is covered, so no camera can read it: the person says its colour and value.
    It is added to the readings where the die above it lies, and the die above now rests on it.
    """
    under = command.get("under", command.get("reading"))
    colour, value = command.get("colour"), command.get("value")
    if not isinstance(colour, str) or not colour.strip():
        raise ValueError(f"'colour' must name the hidden die's colour, got {colour!r}")
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"'value' must be an integer face, got {value!r}")
    if rs is None:
        raise ValueError("there is no reading to correct yet")
    top = rs.by_id(under)
    if rs.applied:
        raise ValueError(f"reading {top['id']} is already scored: undo the last input first")
    kind = str(top.get("kind", "d6"))
    check_face(kind, top.get("sides"), value)
    n = sum(1 for d in rs.dice if d.get("hidden")) + 1
    hidden: dict[str, Any] = {
        "id": f"r{rs.seq}.h{n}",
        "kind": kind,
        "value": value,
        "colour": colour.strip().lower(),
        "confidence": 1.0,
        "confirmed": True,
        "unsure": False,
        "hidden": True,
        "under": top["id"],
    }
    for key in ("center", "quad", *SHARED_PLACE):
        if key in top:
            hidden[key] = copy.deepcopy(top[key])

    def apply() -> None:
        if "stack_level" in top:
            level = int(top.get("stack_level") or 0)
            hidden["stack_level"] = 0 if top.get("rests_on") is None else level
            hidden["rests_on"] = top.get("rests_on")
            top["stack_level"] = int(hidden["stack_level"]) + 1
            top["rests_on"] = len(rs.dice)  # the hidden die's index, appended below
        top.pop("support_hidden", None)
        top["support_confirmed"] = True  # what it rests on is told (issue 45 item 4)
        rs.dice.append(hidden)

    row = {
        "correction": "hidden",
        "reading": hidden["id"],
        "under": top["id"],
        "colour": hidden["colour"],
        "value": value,
        "who": who,
    }
    message = f"a hidden {hidden['colour']} {value} under reading {top['id']} added as {hidden['id']}"
    return Answer(row, apply, message)


def check_typed_throw(game: Any, inp: Input, colours: Mapping[str, str]) -> None:
    """A roll or throw the referee typed (the admin page's form): its dice checked against what the
    game expects of each (``Game.entry_dice``: the kind's faces, the colours in play, the board's
    zones or the sides of the centre line), so that a mistake is named by die and by what was
    expected, before the game sees it; the game's own rules judge the rest.  ValueError."""
    if inp.kind not in (InputKind.ROLL, InputKind.THROW):
        return
    entries = game.entry_dice(inp.player, colours)
    if entries:
        check_entered(entries, inp.data.get("dice"), inp.kind.value)


def next_status(status: str, action: str) -> str:
    """The table's status after the referee's ``start``, ``pause`` or ``end`` (raises ValueError)."""
    if action == "pause":
        if status != "playing":
            raise ValueError(f"only a playing game can be paused (it is {status})")
        return "paused"
    if action == "start":
        if status == "over":
            raise ValueError("the game is over; start a new table session to play again")
        return "playing"
    if status == "over":
        raise ValueError("the game is already over")
    return "over"


def reopen(rs: TableReadings | None, seq: int) -> None:
    """The input logged as ``seq`` is undone: readings it scored are open to correction again once
    every input they scored is undone."""
    if rs is not None and seq in rs.input_seqs:
        rs.input_seqs = tuple(s for s in rs.input_seqs if s != seq)
        rs.applied = bool(rs.input_seqs)


# -- learning from the referee ---------------------------------------------------------------------

#: the kinds whose crops the table learns from the referee's answers (the numbered reader's learnt sets)
LEARNT_KINDS = ("d10", "d10p", "d20")


class RefereeLearning(LearntByReading):
    """The table's learnt set of dice grown by the referee's answers (see the module's doc).

    ``perceiver``: the table's perception step (`controller.perceive.Perceiver`); learning is on when
    it reads with the numbered reader (`vision.numbered.NumberedDice`), whose learnt sets it grows:
    the configured set (``table.dice_set``) as it is, and a set of the referee's crops for each
    numbered kind ("referee-d20": `DiceSet.trust`, a face it knows well is sure without the
    classifier)."""

    def __init__(self, perceiver: Any) -> None:
        from vision.numbered import NumberedDice

        self.perceiver = perceiver
        reader = perceiver.reader
        self.on = isinstance(reader, NumberedDice)
        self.dice = reader if self.on else None
        #: the configured set, or None (a LearntSets of several kinds is taken apart)
        self.base = list(getattr(reader.learnt, "sets", [reader.learnt])) if self.on and reader.learnt else []
        #: each crop learnt: (reading id, kind, value, upright embedding, the roster's die or "", the
        #: crop it was cut as ("box", "die"), its pixels (`vision.numbered.template`) or None)
        self.added: list[tuple[str, str, int, np.ndarray, str, str, np.ndarray | None]] = []
        from controller.referee_looks import LookLearning

        #: the referee's colour answers joining the roster's learnt looks (issue 44 item 5)
        self.looks = LookLearning(perceiver)

    @property
    def learns(self) -> bool:
        """Whether the referee's answers teach the table anything (crops or looks)."""
        return self.on or self.looks.on

    def _reader(self) -> Any:
        from vision.numbered.reader import default_reader

        assert self.dice is not None
        return self.dice.reader or default_reader()

    def answer(
        self,
        action: str,
        command: Mapping[str, Any],
        rs: TableReadings | None,
        who: str,
        game_kind: str | None,
        players: Sequence[str],
        frame: bytes | np.ndarray | None,
    ) -> Answer:
        """`answer`, and for an answer about a numbered die of the table's kinds seen in ``frame``
        (the reading set's frame, an image or its JPEG) its crop learnt once the row is logged; an
        ``unlearn`` of a reading's crops; an answer naming a die's colour, its look learnt
        (`controller.referee_looks`, issue 44 item 5), and an ``unlearn`` of it."""
        checked: Answer
        if action == "unlearn":
            if self.looks.taught(command.get("reading")):
                checked = self.looks.unlearn(Answer({}, lambda: None, ""), command, who)
                return checked
            return self._unlearn(command, rs, who)
        checked = self.looks.answer(answer(action, command, rs, who, game_kind, players), action, command, rs)
        if not self.on or action not in ("confirm", "set_value") or rs is None or frame is None:
            return checked
        assert self.dice is not None
        d = rs.by_id(command.get("reading"), left_out=True)
        kind = kind_of(game_kind, d)
        if kind not in LEARNT_KINDS or kind not in self.dice.kinds or not d.get("quad") or d.get("hidden"):
            return checked
        value = int(d["value"] if action == "confirm" else command["value"])
        entry = self.entry_of(d, kind)
        of = next((s for s in self.base if entry and s.name == entry), None)
        cut = self.cut(frame, d, of)
        if cut is None:
            return checked
        features, pixels = cut
        from vision.numbered.template import encode

        reader = self._reader()
        crop = of.crop if of is not None else "box"
        learnt = {
            "kind": kind,
            "value": value,
            "embedder": reader.embedder().digest,
            "features": [round(float(x), 5) for x in features],
            **({"die": entry} if entry else {}),
            **({"crop": crop} if crop != "box" else {}),
            **({"pixels": encode(pixels)} if pixels is not None else {}),
        }

        def apply() -> None:
            checked.apply()
            self.add(str(d["id"]), kind, value, features, entry, crop, pixels)

        joins = f"the faces of {entry}" if entry else f"the table's learnt {kind}s"
        message = f"{checked.message}; its picture joins {joins}"
        return Answer({**checked.row, "learnt": learnt}, apply, message)

    def cut(
        self, frame: bytes | np.ndarray, d: Mapping[str, Any], of: Any = None
    ) -> tuple[np.ndarray, np.ndarray | None] | None:
        """The upright embedding of reading ``d``'s crop in ``frame``, cut as the roster entry's set
        ``of`` was (its `DiceSet.crop`: a "die" crop on the die's outline against the table's empty
        table, where `read` finds it), and the crop's pixels when that set keeps them; None: the frame
        cannot be read."""
        from vision.numbered.die_crop import empty_of
        from vision.numbered.template import pixels_of

        image = frame if isinstance(frame, np.ndarray) else _decoded(frame)
        if image is None:
            return None
        reader = self._reader()
        if of is None or of.crop == "box":
            crop = reader.crops_of(image, [d])[0]
        else:
            where = self.perceiver.where.steps(image)
            crop = reader.crops_of(image, [d], of.crop, empty_of(where), where, kind=of.kind)[0]
        features = np.asarray(reader.embedder().embed([crop], 1)[0, 0], np.float32)
        keeps = of is not None and of.pixels is not None and of.crop == "die"
        return features, pixels_of(crop) if keeps else None

    def entry_of(self, d: Mapping[str, Any], kind: str) -> str:
        """The roster's die an answered reading ``d`` is (issue 44 item 4): the entry it was matched to
        undisputed (its ``die``), else the roster's one learnt die of ``kind`` when it lists one;
        "" when none (the answer joins the referee's set of the kind)."""
        entries = [s for s in self.base if getattr(s, "entry", "")]
        if d.get("die") and not d.get("rival") and any(s.name == d["die"] for s in entries):
            return str(d["die"])
        mine = {s.name for s in entries if s.kind == kind}
        return mine.pop() if len(mine) == 1 and not d.get("rival") else ""

    def add(
        self,
        reading: str,
        kind: str,
        value: int,
        features: np.ndarray,
        entry: str = "",
        crop: str = "box",
        pixels: np.ndarray | None = None,
    ) -> None:
        """One crop learnt (a logged answer's, or replayed from the log), and the reader told."""
        self.added.append((reading, kind, value, np.asarray(features, np.float32), entry, crop, pixels))
        self._install()

    def use_set(self, dice_set: Any) -> bool:
        """A set the table was taught (controller.teach), read from now on in place of the configured
        one; False when the table's reader reads no learnt sets (it reads it from its next start)."""
        if not self.on:
            return False
        self.base = list(getattr(dice_set, "sets", [dice_set]))
        self._install()
        return True

    def _unlearn(self, command: Mapping[str, Any], rs: TableReadings | None, who: str) -> Answer:
        if not self.on:
            raise ValueError(
                "'unlearn': this table learns no crops from the referee (no numbered dice reader)"
            )
        reading = command.get("reading")
        taught = sorted({a[0] for a in self.added})
        if reading not in taught:
            raise ValueError(
                f"'unlearn': no crop was learnt from reading {reading!r} "
                f"(learnt from: {taught or 'none yet'})"
            )

        def apply() -> None:
            self.remove(str(reading))

        row = {"correction": "unlearn", "reading": reading, "who": who}
        return Answer(row, apply, f"the crops learnt from reading {reading} are forgotten")

    def replay(self, events: Sequence[Any]) -> int:
        """The crops the log's answers taught (and did not take back), learnt again (and the looks:
        `controller.referee_looks.LookLearning.replay`); how many crops now."""
        self.looks.replay(events)
        if not self.on:
            return 0
        digest = self._reader().embedder().digest
        for e in events:
            data = e.data if e.kind == "control" else {}
            learnt = data.get("learnt")
            if isinstance(learnt, Mapping) and learnt.get("embedder") == digest:
                if learnt.get("kind") in self.dice.kinds:  # type: ignore[union-attr]
                    self.added.append(
                        (
                            str(data.get("reading")),
                            str(learnt["kind"]),
                            int(learnt["value"]),
                            np.asarray(learnt["features"], np.float32),
                            str(learnt.get("die") or ""),
                            str(learnt.get("crop") or "box"),
                            _pixels(learnt.get("pixels")),
                        )
                    )
            elif data.get("correction") == "unlearn":
                self._drop(data.get("reading"))
        return self._replayed()

    def sets(self) -> Any:
        """The learnt set the reader reads with: the configured sets, a roster entry's grown by the
        answers about that die, and a set of the other answers of each kind (None: no crop at all)."""
        from vision.numbered.learnt import DiceSet, LearntSets

        digest = self._reader().embedder().digest
        out = list(self.base)
        entries = {s.name: s for s in self.base if getattr(s, "entry", "")}
        joined: dict[str, list[tuple[Any, ...]]] = {}  # each entry's answers cut as its crops were
        apart = []
        for a in self.added:
            of = entries.get(a[4])
            if of is not None and of.kind == a[1] and _fits(of, a):
                joined.setdefault(a[4], []).append(a)
            else:
                apart.append(a)
        for name, mine in joined.items():
            # one set, every face's crops weighed together (a set of the answers alone has only the
            # faces answered: a die would be read as one of them, with a margin over no other face)
            of = entries[name]
            px = np.stack([a[6] for a in mine]) if of.pixels is not None else None
            grown = of.plus(np.array([a[2] for a in mine]), np.stack([a[3] for a in mine]), pixels=px)
            out[next(i for i, s in enumerate(out) if s is of)] = grown
        for kind, entry in sorted({(a[1], a[4] if a[4] in entries else "") for a in apart}):
            mine = [a for a in apart if a[1] == kind and (a[4] if a[4] in entries else "") == entry]
            # an answer about one of the roster's dice cut otherwise than its crops (logged before
            # answers were cut as the entry's): a set of its own, read as the entry
            of = entries.get(entry)
            out.append(
                DiceSet(
                    entry or f"referee-{kind}",
                    kind,
                    of.colour if of is not None else "",
                    digest,
                    np.array([a[2] for a in mine], np.int64),
                    np.stack([a[3] for a in mine]),
                    trust=True,
                    entry=of.entry if of is not None else "",
                    calibrated=of.calibrated if of is not None else False,  # as the entry's faces
                )
            )
        if not out:
            return None
        return out[0] if len(out) == 1 else LearntSets(tuple(out))

    def _install(self) -> None:
        from vision.numbered import NumberedDice

        assert self.dice is not None
        self.dice = NumberedDice(self.dice.kinds, self.sets(), self.dice.reader, kind_of=self.dice.kind_of)
        self.perceiver.reader = self.dice


def _fits(of: Any, answer: tuple[Any, ...]) -> bool:
    """Whether an answer's crop was cut as the entry's set ``of``'s were (its crop, and its pixels
    when it keeps them): then it joins that set itself."""
    return bool(answer[5] == of.crop and (of.pixels is None or answer[6] is not None))


def _pixels(text: Any) -> np.ndarray | None:
    """A logged answer's crop pixels (`vision.numbered.template.encode`), None when absent or unreadable."""
    from vision.numbered.template import decode

    try:
        return None if text is None else decode(text)
    except ValueError:
        return None


def _decoded(jpeg: bytes) -> np.ndarray | None:
    from hardware.imagefile import ImageError, decode

    try:  # its size checked from its header before a pixel is decoded
        return decode(jpeg, "a learnt die's crop")
    except ImageError as e:
        log.warning("%s; not used", e)
        return None
