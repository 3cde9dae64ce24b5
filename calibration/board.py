"""Board layouts in millimetres: the printed play area the camera looks at.

A layout is a TOML file (``boards/*.toml``); every length is in millimetres on
the board plane, with x to the right and y *down* as the board is printed
(the same handedness as an image, so an overhead camera sees the board
unrotated).  Keys::

    name = "dicetar-wars"
    example = true                     # shipped examples say so
    [outline]      polygon = [[x, y], ...]          # the printed sheet (any shape key)
    [markers_dict] name = "DICT_4X4_50"             # an OpenCV ArUco dictionary
    [[markers]]    id = 0, center = [x, y], size = 30, rotation = 0   # square; rotation optional
    [[markers]]    id = 1, corners = [[x, y], ...]  # or its 4 corners: top-left, top-right, ...
    [[zones]]      name, multiplier (int > 0), and one shape key       # scoring zones
    [centre_line]  a = [x, y], b = [x, y], side_a_name, side_b_name
    [[fields]]     name, shape                      # the play field (default: the outline)
    [[card_slots]] name, owner, shape               # where power cards lie
    [die]          size_mm = 16            # deprecated: die sizes belong to the dice set

A shape key is ``polygon``, ``rectangle``, ``circle``, ``annulus``, ``annular_sector``,
``union`` or ``difference`` (:mod:`calibration.shapes`).  Areas become prepared GEOS
geometries once, as the file loads (:mod:`calibration.regions`).  A marker's rotation is in
degrees, clockwise as the board is seen.

Side "a" of the centre line is on your *left* when you walk along the printed
line from ``a`` to ``b`` looking down at the board (:meth:`CentreLine.side_of`
is the one definition).  Errors name the file, the entry and the field.

Die sizes belong to the dice set in the table's config (``[dice] sizes_mm`` in ``table.toml``,
:mod:`calibration.diceset`), not to the board.  A file that still has ``[die] size_mm`` loads,
its size stands in for a table that names none, and :attr:`BoardLayout.notes` says so.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from calibration import polygons as pg
from calibration.polygons import Poly
from calibration.regions import Region
from calibration.shapes import parse_shape

BOARDS_DIR = Path(__file__).resolve().parent.parent / "boards"


class BoardError(ValueError):
    """A board layout file that does not hold a usable layout.

    The message names the file, the entry and the field, e.g.
    ``boards/x.toml: entry 'zones[2]' ('inner'), field 'multiplier': expected an int > 0, got 0``.
    """

    def __init__(self, source: str, entry: str, field_name: str, why: str) -> None:
        super().__init__(f"{source}: entry {entry!r}, field {field_name!r}: {why}")
        self.source = source
        self.entry = entry
        self.field = field_name


@dataclass(frozen=True)
class Zone:
    name: str
    multiplier: int
    region: Region = field(compare=False)

    @property
    def polygon(self) -> Poly:
        """The zone's outer boundary (its largest part's, holes left out), mm."""
        return self.region.outline


@dataclass(frozen=True)
class Field:
    name: str
    region: Region = field(compare=False)

    @property
    def polygon(self) -> Poly:
        return self.region.outline


@dataclass(frozen=True)
class CardSlot:
    name: str
    owner: str
    region: Region = field(compare=False)

    @property
    def polygon(self) -> Poly:
        return self.region.outline


#: Corners of a unit square about its centre in ArUco order (top-left, top-right, bottom-right,
#: bottom-left as the marker is printed upright).
_UNIT_SQUARE = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], dtype=np.float64)
#: Marker corners may be this far (relative) from a square before the file is refused.
MARKER_SQUARENESS = 0.03


@dataclass(frozen=True)
class Marker:
    """A printed ArUco marker: its four corners on the board, mm, in ArUco order (the marker's
    own top-left, top-right, bottom-right, bottom-left, however it is turned)."""

    id: int
    corners_mm: Poly = field(compare=False)

    @classmethod
    def square(
        cls, marker_id: int, center: tuple[float, float], size: float, rotation: float = 0.0
    ) -> Marker:
        """A marker ``size`` mm wide centred on ``center``, turned ``rotation`` degrees clockwise
        as the board is seen (from +x towards +y)."""
        t = np.radians(rotation)
        c, s = np.cos(t), np.sin(t)
        pts = (_UNIT_SQUARE * size) @ np.array([[c, s], [-s, c]]) + np.asarray(center, np.float64)
        if rotation == 0.0:  # exactly the old axis-aligned corners
            pts = _UNIT_SQUARE * size + np.asarray(center, np.float64)
        return cls(marker_id, pts)

    @property
    def center(self) -> tuple[float, float]:
        c = self.corners_mm.mean(axis=0)
        return float(c[0]), float(c[1])

    @property
    def size(self) -> float:
        """Mean side, mm."""
        d = np.roll(self.corners_mm, -1, axis=0) - self.corners_mm
        return float(np.linalg.norm(d, axis=1).mean())

    @property
    def rotation(self) -> float:
        """Degrees clockwise (as the board is seen) of the marker's top edge from +x."""
        d = self.corners_mm[1] - self.corners_mm[0]
        return float(np.degrees(np.arctan2(d[1], d[0])))

    def corners(self) -> Poly:
        """The four corners in ArUco order (top-left, top-right, bottom-right, bottom-left), mm."""
        return np.array(self.corners_mm, dtype=np.float64)


#: Half-width (mm) of the half-planes standing for the centre line's sides: far past any board.
_FAR_MM = 1e5


@dataclass(frozen=True)
class CentreLine:
    a: tuple[float, float]
    b: tuple[float, float]
    side_a_name: str
    side_b_name: str
    side_a: Region = field(init=False, compare=False, repr=False)
    side_b: Region = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        a, b = np.asarray(self.a, np.float64), np.asarray(self.b, np.float64)
        d = (b - a) / np.linalg.norm(b - a)
        n = np.array([d[1], -d[0]])  # left of a->b in a y-down frame
        p, q = a - _FAR_MM * d, b + _FAR_MM * d
        object.__setattr__(self, "side_a", Region(shapely.Polygon([p, q, q + _FAR_MM * n, p + _FAR_MM * n])))
        object.__setattr__(self, "side_b", Region(shapely.Polygon([p, q, q - _FAR_MM * n, p - _FAR_MM * n])))

    def signed_distance(self, points: Poly) -> Poly:
        """Signed distance (mm) of points from the line; positive on side "a"."""
        a, b = np.asarray(self.a), np.asarray(self.b)
        d = b - a
        n = np.array([d[1], -d[0]]) / np.linalg.norm(d)  # left of a->b in a y-down frame
        return np.asarray((np.asarray(points, dtype=np.float64) - a) @ n, dtype=np.float64)

    def side_of(self, footprint: Poly | BaseGeometry) -> str:
        """ "a", "b", or "line" when the footprint touches or straddles the line."""
        g = footprint if isinstance(footprint, BaseGeometry) else pg.geometry(footprint)
        if self.side_a.geometry.contains_properly(g):
            return "a"
        if self.side_b.geometry.contains_properly(g):
            return "b"
        return "line"

    def segment(self) -> Poly:
        """The line as a segment reaching well past the board (it is infinite for the side test)."""
        a, b = np.asarray(self.a, np.float64), np.asarray(self.b, np.float64)
        d = b - a
        return np.array([a - 10 * d, b + 10 * d])


@dataclass(frozen=True)
class BoardLayout:
    name: str
    example: bool
    source: str
    outline_region: Region = field(compare=False)
    markers_dict: str
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...] = ()
    centre_line: CentreLine | None = None
    fields: tuple[Field, ...] = ()
    card_slots: tuple[CardSlot, ...] = ()
    #: the deprecated ``[die] size_mm`` of an older file (None when the file has none)
    die_size_mm: float | None = None
    description: str = ""
    #: what a person should change in the file (deprecations); it loads and plays as it is
    notes: tuple[str, ...] = ()

    @property
    def outline(self) -> Poly:
        """The printed sheet's outer boundary, mm."""
        return self.outline_region.outline

    def marker(self, marker_id: int) -> Marker | None:
        return next((m for m in self.markers if m.id == marker_id), None)

    def bounds(self) -> tuple[float, float, float, float]:
        """(xmin, ymin, xmax, ymax) of the outline, mm."""
        x0, y0, x1, y1 = self.outline_region.geometry.bounds
        return float(x0), float(y0), float(x1), float(y1)

    def aruco_dictionary(self) -> cv2.aruco.Dictionary:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.markers_dict))

    def boundaries(self) -> list[tuple[Poly, bool]]:
        """Every line a die's classification depends on: (polyline, closed)."""
        areas = [z.region for z in self.zones] + [f.region for f in self.fields]
        areas += [c.region for c in self.card_slots]
        out: list[tuple[Poly, bool]] = [(ring, True) for r in areas for ring in r.rings()]
        if self.centre_line is not None:
            out.append((self.centre_line.segment(), False))
        return out

    @cached_property
    def boundary_lines(self) -> BaseGeometry:
        """:meth:`boundaries` as one shapely geometry, for distances."""
        lines = [
            shapely.LinearRing(p) if closed else shapely.LineString(p) for p, closed in self.boundaries()
        ]
        return shapely.MultiLineString(lines) if lines else shapely.MultiLineString()


def load_board(path: str | Path) -> BoardLayout:
    """Read and validate a board layout TOML file.

    A bare name (``"dicetar-wars"``) is looked up in the shipped ``boards/``
    folder as ``NAME.toml`` or ``NAME.example.toml``.
    """
    p = resolve_board_path(path)
    src = str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise BoardError(src, "(file)", "(file)", f"cannot read the layout: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise BoardError(src, "(file)", "(syntax)", "not valid TOML (not UTF-8 text)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BoardError(src, "(file)", "(syntax)", f"not valid TOML: {e}") from None
    return parse_board(data, src)


def resolve_board_path(path: str | Path) -> Path:
    p = Path(path)
    if p.exists() or p.suffix == ".toml" or len(p.parts) > 1:
        return p
    for candidate in (BOARDS_DIR / f"{p.name}.toml", BOARDS_DIR / f"{p.name}.example.toml"):
        if candidate.exists():
            return candidate
    return p


class _Reader:
    """Typed access to one TOML table with errors that name file, entry and field."""

    def __init__(self, src: str, entry: str, table: Any) -> None:
        self.src, self.entry = src, entry
        if not isinstance(table, Mapping):
            raise BoardError(src, entry, "(table)", f"expected a table, got {table!r}")
        self.t = table

    def fail(self, name: str, why: str) -> BoardError:
        return BoardError(self.src, self.entry, name, why)

    def get(self, name: str, default: Any = ...) -> Any:
        if name not in self.t:
            if default is ...:
                raise self.fail(name, "missing")
            return default
        return self.t[name]

    def text(self, name: str, default: Any = ...) -> str:
        v = self.get(name, default)
        if not isinstance(v, str) or not v.strip():
            raise self.fail(name, f"expected a non-empty string, got {v!r}")
        return v

    def number(self, name: str, default: Any = ..., positive: bool = True) -> float:
        v = self.get(name, default)
        if isinstance(v, bool) or not isinstance(v, int | float) or not np.isfinite(v):
            raise self.fail(name, f"expected a number (mm), got {v!r}")
        if positive and v <= 0:
            raise self.fail(name, f"expected a number > 0, got {v!r}")
        return float(v)

    def point(self, name: str) -> tuple[float, float]:
        v = self.get(name)
        if (
            not isinstance(v, list)
            or len(v) != 2
            or any(isinstance(c, bool) or not isinstance(c, int | float) for c in v)
        ):
            raise self.fail(name, f"expected a point [x, y] in mm, got {v!r}")
        return float(v[0]), float(v[1])

    def region(self) -> Region:
        """The area this table's one shape key draws (:mod:`calibration.shapes`), prepared."""
        return Region(parse_shape(self.t, self.fail))

    def marker(self, dict_name: str, dict_size: int) -> Marker:
        mid = self.get("id")
        if isinstance(mid, bool) or not isinstance(mid, int) or not 0 <= mid < dict_size:
            raise self.fail("id", f"expected an int 0..{dict_size - 1} ({dict_name}), got {mid!r}")
        if "corners" in self.t:
            if "center" in self.t or "size" in self.t or "rotation" in self.t:
                raise self.fail("corners", "give either corners or center + size (+ rotation), not both")
            v = self.get("corners")
            if (
                not isinstance(v, list)
                or len(v) != 4
                or not all(isinstance(p, list) and len(p) == 2 for p in v)
                or any(isinstance(c, bool) or not isinstance(c, int | float) for p in v for c in p)
            ):
                raise self.fail(
                    "corners",
                    "expected the marker's 4 corners [[x, y], ...] in mm (its top-left, top-right, "
                    f"bottom-right, bottom-left), got {v!r}",
                )
            m = Marker(mid, np.asarray(v, np.float64))
            _check_square(self, m)
            return m
        rotation = self.number("rotation", 0.0, positive=False)
        return Marker.square(mid, self.point("center"), self.number("size"), rotation)


def _check_square(r: _Reader, m: Marker) -> None:
    """Refuse four corners that are not a square listed in order (a typo or a swapped pair)."""
    c = m.corners_mm
    sides = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)
    diags = np.linalg.norm(c[2:] - c[:2], axis=1)
    size = sides.mean()
    if (
        size < 1.0
        or np.ptp(sides) > MARKER_SQUARENESS * size
        or np.abs(diags - size * np.sqrt(2)).max() > MARKER_SQUARENESS * size
    ):
        raise r.fail(
            "corners",
            f"the corners {c.tolist()} are not a square listed in order around it "
            f"(sides {np.round(sides, 2).tolist()} mm)",
        )
    u, v = c[1] - c[0], c[3] - c[0]
    if u[0] * v[1] - u[1] * v[0] < 0:
        raise r.fail(
            "corners",
            "the corners run anticlockwise as the board is seen: list the marker's top-left, "
            "top-right, bottom-right, bottom-left (a printed marker cannot be mirrored)",
        )


def _entries(src: str, data: Mapping[str, Any], key: str) -> list[tuple[str, Any]]:
    raw = data.get(key, [])
    if not isinstance(raw, list):
        raise BoardError(src, key, "(array)", f"expected an array of tables [[{key}]], got {raw!r}")
    return [(f"{key}[{i}]", t) for i, t in enumerate(raw)]


def _label(entry: str, table: Any) -> str:
    if isinstance(table, Mapping) and isinstance(table.get("name"), str):
        return f"{entry} ({table['name']!r})"
    if isinstance(table, Mapping) and "id" in table:
        return f"{entry} (id {table['id']!r})"
    return entry


def parse_board(data: Mapping[str, Any], src: str = "<board>") -> BoardLayout:
    top = _Reader(src, "(top)", data)
    name = top.text("name")
    example = top.get("example", False)
    if not isinstance(example, bool):
        raise top.fail("example", f"expected true or false, got {example!r}")
    description = top.get("description", "")
    if not isinstance(description, str):
        raise top.fail("description", f"expected a string, got {description!r}")

    outline = _Reader(src, "outline", top.get("outline")).region()

    md = _Reader(src, "markers_dict", top.get("markers_dict", {"name": "DICT_4X4_50"}))
    dict_name = md.text("name", "DICT_4X4_50")
    if not dict_name.startswith("DICT_") or not hasattr(cv2.aruco, dict_name):
        raise md.fail("name", f"expected an OpenCV ArUco dictionary such as 'DICT_4X4_50', got {dict_name!r}")
    dict_size = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dict_name)).bytesList.shape[0]

    markers: list[Marker] = []
    shapes: list[BaseGeometry] = []
    for entry, t in _entries(src, data, "markers"):
        r = _Reader(src, _label(entry, t), t)
        m = r.marker(dict_name, dict_size)
        if any(other.id == m.id for other in markers):
            raise r.fail("id", f"marker id {m.id} is used twice")
        where = "corners" if "corners" in t else "center"
        g = shapely.Polygon(m.corners_mm)
        if not outline.contains(g):
            raise r.fail(where, "reaches outside the board outline")
        for other, og in zip(markers, shapes, strict=True):
            if shapely.intersection(g, og).area > 1e-6:
                raise r.fail(where, f"marker overlaps marker id {other.id}")
        markers.append(m)
        shapes.append(g)
    if len(markers) < 2:
        raise BoardError(src, "markers", "(array)", f"need at least 2 [[markers]], got {len(markers)}")

    zones: list[Zone] = []
    for entry, t in _entries(src, data, "zones"):
        r = _Reader(src, _label(entry, t), t)
        zname = r.text("name")
        if any(z.name == zname for z in zones):
            raise r.fail("name", f"zone name {zname!r} is used twice")
        mult = r.get("multiplier")
        if isinstance(mult, bool) or not isinstance(mult, int) or mult <= 0:
            raise r.fail("multiplier", f"expected an int > 0, got {mult!r}")
        zones.append(Zone(zname, mult, r.region()))

    centre: CentreLine | None = None
    if "centre_line" in data:
        r = _Reader(src, "centre_line", data["centre_line"])
        a, b = r.point("a"), r.point("b")
        if np.hypot(b[0] - a[0], b[1] - a[1]) < 1.0:
            raise r.fail("b", f"the line's two points must differ, got a={a} b={b}")
        centre = CentreLine(a, b, r.text("side_a_name", "a"), r.text("side_b_name", "b"))

    fields_: list[Field] = []
    for entry, t in _entries(src, data, "fields"):
        r = _Reader(src, _label(entry, t), t)
        fields_.append(Field(r.text("name"), r.region()))
    if not fields_:
        fields_ = [Field("board", outline)]

    slots: list[CardSlot] = []
    for entry, t in _entries(src, data, "card_slots"):
        r = _Reader(src, _label(entry, t), t)
        sname = r.text("name")
        if any(s.name == sname for s in slots):
            raise r.fail("name", f"card slot name {sname!r} is used twice")
        slots.append(CardSlot(sname, r.text("owner"), r.region()))

    die_size, notes = _deprecated_die_size(src, data)
    if outline.area < (die_size or 16.0) ** 2:
        raise BoardError(src, "outline", "polygon", "outline is smaller than one die")

    return BoardLayout(
        name=name,
        example=example,
        source=src,
        outline_region=outline,
        markers_dict=dict_name,
        markers=tuple(markers),
        zones=tuple(zones),
        centre_line=centre,
        fields=tuple(fields_),
        card_slots=tuple(slots),
        die_size_mm=die_size,
        description=description,
        notes=notes,
    )


def _deprecated_die_size(src: str, data: Mapping[str, Any]) -> tuple[float | None, tuple[str, ...]]:
    """An older file's ``[die] size_mm`` (checked as before) and the note that it has moved."""
    if "die" not in data:
        return None, ()
    die = _Reader(src, "die", data["die"])
    size = die.number("size_mm", 16.0)
    if not 5.0 <= size <= 60.0:
        raise die.fail("size_mm", f"expected a die edge between 5 and 60 mm, got {size!r}")
    note = (
        f"{src}: [die] size_mm is deprecated: die sizes belong to the dice set, in the table's "
        f"config ([dice] sizes_mm = [{size:g}] in table.toml; several sizes may be listed); "
        f"until the table names them, this board's {size:g} mm is used. Delete [die] from the board."
    )
    return size, (note,)
