"""The dice as solids: d6 cube, d10 / percentile d10 pentagonal trapezohedron, d20 icosahedron.

Die frame follows the board's conventions (z into the table, "up" is -z).  Every
solid is centred on the origin with unit scale; `Solid.placed` sizes, turns and
sets it down so the face showing the asked value points straight up and the
opposite face lies flat on the table (all four solids have parallel opposite faces).

Numbering follows real dice: opposite faces sum to 7 (d6), 9 (d10: odd values
round one apex, even round the other), 90 (percentile "00".."90") and 21 (d20).
Each numeral's top points at one corner of its face (`up_vertex`): the apex on a
d10, a fixed corner on a d20, as printed dice have them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]

KINDS = ("d6", "d10", "d10p", "d20")
VALUES: dict[str, tuple[int, ...]] = {
    "d6": (1, 2, 3, 4, 5, 6),
    "d10": tuple(range(10)),
    "d10p": tuple(range(0, 100, 10)),
    "d20": tuple(range(1, 21)),
}
UP = np.array([0.0, 0.0, -1.0])


@dataclass(frozen=True)
class Shape:
    """A convex solid's vertices (unit scale), faces (vertex indices, counter-clockwise seen
    from outside), the value printed on each face and the corner its numeral points at."""

    kind: str
    vertices: F64
    faces: tuple[tuple[int, ...], ...]
    values: tuple[int, ...]
    up_vertex: tuple[int, ...]

    def normal(self, f: int) -> F64:
        p = self.vertices[list(self.faces[f])]
        n = np.cross(p[1] - p[0], p[2] - p[0])
        n /= np.linalg.norm(n)
        if np.dot(n, p.mean(axis=0)) < 0:
            n = -n
        return np.asarray(n, np.float64)

    def face_of(self, value: int) -> int:
        return self.values.index(value)


def _orient(vertices: F64, face: list[int]) -> tuple[int, ...]:
    """Order a face's vertices counter-clockwise seen from outside."""
    p = vertices[face]
    c = p.mean(axis=0)
    n = c / np.linalg.norm(c)
    a = p[0] - c
    b = np.cross(n, a)
    ang = [math.atan2(float(np.dot(q - c, b)), float(np.dot(q - c, a))) for q in p]
    return tuple(int(face[i]) for i in np.argsort(ang))


def cube() -> Shape:
    v = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)], np.float64)
    normals = {1: (0, 0, -1), 6: (0, 0, 1), 2: (1, 0, 0), 5: (-1, 0, 0), 3: (0, 1, 0), 4: (0, -1, 0)}
    faces, values, ups = [], [], []
    for value, n in normals.items():
        idx = [i for i in range(8) if np.dot(v[i], n) > 0]
        f = _orient(v, idx)
        faces.append(f)
        values.append(value)
        ups.append(f[0])
    return Shape("d6", v, tuple(faces), tuple(values), tuple(ups))


def trapezohedron(kind: str, apex: float = 0.92) -> Shape:
    """Pentagonal trapezohedron: apexes at z = -apex / +apex, ring radius 1, kites planar."""
    c = math.cos(math.radians(36))
    z0 = apex * (1 - c) / (1 + c)
    verts = [[0.0, 0.0, -apex], [0.0, 0.0, apex]]
    for k in range(10):
        a = math.radians(36 * k)
        verts.append([math.cos(a), math.sin(a), -z0 if k % 2 == 0 else z0])
    v = np.array(verts, np.float64)
    faces, apexes = [], []
    for j in range(5):  # kites round the top apex (0): ring 2j, 2j+1, 2j+2 (2j, 2j+2 are high)
        faces.append(_orient(v, [0, 2 + 2 * j, 2 + (2 * j + 1) % 10, 2 + (2 * j + 2) % 10]))
        apexes.append(0)
    for j in range(5):  # kites round the bottom apex (1)
        faces.append(_orient(v, [1, 2 + (2 * j + 1) % 10, 2 + (2 * j + 2) % 10, 2 + (2 * j + 3) % 10]))
        apexes.append(1)
    shape = Shape(kind, v, tuple(faces), (0,) * 10, tuple(apexes))
    # Opposite faces sum to 9: odd values round apex 0, even round apex 1.
    values = [0] * 10
    odd = [1, 3, 5, 7, 9]
    for j in range(5):
        values[j] = odd[j]
    for f in range(5, 10):
        n = shape.normal(f)
        opp = min(range(5), key=lambda g: float(np.dot(shape.normal(g), n)))
        values[f] = 9 - values[opp]
    if kind == "d10p":
        values = [10 * x for x in values]
    return Shape(kind, v, tuple(faces), tuple(values), tuple(apexes))


def icosahedron() -> Shape:
    p = (1 + math.sqrt(5)) / 2
    raw = []
    for a in (-1, 1):
        for b in (-p, p):
            raw += [[0, a, b], [a, b, 0], [b, 0, a]]
    v = np.array(raw, np.float64) / math.sqrt(1 + p * p)
    edge = float(min(np.linalg.norm(v[0] - v[j]) for j in range(1, 12)))
    faces = []
    for i in range(12):
        for j in range(i + 1, 12):
            for k in range(j + 1, 12):
                if all(abs(np.linalg.norm(v[x] - v[y]) - edge) < 1e-6 for x, y in ((i, j), (j, k), (i, k))):
                    faces.append(_orient(v, [i, j, k]))
    shape = Shape("d20", v, tuple(faces), (0,) * 20, tuple(f[0] for f in faces))
    values = [0] * 20
    nxt = 1
    for f in range(20):  # opposite faces sum to 21
        if values[f]:
            continue
        n = shape.normal(f)
        opp = min(range(20), key=lambda g: float(np.dot(shape.normal(g), n)))
        values[f], values[opp] = nxt, 21 - nxt
        nxt += 1
    return Shape("d20", v, tuple(faces), tuple(values), tuple(f[0] for f in faces))


SHAPES: dict[str, Shape] = {
    "d6": cube(),
    "d10": trapezohedron("d10"),
    "d10p": trapezohedron("d10p"),
    "d20": icosahedron(),
}


def _rotation_between(a: F64, b: F64) -> F64:
    """The smallest rotation taking unit vector a to unit vector b."""
    v = np.cross(a, b)
    c = float(np.dot(a, b))
    if np.linalg.norm(v) < 1e-9:
        if c > 0:
            return np.eye(3)
        axis = np.cross(a, [1.0, 0.0, 0.0])
        if np.linalg.norm(axis) < 1e-6:
            axis = np.cross(a, [0.0, 1.0, 0.0])
        axis /= np.linalg.norm(axis)
        return np.asarray(2 * np.outer(axis, axis) - np.eye(3), np.float64)
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.asarray(np.eye(3) + vx + vx @ vx / (1 + c), np.float64)


@dataclass(eq=False)
class Die:
    """A die lying on the board: shape, value up, body, size (mm across), rotation and position."""

    shape: Shape
    value: int
    colour: str
    size: float
    rot: F64
    centre: F64  # board mm of the solid's centre (z < 0: above the table)
    look: dict[str, object] = field(default_factory=dict)

    @classmethod
    def placed(
        cls,
        kind: str,
        value: int,
        colour: str,
        size: float,
        xy: tuple[float, float],
        yaw_deg: float,
        look: dict[str, object] | None = None,
        base_z: float = 0.0,
    ) -> Die:
        """`size` is the cube's edge (d6) or the diameter of the solid's ring / circumsphere."""
        shape = SHAPES[kind]
        scale = size if kind == "d6" else size / 2
        rot = _rotation_between(shape.normal(shape.face_of(value)), UP)
        a = math.radians(yaw_deg)
        yaw = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
        rot = yaw @ rot * scale
        low = float(np.max((shape.vertices @ rot.T)[:, 2]))
        centre = np.array([xy[0], xy[1], base_z - low])
        return cls(shape, value, colour, size, np.asarray(rot, np.float64), centre, dict(look or {}))

    def vertices(self) -> F64:
        return np.asarray(self.shape.vertices @ self.rot.T + self.centre, np.float64)

    def face_points(self, f: int) -> F64:
        return self.vertices()[list(self.shape.faces[f])]

    def face_normal(self, f: int) -> F64:
        n = self.rot @ self.shape.normal(f)
        return np.asarray(n / np.linalg.norm(n), np.float64)

    def top_face(self) -> int:
        return min(range(len(self.shape.faces)), key=lambda f: float(self.face_normal(f)[2]))

    def top_value(self) -> int:
        return self.shape.values[self.top_face()]

    def footprint(self) -> F64:
        import cv2

        xy = self.vertices()[:, :2].astype(np.float32)
        return np.asarray(cv2.convexHull(xy).reshape(-1, 2), np.float64)

    def height(self) -> float:
        v = self.vertices()
        return float(v[:, 2].max() - v[:, 2].min())
