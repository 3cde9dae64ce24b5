"""The Blender renderer's dice: numbering checked in pure Python (always), and, where Blender's
`bpy` is installed (its own venv, training/render/blender/README.md), the built mesh and a settled
throw read back through the same geometry.

    PYTHONPATH=$PWD /work/main/.venv/bin/python -m pytest tests/training/test_blender_dice.py -q
    PYTHONPATH=$PWD /work/bpyvenv/bin/python -m pytest tests/training/test_blender_dice.py -q
"""

from __future__ import annotations

import argparse
import math
import random
from dataclasses import replace

import pytest

from training.render.blender import dice_geometry as geo


@pytest.mark.parametrize("kind", geo.KINDS)
def test_every_value_once_and_opposites_sum(kind: str) -> None:
    shape = geo.SHAPES[kind]
    assert sorted(shape.values) == sorted(geo.VALUES[kind])
    total = {"d20": 21, "d10": 9, "d10p": 90}[kind]
    for f in range(len(shape.faces)):
        g = shape.opposite(f)
        assert g != f and shape.opposite(g) == f
        assert shape.values[f] + shape.values[g] == total
    geo.check(shape)  # the generator's own guard agrees


def test_d10_odd_round_one_apex_even_round_the_other() -> None:
    shape = geo.SHAPES["d10"]
    round_apex = {a: {shape.values[f] % 2 for f in range(10) if shape.up_vertex[f] == a} for a in (0, 1)}
    assert round_apex == {0: {1}, 1: {0}}
    assert all(len(shape.faces[f]) == 4 for f in range(10))  # kites
    assert all(len(f) == 3 for f in geo.SHAPES["d20"].faces)  # triangles


def test_solids_are_closed_and_outward() -> None:
    """Euler's V - E + F = 2, and every normal points away from the centre."""
    for shape in geo.SHAPES.values():
        edges = {tuple(sorted((f[i], f[(i + 1) % len(f)]))) for f in shape.faces for i in range(len(f))}
        assert len(shape.vertices) - len(edges) + len(shape.faces) == 2
        for f in range(len(shape.faces)):
            c, n = shape.centroid(f), shape.normal(f)
            assert sum(a * b for a, b in zip(c, n, strict=True)) > 0
            x, y, z = shape.label_frame(f)
            assert z == n and abs(sum(a * b for a, b in zip(x, y, strict=True))) < 1e-9


def test_check_names_a_broken_numbering() -> None:
    bad = replace(geo.SHAPES["d20"], values=(2, *geo.SHAPES["d20"].values[1:]))
    with pytest.raises(ValueError, match="d20"):
        geo.check(bad)


def _rot(axis: tuple[float, float, float], ang: float) -> list[list[float]]:
    x, y, z = axis
    n = math.sqrt(x * x + y * y + z * z)
    x, y, z = x / n, y / n, z / n
    c, s, t = math.cos(ang), math.sin(ang), 1 - math.cos(ang)
    return [
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
    ]


@pytest.mark.parametrize("kind", geo.KINDS)
def test_up_face_read_from_any_resting_pose(kind: str) -> None:
    """Turn each face's normal to +z, spin about z at random: the reader names that face, level."""
    shape = geo.SHAPES[kind]
    rng = random.Random(kind)
    for f in range(len(shape.faces)):
        n = shape.normal(f)
        axis = (n[1], -n[0], 0.0)  # n x z
        ang = math.acos(max(-1.0, min(1.0, n[2])))
        r1 = (
            _rot(axis, ang)
            if math.hypot(*axis) > 1e-9
            else [[1, 0, 0], [0, 1, 0], [0, 0, 1 if n[2] > 0 else -1]]
        )
        r2 = _rot((0.0, 0.0, 1.0), rng.uniform(0, 2 * math.pi))
        rot = [[sum(r2[i][k] * r1[k][j] for k in range(3)) * 1.7 for j in range(3)] for i in range(3)]
        value, tilt = shape.value_up(rot)
        assert value == shape.values[f] and tilt < 1e-6
        # leaning 20 degrees (on another die): still that face, reported off level (cocked)
        lean = _rot((1.0, 0.0, 0.0), math.radians(20))
        leaned = [[sum(lean[i][k] * rot[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
        g, tilt = shape.up_face(leaned)
        assert g == f and 19.9 < tilt < 20.1 and tilt > geo.FLAT_DEG


def test_numerals_and_marks() -> None:
    assert geo.numeral("d10p", 0) == "00" and geo.numeral("d10p", 90) == "90"
    assert [v for v in geo.VALUES["d20"] if geo.needs_mark("d20", v)] == [6, 9]
    assert [v for v in geo.VALUES["d10"] if geo.needs_mark("d10", v)] == [6, 9]
    assert not any(geo.needs_mark("d10p", v) for v in geo.VALUES["d10p"])
    with pytest.raises(ValueError, match="d10"):
        geo.numeral("d10", 10)


def test_same_numbering_as_the_numpy_renderer() -> None:
    """The Blender dice and the project's numpy dice are one set of solids, face for face."""
    pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    if int(np.__version__.split(".")[0]) < 2:
        pytest.skip("the project's renderer needs the project's venv (numpy 2)")
    from training.render.numbered import solids

    for kind in geo.KINDS:
        a, b = geo.SHAPES[kind], solids.SHAPES[kind]
        assert a.faces == b.faces and a.values == b.values and a.up_vertex == b.up_vertex
        assert np.allclose(np.array(a.vertices), b.vertices)


def _args(**kw: object) -> argparse.Namespace:
    base = dict(
        kinds=list(geo.KINDS),
        materials=["opaque", "marbled", "translucent", "metallic"],
        inked=0.75,
        min_dice=1,
        max_dice=4,
        max_tilt=35.0,
        photo_backdrop=0.75,
        samples=4,
        threads=1,
        width=96,
        height=72,
        agx=False,
    )
    base.update(kw)
    return argparse.Namespace(**base)


def test_frame_choices_are_seeded_and_backdrops_never_held_out() -> None:
    from training.render.blender import generate

    real = generate.REAL
    if not (real / "negatives" / "images").is_dir():
        pytest.skip(f"{real}: the shared real fixtures are not beside this checkout")
    backdrops = generate.backdrops_available()
    assert backdrops and not any(p.name.startswith(("skimage_", "easyocr_")) for p in backdrops)
    a = generate.choose_frame(7, 3, _args(), backdrops)
    b = generate.choose_frame(7, 3, _args(), backdrops)
    c = generate.choose_frame(7, 4, _args(), backdrops)
    assert a == b and a != c
    assert all(d.kind in geo.KINDS for d in a.dice)


# -- with Blender ------------------------------------------------------------------------------


def test_blender_die_settles_and_reads_its_up_face(tmp_path: object) -> None:
    """Build a real engraved d20 and d10 in Blender, throw them, and read the faces back: the value
    read from the settled matrix is the face whose mesh normals point up in the baked mesh."""
    bpy = pytest.importorskip("bpy")
    from training.render.blender import generate

    args = _args(kinds=["d20", "d10"], min_dice=2, max_dice=2)
    spec = generate.choose_frame(11, 0, args, [])
    spec.dice[0] = replace(spec.dice[0], kind="d20", material="opaque", colour="red", inked=True, ink="white")
    spec.dice[1] = replace(spec.dice[1], kind="d10", material="marbled", colour="blue", colour2="white")
    studio = generate.Studio(args)
    studio.reset()
    dice = [studio.die(i, s) for i, s in enumerate(spec.dice)]
    for ob in dice:  # engraved: more faces than the bare solid, ink as a second material
        assert len(ob.data.polygons) > 100
    assert [m.name for m in dice[0].data.materials] == ["body0", "ink0"]
    studio.throw(dice, spec.dice)
    for ob, s in zip(dice, spec.dice, strict=True):
        shape = geo.SHAPES[s.kind]
        m = ob.matrix_world
        value, tilt = shape.value_up([[m[r][c] for c in range(3)] for r in range(3)])
        assert tilt < geo.FLAT_DEG
        # independent check on the baked (bevelled, engraved) mesh: its largest polygon facing
        # straight up, matched by its own normal to the solid's faces, is the face read
        level = [p for p in ob.data.polygons if (m.to_3x3() @ p.normal).normalized().z > 0.999]
        assert level, f"{s.kind}: no mesh polygon faces up"
        top = max(level, key=lambda p: p.area)
        g = max(
            range(len(shape.faces)),
            key=lambda k: sum(a * b for a, b in zip(shape.normal(k), top.normal, strict=True)),
        )
        assert shape.values[g] == value
        lowest = min((m @ v.co).z for v in ob.data.vertices)
        assert abs(lowest) < 0.05, f"{s.kind} rests {lowest:.3f} off the table"
    assert bpy.app.version >= (4, 2, 0)
