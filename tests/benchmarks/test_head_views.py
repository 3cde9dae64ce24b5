"""benchmarks.head_views' ways of combining the OCR head's readings of several variants of a d20's top
face cut, and its sure rule's threshold (issue 44)."""

from __future__ import annotations

import numpy as np

from benchmarks import head_views as hv

CAL = (-2.0, 1.0, 0.5, -1.0, 3.0)


def scores(faces: list[int], views: int = 4, strength: float = 0.6) -> np.ndarray:
    """variants x views x 20: variant v reads ``faces[v]`` (1-20) at every view, the rest a little."""
    s = np.full((len(faces), views, 20), 0.01)
    for v, f in enumerate(faces):
        s[v, :, f - 1] = strength
    return s


def test_the_vote_reads_what_most_variants_read_and_is_as_sure_as_their_share() -> None:
    s = scores([7, 7, 12, 7, 12])
    face, sure = hv.way_vote(s, (0, 1, 2, 3, 4), CAL)
    assert face == 6  # face 7
    assert sure == 3 / 5
    # the centre's own reading weak: never sure, whatever the others read
    weak = s.copy()
    weak[0] = 0.02
    weak[0, :, 6] = 0.021
    assert hv.way_vote(weak, (0, 1, 3), CAL)[1] == 0.0


def test_mean_log_and_pooled_follow_the_variants_not_only_the_centre() -> None:
    s = scores([3, 9, 9, 9, 9])
    assert hv.way_centre(s, (0,), CAL)[0] == 2
    assert hv.way_mean_log(s, (0, 1, 2, 3, 4), CAL)[0] == 8
    assert hv.way_mean_conf(s, (0, 1, 2, 3, 4), CAL)[0] == 8
    # agreeing variants are surer than split ones
    same = hv.way_mean_log(scores([9] * 5), (0, 1, 2, 3, 4), CAL)[1]
    split = hv.way_mean_log(s, (0, 1, 2, 3, 4), CAL)[1]
    assert same > split


def test_tau_is_the_lowest_with_at_most_the_allowed_surely_wrong() -> None:
    reads = [(True, 0.9), (False, 0.7), (False, 0.6), (True, 0.65), None]
    tau = hv.choose_tau(reads)
    n, right, unasked, silent = hv.tally(reads, tau)
    assert (n, right) == (5, 2)
    assert silent <= hv.SILENT_44
    assert hv.tally(reads, tau - 0.025)[3] > hv.SILENT_44
    assert unasked == 2
