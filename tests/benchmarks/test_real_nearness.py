"""benchmarks/real_nearness.py measures how near the real proxy's later rolls are to a taught roll, and
`learnt_cli.split` splits a clip other ways than halves (issue 44: an honest real figure for a die
thrown anew); on synthetic pictures and frame lists, in well under a second."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from benchmarks import learnt_cli
from benchmarks.real_nearness import Near, nearness, quarters, score, spread
from training.numbered.real import Lurig


def _die(seed: int) -> np.ndarray:
    """A 200x200 picture of a made-up die face: a disc with marks no turn maps onto themselves."""
    img = np.full((200, 200, 3), 230, np.uint8)
    cv2.circle(img, (100, 100), 60, (40, 40, 160), -1)
    rng = np.random.default_rng(seed)
    for _ in range(6):
        x, y = (int(v) for v in rng.integers(65, 135, 2))
        cv2.circle(img, (x, y), int(rng.integers(4, 10)), (250, 250, 250), -1)
    cv2.putText(img, str(seed), (78, 112), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 3)
    return img


def _turned(img: np.ndarray, degrees: float) -> np.ndarray:
    m = cv2.getRotationMatrix2D((100.0, 100.0), degrees, 1.0)
    return cv2.warpAffine(img, m, (200, 200), borderMode=cv2.BORDER_REPLICATE)


def test_a_turned_copy_is_near_at_its_turn_and_another_face_is_not() -> None:
    seven, nine = _die(7), _die(9)
    taught = [
        ("t7", seven, (100.0, 100.0), 120.0, 10, "c7", 7),
        ("t9", nine, (100.0, 100.0), 120.0, 50, "c9", 9),
    ]
    later = [
        ("copy", _turned(seven, 40), (100.0, 100.0), 120.0, 16, "c7", 7),
        ("other clip", _turned(seven, -70), (100.0, 100.0), 120.0, 99, "c8", 7),
        ("nine", nine, (100.0, 100.0), 120.0, 60, "c9", 9),
    ]
    got = {n.frame: n for n in nearness(later, taught)}
    copy = got["copy"]
    assert copy.pixels < 0.05 and copy.turn == 40  # the reader turns crops: an in-plane turn is no new look
    assert copy.still > copy.pixels + 0.1  # unturned it is far
    assert copy.other > copy.pixels + 0.2  # the taught 9 is far from it
    assert copy.gap == 6 and got["other clip"].gap == -1  # no frame taught from its clip
    assert got["other clip"].turn == 70
    assert got["nine"].pixels < 1e-6 and got["nine"].other > 0.2


def test_quarters_nearest_first_and_the_tally() -> None:
    rs = [
        {"frame": f"f{i}", "face": 3, "die": {"kind": "d20", "value": 3 if i < 6 else 5, "confidence": 0.9}}
        for i in range(8)
    ]
    for r in rs:
        r["others"] = []
    key = {f"f{i}": 1.0 - i / 10 for i in range(8)}  # f7 nearest
    q = quarters(rs, lambda r: key[r["frame"]])
    assert [[r["frame"] for r in part] for part in q] == [
        ["f7", "f6"],
        ["f5", "f4"],
        ["f3", "f2"],
        ["f1", "f0"],
    ]
    near = score(q[0])  # both read 5 surely: wrong and silent
    assert (near.frames, near.right, near.unasked, near.silent) == (2, 0, 0, 2)
    far = score(q[3] + [{"frame": "x", "face": 3, "die": None, "others": [0.95]}])
    assert (far.frames, far.right, far.unasked, far.silent, far.phantoms) == (3, 2, 2, 1, 1)
    row = spread("x", [Near("a", 0.1, 0.0, 0.1, 1, 0.3), Near("b", 0.5, 0.0, 0.5, 1, 0.2)])
    assert row[1] == 2 and row[-1].startswith("50.0 %")


def _clip(face: int, start: int, n: int) -> list[Lurig]:
    return [Lurig(Path(f"{face}_{start + i}.jpg"), face, "g", start + i, f"g/{start}") for i in range(n)]


def test_the_ends_split_teaches_the_first_quarter_and_reads_the_last() -> None:
    items = _clip(3, 0, 20) + _clip(5, 100, 9)
    taught, later = learnt_cli.split(items, 4, 1, learnt_cli.SPLITS["ends"])
    assert [x.frame for x in taught] == [0, 1, 3, 4, 100, 101, 102]  # a face's first 5 and 3 frames
    assert [x.frame for x in later] == [15, 16, 17, 18, 19, 107, 108]
    # halves, as every proxy figure so far: the first half taught from, the second read
    taught, later = learnt_cli.split(items, 4, 1)
    assert [x.frame for x in taught] == [0, 3, 6, 9, 100, 101, 103, 104]
    assert [x.frame for x in later] == [*range(10, 20), 105, 106, 107, 108]
    assert learnt_cli.split(items, 4, 1) == learnt_cli.split(items, 4, 1, learnt_cli.SPLITS["halves"])
