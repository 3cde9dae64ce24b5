"""The table's roster of its dice (issue 44 item 1): each physical die in play is one entry.

A table plays with a fixed handful of dice (ann's red d20, bob's blue d10s); the roster lists them,
one entry a die: its ``id``, ``kind`` (d6, d10, d10p, d20), ``owner`` and ``colour``, ``size_mm``
(its edge, when known), ``appearance`` (free notes: "swirl, white numerals") and, for a numbered die
taught at this table, ``faces``: its learnt faces, both a reference to the table's learnt set it was
saved into (``dice_set``, relative to the data dir) and the content (``set``: the crops taught of
this die alone, the `vision.numbered.learnt.DiceSet` JSON), and its ``look`` (issue 44 item 5): the
body colours of a few sightings of it (`vision.looks.Look`, learnt with ``dicetable learn-dice
colour``), so the one file is all another table with the same dice needs.  When every colour of the
roster has a learnt look the table names each die's colour (its owner follows) by the nearest look,
not by its palette (`learnt_palette`); a die between two looks, or far from all, is asked.

Where: ``[table] roster = "FILE.json"`` in table.toml, relative to the table's data dir; by default
``<table id>.roster.json`` in the data dir, beside the table's log (``<table id>.sqlite3``).  A table
without the file has an empty roster; the file is written (whole, then renamed) when a die is
taught on ``/learn`` (its entry added, or its faces joined when the die, by owner, colour and kind,
is listed) or an entry is edited or removed on the admin page (``/api/admin/roster``).  Every
change is a ``control`` row ``roster`` in the event log, with who made it.

Loading validates the whole file and refuses a bad one with a message naming the file and the
field (``roster /data/t.roster.json: dice[2].kind: expected one of d6, d10, d10p, d20, got 'd12'``);
a refused file is never written over: the admin page shows why, and edits and teaching leave it as
it is until it is mended or removed.

File:
    {"format": "dicetable-roster/1",
     "dice": [{"id": "ann-green-d20", "kind": "d20", "owner": "ann", "colour": "green",
               "size_mm": 20.0, "appearance": "",
               "faces": {"dice_set": "sets/green.json", "taught": [1, 2, ...], "crops": 80,
                         "set": {"format": "dicetable-dice-set/1", ...}},
               "look": {"seen": 3, "lab": [52.0, -40.1, 30.2], "spread": [...], "labs": [[...], ...]}}]}
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from vision.looks import LearntPalette, Look, pooled
from vision.numbered.labels import KINDS
from vision.numbered.learnt import DiceSet, set_from_json

log = logging.getLogger("dicetable.roster")

FORMAT = "dicetable-roster/1"
#: the longest owner, colour and appearance notes (the teaching page's limits for the first two)
OWNER_MAX, COLOUR_MAX, NOTES_MAX = 40, 20, 200
#: the die edges a roster accepts (mm): calibration.diceset's range
SIZE_MIN, SIZE_MAX = 5.0, 60.0
ID = re.compile(r"^[^\s/\\]{1,80}$")
ACTIONS = ("list", "edit", "remove", "forget_symbol")


class RosterError(ValueError):
    """A roster file or a roster step refused: the message names the file (or the input) and the field."""


@dataclass(frozen=True)
class Die:
    """One physical die of the table (see the module's doc)."""

    id: str
    kind: str
    owner: str
    colour: str
    size_mm: float | None = None
    appearance: str = ""
    #: a numbered die's learnt faces: {"dice_set": str | None, "taught": [int], "crops": int, "set": {...}}
    faces: dict[str, Any] | None = None
    #: the die's learnt look (issue 44 item 5): the body colours of a few sightings of it,
    #: `vision.looks.Look`'s JSON ({"seen", "lab", "spread", "labs"}); None: not learnt
    look: dict[str, Any] | None = None
    #: issue 46 item 3: the die's faces that are not pips, each named by the referee: ({"value": the
    #: face's value, "crop": its picture, `vision.symbolfaces.encode`}, ...); read by likeness
    symbols: tuple[dict[str, Any], ...] = ()

    @property
    def name(self) -> str:
        return f"{self.owner}'s {self.colour} {self.kind}"

    def learnt(self) -> DiceSet | None:
        """The die's own learnt faces as a set (None: none taught)."""
        return None if self.faces is None else set_from_json(self.faces["set"])

    def to_json(self, content: bool = True) -> dict[str, Any]:
        """The entry as the file keeps it; ``content`` False: its faces summed up (no crops' numbers),
        as the admin page lists it."""
        faces = self.faces
        if faces is not None and not content:
            faces = {k: v for k, v in faces.items() if k != "set"}
        out = {
            "id": self.id,
            "kind": self.kind,
            "owner": self.owner,
            "colour": self.colour,
            "size_mm": self.size_mm,
            "appearance": self.appearance,
            "faces": faces,
            "look": self.look
            if self.look is None or content
            else {k: v for k, v in self.look.items() if k != "labs"},
        }
        # issue 46 item 3: the named symbol faces, absent from the file while none is named
        named: dict[str, Any] = {}
        if self.symbols:
            named["symbols"] = (
                list(self.symbols) if content else sorted(int(f["value"]) for f in self.symbols)
            )
        return {**out, **named} if content else {**out, **named, "name": self.name}


def _name(value: Any, where: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > limit:
        raise RosterError(f"{where}: expected a name of 1 to {limit} characters, got {value!r}")
    return value.strip()


def _size(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RosterError(f"{where}: expected the die's edge in mm (a number) or null, got {value!r}")
    if not SIZE_MIN <= value <= SIZE_MAX:
        raise RosterError(
            f"{where}: expected an edge between {SIZE_MIN:g} and {SIZE_MAX:g} mm, got {value!r}"
        )
    return float(value)


def _notes(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > NOTES_MAX:
        raise RosterError(f"{where}: expected notes of at most {NOTES_MAX} characters, got {value!r}")
    return value.strip()


def _faces(value: Any, where: str, kind: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RosterError(f"{where}: expected the die's learnt faces (an object) or null, got {value!r}")
    ref = value.get("dice_set")
    if ref is not None and (not isinstance(ref, str) or not ref.strip()):
        raise RosterError(f"{where}.dice_set: expected the learnt set's file (a path) or null, got {ref!r}")
    if "set" not in value:
        raise RosterError(f"{where}.set: expected the die's learnt set (dicetable-dice-set/1), missing")
    try:
        got = set_from_json(value["set"])
    except (KeyError, TypeError, ValueError) as e:
        raise RosterError(
            f"{where}.set: expected the die's learnt set (dicetable-dice-set/1) ({e})"
        ) from None
    if got.kind != kind:
        raise RosterError(f"{where}.set.kind: expected the die's kind {kind!r}, got {got.kind!r}")
    return {"dice_set": ref, "taught": got.faces, "crops": len(got.values), "set": got.to_json()}


def parse(data: Any, source: str) -> list[Die]:
    """The dice of a roster's JSON form; raises RosterError naming ``source`` and the field."""
    where = f"roster {source}"
    if not isinstance(data, dict):
        raise RosterError(
            f"{where}: expected a JSON object with format {FORMAT!r}, got {type(data).__name__}"
        )
    if data.get("format") != FORMAT:
        raise RosterError(f"{where}: format: expected {FORMAT!r}, got {data.get('format')!r}")
    extra = sorted(set(data) - {"format", "dice"})
    if extra:
        raise RosterError(f"{where}: expected the fields format and dice, got also {', '.join(extra)}")
    dice = data.get("dice")
    if not isinstance(dice, list):
        raise RosterError(f"{where}: dice: expected a list of dice, got {dice!r}")
    out: list[Die] = []
    for i, d in enumerate(dice):
        at = f"{where}: dice[{i}]"
        if not isinstance(d, dict):
            raise RosterError(f"{at}: expected a die (an object), got {d!r}")
        extra = sorted(
            set(d) - {"id", "kind", "owner", "colour", "size_mm", "appearance", "faces", "look", "symbols"}
        )
        if extra:
            raise RosterError(
                f"{at}: unknown field {extra[0]!r} (expected id, kind, owner, colour, "
                "size_mm, appearance, faces, look, symbols)"
            )
        die_id = d.get("id")
        if not isinstance(die_id, str) or not ID.match(die_id):
            raise RosterError(f"{at}.id: expected 1 to 80 characters, no space or slash, got {die_id!r}")
        if any(o.id == die_id for o in out):
            raise RosterError(f"{at}.id: {die_id!r} is the id of another die too: each die has its own")
        kind = d.get("kind")
        if kind not in KINDS:
            raise RosterError(f"{at}.kind: expected one of {', '.join(KINDS)}, got {kind!r}")
        out.append(
            Die(
                die_id,
                kind,
                _name(d.get("owner"), f"{at}.owner", OWNER_MAX),
                _name(d.get("colour"), f"{at}.colour", COLOUR_MAX),
                _size(d.get("size_mm"), f"{at}.size_mm"),
                _notes(d.get("appearance"), f"{at}.appearance"),
                _faces(d.get("faces"), f"{at}.faces", kind),
                _look(d.get("look"), f"{at}.look"),
                _symbols(d.get("symbols"), f"{at}.symbols", kind),
            )
        )
    return out


def _symbols(value: Any, where: str, kind: str) -> tuple[dict[str, Any], ...]:
    """A die's named symbol faces (issue 46 item 3), checked: each a value of its kind and a crop."""
    from vision.symbolfaces import decode

    if value is None:
        return ()
    if not isinstance(value, list):
        raise RosterError(f"{where}: expected a list of named faces, got {value!r}")
    out = []
    for i, f in enumerate(value):
        at = f"{where}[{i}]"
        if not isinstance(f, dict) or set(f) != {"value", "crop"}:
            raise RosterError(f"{at}: expected an object with value and crop, got {f!r}"[:300])
        v = f["value"]
        if kind != "d6" or isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise RosterError(f"{at}.value: expected a d6's face 1 to 6, got {v!r} (a {kind})")
        try:
            decode(f["crop"], f"{at}.crop") if isinstance(f["crop"], str) else decode("", f"{at}.crop")
        except ValueError as e:
            raise RosterError(str(e)) from None
        out.append({"value": v, "crop": f["crop"]})
    return tuple(out)


def symbol_faces(dice: list[Die]) -> list[tuple[int, Any]]:
    """Every symbol face the roster's dice have named, as (value, crop) (`vision.symbolfaces`)."""
    from vision.symbolfaces import decode

    return [(int(f["value"]), decode(f["crop"])) for d in dice for f in d.symbols]


def _look(value: Any, where: str) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        return Look.from_json(value, where).to_json()
    except ValueError as e:
        raise RosterError(str(e)) from None


def new_die(kind: Any, owner: Any, colour: Any) -> Die:
    """A new entry (its id given when it is added); raises RosterError naming the bad field."""
    if kind not in KINDS:
        raise RosterError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    return Die("new", kind, _name(owner, "owner", OWNER_MAX), _name(colour, "colour", COLOUR_MAX))


def learnt_palette(dice: list[Die]) -> LearntPalette | None:
    """The palette that names a die by its colour's learnt look (`vision.looks`: the looks of dice of
    one colour pooled), when every colour of the roster has one; None otherwise (no roster, or a
    colour not learnt yet: the table names colours with its palette)."""
    colours = {d.colour.casefold() for d in dice}
    looks = [(d.colour, Look.from_json(d.look)) for d in dice if d.look is not None]
    if not looks or {c.casefold() for c, _ in looks} != colours:
        return None
    return LearntPalette.of(pooled(looks))


def load_roster(path: Path) -> list[Die]:
    """The dice of the roster at ``path`` (none when there is no file); raises RosterError naming
    the file and the field."""
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise RosterError(f"roster {path}: could not be read ({e})") from None
    except json.JSONDecodeError as e:
        raise RosterError(f"roster {path}: expected JSON ({e})") from None
    return parse(data, str(path))


def save_roster(path: Path, dice: list[Die]) -> None:
    """The roster written whole, then renamed over the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(
        json.dumps({"format": FORMAT, "dice": [d.to_json() for d in dice]}, ensure_ascii=False, indent=1),
        encoding="utf-8",
    )
    tmp.replace(path)


def slug(owner: str, colour: str, kind: str, taken: set[str]) -> str:
    """A new die's id: ``owner-colour-kind`` (letters kept, in any script), made unique."""
    base = re.sub(r"[\W_]+", "-", f"{owner}-{colour}-{kind}".casefold()).strip("-")[:70] or kind
    out, n = base, 2
    while out in taken:
        out, n = f"{base}-{n}", n + 1
    return out


class Roster:
    """The table's roster (its file, loaded at start; see the module's doc): listed, edited, and
    grown by teaching; each change logged (``log_row(data, who)``) before the file is written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.RLock()
        self.dice: list[Die] = []
        self.error: str | None = None
        try:
            self.dice = load_roster(path)
        except RosterError as e:
            self.error = str(e)
            log.error("%s (the file is left as it is; the roster is empty until it is mended)", e)

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {
                "path": str(self.path),
                "error": self.error,
                "dice": [d.to_json(content=False) for d in self.dice],
            }

    def _writable(self) -> None:
        if self.error is not None:
            raise RosterError(f"{self.error}: the roster is not changed until the file is mended or removed")

    def _find(self, die_id: Any) -> Die:
        found = [d for d in self.dice if d.id == die_id]
        if not found:
            ids = ", ".join(d.id for d in self.dice) or "none"
            raise RosterError(f"id: expected the id of a die of the roster ({ids}), got {die_id!r}")
        return found[0]

    def command(self, command: Mapping[str, Any], who: str, log_row: Any) -> dict[str, Any]:
        """A step from the admin page: ``list``; ``edit`` (``id`` and any of owner, colour, size_mm,
        appearance); ``remove`` (``id``).  Returns the status with ``message``; raises RosterError."""
        action = command.get("action")
        if action not in ACTIONS:
            raise RosterError(f"action: expected one of {', '.join(ACTIONS)}, got {action!r}")
        with self._lock:
            if action == "list":
                return {**self.status(), "message": ""}
            self._writable()
            die = self._find(command.get("id"))
            if action == "forget_symbol":  # issue 46 item 3: the faces named for a value forgotten
                value = command.get("value")
                kept = tuple(f for f in die.symbols if f["value"] != value)
                if len(kept) == len(die.symbols):
                    named = sorted({f["value"] for f in die.symbols}) or "none"
                    raise RosterError(
                        f"value: expected a value {die.id} has a symbol face named for ({named}), "
                        f"got {value!r}"
                    )
                log_row({"action": "roster", "step": "forget_symbol", "id": die.id, "value": value}, who)
                dice = [replace(d, symbols=kept) if d is die else d for d in self.dice]
                message = f"the symbol face of {die.name} ({die.id}) named {value} forgotten"
            elif action == "remove":
                log_row({"action": "roster", "step": "remove", "id": die.id, "name": die.name}, who)
                dice = [d for d in self.dice if d is not die]
                message = f"{die.name} ({die.id}) removed from the roster"
            else:
                changes: dict[str, Any] = {}
                if "owner" in command:
                    changes["owner"] = _name(command["owner"], "owner", OWNER_MAX)
                if "colour" in command:
                    changes["colour"] = _name(command["colour"], "colour", COLOUR_MAX)
                if "size_mm" in command:
                    changes["size_mm"] = _size(command["size_mm"], "size_mm")
                if "appearance" in command:
                    changes["appearance"] = _notes(command["appearance"], "appearance")
                if not changes:
                    raise RosterError("edit: expected one or more of owner, colour, size_mm, appearance")
                log_row({"action": "roster", "step": "edit", "id": die.id, **changes}, who)
                new = replace(die, **changes)
                dice = [new if d is die else d for d in self.dice]
                message = f"{die.name} ({die.id}) is now {new.name}" + (
                    f", {new.size_mm:g} mm" if new.size_mm is not None else ""
                )
            save_roster(self.path, dice)
            self.dice = dice
            return {**self.status(), "message": message}

    def symbol_named(self, colour: str, value: int, crop: str, who: str, log_row: Any) -> Die:
        """A d6 face that is not pips named ``value`` by the referee (issue 46 item 3), its picture
        ``crop`` (`vision.symbolfaces.encode`) kept with the roster's d6 of ``colour`` (the first
        listed; a new entry, owned by "table", when none is), logged first; undone by the command
        ``forget_symbol``."""
        with self._lock:
            self._writable()
            same = [d for d in self.dice if d.kind == "d6" and d.colour.casefold() == colour.casefold()]
            die = (
                same[0]
                if same
                else Die(
                    slug("table", colour, "d6", {d.id for d in self.dice}),
                    "d6",
                    "table",
                    _name(colour, "colour", COLOUR_MAX),
                )
            )
            face = _symbols([{"value": value, "crop": crop}], "symbol", "d6")[0]
            log_row(
                {"action": "roster", "step": "symbol", "id": die.id, "name": die.name, "value": value}, who
            )
            new = replace(die, symbols=(*die.symbols, face))
            dice = [new if d is die else d for d in self.dice] + ([] if same else [new])
            save_roster(self.path, dice)
            self.dice = dice
            return new

    def looked(self, die: str | Die, labs: list[Any], who: str, log_row: Any) -> Die:
        """Sightings of a die's body colour (balanced Lab) added to its entry's look (``die``: its
        id, or a new entry, added), logged first."""
        with self._lock:
            self._writable()
            added = isinstance(die, Die)
            if isinstance(die, Die):
                die = replace(die, id=slug(die.owner, die.colour, die.kind, {d.id for d in self.dice}))
            else:
                die = self._find(die)
            try:
                look = Look.learn(labs, None if die.look is None else Look.from_json(die.look))
            except ValueError as e:
                raise RosterError(str(e)) from None
            new = replace(die, look=look.to_json())
            step = "added_look" if added else "look"
            log_row(
                {"action": "roster", "step": step, "id": die.id, "name": die.name, "seen": len(labs)}, who
            )
            dice = [new if d is die else d for d in self.dice] + ([new] if added else [])
            save_roster(self.path, dice)
            self.dice = dice
            return new

    def taught(
        self,
        taught: DiceSet,
        owner: str,
        colour: str,
        size_mm: float | None,
        dice_set: str | None,
        who: str,
        log_row: Any,
        labs: list[Any] | None = None,
        join: bool = True,
    ) -> Die:
        """A die taught on ``/learn`` (its crops ``taught``): its entry added, or, when the roster
        lists the die (the same owner, colour and kind), its faces joined (a set learnt with another
        embedding net, or of another crop, replaced); ``labs``: the look of each roll taught, joined
        to the entry's look (issue 44 item 4: which die a die found is, by its look too).  ``join``
        False (`dicetable learn-dice confirm --config`, which stores the set it is given): a listed
        die's faces, and its look when ``labs`` are given, are replaced, not joined."""
        with self._lock:
            self._writable()
            same = [
                d
                for d in self.dice
                if d.kind == taught.kind
                and d.owner.casefold() == owner.casefold()
                and d.colour.casefold() == colour.casefold()
            ]
            if same:
                old = same[0].learnt()
                if (
                    join
                    and old is not None
                    and old.embedder == taught.embedder
                    and old.kind == taught.kind
                    and old.crop == taught.crop  # a set of another crop (issue 44 item 2) is replaced
                ):
                    taught = old.plus(taught.values, taught.features, taught.name, taught.pixels)
                die = replace(same[0], size_mm=same[0].size_mm if same[0].size_mm is not None else size_mm)
            else:
                die = Die(
                    slug(owner, colour, taught.kind, {d.id for d in self.dice}),
                    taught.kind,
                    owner,
                    colour,
                    size_mm,
                )
            faces = {
                "dice_set": dice_set,
                "taught": taught.faces,
                "crops": len(taught.values),
                "set": taught.to_json(),
            }
            die = replace(die, faces=faces)
            if labs:
                try:
                    look = Look.learn(
                        labs, None if die.look is None or not join else Look.from_json(die.look)
                    )
                except ValueError as e:
                    raise RosterError(str(e)) from None
                die = replace(die, look=look.to_json())
            step = "taught" if not same else "taught_again"
            log_row(
                {"action": "roster", "step": step, "id": die.id, "name": die.name, "crops": faces["crops"]},
                who,
            )
            dice = [die if same and d is same[0] else d for d in self.dice] + ([] if same else [die])
            save_roster(self.path, dice)
            self.dice = dice
            return die


# -- reading against the roster (issue 44 item 4) -------------------------------------------------
#
# Each die found is matched to an entry: the table reads with one learnt set an entry (its faces,
# named by its id, `DiceSet.entry` its owner and colour), so the set that reads a die says which die
# it is (`vision.numbered.learnt.LearntSets.match`), and its face is read against that die's faces
# with the OCR head's evidence (`vision.numbered.reader.learnt_with_ocr`).  Two entries of another
# kind, owner or colour as alike (`Match.rival`) and a die of a kind whose every entry is learnt that
# matches none are asked (`RosterView.settle`); a die matched gets its entry's id (``die``) and
# colour.  The referee's answers add to the entry the die was matched to
# (`controller.corrections.RefereeLearning`: logged first, undone by ``unlearn``).


def die_look(image: np.ndarray, quad: Any, palette: Any) -> np.ndarray:
    """The whole look (`vision.looks.look_of`, balanced by ``palette``'s light) of the die at ``quad``
    (its detector's box, `vision.reading.DieReading.box`, where the reading has one, else its outline):
    the square round it grown by the reader's margin, cut at the image's own pixels, 64 px a side
    (`vision.crops.look_crop`: the crop the reader names a die from by the roster's looks)."""
    from vision.crops import look_crop
    from vision.looks import look_of

    return np.asarray(look_of([look_crop(image, quad)], palette)[0], np.float64)


#: a taught die's faces may read it surely without the OCR head (`DiceSet.trust`, the referee's sets'
#: rule `Match.trusted`: 3 stored crops of the face alike, 0.05 over every other face): a roster's set
#: is the die's own, matched to it by its faces and look, where a learn-dice set (not trusted) was
#: read on other dice too.  Chosen on the d20_lurig train set-ups (benchmarks/roster_read.py --train
#: --trust): read unasked 32.6 -> 60.9 % (d20_color), 50.9 -> 63.2 % (d20_off-angle), silent 0 -> 0
TRUST_TAUGHT = True
#: a taught die's face is as sure as its evidence says (`vision.numbered.trust`: a logistic fit of
#: likeness, margin to the next face, support, the die-match margin, the classifier's and the OCR
#: head's agreement, fitted on the train set-ups by benchmarks/trust_fit.py): 0.8 is fitted odds of
#: 199 to 1.  False: the rule above (TRUST_TAUGHT and the head's agreement) as before.
CALIBRATED = True


def entry_set(die: Die) -> DiceSet | None:
    """The die's learnt faces as the reader reads with them: named by its id, its owner and colour
    its identity (None: no faces taught)."""
    got = die.learnt()
    if got is None:
        return None
    got = replace(got, trust=TRUST_TAUGHT, calibrated=CALIBRATED)
    return replace(
        got, name=die.id, colour=die.colour, entry=f"{die.owner.casefold()}/{die.colour.casefold()}"
    )


def entry_sets(dice: list[Die], embedder: str, kinds: tuple[str, ...]) -> list[DiceSet]:
    """The learnt sets of the roster's dice of ``kinds`` taught with the embedding net ``embedder``
    (an entry taught with another net is left out, logged: teach it again)."""
    out = []
    for d in dice:
        s = entry_set(d) if d.kind in kinds else None
        if s is None:
            continue
        if s.embedder != embedder:
            log.warning(
                "roster: %s was taught with embedding net %s, not this reader's %s: not read "
                "against; teach it again",
                d.id,
                s.embedder,
                embedder,
            )
            continue
        out.append(s)
    return out


@dataclass(frozen=True)
class RosterView:
    """The roster as the perception step reads against it (see above): its dice, and the kinds whose
    every entry has learnt faces (a die of such a kind that matches no entry is asked)."""

    dice: tuple[Die, ...]

    @property
    def learnt_kinds(self) -> tuple[str, ...]:
        kinds = {d.kind for d in self.dice}
        return tuple(k for k in sorted(kinds) if all(d.faces is not None for d in self.dice if d.kind == k))

    def entry(self, die_id: Any) -> Die | None:
        return next((d for d in self.dice if d.id == die_id), None)

    def by_look(self, entry: Die, lab: Any) -> tuple[bool, str]:
        """Whether a die of look ``lab`` (`controller.roster.die_look`) may be ``entry`` by its
        learnt look (`vision.looks.Look`: within the far limit of its sightings for the form both
        have, `vision.looks.limits`; True when it has none), and the entry of another owner or colour
        whose look is about as near (within the ratio; "" none)."""
        from vision.looks import limits

        if entry.look is None or lab is None:
            return True, ""
        look = Look.from_json(entry.look)
        form = look.form(np.asarray(lab, np.float64))
        mine = look.distance(np.asarray(lab, np.float64), form)
        far, ratio = limits(form)
        if mine > far:
            return False, ""
        who = (entry.owner.casefold(), entry.colour.casefold())
        for d in self.dice:
            if d.look is None or d.kind != entry.kind or (d.owner.casefold(), d.colour.casefold()) == who:
                continue
            if mine >= ratio * Look.from_json(d.look).distance(np.asarray(lab, np.float64), form):
                return True, d.id
        return True, ""

    def settle(
        self,
        readings: list[dict[str, Any]],
        unsure: float,
        colours: set[str] | None = None,
        lab: Any = None,
    ) -> list[dict[str, Any]]:
        """The perception step's readings (dicts) against the roster: a die an entry's set read gets
        the entry's id (``die``) and colour (when the game's dice come in it: ``colours``, None any);
        one disputed by two entries (``rival``: by their faces, or by their learnt looks), one of a
        learnt kind matching no entry (``die``: None; a die whose body colour is far from the look of
        the entry its faces match is none of its dice either), and every die but the surest claiming
        one entry twice in a frame are read no surer than ``unsure`` (asked).  ``lab``: a reading's
        body colour, balanced Lab (``lab(reading)``; None: looks are not used)."""
        learnt = set(self.learnt_kinds)
        claimed: dict[str, list[dict[str, Any]]] = {}
        out = []
        for r in readings:
            r = dict(r)
            entry = self.entry(r.get("learnt"))
            if entry is not None and entry.look is not None and lab is not None and r.get("quad"):
                ok, rival = self.by_look(entry, lab(r))
                if not ok:
                    entry = None  # its faces are like the entry's, its colour is not: another die
                elif rival and not r.get("rival"):
                    r["rival"] = rival
            if entry is not None:
                r["die"] = entry.id
                if not r.get("rival") and (colours is None or entry.colour in colours):
                    r["colour"] = entry.colour
                    r.pop("colour_near", None)  # the die is known: no palette's or look's doubt is asked
                if r.get("rival"):
                    r["confidence"] = min(float(r.get("confidence", 0.0)), unsure)
                claimed.setdefault(entry.id, []).append(r)
            elif r.get("kind") in learnt:
                r["die"] = None  # a die of the roster's kind that is none of its dice: asked
                r["confidence"] = min(float(r.get("confidence", 0.0)), unsure)
            out.append(r)
        out = once(out)
        for same in claimed.values():
            kept = [r for r in same if any(r is o for o in out)]
            for r in sorted(kept, key=lambda r: -float(r.get("confidence", 0.0)))[1:]:
                r["confidence"] = min(float(r.get("confidence", 0.0)), unsure)
        return out


#: two readings are one die read twice when their centres are nearer than this share of the larger's
#: side (two dice side by side are a side apart or more)
ONE_DIE = 0.5


def _side(r: Mapping[str, Any]) -> float:
    q = np.asarray(r.get("quad") or [r.get("center") or (0.0, 0.0)] * 4, np.float64).reshape(-1, 2)
    return float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1])))


def once(readings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``readings`` with a die read twice kept once (issue 44 item 4): a reading of one of the roster's
    dice (its ``die``) and another reading of that die or of none of the roster's dice (``die``
    None) whose centres lie within ONE_DIE of a side of each other are one die; the one matched, then
    the surer, is kept (benchmarks/roster_read.py: on d20_wood the reader read a die twice in 5 of 81
    frames, twice with the surer reading counted a sure phantom)."""
    rank = sorted(
        range(len(readings)),
        key=lambda i: (readings[i].get("die") is None, -float(readings[i].get("confidence", 0.0))),
    )
    kept: list[int] = []
    for i in rank:
        r = readings[i]
        if "die" in r and r.get("center") is not None:
            same = [
                j
                for j in kept
                if readings[j].get("die") is not None
                and r.get("die") in (None, readings[j]["die"])
                and readings[j].get("center") is not None
                and math.dist(r["center"], readings[j]["center"])
                < ONE_DIE * max(_side(r), _side(readings[j]))
            ]
            if same:
                continue
        kept.append(i)
    return [readings[i] for i in sorted(kept)]


def roster_view(path: Path) -> RosterView | None:
    """The roster at ``path`` to read against (None: none, or none of its dice taught; a refused
    file is the admin page's to show: the table reads without it)."""
    try:
        dice = load_roster(path)
    except RosterError as e:
        log.warning("%s: the dice are read without the roster", e)
        return None
    return RosterView(tuple(dice)) if any(d.faces is not None for d in dice) else None
