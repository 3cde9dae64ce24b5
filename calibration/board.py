"""Board layouts in millimetres: the printed play area the camera looks at.

A layout is a TOML file (``boards/*.toml``); every length is in millimetres on
the board plane, with x to the right and y *down* as the board is printed
(the same handedness as an image, so an overhead camera sees the board
unrotated).  Keys::

    name = "dicetar-wars"
    example = true                     # shipped examples say so
    [outline]      polygon = [[x, y], ...]          # the printed sheet
    [markers_dict] name = "DICT_4X4_50"             # an OpenCV ArUco dictionary
    [[markers]]    id = 0, center = [x, y], size = 30   # square, axis-aligned
    [[zones]]      name, multiplier (int > 0), polygon  # scoring zones
    [centre_line]  a = [x, y], b = [x, y], side_a_name, side_b_name
    [[fields]]     name, polygon           # the play field (default: the outline)
    [[card_slots]] name, owner, polygon    # where power cards lie
    [die]          size_mm = 16            # edge of the dice usually played

Side "a" of the centre line is on your *left* when you walk along the printed
line from ``a`` to ``b`` looking down at the board (:meth:`CentreLine.side_of`
is the one definition).  Errors name the file, the entry and the field.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration import polygons as pg
from calibration.polygons import Poly

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
    polygon: Poly = field(compare=False)


@dataclass(frozen=True)
class Field:
    name: str
    polygon: Poly = field(compare=False)


@dataclass(frozen=True)
class CardSlot:
    name: str
    owner: str
    polygon: Poly = field(compare=False)


@dataclass(frozen=True)
class Marker:
    id: int
    center: tuple[float, float]
    size: float

    def corners(self) -> Poly:
        """The four corners in ArUco order (top-left, top-right, bottom-right, bottom-left), mm."""
        x, y, h = self.center[0], self.center[1], self.size / 2.0
        return np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], dtype=np.float64)


@dataclass(frozen=True)
class CentreLine:
    a: tuple[float, float]
    b: tuple[float, float]
    side_a_name: str
    side_b_name: str

    def signed_distance(self, points: Poly) -> Poly:
        """Signed distance (mm) of points from the line; positive on side "a"."""
        a, b = np.asarray(self.a), np.asarray(self.b)
        d = b - a
        n = np.array([d[1], -d[0]]) / np.linalg.norm(d)  # left of a->b in a y-down frame
        return np.asarray((np.asarray(points, dtype=np.float64) - a) @ n, dtype=np.float64)

    def side_of(self, footprint: Poly) -> str:
        """ "a", "b", or "line" when the footprint straddles the line."""
        s = self.signed_distance(footprint)
        if np.all(s > 0):
            return "a"
        if np.all(s < 0):
            return "b"
        return "line"


@dataclass(frozen=True)
class BoardLayout:
    name: str
    example: bool
    source: str
    outline: Poly = field(compare=False)
    markers_dict: str
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...] = ()
    centre_line: CentreLine | None = None
    fields: tuple[Field, ...] = ()
    card_slots: tuple[CardSlot, ...] = ()
    die_size_mm: float = 16.0
    description: str = ""

    def marker(self, marker_id: int) -> Marker | None:
        return next((m for m in self.markers if m.id == marker_id), None)

    def bounds(self) -> tuple[float, float, float, float]:
        """(xmin, ymin, xmax, ymax) of the outline, mm."""
        lo, hi = self.outline.min(axis=0), self.outline.max(axis=0)
        return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])

    def aruco_dictionary(self) -> cv2.aruco.Dictionary:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.markers_dict))

    def boundaries(self) -> list[tuple[Poly, bool]]:
        """Every line a die's classification depends on: (polyline, closed)."""
        out: list[tuple[Poly, bool]] = [(z.polygon, True) for z in self.zones]
        out += [(f.polygon, True) for f in self.fields]
        out += [(c.polygon, True) for c in self.card_slots]
        if self.centre_line is not None:
            seg = np.array([self.centre_line.a, self.centre_line.b], dtype=np.float64)
            d = seg[1] - seg[0]
            # The line is infinite for the side test: extend it well past the board.
            seg = np.array([seg[0] - 10 * d, seg[1] + 10 * d])
            out.append((seg, False))
        return out


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

    def polygon(self, name: str = "polygon") -> Poly:
        v = self.get(name)
        if not isinstance(v, list) or len(v) < 3:
            raise self.fail(name, f"expected a list of at least 3 points [[x, y], ...] in mm, got {v!r}")
        for i, pt in enumerate(v):
            if (
                not isinstance(pt, list)
                or len(pt) != 2
                or any(isinstance(c, bool) or not isinstance(c, int | float) for c in pt)
            ):
                raise self.fail(name, f"point {i} should be [x, y] in mm, got {pt!r}")
        poly = pg.as_poly(v)
        if pg.area(poly) < 1.0:
            raise self.fail(name, f"polygon has (almost) no area ({pg.area(poly):.3g} mm²)")
        if not pg.is_simple(poly):
            raise self.fail(name, "polygon crosses itself; list the corners in order around the shape")
        return poly


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

    outline = _Reader(src, "outline", top.get("outline")).polygon()
    opoly_area = pg.area(outline)

    def inside_outline(r: _Reader, poly: Poly, name: str) -> None:
        if pg.overlap_area(poly, outline) < pg.area(poly) - 1e-6:  # poly is convex (a marker)
            raise r.fail(name, "reaches outside the board outline")

    md = _Reader(src, "markers_dict", top.get("markers_dict", {"name": "DICT_4X4_50"}))
    dict_name = md.text("name", "DICT_4X4_50")
    if not dict_name.startswith("DICT_") or not hasattr(cv2.aruco, dict_name):
        raise md.fail("name", f"expected an OpenCV ArUco dictionary such as 'DICT_4X4_50', got {dict_name!r}")
    dict_size = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dict_name)).bytesList.shape[0]

    markers: list[Marker] = []
    for entry, t in _entries(src, data, "markers"):
        r = _Reader(src, _label(entry, t), t)
        mid = r.get("id")
        if isinstance(mid, bool) or not isinstance(mid, int) or not 0 <= mid < dict_size:
            raise r.fail("id", f"expected an int 0..{dict_size - 1} ({dict_name}), got {mid!r}")
        if any(m.id == mid for m in markers):
            raise r.fail("id", f"marker id {mid} is used twice")
        m = Marker(mid, r.point("center"), r.number("size"))
        inside_outline(r, m.corners(), "center")
        for other in markers:
            if pg.overlaps(m.corners(), other.corners()):
                raise r.fail("center", f"marker overlaps marker id {other.id}")
        markers.append(m)
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
        zones.append(Zone(zname, mult, r.polygon()))

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
        fields_.append(Field(r.text("name"), r.polygon()))
    if not fields_:
        fields_ = [Field("board", outline)]

    slots: list[CardSlot] = []
    for entry, t in _entries(src, data, "card_slots"):
        r = _Reader(src, _label(entry, t), t)
        sname = r.text("name")
        if any(s.name == sname for s in slots):
            raise r.fail("name", f"card slot name {sname!r} is used twice")
        slots.append(CardSlot(sname, r.text("owner"), r.polygon()))

    die = _Reader(src, "die", data.get("die", {}))
    die_size = die.number("size_mm", 16.0)
    if not 5.0 <= die_size <= 60.0:
        raise die.fail("size_mm", f"expected a die edge between 5 and 60 mm, got {die_size!r}")
    if opoly_area < die_size**2:
        raise BoardError(src, "outline", "polygon", "outline is smaller than one die")

    return BoardLayout(
        name=name,
        example=example,
        source=src,
        outline=outline,
        markers_dict=dict_name,
        markers=tuple(markers),
        zones=tuple(zones),
        centre_line=centre,
        fields=tuple(fields_),
        card_slots=tuple(slots),
        die_size_mm=die_size,
        description=description,
    )
