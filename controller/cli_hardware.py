"""`dicetable` commands of the hardware area (registered by controller.cli): record, hw-check."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import typer

CAMERA_HELP = (
    "Frame source: recorded:DIR, recorded:VIDEO.mp4, v4l2:N, usb:N, picam, a network camera "
    "(http://HOST:PORT/PATH for MJPEG, rtsp://HOST:PORT/PATH) or fake."
)


def _fail(message: str) -> typer.Exit:
    from controller.cli_errors import fail

    return fail(message)


def _load_config(path: Path | None) -> Any:
    from controller.config import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as e:
        raise _fail(str(e)) from None


def _open_live(spec: str, live_retries: int = 5, sizes: tuple[Any, Any] | None = None) -> Any:
    """The camera for ``spec`` (a live one waited for), raising ValueError or FrameSourceError;
    ``sizes``: (still, video) for a camera that takes stills (`hardware.stills.open_with_stills`)."""
    from hardware.frames import ReconnectingSource, is_live, open_source
    from hardware.stills import open_with_stills

    def opener() -> Any:
        return open_source(spec) if sizes is None else open_with_stills(spec, *sizes)

    if is_live(spec):
        return ReconnectingSource(opener, max_attempts=live_retries)
    return opener()


def _check_pixels(cfg: Any, snapshot: Any, source: Any, layout: Any, fake: bool, report: Any) -> None:
    """hw-check's die size in pixels (controller.pixels): with a board (``--board`` or the config's)
    and the camera's calibration (the config's; with ``--fake`` and none, the Camera Module 3's
    datasheet one); the still's size from a still the camera takes, else ``[camera] still``."""
    from calibration.board import load_board
    from calibration.camera import load_calibration
    from calibration.nominal import nominal_calibration
    from controller import hwcheck
    from controller.perceive import game_kinds
    from hardware.stills import still_of

    board = layout
    if board is None and cfg.board.layout:
        board = load_board(cfg.board.layout)
    h, w = snapshot.shape[:2]
    if cfg.board.calibration:
        calibration = load_calibration(cfg.board.calibration)
    elif fake:
        calibration = nominal_calibration("pi-camera-3", w, h)
    else:
        calibration = None
    if board is None or calibration is None:
        report.ok.append(
            "die size in pixels: not checked (it needs the board's layout and the camera's calibration: "
            "[board] layout and calibration, or --board)"
        )
        return
    taken = still_of(source)
    configured = cfg.camera.sizes()[0]
    still: tuple[int, int] | None = None
    if taken is not None:
        still = (taken.image_bgr.shape[1], taken.image_bgr.shape[0])
    elif isinstance(configured, tuple) and configured[0] > w:
        still = (configured[0], round(configured[0] * h / w))  # the camera's view at the still's width
    kinds = tuple(cfg.table.kinds) if cfg.table.kinds else game_kinds(cfg.table.game)
    numbered = any(k in ("d10", "d10p", "d20") for k in kinds)
    hwcheck.check_pixels(snapshot, still, board, calibration, cfg.dice.sizes_mm or [16.0], numbered, report)


def _open_camera(spec: str, live_retries: int = 5, sizes: tuple[Any, Any] | None = None) -> Any:
    """``sizes``: (still, video) for a camera that takes stills (`hardware.stills.open_with_stills`)."""
    from hardware.frames import FrameSourceError, ReconnectingSource, is_live, open_source
    from hardware.stills import open_with_stills
    from hardware.urls import mask_urls

    def opener() -> Any:
        return open_source(spec) if sizes is None else open_with_stills(spec, *sizes)

    try:
        if is_live(spec):
            return ReconnectingSource(opener, max_attempts=live_retries)
        return opener()
    except (ValueError, FrameSourceError) as e:
        raise _fail(mask_urls(str(e))) from None


def record_cmd(
    out: Path = typer.Option(..., "--out", help="Folder to write the session to (frames.csv + images)."),
    camera: str = typer.Option("v4l2:0", help=CAMERA_HELP),
    seconds: float | None = typer.Option(
        None, min=0.0, help="Stop after this many seconds (default: Ctrl-C)."
    ),
    frames: int | None = typer.Option(None, min=1, help="Stop after this many frames."),
    image_format: str = typer.Option("jpg", "--format", help="jpg or png."),
    quality: int = typer.Option(90, min=1, max=100, help="JPEG quality."),
    still: str = typer.Option(
        "max",
        help="The still saved of each settled throw (a camera that takes stills: picam, v4l2/usb): "
        "WxH or max (its largest).",
    ),
    video: str = typer.Option("1280x960", help="The video frames recorded (the motion gate's): WxH."),
) -> None:
    """Record a camera (or any source) to a session folder that `--camera recorded:DIR` plays back;
    a camera that takes stills also saves the still of each settled throw (stills.csv), replayed too."""
    from hardware.frames import FrameSourceError, record
    from hardware.stills import check_sizes, parse_size, record_with_stills
    from hardware.urls import mask_url, mask_urls

    shown = mask_url(camera)  # the address as it may be printed and written: no password, no token
    if image_format not in ("jpg", "png"):
        raise _fail(f"--format must be jpg or png, got {image_format!r}")
    if (out / "frames.csv").exists():
        raise _fail(f"{out} already holds a recorded session (frames.csv); choose another --out folder")
    try:
        big, small = parse_size(still, "--still"), parse_size(video, "--video", allow_max=False)
        assert isinstance(small, tuple)
        check_sizes(big, small)
    except ValueError as e:
        raise _fail(str(e).replace("camera.still", "--still").replace("camera.video", "--video")) from None
    source = _open_camera(camera, sizes=(big, small))
    started = time.monotonic()
    kept = 0
    try:
        if getattr(source, "takes_stills", False):
            from controller.live import SETTLE_S
            from vision.motion import MotionGate

            n, kept = record_with_stills(
                source,
                out,
                MotionGate(settle_s=SETTLE_S),
                seconds=seconds,
                max_frames=frames,
                image_format=image_format,
                jpeg_quality=quality,
                metadata={"camera": shown},
            )
        else:
            n = record(
                source,
                out,
                seconds=seconds,
                max_frames=frames,
                image_format=image_format,
                jpeg_quality=quality,
                metadata={"camera": shown},
            )
    except KeyboardInterrupt:
        n = sum(1 for _ in (out / "frames.csv").open()) - 1
    except (FrameSourceError, OSError) as e:
        raise _fail(mask_urls(f"recording {shown} to {out}: {e}")) from None
    skipped = int(getattr(source, "refused_count", 0))
    note = f" ({skipped} frame(s) skipped, too large to read safely)" if skipped else ""
    stills = f" and {kept} still(s) of settled throws" if kept else ""
    typer.echo(
        f"recorded {n} frames{stills} from {shown} to {out} in {time.monotonic() - started:.1f} s{note}"
    )


def hw_check_cmd(
    config: Path | None = typer.Option(None, "--config", help="The table.toml with pins, LEDs and camera."),
    camera: str | None = typer.Option(None, help=CAMERA_HELP + " Default: the config's camera."),
    leds: str | None = typer.Option(
        None, help="LED matrix URL (device, pyserial URL or emu://). Default: config."
    ),
    board: Path | None = typer.Option(None, help="A board layout (boards/*.toml) to find its ArUco markers."),
    out: Path = typer.Option(Path("hw-check"), help="Folder for the snapshot and LED pictures."),
    timeout: float = typer.Option(20.0, min=0.1, help="Seconds to wait for each button press."),
    fake: bool = typer.Option(
        False, "--fake", help="Use fake buttons, LEDs and camera; run without a person."
    ),
) -> None:
    """Walk through the wiring: press each button, watch a test pattern, see a camera snapshot."""
    from controller import hwcheck
    from hardware.leds import open_matrix
    from hardware.ledwire import LedError
    from hardware.urls import mask_url, mask_urls

    cfg = _load_config(config)
    out.mkdir(parents=True, exist_ok=True)
    report = hwcheck.CheckReport()
    clock, sleep = time.monotonic, time.sleep
    pins = {p.name: p.pins.model_dump() for p in cfg.players}  # --fake too: the wiring as configured
    panels, tell = _panels(cfg, pins, fake, clock)
    try:
        hwcheck.check_buttons(list(panels.values()), pins, tell, clock, sleep, report, timeout_s=timeout)
    finally:
        for panel in panels.values():
            panel.close()

    url = "emu://hw-check" if fake else (leds or cfg.leds.url)
    try:
        matrix = open_matrix(
            url,
            cfg.leds.width,
            cfg.leds.height,
            protocol=cfg.leds.protocol,
            wiring=cfg.leds.wiring,
            origin=cfg.leds.origin,
            baud=2_000_000 if fake else cfg.leds.baud,  # an emulated line has no UART to wait for
            max_fps=60,
        )
    except LedError as e:
        raise _fail(str(e)) from None
    with matrix:
        ask = (lambda q: hwcheck.emulated_matrix_looks_right(matrix)) if fake else _ask
        hwcheck.check_leds(matrix, ask, report, out)

    layout = _board(board)
    spec = "fake" if fake and camera is None else camera or cfg.camera.source
    try:
        if fake and camera is None and layout is not None:
            source = _board_camera(layout)
        else:
            source = _open_live(spec, sizes=cfg.camera.sizes())
        with source:
            snapshot = hwcheck.check_camera(source, report, out, layout)
            if snapshot is not None:
                _check_pixels(cfg, snapshot, source, layout, fake, report)
    except Exception as e:  # a camera that cannot be opened or read: a failed check, then the summary
        report.problems.append(mask_urls(f"camera {mask_url(spec)!r}: {e}"))

    for line in report.lines():
        typer.echo(line)
    typer.echo(report.summary())
    if not report.passed:
        raise typer.Exit(1)


def _panels(
    cfg: Any, pins: dict[str, dict[str, int | None]], fake: bool, clock: Any
) -> tuple[dict[str, Any], Any]:
    from controller.hwcheck import ScriptedPresser
    from hardware.buttons import BUTTONS, FakeButtonPanel, GpioButtonPanel

    if fake:
        fakes = {p.name: FakeButtonPanel(p.name, clock=clock) for p in cfg.players}
        for name, wired in pins.items():  # a player with no pins configured: every button, made-up pins
            if not any(pin is not None for pin in wired.values()):
                pins[name] = {b: 100 + i for i, b in enumerate(BUTTONS)}
        return fakes, _Both(ScriptedPresser(fakes, clock))
    _set_pin_factory(cfg.buttons.pin_factory)
    panels = {}
    for p in cfg.players:
        fitted = {b: pin for b, pin in pins[p.name].items() if pin is not None}
        if fitted:
            try:
                panels[p.name] = GpioButtonPanel(p.name, fitted, clock=clock)
            except ValueError as e:
                raise _fail(str(e)) from None
    return panels, typer.echo


class _Both:
    """Print the prompt, then let the scripted presser act on it."""

    def __init__(self, presser: Any) -> None:
        self.presser = presser

    def __call__(self, message: str) -> None:
        typer.echo(message)
        self.presser(message)


def _set_pin_factory(name: str) -> None:
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    from controller.panels import PanelError, _real_factory

    try:
        Device.pin_factory = MockFactory() if name == "mock" else _real_factory(name)
    except PanelError as e:  # the pin library is missing or this is not a Pi: what to do about it
        raise _fail(str(e)) from None


def _ask(question: str) -> bool:
    return bool(typer.confirm(question, default=True))


def _board(path: Path | None) -> Any:
    if path is None:
        return None
    try:
        from calibration.board import load_board
    except ImportError as e:
        raise _fail(f"board layouts need the calibration package: {e}") from None
    try:
        return load_board(path)
    except (ValueError, OSError) as e:
        raise _fail(str(e)) from None


def _board_camera(layout: Any) -> Any:
    """For --fake with --board: a camera that sees the printed board from straight above."""
    import cv2

    from calibration.printing import render_board_image
    from hardware.frames import FakeSource

    image: Any = render_board_image(layout, px_per_mm=2.0)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return FakeSource([image] * 4, name="fake-board")


def led_patterns_cmd(
    out: Path = typer.Option(..., "--out", help="Folder for one PNG per LED pattern."),
    width: int = typer.Option(16, min=4, max=128),
    height: int = typer.Option(16, min=4, max=128),
    protocol: str = typer.Option("adalight", help="adalight or tpm2 (the emulated wire in between)."),
) -> None:
    """Render every LED pattern through the emulated matrix to PNG files (for the docs)."""
    from hardware import patterns as pt
    from hardware.leds import open_matrix
    from hardware.ledwire import LedError

    w, h = width, height
    shows = {
        "turn": [pt.turn(w, h, "green", 2)],
        "roll-order": [pt.roll_order(w, h, [["red"], ["blue", "yellow"], ["green"]])],
        "confirmed": [pt.confirmed(w, h, ["red", "blue", "green"], [True, False, True])],
        "reveal": pt.reveal(w, h, ["red", "blue", "green"])[-2:-1],
        "damage": pt.damage(w, h, 30)[-1:],
        "ko": pt.ko(w, h, "blue")[:1],
        "winner": pt.winner(w, h, ["yellow"])[1:2],
        "question": [pt.question(w, h)],
        "text": pt.scrolling_text(w, h, "DICE 42")[w : w + 1],
    }
    out.mkdir(parents=True, exist_ok=True)
    try:
        matrix = open_matrix("emu://led-patterns", w, h, protocol=protocol, baud=2_000_000)
    except LedError as e:
        raise _fail(str(e)) from None
    with matrix:
        for name, frames in shows.items():
            matrix.play(frames)
            path = matrix.emulator.save_png(out / f"{name}.png")
            typer.echo(f"wrote {path}")


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main app."""
    app.command("record")(record_cmd)
    app.command("hw-check")(hw_check_cmd)
    app.command("led-patterns")(led_patterns_cmd)
