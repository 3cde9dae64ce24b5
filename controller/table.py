"""One table: frames -> motion gate -> vision -> engine -> event log -> display and LEDs.

``Table`` is the controller's implementation of the display's ``TableBackend``
seam.  Every input is appended to the event log (committed) before anything
is shown; on start the table replays its log, so a restarted process carries
on where the killed one stopped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np

from controller.adapters import Question, ReadingSet, question_for, to_input
from controller.config import TableConfig
from controller.eventlog import EventLog
from controller.scenario import Setup, new_game
from engine import Game, Input, InputKind, Outcome, RuleError

log = logging.getLogger("dicetable.table")

Reader = Callable[[np.ndarray], Sequence[Any]]


class TableError(RuntimeError):
    """The table cannot go on; the message says why and what to do."""


class Notifier(Protocol):
    def notify(self, snapshot: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class Scripted:
    """An input from a button panel or the admin page, due at time ``t`` (recorded sessions)."""

    t: float
    source: str
    input: Input


def _default_reader(image: np.ndarray) -> Sequence[Any]:
    import vision

    return vision.read_dice(image)


class Table:
    """The state of one table and everything that changes it."""

    def __init__(
        self,
        cfg: TableConfig,
        log_: EventLog,
        *,
        reader: Reader | None = None,
        listeners: Iterable[Callable[[dict[str, Any]], None]] = (),
        clock: Callable[[], float] = time.time,
        resume: bool = True,
    ) -> None:
        self.cfg = cfg
        self.table_id = cfg.table.id
        self.log = log_
        self.reader = reader or _default_reader
        self.listeners = list(listeners)
        self.clock = clock
        self._lock = threading.RLock()
        self.setup = Setup(
            cfg.table.game, tuple(p.name for p in cfg.players), dict(cfg.table.options), cfg.table.seed
        )
        self.game_no, self.game, self.resumed = self._open_game(resume)
        self.status = "over" if self.game.result() is not None else "playing"
        self.reading_set: ReadingSet | None = None
        self.question: Question | None = None
        self.frame: bytes | None = None
        self.pending: list[Scripted] = []
        self.secret_progress: dict[str, list[str]] | None = None
        self.rest_times: list[tuple[float, float]] = []  # (t_rest of the frame, clock when scored)

    # -- the log ---------------------------------------------------------------------
    def _open_game(self, resume: bool) -> tuple[int, Game, bool]:
        """Resume the latest game in the log if it is this setup and unfinished; else start one."""
        latest = self.log.latest_game()
        if resume and latest is not None and self.log.setup(latest) == Setup.from_json(self.setup.to_json()):
            game = self.log.replay(latest)
            if game.result() is None:
                log.info("resumed game %d from %s", latest, self.log.path)
                return latest, game, True
        game_no = self.log.start_game(self.setup)
        return game_no, new_game(self.setup), False

    def apply(self, inp: Input, source: str) -> list[Outcome]:
        """Apply an input: log it with its outcomes (committed), then tell the listeners."""
        with self._lock:
            if self.status != "playing":
                raise RuleError(f"the table is {self.status}: inputs are taken only while playing")
            outcomes = self.game.apply(inp)  # a RuleError leaves the game unchanged
            self.log.append_input(self.game_no, inp, outcomes, source)
            if self.game.result() is not None:
                self.status = "over"
        self._emit()
        return outcomes

    def _emit(self) -> None:
        snap = self.snapshot()
        for listener in self.listeners:
            try:
                listener(snap)
            except Exception:  # a broken display or LED must not stop the table
                log.exception("a listener failed on a snapshot")

    # -- the camera ------------------------------------------------------------------
    def on_settled(self, image: np.ndarray, t_rest: float | None, t: float) -> None:
        """A throw has come to rest: read it if (and only if) the game expects a throw."""
        exp = self.game.expects()
        if self.status != "playing" or exp.kind not in (InputKind.ROLL, InputKind.THROW):
            return
        readings = [r.to_json() if hasattr(r, "to_json") else dict(r) for r in self.reader(image)]
        with self._lock:
            seq = (self.reading_set.seq + 1) if self.reading_set else 1
            for i, r in enumerate(readings):
                r["id"] = f"r{seq}.{i + 1}"
                r["unsure"] = r.get("confidence", 1.0) < self.cfg.table.confidence_threshold
            self.reading_set = ReadingSet(seq, t, readings)
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
            self.frame = buf.tobytes() if ok else None
            self.log.append(
                self.game_no,
                "reading",
                {
                    "t": t,
                    "dice": [
                        {k: r[k] for k in ("id", "kind", "value", "confidence", "colour") if k in r}
                        for r in readings
                    ],
                },
                "camera",
            )
        self._try_score(t_rest if t_rest is not None else t)

    def _try_score(self, t_rest: float) -> None:
        """Score the current readings, or ask a question about them."""
        with self._lock:
            rs = self.reading_set
            if rs is None or (rs.dice and all(d.get("applied") for d in rs.dice)):
                return
            exp = self.game.expects()
            if exp.kind not in (InputKind.ROLL, InputKind.THROW):
                return
            self.question = question_for(self.setup.game, rs.dice, self.cfg.table.confidence_threshold)
            if self.question is not None:
                self.log.append(self.game_no, "question", self.question.to_json(), "table")
        if self.question is not None:
            self._emit()
            return
        try:
            self.apply(to_input(self.setup.game, exp, rs.dice), "camera")
        except RuleError as e:
            with self._lock:
                self.question = Question(f"The throw cannot be scored: {e.why}", (), "illegal")
                self.log.append(self.game_no, "question", self.question.to_json(), "table")
            self._emit()
            return
        with self._lock:
            for d in rs.dice:
                d["applied"] = True
            self.rest_times.append((t_rest, self.clock()))

    # -- scripted inputs (button panels in a recording) --------------------------------
    def feed_due(self, t: float) -> None:
        """Apply the scripted inputs that are due by ``t`` and that the game now expects."""
        while self.pending and self.pending[0].t <= t:
            item = self.pending[0]
            exp = self.game.expects()
            if exp.kind is not item.input.kind or (exp.players and item.input.player not in exp.players):
                return  # not yet: e.g. the roll it follows has not been read
            self.pending.pop(0)
            try:
                self.apply(item.input, item.source)
            except RuleError as e:
                log.warning("scripted input at t=%.2f refused: %s", item.t, e)

    # -- TableBackend (what the display reads) ------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            state = self.game.state
            exp = state.get("expects") or {}
            return {
                "table": self.table_id,
                "game": self.setup.game,
                "players": [{"name": p.name, "colour": p.colour} for p in self.cfg.players],
                "state": state,
                "status": self.status,
                "waiting_for": self._waiting_for(exp),
                "secret": self.secret_progress,
                "question": None if self.question is None else self.question.to_json(),
                "seq": self.log.count(self.game_no),
            }

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

    def events(self, offset: int, limit: int) -> list[dict[str, Any]]:
        if offset < 0 or limit < 0:
            raise ValueError(f"offset and limit must be >= 0, got offset={offset}, limit={limit}")
        return [e.to_json() for e in self.log.events(self.game_no, offset, limit)]

    def readings(self) -> dict[str, Any]:
        with self._lock:
            rs = self.reading_set
            return (
                {"seq": 0, "t": 0.0, "dice": []}
                if rs is None
                else {"seq": rs.seq, "t": rs.t, "dice": [dict(d) for d in rs.dice]}
            )

    def frame_jpeg(self) -> bytes | None:
        return self.frame

    def correct(self, command: dict[str, Any], who: str) -> dict[str, Any]:
        """An admin correction; every one is logged with who and when."""
        if not isinstance(who, str) or not who.strip():
            raise ValueError("a correction needs 'who': the name of the person making it")
        if not isinstance(command, Mapping) or "action" not in command:
            raise ValueError(f"a correction must be an object with 'action', got {command!r}")
        action = command["action"]
        handlers: dict[str, Callable[[Mapping[str, Any], str], str]] = {
            "confirm": self._confirm,
            "set_value": self._set_value,
            "undo": self._undo,
            "start": self._control,
            "pause": self._control,
            "end": self._control,
            "input": self._input,
        }
        if action not in handlers:
            raise ValueError(f"unknown action {action!r}; expected one of {sorted(handlers)}")
        message = handlers[action](command, who.strip())
        self._emit()
        return {"ok": True, "message": message, "seq": self.log.count(self.game_no)}

    def _confirm(self, command: Mapping[str, Any], who: str) -> str:
        with self._lock:
            if self.reading_set is None:
                raise ValueError("there is no reading to confirm yet")
            d = self.reading_set.by_id(command.get("reading"))
            d["confirmed"], d["unsure"] = True, False
            self.log.append(
                self.game_no,
                "control",
                {"correction": "confirm", "reading": d["id"], "who": who},
                "correction",
                who,
            )
        self._try_score(self.clock())
        return f"reading {d['id']} confirmed as {d['value']}"

    def _set_value(self, command: Mapping[str, Any], who: str) -> str:
        value = command.get("value")
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"'value' must be an integer face, got {value!r}")
        with self._lock:
            if self.reading_set is None:
                raise ValueError("there is no reading to correct yet")
            d = self.reading_set.by_id(command.get("reading"))
            from engine import DieKind

            faces = DieKind(d.get("kind", "d6")).face_range(d.get("sides"))
            if value not in faces:
                raise ValueError(
                    f"a {d.get('kind', 'd6')} die cannot show {value!r} (faces {faces[0]}..{faces[-1]})"
                )
            if d.get("applied"):
                raise ValueError(f"reading {d['id']} is already scored: undo the last input first")
            old = d["value"]
            d["value"], d["confirmed"], d["unsure"] = value, True, False
            self.log.append(
                self.game_no,
                "control",
                {"correction": "set_value", "reading": d["id"], "from": old, "to": value, "who": who},
                "correction",
                who,
            )
        self._try_score(self.clock())
        return f"reading {d['id']} set from {old} to {value}"

    def _undo(self, command: Mapping[str, Any], who: str) -> str:
        with self._lock:
            standing = list(self.log.inputs(self.game_no))
            if not standing:
                raise ValueError("nothing to undo: no input has been applied to this game yet")
            last = standing[-1]
            self.log.append(self.game_no, "undo", {"undoes": last.seq, "who": who}, "correction", who)
            self.game = self.log.replay(self.game_no)
            self.status = "playing"
            if self.reading_set is not None:
                for d in self.reading_set.dice:
                    d.pop("applied", None)
        return f"undid {last.data.get('type')} from {last.player or 'the table'}"

    def _control(self, command: Mapping[str, Any], who: str) -> str:
        action = command["action"]
        with self._lock:
            if action == "pause":
                if self.status != "playing":
                    raise ValueError(f"only a playing game can be paused (it is {self.status})")
                self.status = "paused"
            elif action == "start":
                if self.status == "over":
                    raise ValueError("the game is over; start a new table session to play again")
                self.status = "playing"
            elif self.status == "over":
                raise ValueError("the game is already over")
            else:
                self.status = "over"
            self.log.append(self.game_no, "control", {"action": action, "who": who}, "correction", who)
        return f"game {self.status}"

    def _input(self, command: Mapping[str, Any], who: str) -> str:
        inp = Input.from_json(command.get("input"))
        if inp.kind is InputKind.SECRET:
            raise ValueError("secret selections come from the players' button panels, not the admin page")
        self.apply(inp, "admin")
        return f"{inp.kind.value} applied"


def run_table(cfg: TableConfig, camera: str | None = None) -> None:
    """``dicetable run``: play a table from its configuration (see controller.live)."""
    from controller.live import run_live

    run_live(cfg, camera=camera)
