"""Where a die can be at this table: the vision.where steps a settled frame is read with.

From the table's ``[vision]`` config, its board and calibration (when configured) and the motion
gate's latest empty frame: the empty table (dice only where the frame differs from it), the die's
size (a range in pixels, or the die's edge in millimetres projected through the board's pose) and
the play area (a tray polygon in pixels, or the board's outline grown by a margin). A step with
nothing to work from this frame (no empty frame seen yet, the board's pose not solved) is left out
of that frame, never guessed.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.diceset import DiceSet
from controller.config import VisionSection
from vision.empty_diff import EmptyDiff
from vision.where import BoardLook, DieSize, EmptyTable, PlayArea, WhereStep, board_outline_px

log = logging.getLogger("dicetable.where")


def load_empty_frame(path: str | Path) -> np.ndarray:
    """An empty-table frame file (`dicetable calibrate empty`); raises ValueError naming it."""
    from hardware.imagefile import ImageError, read_image

    why = "no such file"
    if Path(path).is_file():
        try:  # its size checked from its header before a pixel is decoded
            return read_image(path)
        except ImageError as e:
            why = str(e).removeprefix(f"{path}: ")
    raise ValueError(
        f"vision.empty_table_frame {str(path)!r}: {why}; expected an image of the empty table "
        "(made by 'dicetable calibrate empty FRAME --out FILE.png')"
    )


def grown_outline_mm(board: Any, margin_mm: float) -> np.ndarray:
    """The board's bounding rectangle grown by ``margin_mm`` on every side, mm on the board plane."""
    x0, y0, x1, y1 = board.bounds()
    m = margin_mm
    return np.array([[x0 - m, y0 - m], [x1 + m, y0 - m], [x1 + m, y1 + m], [x0 - m, y1 + m]], np.float64)


class TableWhere:
    """The table's vision.where steps; ``board`` and ``calibration`` when the table has both."""

    def __init__(
        self,
        cfg: VisionSection,
        board: Any = None,
        calibration: Any = None,
        die_sizes_mm: list[float] | None = None,
    ) -> None:
        self.cfg = cfg
        self.die_sizes_mm = die_sizes_mm
        self.board, self.calibration = board, calibration
        self.empty: EmptyTable | None = None
        self._given: np.ndarray | None = None  # the frame last given to set_empty
        if cfg.empty_table and cfg.empty_table_frame:
            self.empty = EmptyTable(load_empty_frame(cfg.empty_table_frame))
        self.size: DieSize | None = None
        if cfg.die_size and cfg.die_size_px is not None:
            self.size = DieSize.fixed(*cfg.die_size_px)
        self.area: PlayArea | None = None
        #: the board look of the frame the last steps were made for (vision.where.BoardLook)
        self.look: BoardLook | None = None
        #: the empty table's finder for the frame the last steps were made for (vision.empty_diff)
        self.finder: EmptyDiff | None = None
        #: a piece the reader calls "not a die" that lies alone is asked about (EmptyDiff.ask_alone);
        #: off while the table judges whether a frame shows the empty board (controller.empty_learn)
        self.ask_alone = True
        self._finders: dict[
            int, tuple[np.ndarray, EmptyDiff]
        ] = {}  # per empty frame (its working-scale copy is made once)
        if cfg.play_area and cfg.play_area_px is not None:
            self.area = PlayArea(np.asarray(cfg.play_area_px, np.float64))
        #: the width of the gate's frame when the frame read is a still taken after it (issue 43): the
        #: settings in pixels ([vision] die_size_px, play_area_px) and the empty table are the gate's,
        #: scaled to the still; None: the frame read is the gate's own
        self.video_width: int | None = None
        self._scaled_empty: tuple[np.ndarray, tuple[int, ...], EmptyTable] | None = None

    def set_empty(self, frame: np.ndarray) -> None:
        """The empty table as the camera saw it last (the motion gate's empty frame)."""
        if not self.cfg.empty_table or frame is self._given:
            return
        self._given = frame
        if self.empty is None:
            self.empty = EmptyTable(frame)
        else:
            self.empty.relearn(frame)

    def steps(self, image: np.ndarray, pose: Any = None) -> list[WhereStep]:
        """The steps for this frame; ``pose``: the board's pose in it (calibration.pose.BoardPose)."""
        out: list[WhereStep] = []
        empty_ok = False
        k = self._still_scale(image)
        empty = self.empty if k == 1.0 else self._empty_for(image)
        if empty is not None:
            if empty.empty.shape == image.shape:
                out.append(empty)
                empty_ok = True
            else:
                log.warning(
                    "empty-table frame is %dx%d px but the frame is %dx%d: step left out until the "
                    "camera sees the empty table again",
                    empty.empty.shape[1],
                    empty.empty.shape[0],
                    image.shape[1],
                    image.shape[0],
                )
        board_view = self._board_view(image, pose)
        board_size = None
        if board_view is not None:
            sizes = DiceSet.of(self.die_sizes_mm, self.board.die_size_mm).sizes_mm
            # one expected size for the set: its sizes (14-19 mm) lie well inside the step's tolerance
            board_size = DieSize.from_board(float(np.median(sizes)), *board_view)
            board_size.smallest = float(min(sizes)) / float(np.median(sizes))
        size = self.size
        if size is not None and k != 1.0:
            size = DieSize.fixed(*(k * float(v) for v in self.cfg.die_size_px or ()))
        if size is not None:
            out.append(size)
        elif self.cfg.die_size and board_size is not None:
            out.append(board_size)
        finds = empty_ok and self.cfg.empty_finds
        if self.area is not None:
            out.append(self.area if k == 1.0 else PlayArea(self.area.polygon * k))
        elif self.cfg.play_area and board_view is not None and not finds:
            # (with the empty table finding dice, what lies off the board where nothing lay is a die too)
            outline = grown_outline_mm(self.board, self.cfg.play_area_margin_mm)
            out.append(PlayArea(board_outline_px(outline, *board_view)))
        self.look = None
        self.finder = None
        if finds and empty is not None:
            size = size or board_size
            self.finder = self._finder(empty.empty, None if size is None else size.expected)
            self.finder.nadir = None
            self.finder.ask_alone = self.ask_alone
            if board_view is not None:
                from vision.numbered.topface import nadir_from_pose

                with contextlib.suppress(ValueError):  # a degenerate pose: the spots alone are tried
                    self.finder.nadir = nadir_from_pose(board_view[2], board_view[0])
            out.append(self.finder)
        elif self.cfg.board_look and board_size is not None:
            self.look = self._board_look(image, pose, board_size)
            if self.look is not None:
                out.append(self.look)
        return out

    def _still_scale(self, image: np.ndarray) -> float:
        """How many times wider ``image`` (a still) is than the gate's frame (1.0: it is the gate's)."""
        if self.video_width is None or image.shape[1] <= self.video_width:
            return 1.0
        return float(image.shape[1]) / self.video_width

    def _empty_for(self, image: np.ndarray) -> EmptyTable | None:
        """The empty table at a still's size: the gate's picture scaled up (made once a picture and
        size; the step compares at its own coarse scale, so the still's detail is not needed)."""
        if self.empty is None:
            return None
        made = self._scaled_empty
        if made is not None and made[0] is self.empty.empty and made[1] == image.shape:
            return made[2]
        h, w = image.shape[:2]
        eh, ew = self.empty.empty.shape[:2]
        if abs(w / h - ew / eh) > 0.02:  # another field of view: not the same picture
            return self.empty
        up = cv2.resize(self.empty.empty, (w, h), interpolation=cv2.INTER_LINEAR)
        scaled = EmptyTable(up, self.empty.level, self.empty.share)
        self._scaled_empty = (self.empty.empty, image.shape, scaled)
        return scaled

    def lying(self, image: np.ndarray) -> np.ndarray | None:
        """Where something lies on the board in ``image`` (the frame the last `steps` were for), for
        the stacks-by-sides cue of calibration.geometry.place; None when that cue is off or the board
        look had nothing to go on."""
        if not self.cfg.stacks_by_sides:
            return None
        if self.finder is not None:
            return self.finder.lying(image)
        if self.look is None:
            return None
        return self.look.lying(image)

    def _finder(self, empty: np.ndarray, expected: Any) -> EmptyDiff:
        """The empty table's finder for ``empty`` (made once an empty frame) with this frame's die size."""
        made = self._finders.get(id(empty))
        if made is None or made[0] is not empty:
            made = (empty, EmptyDiff(empty))
            self._finders = {id(empty): made}
        finder = made[1]
        finder.expected = expected
        return finder

    def _board_look(self, image: np.ndarray, pose: Any, size: DieSize) -> BoardLook | None:
        """The board's print as this frame should show it (vision.where.BoardLook), or None (and a
        log line) when it cannot be drawn."""
        from calibration.boardlook import board_in_frame

        h, w = image.shape[:2]
        try:
            view, valid = board_in_frame(self.board, pose, self.calibration, w, h)
        except ValueError as e:
            log.warning("board look left out of this frame: %s", e)
            return None
        return BoardLook(view, valid, size.expected)

    def _board_view(self, image: np.ndarray, pose: Any) -> tuple[Any, Any, Any, Any] | None:
        """(camera matrix, distortion, rvec, tvec) for this frame, or None without a board or pose."""
        if self.board is None or self.calibration is None or pose is None:
            return None
        h, w = image.shape[:2]
        cal = self.calibration.for_image(w, h)
        return cal.camera_matrix, cal.dist_coeffs, pose.rvec, pose.tvec
