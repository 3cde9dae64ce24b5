"""The numeral value head for d20 values (issue 20, item 3): shipped Pi-sized, off by default, read
when asked (`NumberedReader(value_head=True)`, `--models DIR,numeral=on`), and it reads synthetic
top faces (training/numbered/numerals.py, drawn with OpenCV's Hershey faces: no Pillow needed)."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from training.numbered.numerals import fonts, numeral_patch
from vision.numbered.crop import MARGIN
from vision.numbered.labels import INDEX, KIND_SLICES
from vision.numbered.numeral import FACES, NUMERAL_CROP, NUMERAL_FILE, NumeralHead, with_values
from vision.numbered.reader import MODELS, Found, NumberedReader, verdict

HERSHEY = fonts(truetype=False)
# Of one synthetic top face per value (seed 5), the head must read at least this many right.
AT_LEAST = 16


def _patches(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [numeral_patch(v, rng, NUMERAL_CROP, HERSHEY) for v in range(1, FACES + 1)]


def test_the_head_is_shipped_pi_sized_and_off_unless_asked() -> None:
    path = MODELS / NUMERAL_FILE
    assert path.is_file() and path.stat().st_size <= 10 * 2**20, path
    assert NumberedReader().numeral_file is None
    assert NumberedReader(value_head=True).numeral_file == NUMERAL_FILE


def test_the_head_reads_synthetic_top_faces() -> None:
    p = NumeralHead(MODELS / NUMERAL_FILE).faces(_patches(5))
    assert p.shape == (FACES, FACES) and np.allclose(p.sum(1), 1, atol=1e-4)
    right = int((p.argmax(1) == np.arange(FACES)).sum())
    assert right >= AT_LEAST, f"{right} of {FACES} synthetic faces read right"


def test_the_option_switches_the_d20_value_to_the_heads() -> None:
    """A frame holding a synthetic 17, and a classifier that said d20 3: the head makes it a 17."""
    rng = np.random.default_rng(11)
    patch = numeral_patch(17, rng, NUMERAL_CROP, HERSHEY)
    assert NumeralHead(MODELS / NUMERAL_FILE).faces([patch]).argmax() == 16  # this patch reads as 17
    frame = np.zeros((200, 200, 3), np.uint8)
    frame[68:132, 68:132] = patch
    side = NUMERAL_CROP / MARGIN
    found = [Found((100.0, 100.0), side, side, 0.9, (100.0, 100.0))]
    probs = np.full((1, 47), 0.001, np.float32)
    probs[0, INDEX[("d20", 3)]] = 1.0
    probs /= probs.sum()
    off = NumberedReader().numeral_values(frame, found, probs)
    assert verdict(off[0]).value == 3
    on = NumberedReader(value_head=True).numeral_values(frame, found, probs)
    v = verdict(on[0])
    assert (v.kind, v.value) == ("d20", 17)
    # the kind's summed probability is unchanged; no d20 at the table: the head is not read
    s = KIND_SLICES["d20"]
    assert abs(float(on[0, s].sum()) - float(probs[0, s].sum())) < 1e-5
    same = NumberedReader(value_head=True).numeral_values(frame, found, probs, ("d6", "d10"))
    assert np.array_equal(same, probs)


def test_with_values_touches_only_the_rows_named() -> None:
    probs = np.full((2, 47), 1 / 47, np.float32)
    faces = np.zeros((1, FACES), np.float32)
    faces[0, 4] = 1.0
    out = with_values(probs, faces, [1])
    assert np.array_equal(out[0], probs[0])
    assert verdict(out[1], reject=0.99).value == 5


def test_a_missing_head_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nowhere\.onnx"):
        NumberedReader(value_head=tmp_path / "nowhere.onnx")
    with pytest.raises(ValueError, match="quarter turns"):
        NumberedReader(value_head=True, numeral_turns=3)


def test_the_benchmark_spells_the_option() -> None:
    from benchmarks.vision_numbered import spec

    ap = argparse.ArgumentParser()
    assert spec(f"{MODELS},numeral=on", ap)[1] == {"value_head": True}
    assert spec(f"{MODELS},numeral=off", ap)[1] == {"value_head": False}


def test_the_share_comes_from_the_sidecar(tmp_path: Path) -> None:
    head = tmp_path / NUMERAL_FILE
    head.symlink_to(MODELS / NUMERAL_FILE)
    assert NumeralHead(head).share == 1.0  # no sidecar: the classifier's whole square
    head.with_suffix(".json").write_text('{"share": 0.65}')
    assert NumeralHead(head).share == 0.65
    head.with_suffix(".json").write_text('{"share": 1.5}')
    with pytest.raises(ValueError, match="not in"):
        NumeralHead(head)
