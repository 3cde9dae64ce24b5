"""Teaching a table one of its own dice, guided, with its live camera (issue 29 item 4).

The owner names a die ("ann's red d20": owner, colour, and a kind among the numbered kinds the
table's game uses) and rolls it again and again.  While a session is on, the table's settled frames
come here instead of to the game (`Table.on_settled`), and each is read through the table's own
perception step with the empty table on (`controller.learn_dice.learning_perceiver`): a die is only
where the frame differs from the table seen empty, so a keyboard, a cup or another die that lay there
all along is never a face.  A frame with no die is said so; one with more than one die is refused
("leave one die only"); one die becomes a roll: its crop, cut as the reader cuts it, and the face
proposed only from evidence about this crop (`propose`, issue 44): the OCR head's reading of it,
backed by the crops already taught of that face or by the numbered classifier's own reading, or, once
every face of the kind has been taught, the face whose taught crops it is most like by a margin over
every other face's; when they disagree, or nothing is sure, nothing is proposed and the owner picks.
Never "like the rolls taught so far": with a face or two taught, a crop of an untaught face is as
like them as a crop of theirs (0.86 for another face of the real green d20).  The candidates (the
head's reading, the nearest faces taught) are shown side by side, each with a crop taught as it.
The owner confirms the face or names the right one (`answer`), or says the crop is not the die
(`skip`); an answer names the roll (and session) whose picture it was given for, and an answer for
a roll that is no longer the latest is refused (`StaleRoll`, HTTP 409), never applied to another.

The set is complete when every face of the kind has been taught at least ``N_EACH`` times (4: the
figure the project measures learnt sets at, `benchmarks/vision_numbered_learnt.py` and issue 29's
"4 rolls a face"; a single crop of a face is one turn and one light, and a face is read surely from
its crops only when 3 of them agree, `reader.learnt_verdict`).  `save` then stores it where the
table keeps its set (``[table] dice_set``, the file `dicetable learn-dice confirm` writes: a
`vision.numbered.learnt.DiceSet`; a set of the same kind already there keeps its crops, the new ones
join it) and the table's reader reads with it at once.

A die nudged after it settled (pushed a little, not rolled: the same face up, turned at most
``NUDGE_DEG`` degrees, its centre moved less than ``NUDGE_PLACE`` of its side, and the face
proposed the same) is not a new roll: its picture would only repeat the last roll's, so it is said
("nudged, not a new roll") and logged as such, never counted (`_nudged`).

Every sentence the page shows from here (a notice, the message of a step, why no session can start,
a refusal) is a `Said`: the English text, and its catalogue key with its fields
(``display/lang/<lang>.json``, ``learn.*``), so that a page in another language says it in its own.

Nothing taught is lost to a crash: every step is a ``control`` row (``action: teach``) in the event
log, each roll's crop a JPEG beside it (``<log>.teach/``), logged before it is shown; a table that
starts finds an unfinished session in its log and carries on (`Teaching.replay`).
"""

from __future__ import annotations

import base64
import logging
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from controller.corrections import LEARNT_KINDS
from controller.learn_dice import game_kinds_of, learning_perceiver
from vision.numbered.embed import TURNS, likeness
from vision.numbered.labels import VALUES
from vision.numbered.learnt import DiceSet, load_set

if TYPE_CHECKING:
    from controller.config import TableConfig
    from controller.eventlog import EventLog

log = logging.getLogger("dicetable.teach")

#: rolls of each face a set needs to be complete (see the module's doc)
N_EACH = 4
ACTIONS = ("status", "start", "answer", "skip", "save", "cancel")
#: the width of the settled frame the page shows (a JPEG, the die's box drawn on it)
VIEW_WIDTH = 640
#: a settled die is the last roll nudged when its centre lies within this share of the die's side
#: of the last roll's, the face proposed is the same, and its top matches the last roll's turned at
#: most NUDGE_DEG degrees with a normalised correlation of at least NUDGE_LIKE (on the real d20 of
#: the tests: nudges of up to 15 degrees match at 0.98-1.0; the same face turned 30 degrees or more,
#: or another face at the same place, at 0.25-0.5)
NUDGE_PLACE, NUDGE_DEG, NUDGE_LIKE = 0.5, 15, 0.85
# What backs a proposal (`propose`), chosen on the shared real d20s: d20_lurig's four set-ups at the
# table's scale (each frame read after the frames before it were taught with their true faces) and
# d20_imac1844's green d20 in teach_scene's table.  The OCR head alone is not enough: d20_top's 20 was
# read as 8 at 0.92 (and as 2 at 0.92) in 6 of 25 frames of one framing, so a reading of a face not
# taught yet is proposed only when the numbered classifier (another net) reads the same value
# at least CLASSIFIER_AGREE sure and the head at least OCR_PROPOSE: 0 wrong of 60 such on the
# frames where the head was wrong at 0.8 or more 7 times (tests/controller/test_teach_trust.py).
OCR_PROPOSE, CLASSIFIER_AGREE = 0.8, 0.3
#: the head's reading of a face taught already is proposed at OCR_WITH_MATCH when the crop is most like
#: that face's taught crops (at least BOTH_LIKE, BOTH_MARGIN over any other taught face's): 0 wrong of
#: about 290 such proposals on d20_lurig (0.3 and no margin: still 0 of 480)
OCR_WITH_MATCH, BOTH_LIKE, BOTH_MARGIN = 0.5, 0.80, 0.03
#: a crop is proposed as the taught face it is most like, without the head, only when every face of
#: the kind has been taught (so its margin is over every face, not only the few taught), at least
#: MATCH_PROPOSE alike and MARGIN_PROPOSE more alike than any other face's nearest taught crop (on
#: d20_lurig's hand-held clips a nearest face was wrong by margins up to 0.055); a crop this like
#: another taught face than the head's reading is not proposed (they disagree), whatever the head's
#: confidence: the crop's look is the whole die's, and a camera at an angle sees the side faces facing
#: it more squarely than the one up (a rendered blue d20 at 45 deg, every face taught: 8 of 10 such
#: proposals wrong, the nearest face 0.86-0.92 alike and 0.10-0.15 over the next, the head reading
#: another face in 9 of the 10, `benchmarks/learnt_render20.py`); on the real top-down green d20 of
#: tests/controller/test_teach_trust.py the head read the matched face in every match (0.25-0.44)
MATCH_PROPOSE, MARGIN_PROPOSE = 0.85, 0.08
#: a cue backs a proposal only while it has agreed with the owner's own word in this session (`trusted`):
#: of the rolls the owner named (nothing proposed, or a proposal corrected; a proposal accepted is not
#: the owner's word), at least RECORD_MIN the head read, the head read the named face in at least
#: RECORD_SHARE of them; likewise the look: of the rolls named as a face taught before, the nearest
#: taught face was the named one.  The thresholds are not tuned to a figure: every setting from 0.3 to
#: 0.7 after 3 rolls gave the same proposals on the sessions they were chosen on (the real top-down
#: green d20 of tests/controller/test_teach_trust.py and test_teach_dice.py, where the head read the
#: named face 39 of 40 and 76 of 80 times, and a RENDERED blue d20 at 45 deg, where it read it 2 of 100
#: times and the look's nearest face was the named one 10 of 99: the head and the look both read a
#: side face, and a trusting person taught 3 faces wrong; `benchmarks/learnt_render20.py --teach`)
RECORD_MIN, RECORD_SHARE = 3, 0.5
#: the candidates shown side by side for a roll
CANDIDATES = 3


class Said(str):
    """A sentence the page shows: the English text, and ``key``: its catalogue key (``learn.<key>``)
    with its fields, a field itself a sentence by key when it is a dict (the die's name: ``learn.name``
    of its owner, colour and kind)."""

    key: dict[str, Any]

    def __new__(cls, text: str, key: str, **fields: Any) -> Said:
        said = super().__new__(cls, text)
        said.key = {"key": f"learn.{key}", **fields}
        return said


def key_of(text: str | None) -> dict[str, Any] | None:
    """The catalogue key of a sentence (None: said in English only)."""
    return getattr(text, "key", None)


def name_key(session: Mapping[str, Any]) -> dict[str, Any]:
    """The die's name by key ("ann's green d20"), for a page in another language."""
    return {"key": "learn.name", **{k: session.get(k) for k in ("owner", "colour", "kind")}}


class TeachError(ValueError):
    """A teaching step refused: the message names the input and what was expected (``said``: it by
    its catalogue key; ``status``: the HTTP status the admin API answers with)."""

    status = 400

    def __init__(self, said: Said | str) -> None:
        super().__init__(str(said))
        self.said = key_of(said)


class StaleRoll(TeachError):
    """An answer for a roll that is no longer the one shown (another came to rest since, or the
    session changed): refused, never applied to the roll shown now (HTTP 409: the page looks again)."""

    status = 409


def propose(
    ocr: tuple[int, float] | None,
    near: Sequence[tuple[int, float]],
    every_face: bool,
    classifier: tuple[int, float] | None = None,
    trust: tuple[bool, bool] = (True, True),
) -> tuple[int | None, str]:
    """The face proposed for a roll's crop and what backs it, from evidence about this crop only:
    ``ocr``: the OCR head's reading (value, calibrated confidence); ``near``: the faces taught so far,
    nearest first, with the crop's likeness to each one's nearest crop; ``every_face``: every face of
    the kind taught at least once; ``classifier``: the numbered classifier's reading (value,
    confidence).  Returns (face, by): "both" (the head reads it at least OCR_WITH_MATCH and the crop
    is most like its taught crops, BOTH_LIKE, BOTH_MARGIN), "ocr" (the head at least OCR_PROPOSE and
    the classifier at least CLASSIFIER_AGREE read it), "match" (every face taught, the nearest at
    least MATCH_PROPOSE alike and MARGIN_PROPOSE over the next, and the head, if it read the crop at
    all, reading that face); (None, "") when nothing backs a face; (None, "disagree") when the crop is
    at least MATCH_PROPOSE like another taught face than the head's, and the head's face is not taught
    yet or its crops are MARGIN_PROPOSE less alike, or when a match would be proposed and the head
    reads another face, however unsure.
    A half-taught set never proposes on its own: a crop of an untaught face may be most like a
    taught one (module doc).  ``trust``: whether the head and the look have agreed with the owner's
    own word in this session (`trusted`): "ocr" needs the head's, "both" either's, "match" the look's
    or the head's when the head read the crop (it reads the matched face then, however unsure); a
    proposal no cue with that record backs is not made: (None, "untrusted")."""
    face, by = _propose(ocr, near, every_face, classifier)
    head, look = trust
    backed = {"ocr": head, "both": head or look, "match": look or (head and ocr is not None)}
    if not backed.get(by, True):
        return None, "untrusted"
    return face, by


def _propose(
    ocr: tuple[int, float] | None,
    near: Sequence[tuple[int, float]],
    every_face: bool,
    classifier: tuple[int, float] | None = None,
) -> tuple[int | None, str]:
    """`propose` before the session's record of its cues is asked."""
    read = ocr[0] if ocr is not None and ocr[1] >= OCR_WITH_MATCH else None
    like = dict(near)
    first, best = near[0] if near else (None, 0.0)
    second = near[1][1] if len(near) > 1 else 0.0
    if read is not None:
        # the crop is clearly like another taught face: more than like the head's face's crops, or
        # the head's face not taught yet (its crops may be as alike: nothing tells them apart)
        other = first is not None and first != read and best >= MATCH_PROPOSE
        if other and (read not in like or best - like[read] >= MARGIN_PROPOSE):
            return None, "disagree"
        if first == read and best >= BOTH_LIKE and best - second >= BOTH_MARGIN:
            return read, "both"
        sure = ocr is not None and ocr[1] >= OCR_PROPOSE
        agreed = classifier is not None and classifier[0] == read and classifier[1] >= CLASSIFIER_AGREE
        if sure and agreed:
            return read, "ocr"
    if every_face and best >= MATCH_PROPOSE and best - second >= MARGIN_PROPOSE:
        if ocr is not None and ocr[0] != first:  # the head reads another face, even unsure
            return None, "disagree"
        return first, "match"
    return None, ""


def trusted(rolls: Sequence[Roll]) -> tuple[bool, bool]:
    """Whether the OCR head and the look (the nearest taught face) each have agreed with the owner's own
    word in ``rolls`` (a session's, in order): RECORD_MIN, RECORD_SHARE.  The owner's word is a face
    named where nothing was proposed, or another face than the one proposed; a proposal accepted is
    left out (it would only echo the cue that made it)."""
    head: list[bool] = []
    look: list[bool] = []
    taught: set[int] = set()
    for r in rolls:
        if r.face is None:
            continue
        if r.face != r.proposed:
            if r.ocr is not None:
                head.append(r.ocr[0] == r.face)
            if r.near and r.face in taught:
                look.append(r.near[0][0] == r.face)
        taught.add(r.face)

    def kept(record: list[bool]) -> bool:
        return len(record) >= RECORD_MIN and sum(record) >= RECORD_SHARE * len(record)

    return kept(head), kept(look)


@dataclass
class Roll:
    """One settled roll of the die being taught."""

    n: int
    proposed: int | None
    confidence: float
    #: what backs the face proposed (`propose`): "ocr" (the head's reading of this crop), "match" (most
    #: like one taught face by a margin over every other), "both"; "" nothing proposed ("disagree":
    #: the two named different faces; "untrusted": the cue that would back it has not agreed with the
    #: owner's own word this session, `trusted`)
    by: str
    center: tuple[float, float]
    features: np.ndarray
    crop: bytes | None  # JPEG
    face: int | None = None  # the owner's face for it (None: not answered, or skipped)
    answered: bool = False
    side: float = 0.0  # the die's side in the frame (pixels; 0: not known, as in older logs)
    top: np.ndarray | None = None  # the die's top in grey at full size as it lies now (`_nudged`)
    #: the OCR head's reading of this crop: its value and calibrated confidence (None: not read)
    ocr: tuple[int, float] | None = None
    #: the faces taught so far, nearest first, and this crop's likeness to each face's nearest crop
    near: tuple[tuple[int, float], ...] = ()
    #: the die's look (`controller.roster.die_look`, balanced by the light): its roster entry's look
    lab: tuple[float, ...] | None = None

    def to_json(self, session: int = 0) -> dict[str, Any]:
        return {
            "n": self.n,
            "session": session,
            "id": f"{session}-{self.n}",
            "ocr": None if self.ocr is None else {"face": self.ocr[0], "confidence": round(self.ocr[1], 3)},
            "proposed": self.proposed,
            "confidence": round(self.confidence, 3),
            "by": self.by,
            "center": [round(c, 1) for c in self.center],
            "face": self.face,
            "answered": self.answered,
            "crop": None
            if self.crop is None
            else "data:image/jpeg;base64," + base64.b64encode(self.crop).decode(),
        }


def _text(command: Mapping[str, Any], key: str, limit: int) -> str:
    value = command.get(key)
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > limit:
        raise TeachError(
            Said(
                f"{key}: expected a name of 1 to {limit} characters, got {value!r}",
                f"err.{key}",
                n=limit,
                got=repr(value),
            )
        )
    return value.strip()


def numbered_kinds(cfg: TableConfig) -> tuple[str, ...]:
    """The kinds of the table's game a set can be taught of (its numbered dice)."""
    return tuple(k for k in game_kinds_of(cfg) if k in LEARNT_KINDS)


def _distinct(dice: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One reading a die: two readings whose centres lie within half a die of each other (the larger
    box's) are one die read twice (the surer kept); two dice side by side are a die's side apart."""

    def side(d: Mapping[str, Any]) -> float:
        quad = np.asarray(d.get("quad") or [d["center"]] * 4, np.float64).reshape(-1, 2)
        return max(float(np.ptp(quad[:, 0])), float(np.ptp(quad[:, 1])), 1.0)

    out: list[dict[str, Any]] = []
    for d in sorted(dice, key=lambda d: -float(d.get("confidence") or 0.0)):
        if all(math.dist(d["center"], o["center"]) > max(side(d), side(o)) / 2 for o in out):
            out.append(d)
    return out


class Teaching:
    """The table's teaching session (see the module's doc): its state, rebuilt from the log."""

    def __init__(self, cfg: TableConfig, log_: EventLog, reader: Any = None) -> None:
        self.cfg, self.log = cfg, log_
        self._reader = reader
        self._perceiver: Any = None
        self._lock = threading.RLock()
        self.session: dict[str, Any] | None = None
        self.rolls: list[Roll] = []
        self.notice: str | None = None
        self.view: bytes | None = None  # the last settled frame, small, the die's box on it
        self.last_saved: str | None = None
        self.frames = 0
        self.replay()

    # -- what the table and the page read ----------------------------------------------------
    @property
    def on(self) -> bool:
        return self.session is not None

    def brief(self) -> dict[str, Any] | None:
        """What the table's snapshot says of the session (None: no session)."""
        with self._lock:
            if self.session is None:
                return None
            taught = sum(r.face is not None for r in self.rolls)
            return {
                "name": self.session["name"],
                "die": name_key(self.session),  # its name by key, for a page in another language
                "frames": self.frames,  # settled frames seen: each changes the snapshot, so pages look again
                "rolls": len(self.rolls),
                "taught": taught,
                "complete": not self._lacking(),
            }

    def waiting(self) -> str | None:
        """What the table waits for while a die is taught (None: no session)."""
        brief = self.brief()
        return None if brief is None else f"a die to be taught: roll {brief['name']} (the game waits)"

    def counts(self) -> dict[int, int]:
        """Each face of the kind: how many rolls taught it."""
        assert self.session is not None
        got = {v: 0 for v in VALUES[self.session["kind"]]}
        for r in self.rolls:
            if r.face is not None:
                got[r.face] += 1
        return got

    def _lacking(self) -> list[int]:
        return [v for v, k in self.counts().items() if k < N_EACH]

    def status(self) -> dict[str, Any]:
        """The session as the page shows it (each sentence also by its key: ``*_key``)."""
        with self._lock:
            why_not = self._why_not()
            out: dict[str, Any] = {
                "on": self.on,
                "each": N_EACH,
                "kinds": list(numbered_kinds(self.cfg)),
                "store": None if self.cfg.dice_set_path is None else str(self.cfg.dice_set_path),
                "notice": self.notice,
                "notice_key": key_of(self.notice),
                "saved": self.last_saved,
                "saved_key": key_of(self.last_saved),
                "why_not": why_not,
                "why_not_key": key_of(why_not),
            }
            if self.session is None:
                return out
            counts = self.counts()
            latest = self.rolls[-1] if self.rolls else None
            view = (
                None
                if self.view is None
                else "data:image/jpeg;base64," + base64.b64encode(self.view).decode()
            )
            out.update(
                session={k: self.session[k] for k in ("owner", "colour", "kind", "name", "who")},
                faces=[{"face": v, "taught": k} for v, k in counts.items()],
                missing=[v for v, k in counts.items() if k == 0],
                short=[v for v, k in counts.items() if 0 < k < N_EACH],
                complete=all(k >= N_EACH for k in counts.values()),
                taught=sum(counts.values()),
                rolls=len(self.rolls),
                roll=None if latest is None else self._shown(latest),
                view=view,
            )
            return out

    def _shown(self, roll: Roll) -> dict[str, Any]:
        """A roll as the page shows it: with its candidates side by side (the face proposed first,
        then the head's reading and the nearest faces taught), each with the latest crop taught as
        that face (None: not taught yet)."""
        assert self.session is not None
        out = roll.to_json(self.session["id"])
        faces: list[int] = []
        for face in (
            ([roll.proposed] if roll.proposed is not None else [])
            + ([roll.ocr[0]] if roll.ocr else [])
            + [f for f, _ in roll.near[:2]]
        ):
            if face not in faces:
                faces.append(face)
        likeness = dict(roll.near)
        cands = []
        for face in faces[:CANDIDATES]:
            taught = [r for r in self.rolls if r.face == face and r.crop is not None and r is not roll]
            cands.append(
                {
                    "face": face,
                    "proposed": face == roll.proposed,
                    "ocr": None if roll.ocr is None or roll.ocr[0] != face else round(roll.ocr[1], 3),
                    "likeness": None if face not in likeness else round(likeness[face], 3),
                    "taught_roll": taught[-1].n if taught else None,
                    "crop": None
                    if not taught
                    else "data:image/jpeg;base64," + base64.b64encode(taught[-1].crop or b"").decode(),
                }
            )
        out["candidates"] = cands
        return out

    def _why_not(self) -> Said | None:
        """Why no session can start at this table (None: one can)."""
        if not numbered_kinds(self.cfg):
            kinds = ", ".join(game_kinds_of(self.cfg))
            return Said(
                f"the table's game {self.cfg.table.game!r} uses {kinds} dice: pip dice are read by their "
                f"pips, there is no numbered die ({', '.join(LEARNT_KINDS)}) to teach",
                "why.pip",
                game=self.cfg.table.game,
                kinds=list(game_kinds_of(self.cfg)),
                numbered=list(LEARNT_KINDS),
            )
        if self.cfg.dice_set_path is None:
            return Said(
                'the table.toml has no [table] dice_set: add dice_set = "FILE.json" naming where the '
                "table keeps its learnt set (teaching saves it there)",
                "why.no_store",
                file="table.toml",
                setting="[table] dice_set",
                example='dice_set = "FILE.json"',
            )
        return None

    # -- the commands (the admin API: Table.teach) ------------------------------------------
    def command(self, table: Any, command: Mapping[str, Any], who: str) -> dict[str, Any]:
        """One teaching step from the page (``action``: one of ACTIONS); returns the status with
        ``message``.  Raises TeachError (a ValueError) naming the bad input; a step the log
        cannot take (LogWriteError) changes nothing."""
        action = command.get("action")
        if action not in ACTIONS:
            raise TeachError(
                Said(
                    f"action: expected one of {', '.join(ACTIONS)}, got {action!r}",
                    "err.action",
                    actions=list(ACTIONS),
                    got=repr(action),
                )
            )
        message: str
        with self._lock:
            if action == "status":
                message = ""
            elif action == "start":
                message = self._start(table, command, who)
            elif self.session is None:
                raise TeachError(
                    Said(
                        f"{action!r}: no die is being taught: start a session first",
                        "err.no_session",
                        action=action,
                    )
                )
            elif action in ("answer", "skip"):
                message = self._answer(table, command, who, action == "skip")
            elif action == "save":
                message = self._save(table, who)
            else:
                message = self._end(
                    table,
                    who,
                    "cancel",
                    Said(
                        f"stopped teaching {self.session['name']}; nothing saved",
                        "msg.cancel",
                        name=name_key(self.session),
                    ),
                )
        if action != "status":
            table._emit()
        return {**self.status(), "message": message, "message_key": key_of(message)}

    def _row(self, table: Any, step: str, who: str, **data: Any) -> None:
        row = {"action": "teach", "step": step, "who": who, **data}
        if self.session is not None:
            row.setdefault("session", self.session["id"])
        self.log.append(table.game_no, "control", row, "camera" if step == "roll" else "admin", who)

    def _start(self, table: Any, command: Mapping[str, Any], who: str) -> str:
        if self.session is not None:
            raise TeachError(
                Said(
                    f"'start': {self.session['name']} is being taught: save it or cancel it first",
                    "err.busy",
                    name=name_key(self.session),
                )
            )
        why = self._why_not()
        if why is not None:
            raise TeachError(why)
        owner, colour = _text(command, "owner", 40), _text(command, "colour", 20)
        kinds = numbered_kinds(self.cfg)
        kind = command.get("kind")
        if kind not in kinds:
            raise TeachError(
                Said(
                    f"kind: expected one of the numbered kinds the table's game {self.cfg.table.game!r} "
                    f"uses ({', '.join(kinds)}), got {kind!r}",
                    "err.kind",
                    game=self.cfg.table.game,
                    kinds=list(kinds),
                    got=repr(kind),
                )
            )
        stored = self._stored()
        if stored is not None and stored.kind != kind and not command.get("replace"):
            raise TeachError(
                Said(
                    f"kind {kind}: the table keeps one set, of {stored.kind} ({stored.name!r}, at "
                    f"{self.cfg.dice_set_path}); a {kind} set would replace it: start with replace to do so",
                    "err.other_kind",
                    kind=kind,
                    stored=stored.kind,
                    set=stored.name,
                    path=str(self.cfg.dice_set_path),
                )
            )
        name = f"{owner}'s {colour} {kind}"
        session = {"id": 0, "owner": owner, "colour": colour, "kind": kind, "name": name, "who": who}
        row = {
            "action": "teach",
            "step": "start",
            "who": who,
            **{k: v for k, v in session.items() if k != "id"},
        }
        seq = self.log.append(table.game_no, "control", row, "admin", who)  # logged first
        self.session, self.rolls = {**session, "id": seq}, []
        self.notice, self.view, self.last_saved, self._perceiver = None, None, None, None
        log.info("teaching %s (session %d)", name, seq)
        return Said(
            f"teaching {name}: roll it in view of the camera, one die alone",
            "msg.start",
            name=name_key(session),
        )

    def _roll(self, command: Mapping[str, Any]) -> Roll:
        n = command.get("roll")
        found = [r for r in self.rolls if r.n == n] if isinstance(n, int) and not isinstance(n, bool) else []
        assert self.session is not None
        session = command.get("session")
        if session is not None and session != self.session["id"]:
            raise StaleRoll(
                Said(
                    f"roll {n} is not of the session shown now ({self.session['name']}): nothing "
                    "taught; look at the roll shown now and answer it",
                    "err.stale_session",
                    roll=n,
                    name=name_key(self.session),
                )
            )
        if found and found[0] is not self.rolls[-1]:
            latest = self.rolls[-1].n
            raise StaleRoll(
                Said(
                    f"roll {n} is no longer the roll shown: roll {latest} came to rest since; nothing "
                    f"taught: answer roll {latest} from its picture",
                    "err.stale",
                    roll=n,
                    latest=latest,
                )
            )
        if not found:
            raise TeachError(
                Said(
                    f"roll: expected the number of a roll of this session (1..{len(self.rolls)}), got {n!r}",
                    "err.roll",
                    n=len(self.rolls),
                    got=repr(n),
                )
            )
        return found[0]

    def _answer(self, table: Any, command: Mapping[str, Any], who: str, skip: bool) -> str:
        assert self.session is not None
        kind, roll = self.session["kind"], self._roll(command)
        face = None
        if not skip:
            face = command.get("face")
            if not isinstance(face, int) or isinstance(face, bool) or face not in VALUES[kind]:
                low, high = VALUES[kind][0], VALUES[kind][-1]
                raise TeachError(
                    Said(
                        f"face: a {kind} shows {low}..{high}, got {face!r}",
                        "err.face",
                        kind=kind,
                        low=low,
                        high=high,
                        got=repr(face),
                    )
                )
        self._row(table, "answer", who, roll=roll.n, face=face)
        roll.face, roll.answered = face, True
        name = name_key(self.session)
        if face is None:
            return Said(
                f"roll {roll.n} left out: not {self.session['name']}", "msg.skipped", roll=roll.n, name=name
            )
        left = self._lacking()
        if not left:
            done = Said(f"{self.session['name']} is complete: save it", "msg.complete", name=name)
        else:
            done = Said(f"{len(left)} faces to go", "msg.to_go", n=len(left))
        return Said(
            f"roll {roll.n} taught as {face} ({done})", "msg.taught", roll=roll.n, face=face, done=done.key
        )

    def _set(self) -> DiceSet | None:
        """The crops taught so far, as a set (None: none yet)."""
        assert self.session is not None
        taught = [r for r in self.rolls if r.face is not None]
        if not taught:
            return None
        s = self.session
        return DiceSet(
            s["name"],
            s["kind"],
            s["colour"],
            self.reader().embedder().digest,
            np.array([r.face for r in taught], np.int64),
            np.stack([r.features for r in taught]),
        )

    def _stored(self) -> DiceSet | None:
        path = self.cfg.dice_set_path
        if path is None or not path.is_file():
            return None
        try:
            return load_set(path)
        except ValueError:
            return None  # a set the table cannot read is replaced (its loading refused it already)

    def _save(self, table: Any, who: str) -> str:
        assert self.session is not None
        counts, lacking = self.counts(), self._lacking()
        if lacking:
            missing = [v for v in lacking if counts[v] == 0]
            short = [f"{v} ({counts[v]} of {N_EACH})" for v in lacking if counts[v]]
            parts = ([f"faces {', '.join(map(str, missing))} not taught yet"] if missing else []) + (
                [f"faces {', '.join(short)} taught too few times"] if short else []
            )
            raise TeachError(
                Said(
                    f"'save': the {self.session['kind']} set is not complete: {'; '.join(parts)} "
                    f"(every face {N_EACH} times): roll it again",
                    "err.incomplete_" + ("both" if missing and short else "missing" if missing else "short"),
                    kind=self.session["kind"],
                    missing=missing,
                    short=[
                        {"key": "learn.err.count", "face": v, "n": counts[v], "each": N_EACH}
                        for v in lacking
                        if counts[v]
                    ],
                    each=N_EACH,
                )
            )
        taught = self._set()
        assert taught is not None and self.cfg.dice_set_path is not None
        own = taught  # this die's crops alone: its roster entry's faces
        stored = self._stored()
        joined = stored is not None and stored.kind == taught.kind and stored.embedder == taught.embedder
        if stored is not None and joined:
            name = (
                stored.name if taught.name in stored.name.split(" + ") else f"{stored.name} + {taught.name}"
            )
            taught = stored.plus(taught.values, taught.features, name)
        path = self.cfg.dice_set_path
        tmp = path.with_name(path.name + ".part")
        taught.save(tmp)
        tmp.replace(path)  # whole or not at all
        entry = self._rostered(table, own, who)
        in_use = self._use(table, taught, entry)
        joined_text = f", joining {stored.name!r}" if stored is not None and joined else ""
        crops = sum(counts.values())
        saved = Said(
            f"saved {self.session['name']} ({crops} crops{joined_text}) to {path}; "
            + ("the table reads with it now" if in_use else "the table reads with it from its next start"),
            "msg.saved_now" if in_use else "msg.saved_later",
            name=name_key(self.session),
            crops=crops,
            path=str(path),
            joined={"key": "learn.msg.joined", "set": stored.name} if stored is not None and joined else "",
        )
        self._end(table, who, "saved", saved, path=str(path), crops=sum(counts.values()), roster=entry)
        self.last_saved = saved
        return saved

    def _use(self, table: Any, taught: DiceSet, entry: str | None) -> bool:
        """The table reads with what was saved from now on: against its roster (issue 44 item 4: one
        set a taught die, `controller.perceive.with_roster`) when the die has an entry, else the set
        saved; False when its reader reads no learnt sets (it reads it from its next start)."""
        learning = getattr(table, "learning", None)
        use = getattr(learning, "use_set", None)
        if not callable(use):
            return False
        roster = getattr(table, "roster", None)
        perceiver = getattr(learning, "perceiver", None)
        if entry is not None and roster is not None and perceiver is not None:
            from controller.perceive import with_roster
            from controller.roster import RosterView

            view = RosterView(tuple(roster.dice))
            kinds = tuple(getattr(perceiver, "kinds", ()) or (taught.kind,))
            if not use(with_roster(taught, view, kinds)):
                return False
            perceiver.roster = view
            return True
        return bool(use(taught))

    def _rostered(self, table: Any, own: DiceSet, who: str) -> str | None:
        """The die taught added to the table's roster (controller.roster), or its entry's faces joined:
        the entry's id (None: the table has no roster, or its file was refused: said in the log)."""
        roster = getattr(table, "roster", None)
        if roster is None or self.session is None:
            return None
        sizes = self.cfg.dice.sizes_mm or []
        try:
            die = roster.taught(
                own,
                self.session["owner"],
                self.session["colour"],
                sizes[0] if len(sizes) == 1 else None,
                self.cfg.table.dice_set,
                who,
                table.log_roster,
                [r.lab for r in self.rolls if r.face is not None and r.lab is not None],
            )
        except (ValueError, OSError) as e:  # a refused (or unwritable) roster file is left as it is
            log.warning("the roster was not updated: %s", e)
            return None
        return str(die.id)

    def _end(self, table: Any, who: str, step: str, message: str, **data: Any) -> str:
        self._row(table, step, who, **data)
        self.session, self.rolls, self.notice, self.view, self._perceiver = None, [], None, None, None
        return message

    # -- the camera -------------------------------------------------------------------------
    def reader(self) -> Any:
        from vision.numbered.reader import default_reader

        if self._reader is None:  # a camera at an angle: a d20 cut on its top face (`viewed`, issue 44)
            from controller.learn_view import table_view
            from controller.perceive import viewed

            self._reader = viewed(default_reader(), table_view(self.cfg))
        return self._reader

    def _folder(self) -> Path:
        assert self.session is not None
        return self.log.path.with_name(self.log.path.name + ".teach") / f"session-{self.session['id']}"

    def on_settled(self, table: Any, image: np.ndarray, t: float, empty: np.ndarray | None = None) -> None:
        """A settled frame while a die is taught: one die alone becomes a roll (logged, its crop
        saved); none, or more than one, is said on the page."""
        with self._lock:
            if self.session is None:
                return
            self.frames += 1
            try:
                self._see(table, image, t, empty)
            except (ValueError, cv2.error) as e:
                self.notice = Said(
                    f"the frame at t={t:.2f} s could not be read ({e}); roll again",
                    "notice.frame",
                    t=t,
                    why=str(e),
                )
            except OSError as e:  # the log or the crop's folder cannot be written: nothing was taught
                self.notice = Said(
                    f"the roll at t={t:.2f} s could not be saved ({e}); roll again",
                    "notice.unsaved",
                    t=t,
                    why=str(e),
                )
        table._emit()

    def _see(self, table: Any, image: np.ndarray, t: float, empty: np.ndarray | None) -> None:
        assert self.session is not None
        name, kind, said = self.session["name"], self.session["kind"], name_key(self.session)
        if self._perceiver is None:
            self._perceiver = learning_perceiver(kind, self.cfg, True, self.reader())
        perceiver = self._perceiver
        if empty is not None:
            perceiver.set_empty(empty)
        table_empty = perceiver.where.empty
        if table_empty is None or table_empty.empty.shape != image.shape:
            self.view = _view(image, [])
            mode = "" if table_empty is None else " in this camera mode"
            self.notice = Said(
                f"the camera has not seen the table empty{mode}: take {name} off the table until "
                "the camera has seen it empty, then roll it",
                "notice.no_empty" if table_empty is None else "notice.no_empty_mode",
                name=said,
            )
            return
        dice = _distinct([d.to_json() for d in perceiver.perceive(image).dice])
        self.view = _view(image, dice)
        if not dice:
            self.notice = Said(
                f"no die where the table changed since it was empty: roll {name} in view of the camera",
                "notice.no_die",
                name=said,
            )
            return
        if len(dice) > 1:
            self.notice = Said(
                f"{len(dice)} dice are on the table: leave one die only, {name}, and roll it again",
                "notice.many",
                n=len(dice),
                name=said,
            )
            return
        d = dice[0]
        center = (float(d["center"][0]), float(d["center"][1]))
        quad = np.asarray(d.get("quad") or [d["center"]] * 4, np.float64).reshape(-1, 2)
        side = max(float(np.ptp(quad[:, 0])), float(np.ptp(quad[:, 1])), 1.0)
        top = _top(image, center, side)
        reader = self.reader()
        # cut as the set's kind, as `read` cuts it (its outline against the empty table, as `read`'s)
        crop = reader.crops_of(image, [d], None, table_empty.empty, kind=kind)[0]
        turned = reader.embedder().embed([crop], TURNS)
        ocr = self._ocr(image, center, side, kind, d, table_empty.empty)
        near = self._near(turned)
        every = not any(k == 0 for k in self.counts().values())
        proposed, by = propose(ocr, near, every, self._classified(crop, kind), trusted(self.rolls))
        confidence = 0.0
        if by in ("ocr", "both") and ocr is not None:
            confidence = ocr[1]
        if by in ("match", "both"):
            confidence = max(confidence, near[0][1])
        last = self.rolls[-1] if self.rolls else None
        if last is not None and _nudged(last, image, center, proposed):
            self._keep_top(last.n, top)
            self._row(table, "nudged", "camera", roll=last.n, t=t, center=[round(c, 1) for c in center])
            last.center, last.top = center, top  # a second nudge is judged from here
            face = last.face if last.face is not None else proposed  # the owner's word first
            shows = "" if face is None else f" (it still shows {face})"
            self.notice = Said(
                f"nudged, not a new roll: roll {last.n}{shows} is not counted again; roll {name} again",
                "notice.nudged" if face is None else "notice.nudged_face",
                roll=last.n,
                face=face,
                name=said,
            )
            return
        n = len(self.rolls) + 1
        ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
        jpeg = buf.tobytes() if ok else None
        folder = self._folder()
        if jpeg is not None:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"roll-{n}.jpg").write_bytes(jpeg)
        self._keep_top(n, top)
        features = np.asarray(turned[0, 0], np.float32)
        lab = _lab(perceiver, image, d)
        self._row(
            table,
            "roll",
            "camera",
            **({"lab": [round(x, 2) for x in lab]} if lab is not None else {}),
            roll=n,
            t=t,
            proposed=proposed,
            confidence=round(confidence, 4),
            by=by,
            ocr=None if ocr is None else [ocr[0], round(ocr[1], 4)],
            near=[[f, round(like, 4)] for f, like in near[:CANDIDATES]],
            center=[round(c, 1) for c in center],
            side=round(side, 1),
            embedder=reader.embedder().digest,
            features=[round(float(x), 5) for x in features],
        )
        self.rolls.append(
            Roll(
                n,
                proposed,
                confidence,
                by,
                center,
                features,
                jpeg,
                side=side,
                top=top,
                ocr=ocr,
                near=tuple(near[:CANDIDATES]),
                lab=lab,
            )
        )
        self.notice = None

    def _ocr(
        self,
        image: np.ndarray,
        center: tuple[float, float],
        side: float,
        kind: str,
        die: Mapping[str, Any] | None = None,
        empty: np.ndarray | None = None,
    ) -> tuple[int, float] | None:
        """The OCR head's reading of the die at ``center`` (its value and calibrated confidence; None:
        the reader has no head, or the kind has no numerals it reads).  A d20 seen at a stated angle
        (``[vision] camera_tilt_deg``) is read where `learn-dice see` reads it (`learn_dice.ocr_of`:
        its top face's centre from the settled outline of ``die``, the outline's side)."""
        reader = self.reader()
        head = getattr(reader, "ocr", None)
        if head is None:
            return None
        seen = getattr(reader, "top_view_of", None)
        if die is not None and seen is not None and seen(image, kind, empty) is not None:
            from controller.learn_dice import ocr_of

            return ocr_of(reader, image, [dict(die)], kind, empty)[0]
        try:
            got = head.read(image, [(center, side, kind)])[0]
        except ValueError:
            return None
        return int(got.value), float(got.confidence)

    def _classified(self, crop: np.ndarray, kind: str) -> tuple[int, float] | None:
        """The numbered classifier's own reading of the roll's crop as ``kind`` (value, confidence;
        None: the reader cannot classify), a second net beside the OCR head."""
        reader = self.reader()
        if not callable(getattr(reader, "classify", None)):
            return None
        from vision.numbered.reader import verdict

        got = verdict(reader.classify([crop], (kind,))[0], 2.0, (kind,))
        return (int(got.value), float(got.confidence)) if got.kind == kind else None

    def _near(self, turned: np.ndarray) -> list[tuple[int, float]]:
        """The faces taught so far, nearest first: the crop's likeness (at its best turn) to each
        face's nearest taught crop."""
        taught = [r for r in self.rolls if r.face is not None]
        if not taught:
            return []
        sims = likeness(turned, np.stack([r.features for r in taught]))[0]
        best: dict[int, float] = {}
        for r, sim in zip(taught, sims, strict=True):
            assert r.face is not None
            best[r.face] = max(best.get(r.face, -1.0), float(sim))
        return sorted(best.items(), key=lambda fs: -fs[1])

    # -- after a restart ------------------------------------------------------------------
    def replay(self) -> None:
        """The unfinished session in the log (its last started one, unless saved or cancelled),
        taken up again with every roll and answer."""
        events = self.log.controls("teach")
        rows = [e.data for e in events]
        starts = [i for i, r in enumerate(rows) if r.get("step") == "start"]
        if not starts:
            return
        first = starts[-1]
        start = rows[first]
        mine = [r for r in rows[first + 1 :] if r.get("session") == events[first].seq]
        if any(r.get("step") in ("saved", "cancel") for r in mine):
            return
        self.session = {
            "id": events[first].seq,
            **{k: start.get(k) for k in ("owner", "colour", "kind", "name", "who")},
        }
        folder = self._folder()
        for r in mine:
            if r.get("step") == "roll":
                n = int(r["roll"])
                crop = folder / f"roll-{n}.jpg"
                self.rolls.append(
                    Roll(
                        n,
                        r.get("proposed"),
                        float(r.get("confidence") or 0.0),
                        str(r.get("by", "")),
                        (float(r["center"][0]), float(r["center"][1])),
                        np.asarray(r["features"], np.float32),
                        crop.read_bytes() if crop.is_file() else None,
                        side=float(r.get("side") or 0.0),
                        ocr=None if not r.get("ocr") else (int(r["ocr"][0]), float(r["ocr"][1])),
                        near=tuple((int(f), float(like)) for f, like in r.get("near") or ()),
                        lab=None if not r.get("lab") else tuple(float(x) for x in r["lab"]),
                    )
                )
            elif r.get("step") == "nudged" and self.rolls:
                self.rolls[-1].center = (float(r["center"][0]), float(r["center"][1]))
            elif r.get("step") == "answer":
                for roll in self.rolls:
                    if roll.n == r.get("roll"):
                        roll.face, roll.answered = r.get("face"), True
        if self.rolls:  # the last roll's top, as it lay last: a nudge after the restart is one too
            self.rolls[-1].top = _grey(folder / f"roll-{self.rolls[-1].n}.top.png")
        log.info("teaching %s again from the log: %d rolls", self.session["name"], len(self.rolls))

    def _keep_top(self, n: int, top: np.ndarray) -> None:
        """Roll ``n``'s die's top as it lies now, beside its crop (a restarted table judges a nudge)."""
        folder = self._folder()
        folder.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / f"roll-{n}.top.png"), top)


def _grey(path: Path) -> np.ndarray | None:
    """A roll's top as the table kept it (grey), its size checked from its header first; None if unread."""
    from hardware.imagefile import ImageError, read_image

    if not path.is_file():
        return None
    try:
        return np.asarray(cv2.cvtColor(read_image(path), cv2.COLOR_BGR2GRAY))
    except ImageError as e:
        log.warning("%s; the last roll's top is not used", e)
        return None


def _top(image: np.ndarray, center: tuple[float, float], side: float, share: float = 0.8) -> np.ndarray:
    """The square of ``share`` of the die's side about its centre, in grey (0.8: the die's top,
    inside its outline, so what lies around it is left out)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    half = max(4, round(side * share / 2))
    x, y = round(center[0]), round(center[1])
    return np.ascontiguousarray(grey[max(0, y - half) : y + half, max(0, x - half) : x + half])


def _nudged(last: Roll, image: np.ndarray, center: tuple[float, float], proposed: int | None) -> bool:
    """Whether the die that settled at ``center`` is ``last`` roll's die pushed a little, not rolled:
    the same place (within NUDGE_PLACE of its side), the same face proposed (or named by the owner
    for the last roll), and its top now matching
    the last one's turned at most NUDGE_DEG degrees (and shifted up to a fifth of a side), with a
    normalised correlation of NUDGE_LIKE or more."""
    # the same face: proposed again, or the face its owner named for the last roll (the reader may
    # have proposed another face for that frame)
    same = proposed == last.proposed or (last.face is not None and proposed == last.face)
    if last.top is None or last.side <= 0.0 or not same:
        return False
    if math.dist(center, last.center) > NUDGE_PLACE * last.side:
        return False
    was = last.top
    h, w = was.shape
    m = max(1, round(min(h, w) * 0.12))
    big = _top(image, center, last.side, 1.4)  # where the top may lie now
    if big.shape[0] < h - 2 * m or big.shape[1] < w - 2 * m or min(h, w) < 8:
        return False
    for deg in range(-NUDGE_DEG, NUDGE_DEG + 1, 3):
        turn = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)
        turned = cv2.warpAffine(was, turn, (w, h), borderMode=cv2.BORDER_REPLICATE)
        like = cv2.matchTemplate(big, turned[m : h - m, m : w - m], cv2.TM_CCOEFF_NORMED)
        if float(like.max()) >= NUDGE_LIKE:
            return True
    return False


def _view(image: np.ndarray, dice: Sequence[Mapping[str, Any]]) -> bytes | None:
    """The frame at VIEW_WIDTH with each die found boxed (the page's view of the camera)."""
    k = min(1.0, VIEW_WIDTH / image.shape[1])
    small = cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) if k < 1.0 else image.copy()
    for d in dice:
        quad = d.get("quad")
        if quad:
            pts = (np.asarray(quad, np.float64).reshape(-1, 2) * k).round().astype(np.int32)
            cv2.polylines(small, [pts], True, (0, 255, 255), 2)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return buf.tobytes() if ok else None


def _lab(perceiver: Any, image: np.ndarray, d: dict[str, Any]) -> tuple[float, ...] | None:
    """The look of die ``d`` in ``image`` (`controller.roster.die_look`, balanced by the light, as
    the table reads it against its roster's looks: `controller.perceive`), None when it cannot be
    measured."""
    from controller.roster import die_look

    if not d.get("quad"):
        return None
    try:
        pose = perceiver.geometry.pose(image) if perceiver.geometry is not None else None
        palette = perceiver.reading_palette(image, pose, None)
        lab = die_look(image, d["quad"], palette)
    except (ValueError, cv2.error):
        return None
    return tuple(float(x) for x in lab)
