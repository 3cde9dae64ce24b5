"""benchmarks.side_face's learning and scoring of the side face a d20 turns to a tilted camera (issue
44): the neighbours learnt both ways from the teaching rolls, and a side reading that narrows the top
face's evidence.  Synthetic readings: no head, no renders."""

from __future__ import annotations

import numpy as np

from benchmarks import side_face


def _row(face: int, part: str, top: list[float], side_value: int, side_evidence: list[float]) -> dict:
    k = len(side_face.POINTS) * len(side_face.SIDES)
    return {
        "value": face,
        "part": part,
        "top": [int(np.argmax(top)) + 1, 0.5, top],
        "side": [[side_value, 0.9, side_evidence]] * k,
    }


def _onehot(face: int, mass: float = 1.0) -> list[float]:
    e = [0.0] * 20
    e[face - 1] = mass
    return e


def test_the_rendered_d20_has_three_edge_neighbours_a_face_both_ways() -> None:
    edge, corner = side_face.true_neighbours()
    assert all(len(edge[f]) == 3 and len(corner[f]) == 6 for f in side_face.FACES)
    assert all(f in edge[s] for f in side_face.FACES for s in edge[f])


def test_neighbours_are_learnt_both_ways_from_the_first_rolls_only() -> None:
    taught = [
        _row(1, "learn", _onehot(1), 2, _onehot(2)),
        _row(1, "learn", _onehot(1), 1, _onehot(1)),  # the top face itself: no neighbour
        _row(1, "learn", _onehot(1), 9, _onehot(9)),  # past `per`: not learnt
    ]
    a = side_face.learnt_neighbours(taught, 0, per=2)
    assert a[0, 1] == a[1, 0] == 1.0 and a.sum() == 2.0


def test_a_side_reading_narrows_two_faces_the_top_reads_alike() -> None:
    # the top face reads 5 and 7 alike; the side face reads 2, taught beside 5 only
    taught = [_row(5, "learn", _onehot(5), 2, _onehot(2)), _row(7, "learn", _onehot(7), 3, _onehot(3))]
    top = [0.0] * 20
    top[4] = top[6] = 0.5
    throw = _row(5, "later", top, 2, _onehot(2))
    alone = side_face.scores([throw], [])[0]
    assert alone[4] == alone[6]
    a = side_face.learnt_neighbours(taught, 0, per=5)
    both = side_face.scores([throw], [(0, a, 0.5, side_face.SIDE_FLOOR)])[0]
    assert int(np.argmax(both)) + 1 == 5
    assert side_face.tally([throw], [both], tau=0.5) == (1, 1, 0)
    assert side_face.tally([throw], [alone], tau=0.5)[1:] == (0, 0)  # alone: asked
