"""The one skip marker for tests that read the shared real photos (`tests.real_photos`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.real_photos import REAL, real_photos

TESTS = Path(__file__).resolve().parent


def test_the_marker_skips_naming_each_missing_path_and_runs_when_all_are_there() -> None:
    gone = real_photos("d20_lurig/labels.csv", "no-such-set/labels.csv")
    assert gone.args == (True,)
    assert "no-such-set/labels.csv" in gone.kwargs["reason"] and str(REAL) in gone.kwargs["reason"]
    there = real_photos("d20_lurig/labels.csv")
    assert there.args == ((not (REAL / "d20_lurig" / "labels.csv").exists()),)
    with pytest.raises(ValueError, match="name at least one"):
        real_photos()


def test_no_test_file_writes_its_own_real_photos_marker() -> None:
    """Seventeen files each had their own copy of the skipif; one marker serves them all now."""
    own = re.compile(r"needs_real\s*=\s*pytest\.mark\.skipif")
    copies = [str(p.relative_to(TESTS)) for p in TESTS.rglob("*.py") if own.search(p.read_text("utf-8"))]
    assert copies == []
