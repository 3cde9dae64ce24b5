"""benchmarks/ocr_small.py times the OCR head's small-die reading beside its accuracy (issue 44, the
refit's cost): each variant's CPU ms a die in the one run, the variants taking turns die by die, and
what loading each head cost once.  Fake heads: nothing is loaded, no time asserted."""

from __future__ import annotations

import numpy as np

from benchmarks import ocr_small
from vision.numbered.ocr import SHARES, OcrValue


class _Head:
    def __init__(self, value: int, log: list[str], name: str) -> None:
        self.value, self.log, self.name = value, log, name

    def read(self, image: np.ndarray, dice: list[tuple[tuple[float, float], float, str]]) -> list[OcrValue]:
        self.log.append(self.name)
        return [OcrValue("d20", self.value, 0.5, (0.1,) * 20, (0.5, -0.7, 0.2, 1.0)) for _ in dice]


def test_each_variant_reads_each_die_in_turn_and_its_cost_is_reported() -> None:
    log: list[str] = []
    heads = {(SHARES, ""): _Head(3, log, "as is"), (SHARES, "head"): _Head(7, log, "small head")}
    data = {
        "rois": np.zeros((3, 16, 16, 3), np.uint8),
        "centres": np.full((3, 2), 8.0),
        "sides": np.full(3, 10.0),
    }
    got = ocr_small.evaluate(data, ["as is", "small head"], heads)  # type: ignore[arg-type]
    assert got["as is"]["value"].tolist() == [3, 3, 3] and got["small head"]["value"].tolist() == [7, 7, 7]
    for g in got.values():
        assert g["ms"].shape == (3,) and (g["ms"] >= 0).all()
    # one warm-up read each, then die by die, the order turned every other die
    warm = ["as is", "small head"]
    assert log == [*warm, "as is", "small head", "small head", "as is", "as is", "small head"]
    lines = ocr_small.cost_lines(got, {(SHARES, ""): (60.0, 61.0), (SHARES, "head"): (540.0, 543.0)}, 14.0)
    text = "\n".join(lines)
    rows = [ln for ln in lines if ln.startswith("| as is") or ln.startswith("| small head")]
    assert len(rows) == 2 and "| 3 |" in rows[0]
    assert "60 / 61" in rows[0] and "540 / 543" in rows[1]
    assert "x3" in text and "SHA-256" in text
