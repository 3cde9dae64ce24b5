"""The table's empty-table picture, re-learnt when nothing moves and nothing new lies on the board
(issue 30 item 1).

The perception step compares every settled frame with the empty table (`controller.where`,
`vision.empty_diff`): a stale picture (the lights have changed since, the camera was knocked) makes
the board itself look changed.  `EmptyLearning` keeps the picture up to date and never lets a die
into it:

* the first picture is `dicetable calibrate empty`'s stored one ([vision] empty_table_frame), or the
  one learnt last (saved beside it, so a restart keeps it), or else the motion gate's first empty
  frame (the table is started on an empty board, as the gate is);
* it is **re-learnt** from a frame of a still spell: the motion gate has seen no movement and no
  hand for ``still_s`` seconds, and the frame, read by the table's own perception step against the
  picture it would replace, shows no die (no reading, sure or not) and no die-sized piece of change
  the light model does not explain (`vision.empty_diff.EmptyDiff.pieces`: exposure, white balance,
  smooth shading and shadows are explained).  A refused frame is tried again after ``retry_s`` more
  seconds of stillness, so a die left lying on the board is never absorbed, however long it lies;
* what changed wholesale (a lamp, the camera moved) is learnt the same way once the frame shows no
  die, with a log line saying how much of the view had changed;
* the table judges a frame on a thread of its own (``background``): the camera thread goes on
  with the next frames meanwhile (a throw that starts is followed, not held up by a perception
  step), the verdict is taken on the camera thread at a later frame, and at the latest before the
  next throw is read (`settle`), so every throw is read against the picture it would have been read
  against had the frame been judged at once;
* a learnt picture is kept in memory at once and written atomically (a temporary file renamed over
  the old one) beside the stored one, or beside the event log without one, at most every
  ``save_every_s`` seconds.

`status` is the snapshot's ``empty_table``: when the picture in use was learnt (wall clock) and
where it came from; the table page shows its age.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

log = logging.getLogger("dicetable.empty_learn")

#: a learnt picture's name beside the stored one: ``empty.png`` -> ``empty.learnt.png``
LEARNT_SUFFIX = ".learnt.png"
#: the gate's states in which the board lies still (no throw rolling, no hand in view)
STILL_STATES = ("empty", "settled")
#: a stored empty table older than this (days) is reported by check-config and run
OLD_DAYS = 7.0


def learnt_path(stored: str | Path | None, database: str | Path | None) -> Path | None:
    """Where the table keeps its learnt picture: beside the stored one (``empty.learnt.png``), else
    beside the event log (``<log>.empty.learnt.png``); None for a log in memory."""
    if stored:
        p = Path(stored).expanduser()
        return p.with_name(p.stem + LEARNT_SUFFIX)
    if database is None or str(database) in ("", ":memory:"):
        return None
    d = Path(database).expanduser()
    return d.with_name(d.stem + ".empty" + LEARNT_SUFFIX)


def save_atomically(image: np.ndarray, path: Path) -> None:
    """Write ``image`` as a PNG at ``path``: a temporary file in the same folder, flushed, then
    renamed over ``path`` (a reader sees the old picture or the new one, never half of one)."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise OSError("the PNG encoder refused the picture")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(buf.tobytes())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_learnt(path: Path | None, stored: str | Path | None) -> tuple[np.ndarray, float] | None:
    """The learnt picture at ``path`` and when it was learnt (its file's time), when it exists, is
    newer than the stored one and reads as an image of the same size; else None (logged)."""
    if path is None or not path.is_file():
        return None
    at = path.stat().st_mtime
    ref = Path(stored).expanduser() if stored else None
    if ref is not None and ref.is_file() and ref.stat().st_mtime > at:
        log.info("%s is older than %s (calibrated again since): not used", path, ref)
        return None
    from hardware.imagefile import ImageError, check_header, read_image

    try:  # the size from the header before a pixel is decoded
        img = read_image(path)
    except ImageError as e:
        log.warning("%s; not a readable picture of the empty table: learnt again from the camera", e)
        return None
    if ref is not None and ref.is_file():
        try:  # the stored picture's size, from its header alone
            with ref.open("rb") as fh:
                _, w, h = check_header(fh.read(64 * 1024), str(ref))
        except (OSError, ImageError):
            w, h = img.shape[1], img.shape[0]
        if (h, w) != img.shape[:2]:
            log.warning("%s is not the size of %s: not used", path, ref)
            return None
    return np.asarray(img), at


#: this share of the view changed by more than the light explains: the camera moved (a die's-width
#: shift changes ~10 %), the old picture is no reference and the frame's dice alone are judged
MOVED_FRAC = 0.05
#: a blob of change this share of the frame or more, touching its edge, with SKIN_SHARE skin-coloured
#: pixels, is an arm reaching in (the motion gate's rule, at the comparison's scale)
ARM_FRAC, SKIN_SHARE = 0.01, 0.3


def _arm_in_view(image: np.ndarray, changed: Any) -> bool:
    """Whether what changed since the empty table holds an arm: a large blob touching the frame's
    edge, much of it skin-coloured (a hand held still is no part of the empty table)."""
    from vision.motion import _skin_mask

    mask = changed.changed.astype(np.uint8)
    h, w = mask.shape
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return False
    small = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    skin = _skin_mask(small)
    for i in range(1, n):
        x, y, bw, bh, count = stats[i]
        if count < ARM_FRAC * h * w or not (x == 0 or y == 0 or x + bw >= w or y + bh >= h):
            continue
        if float(skin[lab == i].mean()) >= SKIN_SHARE:
            return True
    return False


@dataclass
class _Judging:
    """A frame being judged on the learner's thread: its verdict once ``done`` is set."""

    image: np.ndarray
    t: float
    spell: int  # the still spell it was taken in (a movement since starts another)
    done: threading.Event = field(default_factory=threading.Event)
    why: str | None = None
    failed: str | None = None  # the judge itself failed (logged; nothing learnt)


@dataclass
class EmptyLearning:
    """The table's empty-table picture and when to learn it again (see the module's doc).

    ``perceiver``: the table's perception step (`controller.perceive.Perceiver`): its where-steps hold
    the picture in use, and it judges a frame before it is learnt; ``path``: where a learnt picture is
    saved (None: memory only); ``clock``: wall-clock seconds (the table's)."""

    perceiver: Any
    path: Path | None = None
    clock: Callable[[], float] = time.time
    #: the gate still (empty or settled, no hand) this many seconds before a frame is judged
    still_s: float = 2.0
    #: a board the gate calls "handled" with nothing moving this long is judged as well
    handled_s: float = 6.0
    #: a frame refused (something lies there) is tried again after this many more still seconds
    retry_s: float = 10.0
    #: within one long still spell the picture is learnt again at most this often (the light drifts)
    every_s: float = 60.0
    #: a learnt picture is written at most this often (a Pi's SD card); memory follows at once
    save_every_s: float = 300.0
    #: whether the empty-table step is on at all ([vision] empty_table)
    on: bool = True
    #: wall-clock time the picture in use was learnt (None: no picture yet)
    learnt_at: float | None = None
    #: where it came from: "calibrate empty" (stored), "camera" (the gate's first), "re-learnt"
    source: str | None = None
    #: why the last frame judged was not learnt (None: learnt, or none judged)
    refused: str | None = None
    #: pictures learnt again since the table started
    relearnt: int = 0
    #: judge frames on a thread of its own (a table's camera goes on meanwhile); False: at once
    background: bool = False
    _spell: int = field(default=0, init=False, repr=False)
    _pending: _Judging | None = field(default=None, init=False, repr=False)
    _still_since: float | None = field(default=None, init=False, repr=False)
    _next_try: float | None = field(default=None, init=False, repr=False)
    _saved_at: float | None = field(default=None, init=False, repr=False)
    _unsaved: np.ndarray | None = field(default=None, init=False, repr=False)

    @classmethod
    def for_table(
        cls, perceiver: Any, vision: Any, database: str | Path | None, clock: Callable[[], float]
    ) -> EmptyLearning:
        """The table's: the stored picture ([vision] empty_table_frame, already in ``perceiver``) or
        the learnt one saved beside it (newer), and where to save the next."""
        stored = vision.empty_table_frame
        self = cls(
            perceiver, learnt_path(stored, database), clock, on=bool(vision.empty_table), background=True
        )
        if not self.on:
            return self
        if stored and Path(stored).expanduser().is_file():
            self.learnt_at, self.source = Path(stored).expanduser().stat().st_mtime, "calibrate empty"
        got = load_learnt(self.path, stored)
        if got is not None:
            perceiver.set_empty(got[0])
            self.learnt_at, self.source = got[1], "re-learnt"
            log.info("empty table: the picture learnt at %s (%s)", time.ctime(got[1]), self.path)
        return self

    @property
    def picture(self) -> np.ndarray | None:
        """The empty-table picture in use (None: none yet)."""
        empty = self.perceiver.where.empty
        return None if empty is None else empty.empty

    def status(self) -> dict[str, Any] | None:
        """The snapshot's ``empty_table``: ``learnt_at`` (wall-clock seconds), ``source``, ``refused``
        (why the last frame judged was not learnt); None while the table has no picture."""
        if not self.on or self.picture is None:
            return None
        return {"learnt_at": self.learnt_at, "source": self.source, "refused": self.refused}

    # -- frames -------------------------------------------------------------------------------
    def see(
        self,
        image: np.ndarray,
        t: float,
        state: str,
        gate_empty: np.ndarray | None = None,
        moving: bool | None = None,
    ) -> bool:
        """One frame of the camera (``t``: its time, ``state``: the motion gate's label for it,
        ``gate_empty``: the gate's latest empty frame, ``moving``: whether anything moved since the
        frame before, None: as the state says).  True when the picture was learnt from it.

        A "handled" board on which nothing moves for ``handled_s`` seconds is judged too: the gate
        takes a change of light touching the frame's edge (a lamp's pool) for an arm, and a hand is
        never that still (the judge refuses skin reaching in from the edge).

        With ``background`` the frame is judged on the learner's thread and this returns at once;
        its verdict is taken by a later call (True then, when it was learnt), or by `settle`."""
        if not self.on:
            return False
        learnt = self._collect(wait=False)
        if self.picture is None:
            if gate_empty is None:
                return learnt
            # the table's first empty board, as the gate learnt it (a table is started on an empty board)
            self._adopt(gate_empty, "camera")
            return True
        still = str(state) in STILL_STATES or (str(state) == "handled" and moving is False)
        if not still or moving:
            if self._still_since is not None:
                self._spell += 1
            self._still_since = self._next_try = None  # moving, or a hand in view: start again
            return learnt
        if self._still_since is None:
            wait = self.still_s if str(state) in STILL_STATES else self.handled_s
            self._still_since, self._next_try = t, t + wait
        assert self._next_try is not None
        if t + 1e-6 < self._next_try:
            return learnt
        if self._pending is not None:  # due again before the last verdict came: wait for it
            learnt = self._collect(wait=True) or learnt
            if self._next_try is None or t + 1e-6 < self._next_try:
                return learnt
        if not self.background:
            return self._verdict(image, t, self.judge(image), same_spell=True) or learnt
        self._next_try = t + self.retry_s  # as if refused, until the verdict says otherwise
        job = _Judging(image.copy(), t, self._spell)
        self._pending = job
        threading.Thread(target=self._judge_job, args=(job,), name="empty-table", daemon=True).start()
        return learnt

    def settle(self) -> bool:
        """Wait for the frame being judged, if one is, and take its verdict (True: learnt): called
        before a throw is read, so that it is read against the picture it would have been read
        against had the frame been judged on the camera thread."""
        return self._collect(wait=True)

    def _judge_job(self, job: _Judging) -> None:
        try:
            job.why = self.judge(job.image)
        except Exception as e:  # a fault in the judge must not stop the table: nothing is learnt
            log.exception("empty table: judging the frame at t=%.2f failed", job.t)
            job.failed = f"{type(e).__name__}: {e}"
        finally:
            job.done.set()

    def _collect(self, wait: bool) -> bool:
        """The verdict of the frame judged on the learner's thread, when there is one (and it is in,
        or ``wait``): applied here, on the caller's (the camera's) thread.  True when it was learnt."""
        job = self._pending
        if job is None or not (job.done.wait() if wait else job.done.is_set()):
            return False
        self._pending = None
        if job.failed is not None:
            self.refused = f"the judge failed ({job.failed})"
            return False
        return self._verdict(job.image, job.t, job.why, same_spell=job.spell == self._spell)

    def _verdict(self, image: np.ndarray, t: float, why: str | None, same_spell: bool) -> bool:
        """Take the verdict on the frame at ``t``: learn it (True) or say why not.  A frame judged in
        a still spell that has ended since is learnt all the same (the board lay empty then); the
        next judging is timed from it only while its spell lasts."""
        if why is not None:
            self.refused = why
            if same_spell:
                self._next_try = t + self.retry_s
            log.info("empty table not learnt again at t=%.2f: %s", t, why)
            return False
        if same_spell:
            self._next_try = t + self.every_s
        self._adopt(image, "re-learnt")
        return True

    def judge(self, image: np.ndarray) -> str | None:
        """Why ``image`` may not become the empty table (None: it may): a die the perception step
        reads there, or a die-sized piece of change the light model does not explain."""
        if self.picture is None or self.picture.shape != image.shape:
            return None if not self._dice(image) else "a die lies on the board"
        dice = self._dice(image)
        if dice:
            where = ", ".join(f"({x:.0f}, {y:.0f})" for x, y in dice[:3])
            return f"{len(dice)} die/dice read on the board at {where}"
        finder = self._finder(image)
        moved = float(finder.changes(image).solid.mean())
        if moved >= MOVED_FRAC:
            # the picture is no reference any more (the camera moved, a lamp changed the board): the
            # frame's dice, read above, are all there is to go on
            log.warning(
                "empty table: %.0f%% of the view changed by more than the light explains (camera moved?)",
                100 * moved,
            )
            return "a hand or an arm lies in view" if _arm_in_view(image, finder.changes(image)) else None
        pieces: list[tuple[float, float, float]] = finder.pieces(image)
        if pieces:
            where = ", ".join(f"({x:.0f}, {y:.0f})" for x, y, _ in pieces[:3])
            return f"{len(pieces)} die-sized change(s) the light does not explain at {where}"
        if _arm_in_view(image, finder.changes(image)):
            return "a hand or an arm lies in view"
        return None

    def _dice(self, image: np.ndarray) -> list[tuple[float, float]]:
        """The dice the perception step reads in ``image``; a piece of change it calls "not a die"
        is not asked about here (the light-matched pieces below judge what changed)."""
        where = self.perceiver.where
        where.ask_alone = False
        try:
            seen = self.perceiver.perceive(image, seq=0)
        finally:
            where.ask_alone = True
        return [d.center for d in seen.dice if d.center is not None]

    def _finder(self, image: np.ndarray) -> Any:
        """The empty table's finder for the picture in use, the light matched block by block (a lamp's
        pool of light is light, a die is not: `vision.empty_diff.local_gain_map`), with a die's edge
        as the last perception step's finder had it (else from the die-size step, else 1/30 of the
        frame's width)."""
        from vision.empty_diff import EmptyDiff

        where = self.perceiver.where
        w = float(image.shape[1])
        if where.finder is not None and where.finder.expected is not None:
            expected = where.finder.expected
        elif where.size is not None:
            expected = where.size.expected
        else:
            expected = lambda x, y: w / 30.0  # noqa: E731
        assert self.picture is not None
        finder = EmptyDiff(self.picture, expected, local_light=True)
        if where.finder is not None:
            finder.nadir = where.finder.nadir
        return finder

    def _adopt(self, image: np.ndarray, source: str) -> None:
        picture = image.copy()
        self.perceiver.set_empty(picture)
        self.learnt_at, self.source, self.refused = self.clock(), source, None
        if source == "re-learnt":
            self.relearnt += 1
        log.info(
            "empty table %s at %s",
            "learnt again" if source == "re-learnt" else "seen",
            time.ctime(self.learnt_at),
        )
        if source == "re-learnt":
            self._unsaved = picture
            self.flush(force=self._saved_at is None)

    def flush(self, force: bool = True) -> None:
        """Write the learnt picture not yet saved (when ``save_every_s`` has passed, or ``force``);
        a frame being judged is waited for first."""
        self._collect(wait=True)
        if self._unsaved is None or self.path is None:
            return
        now = self.clock()
        if not force and self._saved_at is not None and now - self._saved_at < self.save_every_s:
            return
        try:
            save_atomically(self._unsaved, self.path)
        except (OSError, cv2.error) as e:
            log.warning("empty table: %s could not be written (%s); kept in memory only", self.path, e)
            return
        self._saved_at, self._unsaved = now, None

    def carry_to(self, other: EmptyLearning) -> None:
        """Give ``other`` (a new game's table at the same board) this picture and its history."""
        self._collect(wait=True)
        if self.picture is None or not other.on:
            return
        other.perceiver.set_empty(self.picture)
        other.learnt_at, other.source, other.refused = self.learnt_at, self.source, self.refused
        other._unsaved, other._saved_at = self._unsaved, self._saved_at


def _age(seconds: float) -> str:
    days = seconds / 86400.0
    if days >= 1.0:
        return f"{days:.0f} day(s)"
    return f"{seconds / 3600.0:.0f} h" if seconds >= 3600 else f"{max(0.0, seconds) / 60.0:.0f} min"


def stored_notes(cfg: Any, now: float | None = None) -> list[tuple[str, str]]:
    """What ``check-config`` and ``run`` say of the table's stored empty table (printed, never
    refused): none stored, or one older than OLD_DAYS or than the camera's calibration (the light or
    the camera may have changed since), and when the table last learnt it again."""
    vision = cfg.vision
    if not vision.empty_table:
        return []
    now = time.time() if now is None else now
    key = "vision.empty_table_frame"
    learnt = learnt_path(vision.empty_table_frame, cfg.database_path())
    again = learnt.stat().st_mtime if learnt is not None and learnt.is_file() else None
    if not vision.empty_table_frame:
        msg = (
            "none stored: the table takes the first empty board its camera sees (start it on an empty "
            "board) and learns it again while the board lies still with no die on it"
        )
        if again is not None:
            msg += f"; learnt again {_age(now - again)} ago ({learnt})"
        return [(key, msg + "; to store one: dicetable calibrate empty FRAME --out empty.png")]
    stored = Path(vision.empty_table_frame).expanduser()
    if not stored.is_file():
        return []  # a problem, named by check-config's perception check
    taken = stored.stat().st_mtime
    newest = max(taken, again or 0.0)
    notes: list[str] = []
    if now - newest > OLD_DAYS * 86400:
        notes.append(
            f"old: taken {_age(now - taken)} ago"
            + (f", learnt again {_age(now - again)} ago" if again is not None and again > taken else "")
            + f" (more than {OLD_DAYS:.0f} days: the light or the camera may have changed since)"
        )
    cal = cfg.board.calibration
    if cal and Path(cal).expanduser().is_file() and Path(cal).expanduser().stat().st_mtime > newest:
        notes.append("older than the camera's calibration (board.calibration): was the camera moved?")
    if not notes:
        return []
    fix = f"take it again on the empty board: dicetable calibrate empty FRAME --out {stored}"
    return [(key, "; ".join(notes) + "; " + fix)]
