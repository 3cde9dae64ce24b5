"""The seam between the table controller and the display: ``TableBackend``.

The controller implements this protocol over its real event log, camera and
engine.  ``FakeTable`` is the in-package fake used by the display's tests, the
push benchmark and ``dicetable serve-fake``: it drives a real engine game (or
the tiny ``DemoSum`` when no engine game of that name is installed), keeps an
event log in memory and renders a synthetic camera frame.

What a snapshot may hold is public: a secret selection in progress shows *who*
has confirmed, never *what*.
"""

from __future__ import annotations

import copy
import importlib.resources
import random
import threading
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from engine.core import Die, DieKind, Expectation, Game, Input, InputKind, RuleError

Snapshot = dict[str, Any]
Listener = Callable[[Snapshot], None]

STATUSES = ("waiting", "playing", "paused", "over")
UNSURE_BELOW = 0.8  # a reading under this confidence waits for a human
#: die facts a reading may carry through to the engine's input (see engine.core.Die)
GEOMETRY_KEYS = ("field_status", "card_slot", "rests_on", "min_multiplier", "sides")


@runtime_checkable
class TableBackend(Protocol):
    """What the display reads from (and sends corrections to) one table."""

    table_id: str

    def snapshot(self) -> Snapshot: ...

    def events(self, offset: int, limit: int) -> list[dict[str, Any]]: ...

    def readings(self) -> dict[str, Any]: ...

    def frame_jpeg(self) -> bytes | None: ...

    def correct(self, command: dict[str, Any], who: str) -> dict[str, Any]: ...


def describe_expectation(exp: Expectation | Mapping[str, Any] | None) -> str:
    """Human words for what the table waits for, e.g. 'a roll from ann'."""
    if exp is None:
        return "nothing"
    if isinstance(exp, Expectation):
        exp = exp.to_json()
    kind = exp.get("kind")
    if kind is None:
        return "nothing: the game is over"
    players = [str(p) for p in exp.get("players") or []]
    who = " or ".join(players) if kind != "secret" else ", ".join(players)
    words = {
        "roll": "a roll",
        "throw": "a throw onto the board",
        "secret": "secret selections",
        "reveal": "a card or tile to be turned up",
        "choice": "a choice",
        "start": "the game to start",
    }.get(str(kind), str(kind))
    return f"{words} from {who}" if who else words


# -- loading an engine game without the controller ------------------------------------


def _load_shipped_data(cls: type[Game]) -> dict[str, Any]:
    """Load the shipped example data files a game names (decks/, boards/)."""
    data: dict[str, Any] = {}
    for key, name in cls.data_files.items():
        for package in ("decks", "boards"):
            res = importlib.resources.files(package).joinpath(name)
            if res.is_file():
                raw = tomllib.loads(res.read_text(encoding="utf-8"))
                data[key] = cls.parse_data(key, raw, f"{package}/{name}")
                break
        else:
            raise ValueError(f"game {cls.name!r} needs data file {name!r}, not found in decks/ or boards/")
    return data


def make_game(
    name: str, players: Sequence[str], options: Mapping[str, Any] | None = None, seed: int = 0
) -> Game:
    """Build a game by table name; ``demo-sum`` is the display's own demo game."""
    if name == "demo-sum":
        from display.demo_game import DemoSum

        return DemoSum(players, options, random.Random(seed))
    from engine import find_game

    try:
        cls = find_game(name)
    except ImportError as e:
        raise ValueError(f"game {name!r} is not available in this installation ({e})") from None
    return cls(list(players), dict(options or {}), random.Random(seed), _load_shipped_data(cls))


# -- the synthetic camera ---------------------------------------------------------------

FRAME_W, FRAME_H = 960, 540
PX_PER_MM = 1.6  # the fake camera sees a 600 x 337.5 mm table
COLOURS_BGR = {
    "red": (60, 60, 215),
    "blue": (200, 110, 40),
    "green": (80, 160, 60),
    "purple": (150, 70, 140),
    "yellow": (40, 200, 230),
    "white": (235, 235, 235),
    "black": (40, 40, 40),
    "orange": (30, 140, 245),
}
PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def _square_quad(cx: float, cy: float, size: float, angle: float) -> list[list[float]]:
    c, s = np.cos(angle), np.sin(angle)
    h = size / 2
    return [
        [round(cx + c * x - s * y, 1), round(cy + s * x + c * y, 1)]
        for x, y in ((-h, -h), (h, -h), (h, h), (-h, h))
    ]


def render_frame(readings: Sequence[Mapping[str, Any]]) -> bytes:
    """A top-down picture of the table with each reading's die drawn in its quad."""
    img = np.zeros((FRAME_H, FRAME_W, 3), np.uint8)
    img[:] = (60, 105, 45)
    cv2.line(img, (FRAME_W // 2, 0), (FRAME_W // 2, FRAME_H), (200, 220, 200), 2)
    for r in readings:
        quad = np.array(r["quad"], np.float32)
        colour = COLOURS_BGR.get(str(r.get("colour")), (220, 220, 220))
        cv2.fillConvexPoly(img, quad.astype(np.int32), colour, cv2.LINE_AA)
        cv2.polylines(img, [quad.astype(np.int32)], True, (20, 20, 20), 2, cv2.LINE_AA)
        centre = quad.mean(axis=0)
        ux, uy = (quad[1] - quad[0]) / 4, (quad[3] - quad[0]) / 4
        ink = (30, 30, 30) if sum(colour) > 450 else (245, 245, 245)
        value = int(r["value"])
        if r.get("kind", "d6") == "d6" and value in PIPS:
            for a, b in PIPS[value]:
                p = centre + a * ux + b * uy
                cv2.circle(img, (int(p[0]), int(p[1])), 5, ink, -1, cv2.LINE_AA)
        else:
            text = f"{value:02d}" if r.get("kind") == "d10p" else str(value)
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.8, 2)
            org = (int(centre[0] - tw / 2), int(centre[1] + th / 2))
            cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.8, ink, 2, cv2.LINE_AA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:  # pragma: no cover - OpenCV always encodes a uint8 BGR image
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


# -- the fake table -----------------------------------------------------------------------


class FakeTable:
    """An in-memory table: event log, engine game, camera readings, secret panel.

    ``settle()`` plays the camera (a settled frame's dice), ``secret_select()``
    plays a button panel; everything else is the ``TableBackend`` protocol.
    Thread-safe: the display calls it from worker threads, tests from theirs.
    """

    def __init__(
        self,
        table_id: str = "table-1",
        game: str = "demo-sum",
        players: Sequence[tuple[str, str]] = (("ann", "red"), ("bob", "blue")),
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.table_id = table_id
        self.game_name = game
        self.players = [{"name": n, "colour": c} for n, c in players]
        self.options = dict(options or {})
        self.seed = seed
        self.clock = clock
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._game = make_game(game, [n for n, _ in players], self.options, seed)
        self._inputs: list[Input] = []
        self._log: list[dict[str, Any]] = []
        self._status = "waiting"
        self._readings: list[dict[str, Any]] = []
        self._readings_seq = 0
        self._readings_t = 0.0
        self._reading_player: str | None = None
        self._frame: bytes | None = None
        self._secret_pending: list[str] = []
        self._secret_choices: dict[str, dict[str, Any]] = {}  # private until the reveal
        self._next_reading = 1
        self._refusal: str | None = None  # why the rules refused the latest readings
        self._readings_input: int | None = None  # index in _inputs of the input the readings made

    # -- listeners (the hub, the MQTT publisher) --------------------------------------
    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def _emit(self) -> None:
        snap = self.snapshot()
        for listener in list(self._listeners):
            listener(snap)

    def _append(self, source: str, kind: str, player: str | None, data: Mapping[str, Any]) -> None:
        with self._lock:
            self._log.append(
                {
                    "seq": len(self._log) + 1,
                    "t": round(self.clock(), 3),
                    "source": source,
                    "kind": kind,
                    "player": player,
                    "data": dict(data),
                }
            )

    # -- TableBackend ------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        with self._lock:
            state = self._game.state
            status = self._status
            if state.get("result") is not None:
                status = "over"
            return {
                "table": self.table_id,
                "game": self.game_name,
                "players": [dict(p) for p in self.players],
                "state": state,
                "status": status,
                "waiting_for": self._waiting_for(status, state),
                "secret": None
                if not self._secret_pending and not self._secret_choices
                else {
                    "confirmed": [p for p in self._secret_order() if p in self._secret_choices],
                    "pending": [p for p in self._secret_order() if p not in self._secret_choices],
                },
                "question": self._question(),
                "seq": len(self._log),
            }

    def events(self, offset: int, limit: int) -> list[dict[str, Any]]:
        if offset < 0 or limit < 0:
            raise ValueError(f"offset and limit must be >= 0, got offset={offset}, limit={limit}")
        with self._lock:
            return [dict(e) for e in self._log[offset : offset + limit]]

    def readings(self) -> dict[str, Any]:
        with self._lock:
            return {
                "seq": self._readings_seq,
                "t": self._readings_t,
                "dice": [dict(r) for r in self._readings],
            }

    def frame_jpeg(self) -> bytes | None:
        with self._lock:
            return self._frame

    def correct(self, command: dict[str, Any], who: str) -> dict[str, Any]:
        if not isinstance(who, str) or not who.strip():
            raise ValueError("a correction needs 'who': the name of the person making it")
        if not isinstance(command, Mapping):
            raise ValueError(f"a correction must be an object with 'action', got {command!r}")
        action = command.get("action")
        handlers: dict[str, Callable[[Mapping[str, Any]], str]] = {
            "confirm": self._confirm,
            "set_value": self._set_value,
            "undo": self._undo,
            "start": self._start,
            "pause": self._pause,
            "end": self._end,
            "input": self._admin_input,
        }
        if action not in handlers:
            raise ValueError(f"unknown action {action!r}; expected one of {sorted(handlers)}")
        with self._lock:
            saved = (
                copy.deepcopy(self._readings),
                self._status,
                self._game,
                list(self._inputs),
                len(self._log),
                self._frame,
                self._readings_input,
                self._refusal,
            )
            try:
                message = handlers[str(action)](command)
            except ValueError:
                # all or nothing: a refused correction leaves the table as it was
                (
                    self._readings,
                    self._status,
                    self._game,
                    self._inputs,
                    n,
                    self._frame,
                    self._readings_input,
                    self._refusal,
                ) = saved
                del self._log[n:]
                raise
            self._append("admin", "correction", who.strip(), dict(command))
        self._emit()
        return {"ok": True, "message": message, "seq": self.snapshot()["seq"]}

    # -- the camera and the button panels (what the controller would do) ----------------
    def settle(self, dice: Sequence[Mapping[str, Any]], player: str | None = None) -> list[dict[str, Any]]:
        """A settled frame: store its readings; when all are sure, give them to the game.

        Each die is ``{"kind","value","colour","confidence"}`` and optionally
        ``"quad"`` (pixel corners), ``"zones"``, ``"side"``, ``"stack_level"``.
        """
        with self._lock:
            readings = []
            for i, d in enumerate(dice):
                Die.from_json({k: d[k] for k in ("kind", "value") if k in d})  # validate the face
                quad = d.get("quad") or _square_quad(
                    140 + (i % 6) * 130, 150 + (i // 6) * 150, 64, 0.15 * ((i * 7) % 5 - 2)
                )
                cx = sum(p[0] for p in quad) / 4
                cy = sum(p[1] for p in quad) / 4
                conf = float(d.get("confidence", 1.0))
                reading = {
                    "id": f"r{self._next_reading}",
                    "kind": d.get("kind", "d6"),
                    "value": int(d["value"]),
                    "colour": d.get("colour"),
                    "confidence": conf,
                    "quad": quad,
                    "centre_mm": [round(cx / PX_PER_MM, 1), round(cy / PX_PER_MM, 1)],
                    "zones": list(d.get("zones", [])),
                    "side": d.get("side", "a" if cx < FRAME_W / 2 else "b"),
                    "stack_level": int(d.get("stack_level", 0)),
                    "unsure": conf < UNSURE_BELOW,
                }
                reading.update({k: d[k] for k in GEOMETRY_KEYS if d.get(k) is not None})
                self._next_reading += 1
                readings.append(reading)
            self._readings = readings
            self._readings_t = round(self.clock(), 3)
            self._readings_seq += 1
            self._reading_player = player
            self._frame = render_frame(readings)
            self._append(
                "camera",
                "settled",
                player,
                {"dice": len(readings), "unsure": sum(r["unsure"] for r in readings)},
            )
            self._refusal = None
            try:
                self._maybe_apply_readings()
            except RuleError as e:
                # the rules refuse what the camera saw: a referee corrects the readings
                self._refusal = e.why
                self._append("engine", "input_refused", player, {"why": e.why})
        self._emit()
        return readings

    def begin_secret(self, players: Sequence[str]) -> None:
        """Open a secret selection: these players must each confirm a choice."""
        with self._lock:
            self._secret_pending = list(players)
            self._secret_choices = {}
            self._append("panel", "secret_opened", None, {"players": list(players)})
        self._emit()

    def secret_select(self, player: str, selection: Mapping[str, Any]) -> None:
        """A player confirmed a secret selection; revealed once everyone has."""
        with self._lock:
            exp = self._game.expects()
            if not self._secret_pending and exp.kind is InputKind.SECRET:
                self._secret_pending = list(exp.players)  # the game asks: open the panels
            if player not in self._secret_pending:
                raise ValueError(
                    f"player {player!r} has no secret selection open (open for {self._secret_pending!r})"
                )
            self._secret_choices[player] = dict(selection)
            self._append("panel", "secret_confirmed", player, {})  # who, never what
            if all(p in self._secret_choices for p in self._secret_pending):
                self._reveal()
        self._emit()

    def feed(self, raw: Mapping[str, Any], source: str = "controller") -> None:
        """An input from elsewhere (a replayed scenario, a button panel's choice).

        A secret selection goes through the panel (kept hidden until everyone is in).
        """
        inp = Input.from_json(raw)
        if inp.kind is InputKind.SECRET:
            if inp.player is None:
                raise ValueError(f"a secret selection needs 'player', got {dict(raw)!r}")
            self.secret_select(inp.player, inp.data)
            return
        with self._lock:
            self._apply(inp, source)
        self._emit()

    def log_event(
        self, source: str, kind: str, player: str | None = None, data: Mapping[str, Any] | None = None
    ) -> None:
        """Append a free event (a controller note) and push it."""
        self._append(source, kind, player, data or {})
        self._emit()

    # -- internals -----------------------------------------------------------------------
    def _secret_order(self) -> list[str]:
        return list(self._secret_pending)

    def _reveal(self) -> None:
        choices = dict(self._secret_choices)
        self._secret_pending, self._secret_choices = [], {}
        self._append("panel", "reveal", None, {"selections": choices})
        if self._game.expects().kind is InputKind.SECRET:
            for p, sel in choices.items():
                self._apply(Input(InputKind.SECRET, p, sel), "panel")

    def _waiting_for(self, status: str, state: Mapping[str, Any]) -> str:
        if status == "waiting":
            return "the referee to start the game"
        if status == "paused":
            return "the referee to resume (paused)"
        result = state.get("result")
        if status == "over":
            if result and result.get("winners"):
                return "nothing: " + " and ".join(result["winners"]) + " won"
            return "nothing: the game was ended"
        if self._secret_pending:
            pending = [p for p in self._secret_pending if p not in self._secret_choices]
            return "secret selections from " + ", ".join(pending)
        q = self._question()
        if q is not None:
            return f"a referee to confirm reading {q['reading']}"
        if self._refusal is not None:
            return f"a referee to correct the readings ({self._refusal})"
        return describe_expectation(state.get("expects"))

    def _question(self) -> dict[str, Any] | None:
        for r in self._readings:
            if r["unsure"]:
                return {
                    "reading": r["id"],
                    "value": r["value"],
                    "kind": r["kind"],
                    "colour": r["colour"],
                    "confidence": r["confidence"],
                    "text": f"Is the {r['colour'] or ''} {r['kind']} ({r['id']}) a {r['value']}?",
                }
        return None

    def _maybe_apply_readings(self) -> None:
        if self._status != "playing" or not self._readings or self._question() is not None:
            return
        if any(r.get("applied") for r in self._readings):
            return  # this frame was already given to the game
        exp = self._game.expects()
        if exp.kind not in (InputKind.ROLL, InputKind.THROW):
            return
        player = self._reading_player or (exp.players[0] if exp.players else None)
        self._apply(self._readings_as_input(Input(exp.kind, player)), "camera")
        self._refusal = None
        self._readings_input = len(self._inputs) - 1
        for r in self._readings:
            r["applied"] = True

    def _readings_as_input(self, like: Input) -> Input:
        """The input the current readings make, of the same kind and player as ``like``."""
        dice = []
        for r in self._readings:
            die = {"kind": r["kind"], "value": r["value"]}
            for key in ("colour", "side", *GEOMETRY_KEYS):
                if r.get(key) is not None:
                    die[key] = r[key]
            if r["zones"]:
                die["zones"] = r["zones"]
            if r["stack_level"]:
                die["stack_level"] = r["stack_level"]
            dice.append(die)
        return Input(like.kind, like.player, {**like.data, "dice": dice})

    def _apply(self, inp: Input, source: str) -> None:
        outcomes = self._game.apply(inp)  # RuleError (a ValueError) leaves the game unchanged
        self._inputs.append(inp)
        self._append(source, "input", inp.player, inp.to_json())
        for o in outcomes:
            self._append("engine", o.event, o.player, dict(o.detail))

    def _reading(self, command: Mapping[str, Any]) -> dict[str, Any]:
        rid = command.get("reading")
        for r in self._readings:
            if r["id"] == rid:
                return r
        known = [r["id"] for r in self._readings]
        raise ValueError(f"reading {rid!r} is not in the latest frame (readings: {known})")

    def _confirm(self, command: Mapping[str, Any]) -> str:
        r = self._reading(command)
        r["unsure"] = False
        r["confirmed"] = True
        self._maybe_apply_readings()
        return f"reading {r['id']} confirmed as {r['value']}"

    def _set_value(self, command: Mapping[str, Any]) -> str:
        r = self._reading(command)
        value = command.get("value")
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"'value' must be an integer face, got {value!r}")
        faces = DieKind(r["kind"]).face_range(r.get("sides") or None)
        if value not in faces:
            raise ValueError(f"a {r['kind']} die cannot show {value!r} (faces {faces[0]}..{faces[-1]})")
        old, r["value"], r["unsure"], r["confirmed"] = r["value"], value, False, True
        idx = self._readings_input
        if r.get("applied") and idx is not None:
            # already given to the game: replay the log with the corrected roll in its place
            fixed = self._readings_as_input(self._inputs[idx])
            try:
                self._rebuild([*self._inputs[:idx], fixed, *self._inputs[idx + 1 :]])
            except RuleError as e:
                raise ValueError(
                    f"correcting {r['id']} from {old} to {value} makes the game's later inputs illegal: {e}"
                ) from None
            self._append(
                "admin", "reading_corrected", fixed.player, {"reading": r["id"], "from": old, "to": value}
            )
        else:
            self._maybe_apply_readings()
        self._frame = render_frame(self._readings)
        return f"reading {r['id']} set from {old} to {value}"

    def _rebuild(self, inputs: Sequence[Input]) -> None:
        game = make_game(self.game_name, [p["name"] for p in self.players], self.options, self.seed)
        for inp in inputs:
            game.apply(inp)
        self._game, self._inputs = game, list(inputs)

    def _undo(self, command: Mapping[str, Any]) -> str:
        if not self._inputs:
            raise ValueError("nothing to undo: no input has been applied to this game yet")
        last = self._inputs[-1]
        if self._readings_input == len(self._inputs) - 1:
            self._readings_input = None
            for r in self._readings:
                r["applied"] = False
        self._rebuild(self._inputs[:-1])
        self._append("admin", "undone", last.player, last.to_json())
        return f"undid {last.kind.value} from {last.player or 'the table'}"

    def _start(self, command: Mapping[str, Any]) -> str:
        if self._status == "playing":
            raise ValueError("the game is already playing")
        if self._status == "over":
            raise ValueError("the game is over; set up a new game to play again")
        resumed = self._status == "paused"
        self._status = "playing"
        if self._game.expects().kind is InputKind.START:
            self._apply(Input(InputKind.START), "admin")
        self._maybe_apply_readings()
        return "game resumed" if resumed else "game started"

    def _pause(self, command: Mapping[str, Any]) -> str:
        if self._status != "playing":
            raise ValueError(f"only a playing game can be paused (it is {self._status})")
        self._status = "paused"
        return "game paused"

    def _end(self, command: Mapping[str, Any]) -> str:
        if self._status == "over":
            raise ValueError("the game is already over")
        self._status = "over"
        return "game ended by the referee"

    def _admin_input(self, command: Mapping[str, Any]) -> str:
        inp = Input.from_json(command.get("input"))
        if inp.kind is InputKind.SECRET:
            raise ValueError("secret selections come from the players' button panels, not the admin page")
        if self._status != "playing":
            raise ValueError(f"inputs are taken only while the game is playing (it is {self._status})")
        self._apply(inp, "admin")
        return f"{inp.kind.value} applied"
