"""Layout shapes as designers draw them: rings, sectors, turned rectangles, unions, turned markers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.board import BoardError, parse_board
from calibration.geometry import boundary_clearance, classify
from calibration.pose import estimate_board_pose
from calibration.shapes import CURVE_TOLERANCE_MM

C = [200.0, 200.0]  # the rings' centre


def ring_board(**extra: object) -> dict[str, object]:
    """A round DICETAR WARS board: rings x8/x6/x4/x3 in quadrants, split by a 6 mm cross."""
    radii = [(0, 40, 8), (40, 80, 6), (80, 120, 4), (120, 170, 3)]
    cross = [
        {"rectangle": {"center": C, "size": [400, 6]}},
        {"rectangle": {"center": C, "size": [6, 400]}},
    ]
    zones = [
        {
            "name": f"x{m}-q{q}",
            "multiplier": m,
            "difference": [
                {
                    "annular_sector": {
                        "center": C,
                        "inner": r0,
                        "outer": r1,
                        "start": 90 * q,
                        "end": 90 * q + 90,
                    }
                },
                *cross,
            ],
        }
        for r0, r1, m in radii
        for q in range(4)
    ]
    board: dict[str, object] = {
        "name": "rings",
        "outline": {"rectangle": {"center": C, "size": [400, 400]}},
        "markers": [
            {"id": 0, "center": [40, 40], "size": 50, "rotation": 45},
            {"id": 1, "center": [365, 35], "size": 50},
            {"id": 2, "corners": [[340, 340], [390, 340], [390, 390], [340, 390]]},
            {"id": 3, "center": [35, 365], "size": 50, "rotation": -30},
        ],
        "zones": zones,
    }
    board.update(extra)
    return board


def square(x: float, y: float, s: float = 16.0) -> np.ndarray:
    return np.array(
        [[x - s / 2, y - s / 2], [x + s / 2, y - s / 2], [x + s / 2, y + s / 2], [x - s / 2, y + s / 2]]
    )


def at(r: float, degrees: float) -> tuple[float, float]:
    t = math.radians(degrees)
    return C[0] + r * math.cos(t), C[1] + r * math.sin(t)


def test_a_die_in_a_ring_sector_scores_that_ring_and_one_across_a_ring_edge_the_lower() -> None:
    b = parse_board(ring_board())
    assert classify(square(*at(100, 45)), b).zones == ("x4-q0",)
    assert classify(square(*at(60, 135)), b).zones == ("x6-q1",)  # y is down: 135° is lower left
    across = classify(square(*at(80, 225)), b)
    assert set(across.zones) == {"x6-q2", "x4-q2"} and across.min_multiplier == 4
    assert classify(square(*at(190, 45)), b).zones == ()  # outside the rings, still on the board
    assert classify(square(*at(190, 45)), b).field_status == "field"


def test_a_die_wholly_on_the_cross_touches_no_zone_and_one_across_it_touches_both_quadrants() -> None:
    b = parse_board(ring_board())
    on_cross = np.array([[198, 250], [202, 250], [202, 254], [198, 254]], float)  # a 4 mm token
    assert classify(on_cross, b).zones == ()
    across = classify(square(200, 100), b)  # 16 mm over the 6 mm vertical bar, in the x4 ring
    assert set(across.zones) == {"x4-q2", "x4-q3"}


def test_rings_and_sectors_that_share_radii_tile_without_gaps_or_overlaps() -> None:
    b = parse_board(ring_board())
    total = sum(z.region.area for z in b.zones)
    import shapely

    union = shapely.union_all([z.region.geometry for z in b.zones])
    assert union.area == pytest.approx(total, abs=1e-6)  # no two zones overlap
    disc, cross = math.pi * 170**2, 2 * 6 * 340 - 36
    assert total == pytest.approx(disc - cross, rel=2e-4)  # chords within the curve tolerance
    # the rings make four solid quarters: a sliver left between two rings would be a hole
    assert len(union.geoms) == 4 and all(len(q.interiors) == 0 for q in union.geoms)


def test_curves_stay_within_the_tolerance_of_the_drawn_arc() -> None:
    b = parse_board(ring_board())
    ring = next(z for z in b.zones if z.name == "x3-q0").region.geometry
    pts = np.asarray(ring.exterior.coords)
    r = np.hypot(pts[:, 0] - C[0], pts[:, 1] - C[1])
    outer = pts[r > 169.9]
    mids = (outer[1:] + outer[:-1]) / 2  # chord midpoints are the farthest from the arc
    sag = 170 - np.hypot(mids[:, 0] - C[0], mids[:, 1] - C[1])
    assert sag[sag < 5].max() <= CURVE_TOLERANCE_MM + 1e-9


def test_turned_rectangles_circles_and_unions_are_areas_a_die_can_touch() -> None:
    b = parse_board(
        ring_board(
            zones=[
                {
                    "name": "bar",
                    "multiplier": 2,
                    "rectangle": {"center": [200, 200], "size": [100, 10], "rotation": 90},
                },
                {
                    "name": "dumbbell",
                    "multiplier": 5,
                    "union": [
                        {"circle": {"center": [100, 100], "radius": 20}},
                        {"circle": {"center": [300, 100], "radius": 20}},
                        {"polygon": [[100, 95], [300, 95], [300, 105], [100, 105]]},
                    ],
                },
            ]
        )
    )
    assert classify(square(200, 240, 6), b).zones == ("bar",)  # the bar runs down, not across
    assert classify(square(240, 200, 6), b).zones == ()
    assert classify(square(200, 100, 6), b).zones == ("dumbbell",)
    assert classify(square(100, 117, 6), b).zones == ("dumbbell",)  # the circle's rim, below the bar
    assert classify(square(200, 120, 6), b).zones == ()


def test_a_hole_is_not_part_of_an_annulus_and_its_edge_counts_for_clearance() -> None:
    b = parse_board(
        ring_board(
            zones=[{"name": "ring", "multiplier": 3, "annulus": {"center": C, "inner": 50, "outer": 90}}]
        )
    )
    assert classify(square(*C, 10), b).zones == ()
    assert classify(square(*at(70, 10), 10), b).zones == ("ring",)
    # the hole's edge is 50 mm from the centre, the square's corners 5√2 mm
    assert boundary_clearance(square(*C, 10), b) == pytest.approx(50 - 5 * math.sqrt(2), abs=0.03)


def test_markers_by_rotation_or_by_corners_give_the_same_corners() -> None:
    b = parse_board(ring_board())
    m0, m2 = b.marker(0), b.marker(2)
    assert m0 is not None and m2 is not None
    h = 25 * math.sqrt(2)
    assert np.allclose(m0.corners(), [[40, 40 - h], [40 + h, 40], [40, 40 + h], [40 - h, 40]])
    assert m0.rotation == pytest.approx(45) and m0.size == pytest.approx(50)
    assert m2.center == (365, 365) and m2.size == 50 and m2.rotation == 0


@pytest.mark.parametrize(
    ("marker", "field", "why"),
    [
        ({"id": 2, "corners": [[340, 340], [390, 340], [390, 380], [340, 390]]}, "corners", "not a square"),
        ({"id": 2, "corners": [[340, 340], [340, 390], [390, 390], [390, 340]]}, "corners", "anticlockwise"),
        ({"id": 2, "corners": [[340, 340], [390, 340]]}, "corners", "4 corners"),
        (
            {"id": 2, "corners": [[340, 340], [390, 340], [390, 390], [340, 390]], "size": 50},
            "corners",
            "not both",
        ),
        ({"id": 2, "center": [380, 380], "size": 50, "rotation": 45}, "center", "outside the board"),
        ({"id": 2, "center": [60, 60], "size": 50}, "center", "overlaps marker id 0"),
        ({"id": 2, "center": [300, 300], "size": 50, "rotation": "a bit"}, "rotation", "expected a number"),
    ],
)
def test_a_bad_marker_is_refused_naming_the_field(marker: dict[str, object], field: str, why: str) -> None:
    board = ring_board()
    board["markers"] = [*board["markers"][:2], marker, board["markers"][3]]  # type: ignore[index]
    with pytest.raises(BoardError) as e:
        parse_board(board, "b.toml")
    assert e.value.entry == "markers[2] (id 2)" and e.value.field == field and why in str(e.value)


@pytest.mark.parametrize(
    ("zone", "field", "why"),
    [
        (
            {"circle": {"center": C, "radius": 10}, "polygon": [[0, 0], [1, 0], [1, 1]]},
            "circle",
            "exactly one",
        ),
        ({}, "polygon", "exactly one shape"),
        ({"circle": {"center": C, "radius": -3}}, "circle.radius", "> 0"),
        ({"circle": {"centre": C, "radius": 3}}, "circle.center", "missing"),
        ({"annulus": {"center": C, "inner": 50, "outer": 40}}, "annulus.inner", "inner < outer"),
        (
            {"annular_sector": {"center": C, "inner": 5, "outer": 40, "start": 0, "end": 400}},
            "annular_sector.end",
            "360",
        ),
        ({"rectangle": {"center": C, "size": [10]}}, "rectangle.size", "[width, height]"),
        ({"union": [{"circle": {"center": C, "radius": 5}}, {"square": 3}]}, "union[1]", "one shape key"),
        ({"difference": [{"circle": {"center": C, "radius": 5}}]}, "difference", "cut out"),
        ({"polygon": [[0, 0], [10, 10], [10, 0], [0, 10]]}, "polygon", "crosses itself"),
    ],
)
def test_a_bad_shape_is_refused_naming_the_zone_and_the_field(
    zone: dict[str, object], field: str, why: str
) -> None:
    board = ring_board(zones=[{"name": "z", "multiplier": 2, **zone}])
    with pytest.raises(BoardError) as e:
        parse_board(board, "b.toml")
    assert e.value.entry == "zones[0] ('z')" and e.value.field == field and why in str(e.value)


def test_the_pose_comes_from_turned_markers_on_a_printed_ring_board(make_scene) -> None:  # type: ignore[no-untyped-def]
    b = parse_board(ring_board())
    scene = make_scene(b, (210, 190, -650), (200, 200), roll=7)
    pose = estimate_board_pose(scene.image, scene.cal, b)
    assert pose.markers_used == (0, 1, 2, 3)
    grid = np.array([[x, y] for x in (60, 200, 340) for y in (60, 200, 340)], float)
    px = scene.px(np.column_stack([grid, np.zeros(len(grid))]))
    assert np.abs(pose.backproject(px, 0.0, scene.cal) - grid).max() < 0.5
