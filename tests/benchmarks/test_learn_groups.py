"""benchmarks/learn_groups.py scores a grouping as the person pays for it (issue 44 item 2): how many
groups, in how many groups a face's crops fell, and which groups mix two faces (each of which
teaches wrong crops). Light: no nets, no photos."""

from __future__ import annotations

from benchmarks.learn_groups import scored


def test_a_grouping_is_scored_by_its_groups_a_face_and_its_mixed_groups() -> None:
    # face 5 in groups 0 and 1, face 7 in group 1 (mixed with a 5), a crop not the die alone in group 2
    got = scored([0, 0, 1, 1, 2], [5, 5, 5, 7, None])
    assert got["groups"] == 3 and got["faces"] == 2 and got["not die"] == 1
    assert got["a face"] == 1.5  # face 5 in 2 groups, face 7 in 1
    assert got["mixed"] == 1 and got["wrong"] == 1  # group 1 named 5 or 7: one crop taught wrong
    # a crop not the die grouped with a face's crops mixes the group too
    assert scored([0, 0], [3, None])["mixed"] == 1
    assert scored([0, 1, 1], [3, 4, 4]) == {
        "crops": 3,
        "faces": 2,
        "not die": 0,
        "groups": 2,
        "a face": 1.0,
        "mixed": 0,
        "wrong": 0,
    }


def test_the_before_way_is_session_21s_grouping() -> None:
    # learn_groups' and learnt_render20's "before" way: crops 0.9 alike joined (link 0.88), and two
    # groups the OCR head reads surely as one value joined at the die's middle; `see` now keeps both apart
    import math

    import numpy as np

    from benchmarks.learn_groups import session21
    from controller.learn_dice import group_faces

    pair = np.asarray([[1.0, 0.0], [0.9, math.sqrt(1 - 0.81)]], np.float32)[:, None, :]
    assert len(set(session21(pair))) == 1 and len(set(group_faces(pair))) == 2
    far = np.asarray([[1.0, 0.0], [0.7, math.sqrt(1 - 0.49)]], np.float32)[:, None, :]
    read: list[tuple[int, float] | None] = [(20, 0.83), (20, 0.75)]
    assert len(set(session21(far, ocr=read))) == 1 and len(set(group_faces(far, ocr=read))) == 2
