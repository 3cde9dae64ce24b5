"""Held-out label corrections (benchmarks/byler_label_corrections.csv): applied exactly, refused when
they do not match a label, and the committed file matches the shared labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.dataset import LabelledDie, LabelledImage, apply_corrections, is_held_out, load_byler

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT.parent / "shared" / "fixtures" / "real"
HEAD = "file,x0,y0,x1,y1,label,value,seen\n"


def _items() -> list[LabelledImage]:
    return [
        LabelledImage(Path("a.jpg"), (LabelledDie(2, (10, 10, 40, 40)), LabelledDie(5, (60, 10, 90, 40)))),
        LabelledImage(Path("b.jpg"), (LabelledDie(1, (0, 0, 30, 30)),)),
    ]


def test_a_value_is_changed_and_a_missing_die_added(tmp_path: Path) -> None:
    f = tmp_path / "c.csv"
    f.write_text(
        "# comment\n" + HEAD + "a.jpg,11,10,40,41,2,3,three pips\nb.jpg,50,50,80,80,-,6,unlabelled\n"
    )
    fixed, n = apply_corrections(_items(), f)
    assert n == 2
    assert [d.value for d in fixed[0].dice] == [3, 5]
    assert fixed[0].dice[0].box == (10, 10, 40, 40)  # the label's own box is kept
    assert [(d.value, d.box) for d in fixed[1].dice] == [(1, (0, 0, 30, 30)), (6, (50.0, 50.0, 80.0, 80.0))]
    assert [d.value for d in _items()[0].dice] == [2, 5]  # the input is not changed


@pytest.mark.parametrize(
    "line, message",
    [
        ("a.jpg,10,10,40,40,4,3,wrong label", r"no labelled 4 at"),
        ("a.jpg,20,10,40,40,2,3,box too far", r"no labelled 2 at"),
        ("a.jpg,ten,10,40,40,2,3,bad number", r"correction 1: expected file,x0,y0,x1,y1,label,value,seen"),
    ],
)
def test_a_correction_that_matches_no_label_is_refused(tmp_path: Path, line: str, message: str) -> None:
    f = tmp_path / "c.csv"
    f.write_text(HEAD + line + "\n")
    with pytest.raises(ValueError, match=message):
        apply_corrections(_items(), f)


def test_the_committed_corrections_match_the_shared_labels() -> None:
    if not (REAL / "byler_d6").is_dir():
        pytest.skip(f"{REAL}/byler_d6 is absent: the shared photos are needed for this check")
    items = load_byler(REAL)
    fixed, n = apply_corrections(items, ROOT / "benchmarks" / "byler_label_corrections.csv")
    held = [i for i in items if is_held_out(i.path.name)]
    held_fixed = [i for i in fixed if is_held_out(i.path.name)]
    assert n == 5
    assert sum(len(i.dice) for i in held_fixed) == sum(len(i.dice) for i in held) + 2
    changed = sum(
        a.value != b.value
        for x, y in zip(held, held_fixed, strict=False)
        for a, b in zip(x.dice, y.dice, strict=False)
    )
    assert changed == 3
