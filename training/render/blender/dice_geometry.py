"""The numbered dice as exact solids, in pure Python (no numpy): the Blender generator and the
tests share it, so it runs in the Blender venv (numpy < 2) and in the project's (numpy 2) alike.

Frame: Blender's, z up.  Every solid is centred on the origin with circumradius 1 (the d10's
ring radius is 1, its apexes at +-APEX).  Faces list vertex indices counter-clockwise seen from
outside; `up_vertex[f]` is the corner the numeral on face f points at (its top): the apex on a
d10, a fixed corner on a d20, as printed dice have them.

Numbering follows real dice and the project's numpy renderer (training/render/numbered/solids.py,
whose vertices and faces these match one for one): opposite faces sum to 21 (d20), 9 (d10: odd
values round one apex, even round the other) and 90 (percentile d10, "00".."90").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Vec = tuple[float, float, float]
Mat = Sequence[Sequence[float]]  # 3x3, rows

KINDS = ("d10", "d10p", "d20")
VALUES: dict[str, tuple[int, ...]] = {
    "d10": tuple(range(10)),
    "d10p": tuple(range(0, 100, 10)),
    "d20": tuple(range(1, 21)),
}
#: what opposite faces add up to
OPPOSITE_SUM = {"d10": 9, "d10p": 90, "d20": 21}
#: apex height of the d10 (ring radius 1); real d10s are a little squatter than the regular solid
APEX = 0.92
#: a die lies flat when its top face's normal is within this many degrees of straight up
FLAT_DEG = 4.0


def _sub(a: Sequence[float], b: Sequence[float]) -> Vec:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a: Sequence[float], b: Sequence[float]) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _unit(a: Sequence[float]) -> Vec:
    n = math.sqrt(_dot(a, a))
    return (a[0] / n, a[1] / n, a[2] / n)


def _mean(points: Sequence[Sequence[float]]) -> Vec:
    k = len(points)
    return (sum(p[0] for p in points) / k, sum(p[1] for p in points) / k, sum(p[2] for p in points) / k)


def mat_vec(m: Mat, v: Sequence[float]) -> Vec:
    return (_dot(m[0], v), _dot(m[1], v), _dot(m[2], v))


@dataclass(frozen=True)
class Shape:
    """A convex solid: vertices, faces (CCW from outside), the value on each face, and the
    corner each face's numeral points at."""

    kind: str
    vertices: tuple[Vec, ...]
    faces: tuple[tuple[int, ...], ...]
    values: tuple[int, ...]
    up_vertex: tuple[int, ...]

    def centroid(self, f: int) -> Vec:
        return _mean([self.vertices[i] for i in self.faces[f]])

    def normal(self, f: int) -> Vec:
        p = [self.vertices[i] for i in self.faces[f]]
        n = _unit(_cross(_sub(p[1], p[0]), _sub(p[2], p[0])))
        if _dot(n, self.centroid(f)) < 0:
            n = (-n[0], -n[1], -n[2])
        return n

    def opposite(self, f: int) -> int:
        """The face whose normal points most nearly the other way."""
        n = self.normal(f)
        return min(range(len(self.faces)), key=lambda g: _dot(self.normal(g), n))

    def face_of(self, value: int) -> int:
        if value not in self.values:
            raise ValueError(f"{self.kind}: no face shows {value!r} (faces show {sorted(self.values)})")
        return self.values.index(value)

    def label_centre(self, f: int) -> Vec:
        """Where the numeral's centre sits on face f: the centroid, and on a d10's kite a little
        toward the wide ring corners (as printed d10s have it)."""
        c = self.centroid(f)
        if self.kind == "d20":
            return c
        apex = self.vertices[self.up_vertex[f]]
        return (
            c[0] + 0.12 * (c[0] - apex[0]),
            c[1] + 0.12 * (c[1] - apex[1]),
            c[2] + 0.12 * (c[2] - apex[2]),
        )

    def label_frame(self, f: int) -> tuple[Vec, Vec, Vec]:
        """The numeral's right, up and out directions on face f (a right-handed frame)."""
        z = self.normal(f)
        c = self.label_centre(f)
        toward = _sub(self.vertices[self.up_vertex[f]], c)
        y = _unit(_sub(toward, tuple(_dot(toward, z) * k for k in z)))
        x = _cross(y, z)
        return x, y, z

    def inradius(self, f: int) -> float:
        """Distance from the label centre to the nearest edge of face f (in its plane)."""
        c = self.label_centre(f)
        p = [self.vertices[i] for i in self.faces[f]]
        best = math.inf
        for a, b in zip(p, p[1:] + p[:1], strict=True):
            ab = _sub(b, a)
            t = max(0.0, min(1.0, _dot(_sub(c, a), ab) / _dot(ab, ab)))
            q = (a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2])
            best = min(best, math.sqrt(_dot(_sub(c, q), _sub(c, q))))
        return best

    def up_face(self, rotation: Mat) -> tuple[int, float]:
        """The face pointing up (world +z) once the solid is turned by `rotation` (3x3, rows;
        scale allowed), and how far from straight up its normal is, in degrees."""
        best, best_z = -1, -2.0
        for f in range(len(self.faces)):
            n = _unit(mat_vec(rotation, self.normal(f)))
            if n[2] > best_z:
                best, best_z = f, n[2]
        return best, math.degrees(math.acos(max(-1.0, min(1.0, best_z))))

    def value_up(self, rotation: Mat) -> tuple[int, float]:
        f, tilt = self.up_face(rotation)
        return self.values[f], tilt


def _orient(vertices: Sequence[Vec], face: list[int]) -> tuple[int, ...]:
    """Order a face's vertices counter-clockwise seen from outside."""
    p = [vertices[i] for i in face]
    c = _mean(p)
    n = _unit(c)
    a = _sub(p[0], c)
    b = _cross(n, a)
    ang = [math.atan2(_dot(_sub(q, c), b), _dot(_sub(q, c), a)) for q in p]
    order = sorted(range(len(face)), key=lambda i: ang[i])
    return tuple(face[i] for i in order)


def trapezohedron(kind: str, apex: float = APEX) -> Shape:
    """Pentagonal trapezohedron (d10 or percentile d10): apexes at z = -apex / +apex, ring radius
    1, planar kites; odd values round apex 0, even round apex 1, opposite faces sum to 9 (or 90)."""
    if kind not in ("d10", "d10p"):
        raise ValueError(f"trapezohedron: kind must be 'd10' or 'd10p', not {kind!r}")
    c = math.cos(math.radians(36))
    z0 = apex * (1 - c) / (1 + c)
    verts: list[Vec] = [(0.0, 0.0, -apex), (0.0, 0.0, apex)]
    for k in range(10):
        a = math.radians(36 * k)
        verts.append((math.cos(a), math.sin(a), -z0 if k % 2 == 0 else z0))
    faces: list[tuple[int, ...]] = []
    apexes: list[int] = []
    for j in range(5):  # kites round apex 0
        faces.append(_orient(verts, [0, 2 + 2 * j, 2 + (2 * j + 1) % 10, 2 + (2 * j + 2) % 10]))
        apexes.append(0)
    for j in range(5):  # kites round apex 1
        faces.append(_orient(verts, [1, 2 + (2 * j + 1) % 10, 2 + (2 * j + 2) % 10, 2 + (2 * j + 3) % 10]))
        apexes.append(1)
    bare = Shape(kind, tuple(verts), tuple(faces), (0,) * 10, tuple(apexes))
    values = [1, 3, 5, 7, 9, 0, 0, 0, 0, 0]
    for f in range(5, 10):
        values[f] = 9 - values[bare.opposite(f)]
    if kind == "d10p":
        values = [10 * v for v in values]
    return Shape(kind, tuple(verts), tuple(faces), tuple(values), tuple(apexes))


def icosahedron() -> Shape:
    """Regular icosahedron, circumradius 1; opposite faces sum to 21."""
    p = (1 + math.sqrt(5)) / 2
    s = math.sqrt(1 + p * p)
    raw: list[Vec] = []
    for a in (-1.0, 1.0):
        for b in (-p, p):
            raw += [(0.0, a / s, b / s), (a / s, b / s, 0.0), (b / s, 0.0, a / s)]

    def dist(i: int, j: int) -> float:
        d = _sub(raw[i], raw[j])
        return math.sqrt(_dot(d, d))

    edge = min(dist(0, j) for j in range(1, 12))
    faces = []
    for i in range(12):
        for j in range(i + 1, 12):
            for k in range(j + 1, 12):
                if all(abs(dist(x, y) - edge) < 1e-6 for x, y in ((i, j), (j, k), (i, k))):
                    faces.append(_orient(raw, [i, j, k]))
    ups = tuple(f[0] for f in faces)
    bare = Shape("d20", tuple(raw), tuple(faces), (0,) * 20, ups)
    values = [0] * 20
    nxt = 1
    for f in range(20):
        if values[f]:
            continue
        opp = bare.opposite(f)
        values[f], values[opp] = nxt, 21 - nxt
        nxt += 1
    return Shape("d20", tuple(raw), tuple(faces), tuple(values), ups)


SHAPES: dict[str, Shape] = {"d10": trapezohedron("d10"), "d10p": trapezohedron("d10p"), "d20": icosahedron()}


def numeral(kind: str, value: int) -> str:
    """The text printed for `value`: percentile faces read "00".."90"."""
    if value not in VALUES.get(kind, ()):
        raise ValueError(f"{kind!r} has no face {value!r}")
    return f"{value:02d}" if kind == "d10p" else str(value)


def needs_mark(kind: str, value: int) -> bool:
    """Whether the numeral gets a 6./9. mark (a dot or a bar) so it is not read upside down."""
    return numeral(kind, value) in ("6", "9")


def check(shape: Shape) -> None:
    """Raise ValueError naming the fault unless the solid is numbered as real dice are: every
    value once, opposite faces adding up to the kind's sum, faces planar and outward."""
    kind = shape.kind
    if sorted(shape.values) != sorted(VALUES[kind]):
        raise ValueError(f"{kind}: faces show {sorted(shape.values)}, expected each of {VALUES[kind]} once")
    for f in range(len(shape.faces)):
        g = shape.opposite(f)
        if _dot(shape.normal(f), shape.normal(g)) > -0.999:
            raise ValueError(f"{kind}: face {f} has no parallel opposite face")
        if shape.values[f] + shape.values[g] != OPPOSITE_SUM[kind]:
            raise ValueError(
                f"{kind}: faces {f} ({shape.values[f]}) and {g} ({shape.values[g]}) are opposite "
                f"but add up to {shape.values[f] + shape.values[g]}, not {OPPOSITE_SUM[kind]}"
            )
        n, c = shape.normal(f), shape.centroid(f)
        for i in shape.faces[f]:
            if abs(_dot(_sub(shape.vertices[i], c), n)) > 1e-9:
                raise ValueError(f"{kind}: face {f} is not planar")
