"""One table: frames -> motion gate -> vision -> engine -> event log -> display and LEDs.

``Table`` is the controller's implementation of the display's ``TableBackend`` seam. It follows what the
engine ``expects()`` and takes it from the right place: a settled throw from the camera (read only when
a throw is expected, placed on the board when a layout and calibration are configured, turned into
inputs or a question by :mod:`controller.adapters`), secret selections from the players' button panels
(a :class:`hardware.secret.SecretRound` whose public status is the snapshot's ``"secret"``), choices and
card reveals from a panel script or the admin page, and a person's answers to its questions.

Every input is appended to the event log (committed) before anything is shown; on start the table
replays its log, so a restarted process carries on where the killed one stopped. A group of inputs the
engine takes as one step (a reveal of everyone's secret selections, a throw scored as several players'
inputs) is one transaction: a crash leaves all of it or none, and no secret selection reaches the log
(and so ``/api/events``) before its reveal. With each input a ``position`` mark, in the same
transaction, records where a recorded session stood (frame time, script lines and button edges used), so
a resumed recording skips exactly what was already acknowledged.

When the log cannot be written (a full disk, read-only media) nothing is applied or shown: the table
says why in its ``notice``, holds what it was about to log and tries again every ``retry_s`` seconds,
and carries on once the write succeeds; a throw that came to rest meanwhile is read then (its dice still
lie there).
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import cv2
import numpy as np

from controller import commands, outage
from controller.adapters import Context, Question, TableReadings, plan
from controller.config import TableConfig
from controller.corrections import RefereeLearning
from controller.early_read import EarlyRead
from controller.empty_learn import EmptyLearning
from controller.eventlog import EventLog, LogWriteError
from controller.hidden import HeldInputs
from controller.ledger import (
    REMEMBERED,
    HeldWrite,
    apply_step,
    logged_status,
    open_game,
    position_mark,
    resume_point,
    scored_dice,
)
from controller.panel_rounds import MenuError, PanelRounds
from controller.panels import PanelError, PanelSet
from controller.perceive import BoardGeometry, Perceiver, as_reader, player_colours, throw_colours
from controller.perceive import TableError as TableError  # the table's errors, raised by its setup too
from controller.pixels import see_pixels
from controller.roster import Roster
from controller.scenario import Setup
from controller.script import Script, Scripted
from controller.symbol_faces import symbols_now
from controller.teach import Teaching
from controller.tumble_flag import TumbleChecks, not_tumbled
from engine import Input, InputKind, Outcome, RuleError

log = logging.getLogger("dicetable.table")


class Notifier(Protocol):
    def notify(self, snapshot: dict[str, Any]) -> None: ...


class Table:
    """The state of one table and everything that changes it."""

    def __init__(
        self,
        cfg: TableConfig,
        log_: EventLog,
        *,
        reader: Any = None,
        listeners: Iterable[Callable[[dict[str, Any]], None]] = (),
        clock: Callable[[], float] = time.time,
        resume: bool = True,
        panels: PanelSet | None = None,
        geometry: BoardGeometry | None = None,
    ) -> None:
        self.cfg = cfg
        self.table_id = cfg.table.id
        self.log = log_
        #: how a settled frame is read (controller.perceive): the reader for the game's dice, the
        #: board and calibration, the measured palette and the [vision] where-steps
        self.perceiver = Perceiver.from_config(cfg, reader, geometry)
        self.listeners = list(listeners)
        #: called with each new reading set (placed on the board, before it is scored or asked
        #: about) and what the game expected then; e.g. ``dicetable demo --explain``
        self.reading_listeners: list[Callable[[TableReadings, Any], None]] = []
        self.clock = clock
        self._lock = threading.RLock()
        self.setup = Setup.for_table(cfg)
        self.game_no, self.game, self.resumed = open_game(self.log, self.setup, resume)
        # a resumed game: the status the referee's controls left it in (paused, ended), from the log
        self.status = logged_status(self.log.events(self.game_no)) if self.resumed else "playing"
        self.status = "over" if self.game.result() is not None else self.status
        self.reading_set: TableReadings | None = None
        self.last_input_seqs: tuple[int, ...] = ()  # the log seqs of the inputs applied last
        self.previous: list[dict[str, Any]] = []  # the readings scored last
        self.last_seq = 0  # the reading set scored last (ids r<seq>.<n> go on from it after a restart)
        self.question: Question | None = None
        self.frame: bytes | None = None
        self.script = Script()  # a recorded session's lines and presses still to come
        self.rounds = PanelRounds()  # secret selections and choices on the panels
        self.held_choices = HeldInputs()  # the secret rule: choices held until everyone asked has chosen
        self.notice: str | None = None  # e.g. "camera lost; reopening"
        self._said: tuple[str, dict[str, Any]] | None = None  # the notice's catalogue key (tell)
        #: a tournament table's pairing, "table-3 · round 2 · ann vs bob" (controller/pairings.py)
        self.pairing: str | None = None
        #: the latest throw's flag when its dice did not tumble (logged as control "not_tumbled")
        self.flag: dict[str, Any] | None = None
        self.rest_times: list[tuple[float, float]] = []  # (t_rest of the frame, clock when scored)
        self.board_problem: str | None = None
        self._t_correction: float | None = None
        #: what to try again once the log can be written (see _held)
        self.held_write = HeldWrite(retry_s=1.0)
        self._behind = False  # a write was held: catching up, each press and line at its own time
        self.early = EarlyRead()  # the reading of a throw's first still frame (read_early)
        self.tumble = TumbleChecks(not_tumbled, self._on_flag)  # judged on its own thread
        self.resume_point = self._resume_point() if self.resumed else None
        if self.resumed:
            self.previous, self.last_seq = scored_dice(self.log.events(self.game_no))
        self.learning = RefereeLearning(self.perceiver)  # the referee's answers grow the learnt set
        #: the die's size in pixels for the setup view (controller.pixels.table_pixels; issue 43)
        self.pixels: dict[str, Any] | None = None
        self._pixels_for: tuple[int, int] | None = None
        #: the empty-table picture and when to learn it again (controller.empty_learn)
        self.empty_table = EmptyLearning.for_table(
            self.perceiver, cfg.vision, getattr(log_, "path", None), clock
        )
        self.learning.replay(self.log.events() if self.learning.learns else [])
        self.teaching = Teaching(cfg, log_)  # a die of its own taught with the camera (controller.teach)
        self.roster = Roster(cfg.roster_path)  # the table's dice, one entry a die (controller.roster)
        try:
            self.panels = panels if panels is not None else PanelSet(cfg)
        except PanelError as e:
            raise TableError(str(e)) from None

    # -- how a frame is read (controller.perceive) --------------------------------------
    @property
    def reader(self) -> Any:
        """The reader of the table's dice (a vision.reading.Reader); setting a callable of the frame
        alone reads with it instead (`controller.perceive.as_reader`)."""
        return self.perceiver.reader

    @reader.setter
    def reader(self, reader: Any) -> None:
        self.perceiver.reader = as_reader(reader)

    @property
    def geometry(self) -> BoardGeometry | None:
        """The configured board and calibration (None: no board)."""
        return self.perceiver.geometry

    @property
    def where(self) -> Any:
        """Where a die can be at this table (controller.where.TableWhere)."""
        return self.perceiver.where

    # -- the log (controller.ledger) ---------------------------------------------------
    def _resume_point(self) -> dict[str, Any] | None:
        return resume_point(self.log.events(self.game_no))

    def _mark(self, t: float | None, source: str, n: int) -> list[tuple[str, dict[str, Any]]]:
        """The row that logs where the session stands, written with the ``n`` inputs it precedes."""
        inputs = self.log.standing_inputs(self.game_no) + n
        return position_mark(t, source, self.script.consumed, self.script.edges_driven, inputs)

    def apply(self, inp: Input, source: str, t: float | None = None) -> list[Outcome]:
        """Apply an input: log it with its outcomes (committed), then tell the listeners."""
        return self.apply_all([inp], source, t)[0]

    def apply_all(
        self,
        inputs: Sequence[Input],
        source: str,
        t: float | None = None,
        also: Sequence[tuple[str, dict[str, Any]]] = (),
    ) -> list[list[Outcome]]:
        """Apply a group of inputs as one step: all of them are logged in one transaction, or none
        is applied (a RuleError or a LogWriteError leaves the game as it was); then tell the listeners.

        ``also``: (kind, data) rows that belong to the step (e.g. the dice it scored), logged with it.

        The secret rule (controller.hidden): while the game's expectation is secret, an input is held,
        not applied, until every player asked has chosen; then all are applied and logged as one step.
        """
        with self._lock:
            if self.status != "playing":
                raise RuleError(f"the table is {self.status}: inputs are taken only while playing")
            group = self.held_choices.hold(self.game, inputs) if self.game.expects().secret else list(inputs)
            if group is not None:
                rows = [*self._mark(t, source, len(group)), *also]
                self.game, outcomes, self.last_input_seqs = apply_step(
                    self.game,
                    group,
                    lambda applied: self.log.append_inputs(self.game_no, applied, source, before=rows),
                )  # a RuleError or a refused write leaves the game, and what was held, as it was
                self.held_choices.forget()
                if self.game.result() is not None:
                    self.status = "over"
        if group is None:
            who = ", ".join(str(i.player) for i in inputs)
            log.info("%s chose; shown when everyone asked has chosen", who)
            self._emit()
            return [[] for _ in inputs]
        self._emit()
        return outcomes

    # -- a log that cannot be written ------------------------------------------------
    def tell(self, text: str, key: str, **fields: Any) -> None:
        """Show ``text`` as the notice; ``key`` and ``fields`` name it in the display's catalogues."""
        self.notice, self._said = text, (text, {"key": f"notice.{key}", **fields})

    def _held(self, error: LogWriteError, retry: Callable[[], None]) -> None:
        """A write failed: show why, hold ``retry`` and run it on a later tick (see ``tick``)."""
        self._behind = True  # once written, what came meanwhile is taken in the order it came
        self.tell(self.held_write.hold(error, retry, self.clock()), "log_held", s=self.held_write.retry_s)
        self._emit()

    def _retry_held(self) -> bool:
        """Try the held write again when it is due; True while something is still held."""
        return outage.retry_held(self)

    def _emit(self) -> None:
        snap = self.snapshot()
        for listener in self.listeners:
            try:
                listener(snap)
            except Exception:  # a broken display or LED must not stop the table
                log.exception("a listener failed on a snapshot")

    # -- the camera ------------------------------------------------------------------
    def see_board(
        self,
        image: np.ndarray,
        t: float,
        state: str,
        gate_empty: np.ndarray | None = None,
        moving: bool | None = None,
    ) -> bool:
        """Every frame, with the motion gate's label: the empty-table picture is learnt again when
        nothing moves and no die lies on the board (controller.empty_learn); True when it was, and
        the display is told when."""
        learnt = self.empty_table.see(image, t, state, gate_empty, moving)
        if learnt:
            self._emit()
        return learnt

    def settle_board(self) -> bool:
        """Take the verdict on the frame the empty-table learner is judging on its own thread, waiting
        for it if need be (before a throw is read: it is read against the picture it would have been
        read against had the frame been judged at once); True when the picture was learnt."""
        learnt = self.empty_table.settle()
        if learnt:
            self._emit()
        return learnt

    def read_early(self, image: np.ndarray, t_rest: float, empty: np.ndarray | None = None) -> None:
        """The dice have lain still since ``t_rest``, not yet for the gate's settle wait: read them
        now, so that the frame that ends the wait is scored at once (controller.early_read)."""
        self.settle_board()
        key = self._early_key(t_rest, empty)
        if key is None or not self.early.wants(key):
            return
        if empty is not None:
            self.perceiver.set_empty(empty)
        try:
            seen = self.perceiver.perceive(image, seq=key[1], t=t_rest, **key[2], before=self.previous)
        except Exception:  # read again, and reported, at the settled frame
            log.debug("the early read at t=%.2f failed", t_rest, exc_info=True)
            return
        self.early.keep(key, image, seen)

    def expects_throw(self) -> bool:
        """Whether a throw settling now would be read (the game expects a roll or throw, no write held,
        no die being taught): the loop takes a still only then (issue 43)."""
        return self._early_key(None, None) is not None

    def _early_key(self, t_rest: float | None, empty: np.ndarray | None) -> tuple[Any, ...] | None:
        """What a reading is read for (an early reading serves only the same); None when no throw
        is to be read now."""
        exp = self.game.expects()
        if (
            self.held_write.waiting
            or self.teaching.on
            or self.status != "playing"
            or exp.kind not in (InputKind.ROLL, InputKind.THROW)
        ):
            return None
        seq = (self.reading_set.seq if self.reading_set else self.last_seq) + 1
        colours = throw_colours(self.game, self._context_colours())
        # (the empty-table picture in use: a picture learnt since makes the early reading stale)
        picture = empty if empty is not None else self.empty_table.picture
        return (t_rest, seq, colours, repr(self.previous), None if picture is None else id(picture))

    def on_settled(
        self,
        image: np.ndarray,
        t_rest: float | None,
        t: float,
        empty: np.ndarray | None = None,
        motion: Any = None,
        still: np.ndarray | None = None,
    ) -> None:
        """A throw has come to rest: read it if (and only if) the game expects a throw.

        ``still``: the full-resolution still the camera took of it (`hardware.stills`): the dice are
        read from it, given in ``image``'s pixels (`Perceiver.perceive`'s ``frame``); the gate's
        ``image`` is what the table keeps and shows.

        ``empty``: the empty table as the camera saw it last (the motion gate's ``empty_frame``);
        ``motion``: the throw's motion record (a ``vision.tumble.ThrowRecorder``): with ``[vision]
        tumble_check`` a throw whose dice did not tumble is flagged to the referee and logged (judged
        on the check's own thread, ``controller.tumble_flag``; the next throw waits for its verdict)."""
        self.tumble.wait()
        self.settle_board()
        if self.teaching.on:  # the frame is the die being taught, not a throw of the game
            picture = empty if empty is not None else self.empty_table.picture  # the table's, learnt
            return self.teaching.on_settled(self, image, t, picture)
        if empty is not None:
            self.perceiver.set_empty(empty)
        if self.held_write.waiting:  # read once the held write is written: the dice still lie there
            self.held_write.defer((image, t_rest, t, None, motion, still), t)
            return
        key = self._early_key(t_rest, empty)
        if key is None:
            return
        exp, seq = self.game.expects(), key[1]
        try:
            if still is not None:  # the still, not the gate's frame read early
                seen = self.perceiver.perceive(
                    still, seq=seq, t=t, **key[2], before=self.previous, frame=image
                )
            else:
                seen = self.early.take(key, image) or self.perceiver.perceive(
                    image, seq=seq, t=t, **key[2], before=self.previous
                )
        except (ValueError, cv2.error) as e:  # a corrupt frame: wait for the next settled one
            log.warning("frame at t=%.2f could not be read: %s", t, e)
            self.tell(
                f"a frame at t={t:.2f} s could not be read ({e}); waiting for the next one", "frame", t=t
            )
            self._emit()
            return
        except Exception as e:  # a fault in the reader itself: the game and its log must survive it
            log.exception("the vision reader failed on the frame at t=%.2f", t)
            self.tell(
                f"the vision reader failed on the frame at t={t:.2f} s ({type(e).__name__}: {e}); "
                "waiting for the next one (a rethrow), or enter the throw on the admin page",
                "reader",
                t=t,
            )
            self._emit()
            return
        readings = [d.to_json() for d in seen.dice]
        see_pixels(self, image, still)
        with self._lock:
            reading = {
                "t": t,
                "dice": [
                    {k: r[k] for k in ("id", "kind", "value", "confidence", "colour") if k in r}
                    for r in readings
                ],
            }
            try:  # logged before anything of it is shown
                self.log.append(self.game_no, "reading", reading, "camera")
            except LogWriteError as e:
                self._held(e, lambda: self.on_settled(image, t_rest, t, motion=motion, still=still))
                return
            self.flag = None
            self.reading_set = TableReadings(seq, t, readings)
            self.board_problem = seen.board_problem
            self.notice = None
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
            self.frame = buf.tobytes() if ok else None
        for listener in self.reading_listeners:
            try:
                listener(copy.deepcopy(self.reading_set), exp)
            except Exception:  # a diagnostic must not stop the table
                log.exception("a reading listener failed")
        self._try_score(t_rest if t_rest is not None else t, t)
        if motion is not None and self.cfg.vision.tumble_check:  # after the score: never delays it
            self.tumble.submit(motion, image, readings, t, seq)

    def _on_flag(self, flag: dict[str, Any], seq: int) -> None:
        """Log the flag (a ``control`` event ``not_tumbled``), then show it until the next throw is
        read. Never a refusal: the referee acts (undo) only if the throw should not count."""
        try:
            self.log.append(self.game_no, "control", flag, "camera")
        except LogWriteError as e:  # not logged, so not shown; the table's own writes retry
            log.error("the flag for the throw at t=%.2f could not be logged: %s", flag["t"], e)
            return
        with self._lock:
            if self.reading_set is not None and self.reading_set.seq == seq:
                self.flag = flag
        self._emit()

    def _context_colours(self) -> dict[str, str]:
        """Each player's dice colour: the game's own (its options) over the table config's."""
        return player_colours(self.cfg, self.game.state)

    def _context(self, exp: Any) -> Context:
        return Context(
            self.setup.game,
            exp,
            self.setup.players,
            self._context_colours(),
            self.cfg.table.confidence_threshold,
            self.previous,
            self.game.state,
        )

    def _ask(self, question: Question) -> None:
        with self._lock:
            if question == self.question:
                return  # asked already (e.g. a correction that did not settle it)
            self.log.append(self.game_no, "question", question.to_json(), "table")
            self.question = question
        self._emit()

    def _try_score(self, t_rest: float, t: float | None = None) -> None:
        """Score the current readings, or ask a question about them."""
        with self._lock:
            rs = self.reading_set
            if rs is None or rs.applied:
                return
            exp = self.game.expects()
            if exp.kind not in (InputKind.ROLL, InputKind.THROW):
                return
            if self.board_problem:
                result: list[Input] | Question = Question(
                    f"The board cannot be placed in this frame ({self.board_problem}). "
                    "Clear the markers and rethrow.",
                    tuple(d["id"] for d in rs.dice),
                    "board",
                )
            else:
                result = plan(self._context(exp), rs.dice)
        also: list[tuple[str, dict[str, Any]]] = []
        if self.geometry is not None and not isinstance(result, Question):
            # what lies where, for carrying a die a later throw covers (kept across a restart)
            kept = [{k: d[k] for k in REMEMBERED if k in d} for d in rs.dice]
            also.append(("control", {"action": "scored_dice", "dice": kept, "seq": rs.seq}))
        asked, self.question = self.question, None
        try:
            if isinstance(result, Question):
                self.question = asked
                self._ask(result)
                return
            try:
                self.apply_all(result, "camera", t, also)  # one step: every player's part, or none
            except RuleError as e:
                self._ask(
                    Question(
                        f"The throw cannot be scored: {e.why}", tuple(d["id"] for d in rs.dice), "illegal"
                    )
                )
                return
        except LogWriteError as e:
            if self.question is None:
                self.question = asked
            self._held(e, lambda: self._try_score(t_rest, t))
            return
        with self._lock:
            rs.applied, rs.input_seqs = True, self.last_input_seqs
            self.previous = [dict(d) for d in rs.dice]
            self.rest_times.append((t_rest, self.clock()))
        self._emit()

    # -- scripted inputs, corrections and presses (recorded sessions) -----------------------
    @property
    def pending(self) -> list[Scripted]:
        return self.script.lines

    @pending.setter
    def pending(self, items: list[Scripted]) -> None:
        """Set the script: raw presses become button edges, the rest wait in order."""
        if self.script.load(items):
            self.panels.scripted = True

    def skip_to(self, point: Mapping[str, Any]) -> None:
        """Drop the scripted items and edges a resumed game has already consumed; the status as the
        log holds it without the scripted controls the recording feeds again."""
        self.script.skip_to(point)
        self.status = logged_status(self.log.events(self.game_no), refed=True)

    def tick(self, t: float) -> None:
        """Let time pass to ``t``: scripted presses and inputs, the button panels, the secret round;
        while a write the log refused is held, only its retry (controller.outage)."""
        outage.tick(self, t)

    def feed_due(self, t: float) -> None:
        """Apply the scripted inputs and corrections that are due by ``t`` and that can be taken now
        (controller.commands)."""
        commands.feed_due(self, t)

    def finish(self, t_end: float) -> None:
        """The recording has ended: play what is left of the script at its own times."""
        self.tumble.wait()
        t = t_end
        for due in self.script.times():
            t = max(t, due)
            self.tick(t)
        self.tick(t + 5.0)
        self.drain_held(t + 5.0)

    @property
    def unwritten(self) -> int:
        """Input the log could not write yet: the held step (1) and the throws deferred behind it."""
        return int(self.held_write.waiting) + self.held_write.deferred

    def drain_held(self, t: float, wait_s: float | None = None) -> bool:
        """A write still held at the end of a recording, tried again a while (controller.outage)."""
        return outage.drain_held(self, t, wait_s)

    def close(self) -> None:
        """Release the button panels: each gpiozero button runs a hold thread until it is closed.
        The event log is the caller's (it opened it).  A learnt empty-table picture not yet written
        is written now."""
        self.empty_table.flush()
        self.panels.close()

    # -- rounds on the button panels (controller.panel_rounds) ------------------------------
    @property
    def secret_round(self) -> Any:
        """The open secret selection (a hardware.secret.SecretRound), or None."""
        return self.rounds.secret_round

    def _drive_secret(self, t: float) -> None:
        try:
            # a held secret choice is final: its player is not asked again
            chosen = (
                self.held_choices.players(self.game) if self.game.expects().kind is InputKind.CHOICE else ()
            )
            step = self.rounds.drive(self.game, self.status == "playing", self.panels, t, chosen, self._emit)
        except MenuError as e:
            raise TableError(str(e)) from None
        if step is not None and step.secret:
            self._reveal(list(step.inputs), t)
        elif step is not None:
            self._choose(step.inputs[0], t)

    def _reveal(self, inputs: list[Input], t: float) -> None:
        """Everyone has chosen: apply and log the selections as one step (a crash keeps all or none,
        so no selection is readable before the others are in)."""
        try:
            self.apply_all(inputs, "button", t)
        except RuleError as e:
            # nothing is logged, so no choice becomes readable; everyone chooses again
            log.warning("a secret selection was refused: %s", e.why)
            self.tell(f"a secret selection was refused ({e.why}); everyone chooses again", "secret_refused")
        except LogWriteError as e:
            self._held(e, lambda: self._reveal(inputs, t))
            return
        self.rounds.progress = None
        self._emit()

    def _choose(self, inp: Input, t: float) -> None:
        try:
            self.apply(inp, "button", t)
        except RuleError as e:
            self.tell(f"{inp.player}'s choice was refused: {e.why}", "choice_refused", player=inp.player)
            self._emit()
        except LogWriteError as e:
            self._held(e, lambda: self._choose(inp, t))

    def new_game(self, cfg: TableConfig, pairing: str | None = None) -> None:
        """Start a new game at this table with ``cfg``'s game and players (a tournament's pairing,
        controller/pairings.py): logged as a new game; the listeners, clock, board and (for the same
        game) reader stay, the panels follow the new players' seats.  The new table is built whole,
        then takes this one's place in one step, so a reader never sees half of each."""
        with self._lock:
            reader = self.perceiver.reader if cfg.table.game == self.setup.game else None
            self.panels.close()  # their pins are the new panels' pins
            try:
                fresh = Table(
                    cfg,
                    self.log,
                    reader=reader,
                    listeners=self.listeners,
                    clock=self.clock,
                    resume=False,
                    geometry=self.geometry,
                )
            except BaseException:
                self.panels = PanelSet(self.cfg)
                raise
            fresh.listeners, fresh.reading_listeners, fresh.pairing = (
                self.listeners,
                self.reading_listeners,
                pairing,
            )
            self.empty_table.carry_to(fresh.empty_table)  # the board did not change with the game
            self.__dict__.update(fresh.__dict__)  # one C-level update under the GIL: whole or not at all
        self._emit()

    # -- TableBackend (what the display reads) ------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            state = self.game.state
            return {
                "table": self.table_id,
                "game": self.setup.game,
                "players": [{"name": p.name, "colour": p.colour} for p in self.cfg.players],
                "state": state,
                "status": self.status,
                "waiting_for": self.waiting_for(),
                "secret": self.held_choices.progress(self.game, self.rounds.progress),
                "question": None if self.question is None else self.question.to_json(),
                "seq": self.log.count(self.game_no),
                "notice": self.notice,  # in English; ``notice_key`` names it for a page in another language
                "notice_key": self._said[1] if self._said and self._said[0] == self.notice else None,
                "pairing": self.pairing,
                "flag": self.flag,
                "dice_colours": sorted(self.game.dice_colours(self._context_colours()) or ()),  # any: []
                # when the empty-table picture was learnt, and from what (controller.empty_learn)
                "empty_table": self.empty_table.status(),
                "pixels": self.pixels,  # the die's size in pixels, still and video (controller.pixels)
                # a secret choice's highlighted option is the player's alone: only "secret" tells who chose
                "choice": None if self.game.expects().secret else self.rounds.choice_views(),
                "teaching": self.teaching.brief(),
            }

    def waiting_for(self) -> str:
        """What the table waits for, in words: the snapshot's ``waiting_for`` without the rest of the
        snapshot (a live loop shows it every frame)."""
        with self._lock:
            return self.teaching.waiting() or self._waiting_for(self.game.expects().to_json())

    def _waiting_for(self, exp: Mapping[str, Any]) -> str:
        if self.status == "over":
            res = self.game.result()
            return "nothing: " + (" and ".join(res.winners) + " won" if res else "the game was ended")
        if self.status == "paused":
            return "the referee to resume (paused)"
        if self.question is not None:
            return "a person: " + self.question.text
        kind, players = exp.get("kind"), ", ".join(exp.get("players") or [])
        return f"{kind} from {players}" if players else str(kind)

    def teach(self, command: dict[str, Any], who: str) -> dict[str, Any]:
        """A step of teaching the table a die of its own (controller.teach), from the admin API."""
        return self.teaching.command(self, command, who)

    def roster_step(self, command: dict[str, Any], who: str) -> dict[str, Any]:
        """A step on the table's roster of dice (controller.roster) from the admin API, logged first."""
        out = self.roster.command(command, who, self.log_roster)
        self.perceiver.reader = symbols_now(self.perceiver.reader, self.roster.dice)  # issue 46 item 3
        return out

    def log_roster(self, data: dict[str, Any], who: str) -> None:
        """A change of the roster, as a ``control`` row (before the file is written)."""
        self.log.append(self.game_no, "control", {**data, "who": who}, "admin", who)

    def events(self, offset: int, limit: int) -> list[dict[str, Any]]:
        if offset < 0 or limit < 0:
            raise ValueError(f"offset and limit must be >= 0, got offset={offset}, limit={limit}")
        return [e.to_json() for e in self.log.events(self.game_no, offset, limit)]

    def fairness(self) -> list[dict[str, Any]]:
        """Dice fairness from this table's log (controller.fairness): the display's /stats page."""
        from controller.fairness import log_report

        return log_report(self.log, self.table_id)

    def readings(self) -> dict[str, Any]:
        with self._lock:
            rs = self.reading_set
            # each with its version (0 as read, one more each answer taken): an answer names it
            dice = [] if rs is None else [{"version": 0, **d} for d in rs.dice]
            not_dice = [] if rs is None else [{"version": 0, **d} for _, d in rs.left_out]  # a person said so
            return {"seq": rs.seq if rs else 0, "t": rs.t if rs else 0.0, "dice": dice, "not_dice": not_dice}

    def frame_jpeg(self) -> bytes | None:
        return self.frame

    def board_png(self) -> bytes | None:
        """The board picture of the latest settled frame (controller.board_picture): /api/board.png."""
        from controller.board_picture import table_png

        return table_png(self)

    def correct(self, command: dict[str, Any], who: str, t: float | None = None) -> dict[str, Any]:
        """An admin correction (controller.commands); every one is logged with who and when."""
        return commands.correct(self, command, who, t)
