"""`dicetable board import FILE.svg`: an SVG drawn from layout shapes comes back as the same zones."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from calibration.board import load_board, parse_board
from calibration.geometry import classify, is_borderline
from calibration.svg_import import SvgImportError, layout_from_svg
from controller.cli_calibration import register

C = (200.0, 200.0)


def sector_path(r0: float, r1: float, a0: float, a1: float) -> str:
    """An annular sector as a designer's path: outer arc, line in, inner arc back."""

    def p(r: float, a: float) -> str:
        return f"{C[0] + r * math.cos(math.radians(a)):.6f} {C[1] + r * math.sin(math.radians(a)):.6f}"

    return f"M {p(r1, a0)} A {r1} {r1} 0 0 1 {p(r1, a1)} L {p(r0, a1)} A {r0} {r0} 0 0 0 {p(r0, a0)} Z"


def ring_path(r0: float, r1: float) -> str:
    x, y = C
    return (
        f"M {x + r1} {y} A {r1} {r1} 0 1 1 {x - r1} {y} A {r1} {r1} 0 1 1 {x + r1} {y} Z "
        f"M {x + r0} {y} A {r0} {r0} 0 1 0 {x - r0} {y} A {r0} {r0} 0 1 0 {x + r0} {y} Z"
    )


SVG = f"""<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
     width="400mm" height="400mm" viewBox="0 0 400 400">
  <title>rings</title>
  <rect data-marker="0" x="15" y="15" width="50" height="50" transform="rotate(45 40 40)"/>
  <g transform="translate(300 0)"><rect id="marker:1" x="10" y="10" width="50" height="50"/></g>
  <path inkscape:label="marker_2" d="M 335 335 L 385 335 L 385 385 L 335 385 Z"/>
  <rect id="marker-3" x="15" y="335" width="50" height="50"/>
  <circle data-zone="bull" data-multiplier="8" cx="{C[0]}" cy="{C[1]}" r="40"/>
  <path data-zone="ring" data-multiplier="6" fill-rule="evenodd" d="{ring_path(40, 80)}"/>
  {"".join(f'<path id="zone:x4-q{q}:x4" d="{sector_path(80, 120, 90 * q, 90 * q + 90)}"/>' for q in range(4))}
  <g transform="translate(0 0)"><rect id="zone_bar_x2" x="150" y="10" width="100" height="12"
     transform="rotate(10 200 16)"/></g>
  <polygon data-zone="corner" data-multiplier="3" points="340,150 390,150 390,250 340,250 365,200"/>
  <rect id="card:p1-card:p1" x="100" y="330" width="60" height="40"/>
  <line id="centre_line" data-side-a="north" data-side-b="south" x1="0" y1="200" x2="400" y2="200"/>
</svg>
"""

SHAPES = {
    "name": "rings",
    "outline": {"polygon": [[0, 0], [400, 0], [400, 400], [0, 400]]},
    "markers": [
        {"id": 0, "center": [40, 40], "size": 50, "rotation": 45},
        {"id": 1, "center": [335, 35], "size": 50},
        {"id": 2, "center": [360, 360], "size": 50},
        {"id": 3, "center": [40, 360], "size": 50},
    ],
    "zones": [
        {"name": "bull", "multiplier": 8, "circle": {"center": list(C), "radius": 40}},
        {"name": "ring", "multiplier": 6, "annulus": {"center": list(C), "inner": 40, "outer": 80}},
        *(
            {
                "name": f"x4-q{q}",
                "multiplier": 4,
                "annular_sector": {
                    "center": list(C),
                    "inner": 80,
                    "outer": 120,
                    "start": 90 * q,
                    "end": 90 * q + 90,
                },
            }
            for q in range(4)
        ),
        {
            "name": "bar",
            "multiplier": 2,
            "rectangle": {"center": [200, 16], "size": [100, 12], "rotation": 10},
        },
        {
            "name": "corner",
            "multiplier": 3,
            "polygon": [[340, 150], [390, 150], [390, 250], [340, 250], [365, 200]],
        },
    ],
    "card_slots": [{"name": "p1-card", "owner": "p1", "rectangle": {"center": [130, 350], "size": [60, 40]}}],
    "centre_line": {"a": [0, 200], "b": [400, 200], "side_a_name": "north", "side_b_name": "south"},
}


@pytest.fixture
def app() -> typer.Typer:
    a = typer.Typer()
    register(a)
    return a


def test_an_svg_drawn_from_shapes_imports_to_the_same_zones(app: typer.Typer, tmp_path: Path) -> None:
    svg = tmp_path / "rings.svg"
    svg.write_text(SVG)
    out = tmp_path / "rings.toml"
    res = CliRunner().invoke(app, ["board", "import", str(svg), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "8 zones" in res.output and "4 markers" in res.output and "centre line: yes" in res.output
    got, want = load_board(out), parse_board(SHAPES)
    assert [z.name for z in got.zones] == [z.name for z in want.zones]
    assert [z.multiplier for z in got.zones] == [z.multiplier for z in want.zones]
    for g, w in zip(got.zones, want.zones, strict=True):
        # the curves' chords on both sides stay within 0.02 mm of the arc drawn
        apart = g.region.geometry.symmetric_difference(w.region.geometry).area
        assert apart < 0.03 * w.region.geometry.length, g.name
    for g, w in zip(got.markers, want.markers, strict=True):
        assert g.id == w.id and np.allclose(g.corners(), w.corners(), atol=1e-3)
    assert got.centre_line is not None and (got.centre_line.side_a_name, got.centre_line.side_b_name) == (
        "north",
        "south",
    )
    assert [(c.name, c.owner) for c in got.card_slots] == [("p1-card", "p1")]
    # dice anywhere on the board land in the same zones, side, field and card slot
    rng = np.random.default_rng(3)
    square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) * 8
    compared = 0
    for _ in range(1500):
        fp = square @ np.array([[0.8, 0.6], [-0.6, 0.8]]) + rng.uniform(10, 390, 2)
        if is_borderline(fp, want, margin_mm=0.05):
            continue  # an edge within the curves' tolerance of a line: either answer is the drawing's
        assert classify(fp, got) == classify(fp, want), fp.mean(axis=0)
        compared += 1
    assert compared > 1400


def test_shapes_come_back_as_shapes_where_the_svg_has_them(tmp_path: Path) -> None:
    svg = tmp_path / "rings.svg"
    svg.write_text(SVG)
    layout = layout_from_svg(svg)
    zones = {z["name"]: z for z in layout["zones"]}
    assert zones["bull"]["circle"] == {"center": [200.0, 200.0], "radius": 40.0}
    assert zones["bar"]["rectangle"]["rotation"] == pytest.approx(10)
    assert "difference" in zones["ring"]  # a path of two circles, filled even-odd: a ring
    assert layout["name"] == "rings" and layout["markers"][0]["id"] == 0


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ('<circle data-zone="a" data-multiplier="lots" cx="5" cy="5" r="3"/>', "data-multiplier"),
        ('<circle data-marker="x" cx="5" cy="5" r="3"/>', "data-marker should be the ArUco id"),
        ('<rect data-card-slot="c" x="0" y="0" width="5" height="5"/>', "needs data-owner"),
        ('<path data-marker="4" d="M 0 0 L 5 0 L 5 5 Z"/>', "must be a square"),
    ],
)
def test_a_misnamed_shape_is_refused_naming_the_element(tmp_path: Path, body: str, why: str) -> None:
    svg = tmp_path / "bad.svg"
    head = '<svg xmlns="http://www.w3.org/2000/svg" width="100mm" height="100mm" viewBox="0 0 100 100">'
    svg.write_text(f"{head}{body}</svg>")
    with pytest.raises(SvgImportError) as e:
        layout_from_svg(svg)
    assert str(svg) in str(e.value) and why in str(e.value)


def test_import_refuses_a_missing_file_and_a_board_the_layout_rules_refuse(
    app: typer.Typer, tmp_path: Path
) -> None:
    res = CliRunner().invoke(
        app, ["board", "import", str(tmp_path / "nope.svg"), "--out", str(tmp_path / "x.toml")]
    )
    assert res.exit_code == 2 and "no such file" in res.output
    one_marker = tmp_path / "one.svg"
    one_marker.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="100mm" height="100mm" viewBox="0 0 100 100">'
        '<rect data-marker="0" x="5" y="5" width="20" height="20"/></svg>'
    )
    res = CliRunner().invoke(app, ["board", "import", str(one_marker), "--out", str(tmp_path / "x.toml")])
    assert res.exit_code == 2 and "need at least 2 [[markers]]" in res.output
    assert not (tmp_path / "x.toml").exists()


def rings_half(die):  # type: ignore[no-untyped-def]
    """A DICETAR WARS half on the rings board: the cubes after each throw and the true scores."""
    red = [
        die(5, "red", 200, 200),  # bull x8: 40
        die(2, "red", 260, 200),  # ring x6: 12
        die(4, "red", 200, 300),  # across the edge of two x4 sectors: 16
        die(3, "red", 30, 200),  # on the board, no zone: 0
        die(6, "red", 365, 200),  # corner x3: 18
    ]
    blue = [
        die(6, "blue", 203, 202, level=1, yaw=40),  # on the red bull die: 6 x 8 x 4 = 192
        die(1, "blue", 140, 200),  # ring x6: 6
        die(4, "blue", 425, 300),  # off the board: rethrown
        die(2, "blue", 129, 129),  # sector x4-q2: 8
        die(5, "blue", 200, 16),  # the turned bar x2: 10
    ]
    landed = [*blue[:2], die(3, "blue", 200, 140), *blue[3:]]  # the rethrow lands in the ring x6: 18
    return [red, red + blue, red + landed], {"ann": 40 + 12 + 16 + 0 + 18, "bob": 192 + 6 + 8 + 10 + 18}


@pytest.mark.slow
@pytest.mark.parametrize("drawn", ["svg", "shapes"])
def test_a_dicetar_wars_half_plays_on_a_board_drawn_with_shapes_or_imported_from_svg(
    drawn: str,
    tmp_path: Path,
    make_scene,
    die,  # type: ignore[no-untyped-def]
) -> None:
    from calibration.geometry import place
    from calibration.svg_import import to_toml
    from controller.scenario import Setup, new_game
    from engine import Input

    svg = tmp_path / "rings.svg"
    svg.write_text(SVG)
    layout = layout_from_svg(svg) if drawn == "svg" else SHAPES
    path = tmp_path / "rings.toml"
    path.write_text(to_toml(layout))
    board = load_board(path)
    game = new_game(
        Setup.from_json({"game": "dicetar-wars", "players": ["ann", "bob"], "data": {"board": str(path)}})
    )
    throws, scores = rings_half(die)
    for player, cubes in zip(("ann", "bob", "ann"), throws, strict=True):
        scene = make_scene(board, (210, 205, -700), (210, 200), cubes=cubes)
        quads = [scene.px(c.face_corners(c.top_value())) for c in cubes]
        placed = place(quads, ["d6"] * len(cubes), scene.cal, board, image=scene.image)
        dice = [
            {"kind": "d6", "value": c.top_value(), "colour": c.colour, **g.to_json()}
            for c, g in zip(cubes, placed, strict=True)
        ]
        game.apply(Input.from_json({"type": "throw", "player": player, "dice": dice}))
    assert game.scores() == scores
    assert game.state_json()["last_half"]["doubled"] is False
