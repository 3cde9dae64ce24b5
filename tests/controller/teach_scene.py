"""Frames of a table being taught a die (controller.teach), built from the shared real photos.

The die is d20_imac1844's green d20 (one top-down photo a face, every face: `d20_imac1844/SOURCE.md`),
each roll laid at another place and turned a quarter more, on a table of the photos' border colour; in
view all along lie a page of printed text and numerals (a negative photo) and another real d20 (of
d20_lurig): the empty table shows them, so neither is ever a face.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np

from tests.real_photos import real_photos
from training.numbered.real import TABLE_SCALE, default_root, load_lurig

REAL = default_root()
IMAC = REAL / "d20_imac1844"
needs_real = real_photos("d20_imac1844/labels.csv", "d20_lurig/labels.csv")
SIZE = (1280, 960)
#: where the text page and the other d20 lie all along (centres, pixels)
PAGE, LYING = (200, 160), (1100, 160)


@cache
def faces() -> dict[int, np.ndarray]:
    """The green d20's photo of each face (200 x 200 BGR)."""
    out = {}
    for line in (IMAC / "labels.csv").read_text(encoding="utf-8").splitlines()[1:]:
        file, kind, face, _ = line.split(",")
        if kind == "d20":
            out[int(face)] = cv2.imread(str(IMAC / file))
    return out


def _put(frame: np.ndarray, patch: np.ndarray, at: tuple[int, int]) -> None:
    h, w = patch.shape[:2]
    y0, x0 = at[1] - h // 2, at[0] - w // 2
    frame[y0 : y0 + h, x0 : x0 + w] = patch


@cache
def empty_table() -> np.ndarray:
    """The table with nothing of the game on it: the photos' border colour, a text page, another d20."""
    edge = np.concatenate([faces()[1][0], faces()[1][-1], faces()[1][:, 0], faces()[1][:, -1]])
    table = np.empty((SIZE[1], SIZE[0], 3), np.uint8)
    table[:] = np.median(edge, 0)
    page = cv2.imread(str(REAL / "negatives" / "images" / "opencv_contrib_scenetext01.jpg"))
    _put(table, cv2.resize(page, (320, 240), interpolation=cv2.INTER_AREA), PAGE)
    lurig = next(x for x in load_lurig(REAL) if x.group == "d20_wood" and x.face == 18)
    other = cv2.resize(cv2.imread(str(lurig.path)), None, fx=TABLE_SCALE, fy=TABLE_SCALE)
    _put(table, other, LYING)
    return table


def place(i: int) -> tuple[int, int]:
    """Where the i-th roll comes to rest (away from what lies there all along)."""
    return 300 + (i * 7 % 5) * 170, 460 + (i * 3 % 3) * 160


def roll(face: int, i: int, also: int | None = None) -> np.ndarray:
    """The table after the i-th roll: the die showing ``face`` (turned i quarters) at `place`;
    ``also``: a second die, the green d20 again showing that face, left on the table too."""
    frame = empty_table().copy()
    _put(frame, np.ascontiguousarray(np.rot90(faces()[face], i % 4)), place(i))
    if also is not None:
        _put(frame, faces()[also], (1130 if place(i)[0] < 700 else 150, 620))
    return frame


def nudged(face: int, i: int, shift: tuple[int, int], degrees: float, turns: int | None = None) -> np.ndarray:
    """The table after the i-th roll's die (showing ``face``) was pushed ``shift`` pixels from `place`
    and turned ``degrees`` (``turns``: the quarter turns it lies at, i's by default)."""
    patch = np.ascontiguousarray(np.rot90(faces()[face], i % 4 if turns is None else turns))
    h, w = patch.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    patch = cv2.warpAffine(patch, turn, (w, h), borderMode=cv2.BORDER_REPLICATE)
    frame = empty_table().copy()
    x, y = place(i)
    _put(frame, patch, (x + shift[0], y + shift[1]))
    return frame


def write(frame: np.ndarray, path: Path) -> Path:
    cv2.imwrite(str(path), frame)
    return path
