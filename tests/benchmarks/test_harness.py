"""The benchmark harness: matching readings to the truth, tallies, quantiles, tables and the header."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from benchmarks.harness import (
    Tally,
    command,
    markdown_table,
    match_boxes,
    nearest_centre,
    quantile,
    quantile_between,
    run_header,
    share,
    spaced,
)


def test_match_boxes_takes_the_reading_nearest_the_box_centre_once() -> None:
    boxes = [(0.0, 0.0, 10.0, 10.0), (5.0, 0.0, 15.0, 10.0)]
    centres = [(9.0, 5.0), (5.5, 5.0), (30.0, 30.0)]
    # box 0 takes the reading at 5.5 (nearest its centre 5,5); box 1 gets the one left inside it
    assert match_boxes(boxes, centres) == [1, 0]
    assert match_boxes([(0.0, 0.0, 1.0, 1.0)], centres) == [None]


def test_nearest_centre_of_a_crop() -> None:
    assert nearest_centre([(0.0, 0.0), (48.0, 52.0)], (100, 100)) == 1
    assert nearest_centre([(0.0, 0.0)], (100, 100), within=0.3) is None
    assert nearest_centre([], (100, 100)) is None


@dataclass
class _Counts(Tally):
    dice: int = 0
    ms: list[float] = field(default_factory=list)


def test_tallies_add_field_by_field() -> None:
    total = _Counts(2, [1.0]) + _Counts(3, [2.0, 4.0])
    assert total == _Counts(5, [1.0, 2.0, 4.0])


def test_quantiles_and_shares() -> None:
    v = [float(i) for i in range(1, 21)]  # 1..20
    assert quantile(v, 0.95) == 20.0  # index int(0.95 * 20) = 19
    assert quantile_between(v, 0.95) == 19.0  # index round(0.95 * 19) = 18
    assert share(370, 372) == "99.46 % (370/372)"
    assert share(1, 0) == "-"
    assert spaced(list(range(10)), 3) == [0, 4, 9]


def test_markdown_table_and_run_header() -> None:
    lines = markdown_table(["a", "b"], [[1, "x"]])
    assert lines == ["| a | b |", "|---|---|", "| 1 | x |"]
    assert (
        command(["--smoke"], module="benchmarks.live")
        == "nice -n 10 .venv/bin/python -m benchmarks.live --smoke"
    )
    header = run_header(["--smoke"], module="benchmarks.live")
    assert re.search(r"Revision: `[0-9a-f]{7,}", header)
    assert "Machine: " in header and " cores" in header
    assert re.search(r"date: \d{4}-\d\d-\d\d \d\d:\d\d UTC", header)
    assert "-m benchmarks.live --smoke" in header
