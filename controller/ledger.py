"""A table's side of its event log: the game it plays, where a recording stood, atomic steps, held writes.

The table (:mod:`controller.table`) keeps the state; these functions take the log and the game
and return what they found or made, so each can be tested alone:

- :func:`open_game` resumes the latest game of the same setup if it is unfinished, else starts one;
- :func:`resume_point`, :func:`scored_dice` and :func:`logged_status` read back what a killed
  process had logged;
- :func:`position_mark` is the row that records where a recorded session stood with its inputs;
- :func:`apply_step` applies a group of inputs and logs them in one transaction, or neither;
- :class:`HeldWrite` is a write the log refused (a full disk, read-only media), tried again every
  ``retry_s`` seconds until it is written, with the throws that settled meanwhile.
"""

from __future__ import annotations

import copy
import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from controller.eventlog import Event, EventLog, LogWriteError
from controller.scenario import Setup, new_game
from engine import Game, Input, Outcome

log = logging.getLogger("dicetable.table")

Row = tuple[str, dict[str, Any]]

#: settled frames kept while a write is held (a full-HD frame is ~6 MB); past it the oldest go first,
#: and the table says so (a 30 s outage at a live camera's pace defers about a dozen)
MAX_DEFERRED = 32


def open_game(events: EventLog, setup: Setup, resume: bool) -> tuple[int, Game, bool]:
    """The game to play, its number in the log, and whether it was resumed: the latest game in the
    log if ``resume``, it has this setup and it is unfinished; else a new game (logged)."""
    latest = events.latest_game()
    if resume and latest is not None and events.setup(latest) == Setup.from_json(setup.to_json()):
        game = events.replay(latest)
        if game.result() is None:
            log.info("resumed game %d from %s", latest, events.path)
            return latest, game, True
    game_no = events.start_game(setup)
    return game_no, new_game(setup), False


def resume_point(events: Sequence[Event]) -> dict[str, Any] | None:
    """Where a recorded session stood at the last step ``events`` hold (see :func:`position_mark`).

    A mark counts the inputs standing after its step (`EventLog.standing_inputs`); it is compared
    here with every input row (undone ones too), on purpose: rows are never taken away (an undo is a
    row of its own), so every mark of a whole log is within them and the last one is taken.  Compared
    with the inputs standing now, a mark before an undo would be passed over and the recording
    replayed from an earlier point, reading the undone throw again (tests/controller/
    test_resume_undo.py).  A recording's scripted undo is logged with a mark of its own
    (`controller.commands`), so a resume goes on past it and never feeds it again.

    A recording's scripted answers and controls (start, pause, end) are logged with a mark of their
    own too, ``via`` LINE: not where the recording resumes (a throw read and asked about before them
    lives in the table's memory alone, so its frame is read again from the last other mark), but which
    lines the log holds since that mark: their counts in ``lines``.  Fed again, such a line does to
    the table what it did and is not logged (nor learnt) a second time (`controller.commands.
    feed_due`).  With such lines and no other mark, the recording resumes from its start (START)."""
    n_inputs = sum(1 for e in events if e.kind == "input")
    marks = [
        e.data
        for e in events
        if e.kind == "control" and e.data.get("action") == "position" and e.data.get("inputs", 0) <= n_inputs
    ]
    steps = [i for i, m in enumerate(marks) if m.get("via") != LINE]
    lines = [int(m.get("script", 0)) for m in marks[steps[-1] + 1 if steps else 0 :]]
    if not steps and not lines:
        return None
    point = marks[steps[-1]] if steps else START
    return {**point, "lines": lines} if lines else point


#: a scripted line's position mark (``via``; an answer, a control): which line is logged, not where
#: the recording resumes
LINE = "line"
#: where a recording with no step logged but its lines resumes: its start
START: dict[str, Any] = {"action": "position", "t": 0.0, "via": "start", "script": 0, "edges": 0, "inputs": 0}


#: the table's status after each of the referee's controls (`controller.corrections.next_status`)
STATUS_AFTER = {"start": "playing", "pause": "paused", "end": "over"}


def logged_status(events: Sequence[Event], refed: bool = False) -> str:
    """The status the referee's controls left a resumed game in: the last ``start``, ``pause`` or
    ``end`` logged wins; an undo after it reopens the game ("playing"), as `controller.commands`'
    undo does.  No control: "playing" (a finished game is never resumed, `open_game`).

    ``refed``: for a resumed recording (`Table.skip_to`), whose scripted controls logged since its
    last step (each with a LINE mark just before it, `resume_point`'s ``lines``) the recording feeds
    again (`controller.commands.again`): those are left out, so each does what it did once."""
    is_mark = [e.kind == "control" and e.data.get("action") == "position" for e in events]
    steps = [i for i, e in enumerate(events) if is_mark[i] and e.data.get("via") != LINE]
    after = steps[-1] if refed and steps else (-1 if refed else len(events))
    status = "playing"
    for i, e in enumerate(events):
        if e.kind == "undo":
            status = "playing"
        elif e.kind == "control" and e.source == "correction" and e.data.get("action") in STATUS_AFTER:
            line = i > 0 and is_mark[i - 1] and events[i - 1].data.get("via") == LINE
            if not (i > after and line):
                status = STATUS_AFTER[str(e.data["action"])]
    return status


#: what the table keeps of each die scored from the camera, to carry a die a later throw covers
REMEMBERED = (
    "id",
    "kind",
    "value",
    "colour",
    "confidence",
    "confirmed",
    "center",
    "quad",
    "footprint_mm",
    "stack_level",
    "hidden",
    "carried",
    "under",
    "seen_as",
)


def scored_dice(events: Sequence[Event]) -> tuple[list[dict[str, Any]], int]:
    """The dice of the last throw scored from the camera, as logged (empty when none was), and the
    number of its reading set (0 when none was logged)."""
    kept = [e.data for e in events if e.kind == "control" and e.data.get("action") == "scored_dice"]
    if not kept or not isinstance(kept[-1].get("dice"), list):
        return [], 0
    seq = kept[-1].get("seq")
    return [dict(d) for d in kept[-1]["dice"] if isinstance(d, dict)], seq if isinstance(seq, int) else 0


def position_mark(t: float | None, source: str, script: int, edges: int, inputs: int) -> list[Row]:
    """The row that logs where a recorded session stands, to be written with the inputs it precedes.

    ``script`` and ``edges``: the scripted items and button edges used so far; ``inputs``: the input
    count once the step is logged.  A mark is committed in its inputs' transaction, so a kill loses
    both or neither, and a resumed recording repeats nothing and loses nothing.  None ``t``: no mark.
    """
    if t is None:
        return []
    data = {
        "action": "position",
        "t": t,
        "via": source,  # "camera": the frame at t was read; else only its tick had run
        "script": script,
        "edges": edges,
        "inputs": inputs,
    }
    return [("control", data)]


def apply_step(
    game: Game,
    inputs: Sequence[Input],
    write: Callable[[list[tuple[Input, list[Outcome]]]], Sequence[int]],
) -> tuple[Game, list[list[Outcome]], tuple[int, ...]]:
    """Apply ``inputs`` to a copy of ``game`` and log them with ``write`` (one transaction): the
    game after the step, each input's outcomes and the log seqs ``write`` gave them.

    All or nothing: a RuleError from the engine or an error from ``write`` (e.g. LogWriteError)
    propagates and ``game`` is left as it was.
    """
    after = copy.deepcopy(game)
    applied = [(inp, after.apply(inp)) for inp in inputs]
    seqs = tuple(write(applied))
    return after, [outcomes for _, outcomes in applied], seqs


class HeldWrite:
    """A write the log refused, held to be tried again every ``retry_s`` seconds.

    ``hold`` keeps the retry and says why; ``due`` hands it back once ``retry_s`` has passed (and
    forgets it: a retry that fails again is held anew).  A throw that settles while a write is held
    cannot be read (its reading could not be logged) but must not be lost: ``defer`` keeps its frame
    and ``next_deferred`` hands the frames back, in order, once nothing is held.
    """

    def __init__(self, retry_s: float = 1.0) -> None:
        self.retry_s = retry_s
        self._retry: Callable[[], None] | None = None
        self._at = 0.0
        self._deferred: deque[Any] = deque()

    @property
    def waiting(self) -> bool:
        """Whether a write is held."""
        return self._retry is not None

    def hold(self, error: LogWriteError, retry: Callable[[], None], now: float) -> str:
        """Hold ``retry`` from ``now``; the notice that tells the table's people why."""
        log.error("%s", error)
        self._retry, self._at = retry, now
        return f"{error}. The table waits and tries again every {self.retry_s:g} s."

    def due(self, now: float) -> Callable[[], None] | None:
        """The held retry when it is due at ``now`` (no longer held), else None."""
        if self._retry is None or now - self._at < self.retry_s:
            return None
        retry, self._retry = self._retry, None
        return retry

    def defer(self, frame: Any, t: float) -> None:
        """Keep ``frame`` (what ``on_settled`` was given for the throw at ``t``) to read it later."""
        if len(self._deferred) >= MAX_DEFERRED:
            self._deferred.popleft()
            log.error(
                "more than %d throws came to rest while the log cannot be written; the oldest is lost",
                MAX_DEFERRED,
            )
        log.warning("a throw at t=%.2f came to rest while the log cannot be written; read once it can", t)
        self._deferred.append(frame)

    def next_deferred(self) -> Any:
        """The oldest frame kept by ``defer`` (no longer kept), or None."""
        return self._deferred.popleft() if self._deferred else None

    def next_deferred_t(self) -> float | None:
        """When the oldest frame kept by ``defer`` came to rest (its ``t``), or None."""
        return float(self._deferred[0][2]) if self._deferred else None

    @property
    def deferred(self) -> int:
        """How many settled frames wait to be read."""
        return len(self._deferred)
