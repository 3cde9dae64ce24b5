"""The benchmarks' one tally of a die a frame (`benchmarks.harness.DieTally`, shared by small_stills,
table_stills, roster_read and learnt_cli): right, unasked, silent and phantoms counted as each counted
them before."""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmarks import harness, learnt_cli, roster_read, small_stills, table_stills


def test_a_frame_is_scored_by_its_die_and_its_other_readings() -> None:
    t = harness.DieTally()
    t.score((True, 0.9), [0.5, 0.85])  # right and sure; a phantom asked, a phantom sure
    t.score((True, 0.5), [])  # right, asked
    t.score((False, 0.8), [])  # wrong and sure: silent
    t.score((False, 0.3), [])  # wrong, asked
    t.score(None, [0.95])  # the die missed, a sure phantom
    assert (t.frames, t.right, t.unasked, t.silent, t.phantoms) == (5, 2, 1, 3, 3)
    both = t + t
    assert (both.frames, both.silent) == (10, 6)


def test_each_benchmarks_tally_is_the_shared_one_with_its_own_counts() -> None:
    for counts in (small_stills.Counts, table_stills.Counts, roster_read.Counts, learnt_cli.Counts):
        assert issubclass(counts, harness.DieTally)

    @dataclass
    class Timed(harness.DieTally):
        ms: list[float] = field(default_factory=list)

    a, b = Timed(ms=[1.0]), Timed(ms=[2.0])
    a.score((True, 0.9), [])
    assert (a + b).ms == [1.0, 2.0] and (a + b).unasked == 1
