"""``dicetable hw-check``: walk a person through the table's wiring, one device at a time.

1. Buttons: each player presses each fitted button when asked; a press of the
   wrong button is named (with its pin) so a swapped wire is found at once.
2. LEDs: a test pattern (red top-left, green top-right, blue bottom-left, white
   bottom-right, and a run along the strip) shows whether width, height,
   wiring and origin are right.
3. Camera: one snapshot is saved; with a board layout, its ArUco markers are
   found and drawn on it.

Every step talks to the ``ask`` callback (a person at a terminal, or a script
with ``--fake``), and the result is a :class:`CheckReport` of plain lines.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.buttons import ButtonPanel, FakeButtonPanel, Press
from hardware.frames import FrameSource, FrameSourceError
from hardware.leds import LedMatrix
from hardware.patterns import blank, draw_text

log = logging.getLogger(__name__)

CORNERS = {
    "top-left": (255, 0, 0),
    "top-right": (0, 255, 0),
    "bottom-left": (0, 0, 255),
    "bottom-right": (255, 255, 255),
}


@dataclass
class CheckReport:
    ok: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        """One line at the end: what passed and what failed."""
        verdict = "all passed" if self.passed else f"{len(self.problems)} failed"
        return f"hw-check: {len(self.ok)} passed, {len(self.problems)} failed ({verdict})"

    def lines(self) -> list[str]:
        return (
            [f"ok: {m}" for m in self.ok]
            + [f"PROBLEM: {m}" for m in self.problems]
            + [f"wrote: {p}" for p in self.files]
        )


# -- buttons -----------------------------------------------------------------------------------


def check_buttons(
    panels: Sequence[ButtonPanel],
    pins: Mapping[str, Mapping[str, int | None]],
    tell: Callable[[str], None],
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    report: CheckReport,
    timeout_s: float = 20.0,
) -> None:
    """Ask every player (the keys of ``pins``) for each fitted button and wait for its press."""
    by_player = {p.player: p for p in panels}
    for player, player_pins in pins.items():
        fitted = [b for b, pin in player_pins.items() if pin is not None]
        panel = by_player.get(player)
        if not fitted or panel is None:
            report.problems.append(f"{player}: no button pins configured (set [players.pins] in table.toml)")
            continue
        panel.poll(clock())  # forget anything pressed before
        for button in fitted:
            pin = player_pins[button]
            tell(f"{player}: press {button.upper()} (BCM {pin})")
            line = _wait_press(panel, button, clock, sleep, timeout_s)
            (report.ok if line == "pressed" else report.problems).append(
                f"{player} {button} (BCM {pin}): {line}"
            )


def _wait_press(
    panel: ButtonPanel,
    button: str,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    timeout_s: float,
) -> str:
    t0 = clock()
    while clock() - t0 < timeout_s:
        for e in panel.poll(clock()):
            if e.kind is Press.PRESS:
                if e.button == button:
                    return "pressed"
                return f"got {e.button.upper()} instead: are the wires of {button} and {e.button} swapped?"
        sleep(0.02)
    return f"no press within {timeout_s:g} s: check the wire, the pin number and the ground"


# -- LEDs --------------------------------------------------------------------------------------


def led_test_frames(width: int, height: int) -> list[np.ndarray]:
    """Corners in four colours, then a dot running along the first row and column, then 'OK'."""
    corners = blank(width, height)
    corners[0, 0], corners[0, -1] = CORNERS["top-left"], CORNERS["top-right"]
    corners[-1, 0], corners[-1, -1] = CORNERS["bottom-left"], CORNERS["bottom-right"]
    frames = [corners]
    for x in range(width):
        f = corners.copy()
        f[0, x] = (255, 160, 0)
        frames.append(f)
    for y in range(height):
        f = corners.copy()
        f[y, 0] = (255, 160, 0)
        frames.append(f)
    frames.append(draw_text(corners.copy(), "OK", (0, 255, 0)))
    return frames


def check_leds(
    matrix: LedMatrix, ask: Callable[[str], bool], report: CheckReport, out_dir: Path | None
) -> None:
    frames = led_test_frames(matrix.width, matrix.height)
    sent = matrix.play(frames)
    matrix.show(frames[0])  # leave the corners on while the person looks
    if sent == 0 or not matrix.connected:
        report.problems.append(
            f"LED matrix {matrix.url}: no frame could be sent (is it plugged in? right port?)"
        )
        return
    emu = matrix.emulator
    if emu is not None and out_dir is not None:
        report.files.append(emu.save_png(out_dir / "leds.png"))
    question = (
        "LEDs: is the top-left corner RED, top-right GREEN, bottom-left BLUE and bottom-right WHITE, "
        "and did an orange dot run along the top row and down the left column?"
    )
    if ask(question):
        report.ok.append(
            f"LED matrix {matrix.url}: {matrix.width}x{matrix.height}, corners and direction right"
        )
    else:
        report.problems.append(
            f"LED matrix {matrix.url}: pattern looked wrong: check leds.width/height, leds.wiring "
            "(row-major or serpentine) and leds.origin (the corner where the strip starts)"
        )


def emulated_matrix_looks_right(matrix: LedMatrix) -> bool:
    """What a person would answer, judged from the emulated receiver (for ``--fake``)."""
    emu = matrix.emulator
    image = None if emu is None else emu.last_image()
    if image is None:
        return False
    return all(
        tuple(int(v) for v in image[y, x]) == CORNERS[name]
        for name, (y, x) in {
            "top-left": (0, 0),
            "top-right": (0, -1),
            "bottom-left": (-1, 0),
            "bottom-right": (-1, -1),
        }.items()
    )


# -- camera ------------------------------------------------------------------------------------


def check_camera(
    source: FrameSource, report: CheckReport, out_dir: Path, board: Any = None, warmup_frames: int = 3
) -> np.ndarray | None:
    """The camera's snapshot (written to ``out_dir``; its markers drawn with ``board``), returned for
    the pixel check (`check_pixels`); None when it gave none."""
    frame = None
    try:
        for _ in range(warmup_frames + 1):  # let exposure settle on a live camera
            nxt = source.read()
            if nxt is None:
                break
            frame = nxt
    except FrameSourceError as e:
        report.problems.append(f"camera {source.name}: {e}")
        return None
    refused = int(getattr(source, "refused_count", 0))
    if refused:  # a camera that sends frames too large to read fails, whatever else it sent
        report.problems.append(
            f"camera {source.name}: {refused} frame(s) skipped, too large to read safely "
            f"(last: {getattr(source, 'last_refused', None)}); the table skips such frames"
        )
    if frame is None:
        report.problems.append(f"camera {source.name}: gave no frame")
        return None
    image = frame.image_bgr.copy()
    h, w = image.shape[:2]
    report.ok.append(f"camera {source.name}: {w}x{h} snapshot")
    if board is not None:
        _mark_board(image, board, report)
    path = out_dir / "snapshot.png"
    if not cv2.imwrite(str(path), image):
        report.problems.append(f"cannot write the snapshot to {path}")
        return frame.image_bgr
    report.files.append(path)
    return frame.image_bgr


def check_pixels(
    image: np.ndarray,
    still: tuple[int, int] | None,
    board: Any,
    calibration: Any,
    sizes_mm: Sequence[float],
    numbered: bool,
    report: CheckReport,
) -> None:
    """The die's size in pixels at the board's centre and corners in the still (``still``: its size,
    None when the camera takes none) and in the video frame ``image`` (the gate's), from the
    calibration and the board's pose in ``image`` (`controller.pixels`); a problem in one sentence when
    a numbered die (``numbered``: the game has some) would be under the numbered reader's minimum."""
    from calibration.pose import estimate_board_pose
    from controller.pixels import camera_distance_mm, die_pixels, warning
    from vision.numbered.ocr import MIN_SIDE

    h, w = image.shape[:2]
    try:
        pose = estimate_board_pose(image, calibration.for_image(w, h), board)
    except ValueError as e:
        report.problems.append(f"die size in pixels: the board's pose is not found in the snapshot ({e})")
        return
    seen = die_pixels(board, calibration, pose, sizes_mm, (w, h), still)
    report.ok += [f"die size: {p.line()}" for p in seen]
    said = warning(seen, numbered, MIN_SIDE, camera_distance_mm(pose))
    if said is not None:
        report.problems.append(said)


def _mark_board(image: np.ndarray, board: Any, report: CheckReport) -> None:
    try:
        from calibration.pose import detect_markers
    except ImportError as e:
        report.ok.append(f"marker detection not available ({e}); snapshot only")
        return
    found = detect_markers(image, board)
    expected = sorted(int(m.id) for m in getattr(board, "markers", ()))
    for corners in found.values():
        cv2.polylines(image, [corners.astype(np.int32).reshape(-1, 1, 2)], True, (0, 0, 255), 2)
    missing = [i for i in expected if i not in found]
    msg = f"board markers found: {sorted(found)}" + (f"; missing: {missing}" if missing else "")
    (report.ok if len(found) >= 2 else report.problems).append(
        msg if len(found) >= 2 else msg + " (at least 2 are needed: is the whole board in view and lit?)"
    )


# -- fakes -------------------------------------------------------------------------------------


class ScriptedPresser:
    """For ``--fake``: presses the button that was just asked for on the fake panels, like a person."""

    def __init__(self, panels: Mapping[str, FakeButtonPanel], clock: Callable[[], float]) -> None:
        self.panels = panels
        self.clock = clock

    def __call__(self, message: str) -> None:
        player, _, rest = message.partition(": press ")
        if player in self.panels and rest:
            button = rest.split()[0].lower()
            t = self.clock()
            self.panels[player].press(button, t)
            self.panels[player].release(button, t + 0.1)
