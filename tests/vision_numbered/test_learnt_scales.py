"""A learnt die is matched at several crop scales (issue 44 item 4, `vision.numbered.embed.SCALES`): the
detector frames a die's top face a little larger or smaller from roll to roll, and a set's stored
crop is one framing.  Figures: benchmarks/learnt_scales.py."""

from __future__ import annotations

import numpy as np
import pytest

from tests.real_photos import real_photos
from training.numbered.real import default_root, load_lurig
from vision.numbered.crop import CROP, MARGIN
from vision.numbered.embed import SCALES, SMALL_SIDE, at_scales
from vision.numbered.learnt import DiceSet
from vision.numbered.reader import Found, NumberedReader, _cut

REAL = default_root()
needs_real = real_photos("d20_lurig/labels.csv")


def _found(side: float, centre: float) -> Found:
    return Found((centre, centre), side, side, 1.0, (centre, centre))


@needs_real
def test_a_small_die_framed_looser_than_taught_is_found_again_at_its_taught_scale(
    reader: NumberedReader,
) -> None:
    """A set taught one crop of each of three faces of a ~60 px die; the first die read again with a
    box 1/0.85 as large (as a small blurred die's box often is): at the crop's one scale it is less
    alike to its own taught picture; cut at SCALES too it is that very picture again (at 0.85), read
    as its face.  The same die at 200 px (SMALL_SIDE and more) is matched at its one crop, as before."""
    import cv2

    photos = {}
    for x in sorted(load_lurig(REAL), key=lambda x: x.frame):
        if x.group == "d20_top" and x.face in (9, 11, 20) and x.face not in photos:
            photos[x.face] = cv2.imread(str(x.path))
    assert len(photos) == 3
    embedder = reader.embedder()
    for side, k in ((60.0, 0.3), (200.0, 1.0)):
        images = {f: cv2.resize(p, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) for f, p in photos.items()}
        centre = 240.0 * k
        taught = [_cut(img, (centre, centre), side * MARGIN, CROP) for img in images.values()]
        learnt = DiceSet(
            "top",
            "d20",
            "",
            embedder.digest,
            np.array(list(images), np.int64),
            embedder.embed(taught, 1)[:, 0],
        )
        loose = _found(side / 0.85, centre)
        crops = reader.crops(images[9], [loose])
        (one,) = reader.learnt_matches(crops, learnt, 0.0)
        (scaled,) = reader.learnt_matches(crops, learnt, 0.0, image=images[9], found=[loose])
        assert one is None or one.likeness < 0.99
        if side < SMALL_SIDE:
            assert scaled is not None and scaled.value == 9 and scaled.likeness >= 0.99
        else:  # a large die: as before
            assert (scaled is None) == (one is None)
            assert scaled is None or one is None or scaled.likeness == pytest.approx(one.likeness, abs=1e-5)


def test_at_scales_puts_the_scales_beside_the_turns(reader: NumberedReader) -> None:
    rng = np.random.default_rng(0)
    crops = {s: [rng.integers(0, 255, (CROP, CROP, 3), dtype=np.uint8) for _ in range(2)] for s in SCALES}
    asked: list[float] = []

    def cut(scale: float) -> list[np.ndarray]:
        asked.append(scale)
        return crops[scale]

    got = at_scales(reader.embedder(), cut, 4, small=[True, False])
    assert asked == list(SCALES)
    assert got.shape[:2] == (2, 4 * len(SCALES))
    np.testing.assert_allclose(np.linalg.norm(got, axis=2), 1.0, atol=1e-5)
    blocks = np.split(got, len(SCALES), axis=1)
    one = blocks[SCALES.index(1.0)]
    assert all(np.allclose(b[1], one[1]) for b in blocks)  # the large die: its one crop at every scale
    assert not all(np.allclose(b[0], one[0]) for b in blocks)  # the small die: each scale its own
