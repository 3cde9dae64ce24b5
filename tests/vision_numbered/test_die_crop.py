"""Learning that sees only the die, centred (issue 44 item 2): the die's crop is cut on its outline
from the empty table's change, the same crop from any seed of the die (the learning step's box and
`read`'s), and the crops are grouped into faces with the OCR head's word (`learn_dice.group_faces`)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from controller.learn_dice import group_faces
from vision.numbered.die_crop import die_crop, empty_of, outline, settle
from vision.where import EmptyTable

DIE = (412.0, 305.0)  # the die's centre in the frame
SIDE = 64.0  # its hexagon's width


def _table() -> tuple[np.ndarray, np.ndarray]:
    """(frame, empty table): a grained table with a printed board (a dark plate with bright squares:
    a relay board) beside where the die lies, then the die (a turned hexagon with a numeral)."""
    rng = np.random.default_rng(4)
    empty = np.zeros((600, 800, 3), np.uint8)
    empty[:] = (120, 150, 180)
    grain = rng.normal(0, 6, (600, 800, 1)).astype(np.float32)
    empty = np.clip(empty.astype(np.float32) + grain, 0, 255).astype(np.uint8)
    cv2.rectangle(empty, (300, 230), (360, 380), (30, 60, 30), -1)  # the board, left of the die
    for y in range(245, 370, 25):
        cv2.rectangle(empty, (312, y), (330, y + 12), (230, 230, 230), -1)
    frame = empty.copy()
    pts = [
        (DIE[0] + SIDE / 2 * math.cos(math.radians(a)), DIE[1] + SIDE / 2 * math.sin(math.radians(a)))
        for a in range(17, 377, 60)
    ]
    cv2.fillConvexPoly(frame, np.round(pts).astype(np.int32), (40, 40, 200))
    cv2.putText(
        frame, "7", (int(DIE[0]) - 9, int(DIE[1]) + 10), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2
    )
    return frame, empty


def test_the_outline_is_what_changed_since_the_empty_table() -> None:
    frame, empty = _table()
    # a detector's box too big and off the die, reaching over the board
    got = outline(frame, (DIE[0] - 20, DIE[1] + 12), SIDE * 1.5, empty)
    assert got is not None
    (cx, cy), longer, _ = got
    assert math.dist((cx, cy), DIE) < 4, (cx, cy)
    assert SIDE * 0.85 < longer < SIDE * 1.15, longer
    assert empty_of([EmptyTable(empty)]) is empty


def test_two_seeds_of_one_die_cut_one_crop() -> None:
    frame, empty = _table()
    seeds = [((DIE[0] - 18, DIE[1] + 10), SIDE * 1.6), ((DIE[0] + 6, DIE[1] - 5), SIDE * 0.9)]
    crops = [die_crop(frame, c, s, empty) for c, s in seeds]
    assert float(np.abs(crops[0].astype(np.float32) - crops[1].astype(np.float32)).mean()) < 3.0
    a, b = (settle(frame, c, s, empty) for c, s in seeds)
    assert a is not None and b is not None
    assert math.dist(a[0], b[0]) < 2 and abs(a[1] - b[1]) < 3


def _unit(rows: list[list[float]]) -> np.ndarray:
    a = np.asarray(rows, np.float32)
    return (a / np.linalg.norm(a, axis=1, keepdims=True))[:, None, :]  # N x 1 turn x D


def test_faces_the_ocr_head_reads_apart_are_never_one_group() -> None:
    # two crops alike (0.96: near-copies, over GROUP_LINK) that the OCR head reads surely as 6 and 9
    turned = _unit([[1.0, 0.0], [0.96, math.sqrt(1 - 0.96**2)]])
    assert len(set(group_faces(turned))) == 1
    assert len(set(group_faces(turned, ocr=[(6, 0.95), (9, 0.9)]))) == 2
    assert len(set(group_faces(turned, ocr=[(6, 0.95), (9, 0.3)]))) == 1  # unsure: no word


def test_groups_the_ocr_head_reads_alike_at_their_top_faces_are_one_face() -> None:
    # two pairs of crops 0.8 alike across (under GROUP_LINK): one face when the head read each at its
    # top face (the camera's view stated: ``top``) and every reading it is sure of says 14
    c = 0.8
    turned = _unit([[1, 0, 0], [1, 0.05, 0], [c, math.sqrt(1 - c * c), 0], [c, math.sqrt(1 - c * c), 0.05]])
    assert len(set(group_faces(turned, top=True))) == 2
    assert len(set(group_faces(turned, ocr=[(14, 0.9), None, (14, 0.8), None], top=True))) == 1
    assert len(set(group_faces(turned, ocr=[(14, 0.9), None, (14, 0.8), (4, 0.9)], top=True))) == 2
    # read at the die's middle (no view) the head reads a side face, one many top faces share: no word
    assert len(set(group_faces(turned, ocr=[(14, 0.9), None, (14, 0.8), None]))) == 2


def test_two_peaks_on_one_die_are_read_once_as_the_set_knows_it_best() -> None:
    from vision.numbered.die_crop import one_a_die
    from vision.numbered.learnt import Match

    outlines = [((100.0, 100.0), 60.0, 0.0), ((104.0, 98.0), 58.0, 0.0), ((300.0, 100.0), 60.0, 0.0), None]
    near, exact = Match(9, 0.94, 0.0), Match(12, 1.0, 0.1)
    # the second peak on the first die is the crop taught (1.0 alike): kept; a die apart, and a peak
    # with no outline, are left as they are
    assert one_a_die(outlines, [near, exact, None, None]) == [1, 2, 3]
    assert one_a_die(outlines, [None, None, None, None]) == [0, 2, 3]
    assert one_a_die(outlines[2:], [None, None]) == [0, 1]
