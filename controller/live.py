"""The table loop: a frame source through the motion gate into the ``Table``.

Shared by ``dicetable run`` (a configured table) and ``dicetable demo`` (a
recorded session with scripted button presses).  The display is served by
uvicorn in a background thread; the LED matrix follows every snapshot.
"""

from __future__ import annotations

import contextlib
import json
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.config import DisplaySection, TableConfig
from controller.eventlog import EventLog, LogError, LogWriteError
from controller.script import Scripted
from controller.table import Table, TableError
from engine import Input
from hardware.buttons import BUTTONS

log = logging.getLogger("dicetable.live")

#: How long the dice must lie still before the table scores them (the motion gate's ``settle_s``).
#: 0.2 s, not the gate's default 0.4 s: the wait is most of the rest -> score latency (issue 32), and
#: with 0.2 s every motion fixture still gives exactly its true events
#: (tests/hardware/test_motion.py) and every recorded session settles once per throw.
SETTLE_S = 0.2
#: a throw still for this long is read while the gate waits (controller.early_read); the settled frame
#: is then scored at once.  Not at its first still frame: a die that rocks would be read again and again.
EARLY_S = SETTLE_S / 2


def _script_line(obj: Any) -> Scripted:
    """One script line (see tests/fixtures/sessions/README.md); raises KeyError/TypeError/ValueError."""
    if not isinstance(obj, dict):
        raise TypeError("each line must be a JSON object")
    t = float(obj["t"])
    source = str(obj.get("source", "button"))
    if "input" in obj:
        return Scripted(t, source, input=Input.from_json(obj["input"]))
    if "correction" in obj:
        correction = obj["correction"]
        if isinstance(correction, dict) and "action" not in correction and "thrower" in correction:
            correction = {"action": "set_thrower", **correction}  # the players' answer to "who threw it?"
        if not isinstance(correction, dict) or "action" not in correction:
            raise ValueError("'correction' must be an object with 'action'")
        return Scripted(t, "admin", correction=dict(correction), who=str(obj.get("who", "referee")))
    if "press" in obj:
        press, hold = str(obj["press"]), float(obj.get("hold", 0.0))
        if press not in BUTTONS:
            raise ValueError(f"'press' must be one of {list(BUTTONS)}, got {press!r}")
        if not hold >= 0:
            raise ValueError(f"'hold' must be >= 0 seconds, got {hold!r}")
        return Scripted(t, "button", player=str(obj["player"]), press=press, hold=hold)
    raise KeyError("one of 'input', 'correction' or 'press'")


def load_script(path: Path) -> list[Scripted]:
    """A recorded session's scripted inputs, corrections and presses (``script.jsonl``).

    Errors name the file, the line and what was expected.
    """
    out: list[Scripted] = []
    if not path.is_file():
        return out
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(_script_line(json.loads(line)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            raise TableError(
                f'{path}:{no}: expected {{"t": seconds, and "input", "correction" or "press"}}, '
                f"got {line[:120]!r} ({e})"
            ) from None
    return sorted(out, key=lambda s: s.t)


def display_board(table: Table) -> dict[str, Any] | None:
    """The board the table is configured with, as the display draws it (``display.boards``'s layout
    form: outline, zones, centre line in mm, every shape as its outline polygon); None without a
    configured board (the display then draws the game's shipped example, if any)."""
    geometry = getattr(table, "geometry", None)
    if geometry is None:
        return None
    board = geometry.board

    def points(poly: Any) -> list[list[float]]:
        return [[round(float(x), 2), round(float(y), 2)] for x, y in poly]

    line = board.centre_line
    return {
        "name": board.name,
        "outline": {"polygon": points(board.outline)},
        "zones": [
            {"name": z.name, "multiplier": z.multiplier, "polygon": points(z.polygon)} for z in board.zones
        ],
        "centre_line": None if line is None else {"a": list(line.a), "b": list(line.b)},
    }


def table_app(
    table: Table, host: str, admin_token: str | None, allowed_hosts: list[str] | None = None
) -> tuple[Any, Any]:
    """The display app ``dicetable run`` serves for ``table`` on ``host``, and its hub.

    Admin is remote with the token (the README's promise) and loopback-only without one; a weak
    token is refused on a host beyond this machine (it would guard admin over the network).
    ``allowed_hosts``: the names requests may carry in their Host header (default: the host and
    this machine's names).
    """
    from display.admin import is_loopback_host, weak_token_reason
    from display.app import create_app
    from display.hub import Hub

    if admin_token is not None and not is_loopback_host(host):
        weak = weak_token_reason(admin_token)
        if weak:
            raise TableError(f"will not serve admin on {host!r}: the admin token is too weak ({weak})")
    hub = Hub()
    table.listeners.append(hub.notify)
    hosts = allowed_hosts if allowed_hosts is not None else DisplaySection(host=host).hosts()
    app = create_app(
        table,
        hub,
        admin_token=admin_token,
        loopback_only_admin=False,
        board=display_board(table),
        allowed_hosts=hosts,
        language=table.cfg.display.language,
    )
    return app, hub


@contextlib.contextmanager
def serve_display(
    table: Table,
    host: str,
    port: int,
    admin_token: str | None,
    allowed_hosts: list[str] | None = None,
    *,
    trusted_proxies: list[str] | None = None,
) -> Iterator[Any]:
    """Serve the table's display (``table_app``) on host:port in a background thread while the block runs,
    with the guards every server shares (``display.server.server_config``; ``trusted_proxies``: the
    reverse proxies whose X-Forwarded-For is believed, none by default)."""
    import uvicorn

    from display.server import server_config

    app, hub = table_app(table, host, admin_token, allowed_hosts)
    config = server_config(app, host, port, lifespan="on", forwarded_allow_ips=trusted_proxies)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="display", daemon=True)
    thread.start()
    for _ in range(100):
        if server.started or not thread.is_alive():
            break
        time.sleep(0.05)
    if not server.started:
        raise TableError(f"could not serve the display on http://{host}:{port} (is the port in use?)")
    hub.notify(table.snapshot())
    try:
        yield hub
    finally:
        server.should_exit = True
        thread.join(timeout=5)


def led_listener(cfg: TableConfig) -> Callable[[dict[str, Any]], None] | None:
    """A snapshot listener that drives the LED matrix, or None when no LED support is present."""
    try:
        from hardware.feedback import LedFeedback
    except ImportError as e:
        log.warning("LED matrix unavailable: %s", e)
        return None
    return LedFeedback.open(cfg)


def play(
    table: Table,
    source: Any,
    *,
    progress: Callable[[float, str], None] | None = None,
    total_t: float | None = None,
    gate: Any = None,
    past_the_end: bool = False,
) -> None:
    """Run frames through the gate into the table until the source ends or the game is over.

    ``past_the_end``: go on after a game is over (a tournament table: the next round's pairing starts
    the next game at this table, controller/pairings.py).

    A table resumed from its log on a recorded session first runs the frames
    it had already seen through the motion gate alone (cheap), so the gate is
    where it was, and skips the script it had already consumed.
    """
    from vision.motion import MotionGate, RollState
    from vision.tumble import ThrowRecorder

    gate = gate or MotionGate(settle_s=SETTLE_S)
    # the frames of each throw, for the tumble check ([vision] tumble_check)
    motion = ThrowRecorder() if table.cfg.vision.tumble_check else None
    point = table.resume_point if str(getattr(source, "name", "")).startswith("recorded:") else None
    if point is not None:
        table.skip_to(point)
    t_last = 0.0
    warm = True  # the reader's nets loaded and run once on the first frame, not on the first throw
    # a camera that takes a full-resolution still of each settled throw (hardware.stills, issue 43):
    # the throw is read from the still, so it is not read early from the gate's frame
    stills = bool(getattr(source, "takes_stills", False))
    while True:
        frame = source.read()
        if frame is None:
            break
        if warm:
            warm = False
            table.perceiver.warm(frame.image_bgr)
        t_last = frame.t
        try:
            upd = gate.update(frame.image_bgr, frame.t)
        except (ValueError, cv2.error) as e:  # a corrupt frame (wrong shape, time going back): skip it
            log.warning("frame at t=%.2f skipped: %s", frame.t, e)
            continue
        still = upd.state in (RollState.EMPTY, RollState.SETTLED)
        if point is not None and _seen(point, frame.t):
            if motion is not None:
                motion.add(frame.image_bgr, still, frame.t)
            continue  # handled before the restart
        table.tick(frame.t)
        early = upd.resting_since is not None and frame.t - upd.resting_since >= EARLY_S - 1e-6
        reads = early or upd.settled_now or upd.changed
        if getattr(gate, "has_background", True):
            # the empty table: the gate's first empty frame, then learnt again only from a still
            # frame that shows no die (controller.empty_learn), never whatever the gate called empty
            moving = upd.moving_fraction >= getattr(gate, "moving_min_frac", 0.0)
            learnt = table.see_board(
                frame.image_bgr, frame.t, upd.state, getattr(gate, "empty_frame", None), moving
            )
            if reads:  # judged on the learner's thread: its verdict before the throw is read
                learnt = table.settle_board() or learnt
            relearnt = learnt and table.empty_table.source == "re-learnt"
            picture = table.empty_table.picture
            if (
                relearnt
                and picture is not None
                and upd.state is not RollState.EMPTY
                and hasattr(gate, "set_background")
            ):
                gate.set_background(picture)  # the gate too: a new light is no throw, no arm
        if early and not stills:  # still for half the wait, not yet settled: read it while it settles
            table.read_early(frame.image_bgr, upd.resting_since)
        if upd.settled_now or upd.changed:
            table.on_settled(
                frame.image_bgr,
                upd.t_rest,
                frame.t,
                motion=motion if upd.settled_now else None,  # a nudge is not a throw
                still=_still(source, frame.t) if stills and table.expects_throw() else None,
            )
        if motion is not None:
            motion.add(frame.image_bgr, still, frame.t)
        if progress is not None:
            progress(frame.t, table.waiting_for())
        if table.status == "over" and not past_the_end:
            break
    table.tumble.wait()  # the last throw's verdict
    table.settle_board()  # and the last empty-table judging's
    if table.status == "playing":
        table.finish(t_last)


def _still(source: Any, t: float) -> np.ndarray | None:
    """The full-resolution still ``source`` takes of the throw settled at ``t`` (None: the table reads
    the gate's frame; a camera that fails to take one is said in the log, and the gate's frame read)."""
    from hardware.frames import FrameSourceError
    from hardware.stills import still_of

    try:
        got = still_of(source)
    except (FrameSourceError, OSError, ValueError, cv2.error) as e:
        log.warning("no still of the throw at t=%.2f (%s): the gate's frame is read", t, e)
        return None
    return None if got is None else got.image_bgr


def _seen(point: Mapping[str, Any], t: float) -> bool:
    """Whether the frame at ``t`` was fully handled before the restart (see ``Table._mark``)."""
    t_mark = float(point.get("t", 0.0))
    return t < t_mark or (t == t_mark and point.get("via") == "camera")


def open_table(cfg: TableConfig, db: Path | None = None) -> tuple[Table, EventLog]:
    path = db or cfg.database_path()
    try:
        ev = EventLog(path)
    except LogError as e:
        raise TableError(str(e)) from None
    try:
        if cfg.mqtt is not None and cfg.mqtt.pairings:  # a paired table resumes its paired game
            from controller.pairings import last_paired_config

            return Table(last_paired_config(cfg, ev), ev), ev
        return Table(cfg, ev), ev
    except (LogError, LogWriteError) as e:
        ev.close()
        raise TableError(str(e)) from None
    except TableError:
        ev.close()
        raise


def open_camera(spec: str, table: Table, realtime: bool = False) -> Any:
    """The frame source for ``spec``; a live camera is wrapped to wait for it when it is unplugged.
    A camera that can take a still of each settled throw takes it at ``[camera] still``, its gate
    watching ``[camera] video`` (`hardware.stills.open_with_stills`, issue 43).

    ``realtime``: a recording (``recorded:DIR`` or a video file) plays at its own recorded pace, as a
    live camera would, instead of as fast as it can be read."""
    from hardware.frames import FrameSourceError, ReconnectingSource
    from hardware.stills import open_with_stills
    from hardware.urls import mask_url, mask_urls

    def status(message: str) -> None:
        table.notice = message
        table._emit()

    still, video = table.cfg.camera.sizes()
    try:
        if spec.startswith("recorded:"):
            return open_with_stills(spec, still, video, realtime=realtime)
        if spec.startswith("fake"):
            return open_with_stills(spec, still, video)
        return ReconnectingSource(lambda: open_with_stills(spec, still, video), on_status=status)
    except (ValueError, OSError, FrameSourceError) as e:
        message = mask_urls(str(e))  # the source's own sentences name the camera already
        named = message if message.startswith("camera ") else f"camera {mask_url(spec)!r}: {message}"
        raise TableError(named) from None


def publish_to_hall(cfg: TableConfig, table: Table) -> Any:
    """The started MQTT publisher of ``[mqtt]`` (a TableError when its password file cannot be read)."""
    from controller.mqtt_settings import start_publisher

    assert cfg.mqtt is not None
    try:
        publisher = start_publisher(cfg.mqtt, table)
    except ValueError as e:
        raise TableError(str(e)) from None
    print(f"table {cfg.table.id}: publishing to {publisher.link.describe()}", flush=True)
    return publisher


def hold_display(table: Table, wait: Callable[[], None]) -> None:
    """The recording ended before the game did: say so on the page and keep it up until ``wait`` returns
    (Ctrl-C), so the people at the table see where the game stopped instead of a page that vanished."""
    if table.status == "over":
        return
    table.tell(
        "the recording ended; the game stops here (the display stays up until Ctrl-C)", "recording_ended"
    )
    table._emit()
    print(f"table {table.cfg.table.id}: {table.notice}", flush=True)
    restore = _stop_on_signals()
    try:
        with contextlib.suppress(KeyboardInterrupt):
            wait()
    finally:
        restore()


def _stop_on_signals() -> Callable[[], None]:
    """Ctrl-C (SIGINT) and a service manager's stop (SIGTERM) end the wait, also in a process started
    with SIGINT ignored (a shell's background job is: Python then never raises KeyboardInterrupt, and
    `run --hold` could not be stopped but by SIGKILL). Returns what puts the old handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        for sig, handler in old.items():
            signal.signal(sig, handler)

    return restore


def _until_interrupted() -> None:
    while True:
        time.sleep(3600)


def run_live(
    cfg: TableConfig,
    camera: str | None = None,
    *,
    serve: bool = True,
    hold: bool = False,
    realtime: bool = False,
) -> dict[str, Any]:
    """``dicetable run``: the configured table until its game ends, the recording ends, or Ctrl-C.

    With ``hold`` (and the display served) a recording that ends before the game keeps the display up,
    saying so, until Ctrl-C. With ``realtime`` a recording plays at its recorded pace."""
    table, ev = open_table(cfg)
    led = led_listener(cfg)
    if led is not None:
        table.listeners.append(led)
    spec = camera or cfg.camera.source
    try:
        source = open_camera(spec, table, realtime)
        if spec.startswith("recorded:"):
            table.pending = load_script(Path(spec.split(":", 1)[1]) / "script.jsonl")
        with contextlib.ExitStack() as stack:
            stack.enter_context(source)
            paired = cfg.mqtt is not None and cfg.mqtt.pairings
            if cfg.mqtt is not None:
                publisher = publish_to_hall(cfg, table)
                stack.callback(publisher.stop, wait_s=10.0)
                if paired:
                    from controller.pairings import follow_pairings

                    stack.callback(follow_pairings(table, publisher, cfg).stop)
            if serve:
                d = cfg.display
                stack.enter_context(
                    serve_display(
                        table, d.host, d.port, d.admin_token, d.hosts(), trusted_proxies=d.trusted_proxies
                    )
                )
                print(
                    f"table {cfg.table.id}: {cfg.table.game} on http://{cfg.display.host}:{cfg.display.port}"
                )
            if table.resumed:
                print(f"resumed game {table.game_no} from {ev.path}", flush=True)
            play(table, source, past_the_end=paired)
            if table.unwritten:  # never "done" with input the log holds not (issue 47 item 3)
                raise TableError(
                    f"{table.notice or 'the event log cannot be written'}; the recording ended with "
                    f"{table.unwritten} input(s) the log could not write (a held step and the throws "
                    "after it): they are not saved, and the game was not played to its end"
                )
            if hold and serve and spec.startswith("recorded:"):
                hold_display(table, _until_interrupted)
        result = table.game.result()
        summary = {
            "scores": table.game.scores(),
            "status": table.status,
            "winners": list(result.winners) if result else [],
            "event_log": str(ev.path),
        }
        print(json.dumps(summary), flush=True)
        return summary
    finally:
        if led is not None and hasattr(led, "close"):
            led.close()
        table.close()
        ev.close()
