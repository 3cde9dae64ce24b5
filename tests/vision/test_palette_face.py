"""The top face's outline (vision.face.face_quad): the board geometry reads stacking from its size,
so the darker sides a camera sees on a die away from the image centre must stay out of it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.face import body_lab, face_quad


def die_with_sides(
    top: int, band: int, body: tuple[int, int, int], darker: float, angle: float = 0.0
) -> np.ndarray:
    """A grey table with one die: a ``top``-pixel top face and a ``band``-pixel side below and right."""
    img = np.full((200, 200, 3), (120, 118, 115), np.uint8)
    side = tuple(int(c * darker) for c in body)
    c = 100.0
    box_side = cv2.boxPoints(((c + band / 2, c + band / 2), (top + band, top + band), angle))
    cv2.fillConvexPoly(img, np.round(box_side).astype(np.int32), side, cv2.LINE_AA)
    box_top = cv2.boxPoints(((c, c), (top, top), angle))
    cv2.fillConvexPoly(img, np.round(box_top).astype(np.int32), body, cv2.LINE_AA)
    for dx, dy in ((-0.25, -0.25), (0.25, 0.25), (0.0, 0.0)):  # three pips
        cv2.circle(
            img, (int(c + dx * top), int(c + dy * top)), max(2, top // 12), (245, 245, 245), -1, cv2.LINE_AA
        )
    return img


@pytest.mark.parametrize("top", [36, 60])
@pytest.mark.parametrize("angle", [0.0, 25.0])
@pytest.mark.parametrize("body", [(40, 40, 200), (170, 90, 30), (70, 160, 40)])
def test_the_outline_is_the_top_face_without_its_darker_sides(
    top: int, angle: float, body: tuple[int, int, int]
) -> None:
    img = die_with_sides(top, band=top // 4, body=body, darker=0.65, angle=angle)
    size = top + top // 4  # what a detector would box: the top face and its sides
    lab = body_lab(img[100 - top // 3 : 100 + top // 3, 100 - top // 3 : 100 + top // 3])
    found = face_quad(img, (100.0 + top / 8, 100.0 + top / 8), size, size, lab)
    assert found is not None
    quad, aspect = found
    side = float(np.sqrt(cv2.contourArea(quad.astype(np.float32))))
    # the drawn face's antialiased rim and a turned face's pixel staircase add up to ~2 px; the sides
    # (a quarter of the face) must stay out
    assert 0.95 < side / top < 1.08, f"top face {top} px, outline {side:.1f} px"
    assert np.linalg.norm(quad.mean(0) - 100.0) < 0.05 * top
    assert aspect < 1.08


def test_a_die_the_colour_of_the_table_has_no_outline() -> None:
    img = np.full((120, 120, 3), (120, 118, 115), np.uint8)
    lab = body_lab(img[40:80, 40:80])
    found = face_quad(img, (60.0, 60.0), 40.0, 40.0, lab)
    assert found is None or found[1] < 1.5  # no die edge to find: either nothing or the whole crop
