"""A board layout from an SVG drawing (Inkscape, Illustrator, a print shop's file).

Lengths come out in millimetres on the board: a drawing whose page is sized in real units
(``width="400mm"`` with a ``viewBox``, as Inkscape writes) is scaled from them, and a
unitless one is read as millimetres.  Transforms (groups, rotations) are applied.  Which
shape is what comes from its data attributes or, as Inkscape makes easy to edit, its ``id``
or label:

================  ===============================================  ==========================
what              data attributes                                  or id / label
================  ===============================================  ==========================
scoring zone      ``data-zone="inner" data-multiplier="8"``        ``zone:inner:x8``
ArUco marker      ``data-marker="3"`` (a square, turned or not)    ``marker:3``
board outline     ``data-outline``                                 ``outline``
play field        ``data-field="north"``                           ``field:north``
card slot         ``data-card-slot="p1-card" data-owner="p1"``     ``card:p1-card:p1``
centre line       ``data-centre-line`` (a line or 2-point path)    ``centre_line``
================  ===============================================  ==========================

(``:``, ``_`` and ``-`` all separate the parts of an id.)  Circles become ``circle``
shapes, rectangles ``rectangle`` shapes (with their rotation); anything else (paths, with
their arcs and curves) becomes a ``polygon`` whose chords stay within
:data:`calibration.shapes.CURVE_TOLERANCE_MM` of the drawn curve.  A path of several
closed parts is filled even-odd (an annulus drawn as two circles is a ring).  Without an
outline the page is the board.  The root's ``data-markers-dict`` names the ArUco
dictionary (default ``DICT_4X4_50``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray

from calibration.shapes import CURVE_TOLERANCE_MM

#: Curves whose radius is not known (Béziers) are sampled every this many mm.
CURVE_STEP_MM = 0.5

_SEP = r"[-_:]"
_ZONE_ID = re.compile(rf"^zone{_SEP}(?P<name>.+){_SEP}x(?P<mult>\d+)$", re.IGNORECASE)
_MARKER_ID = re.compile(rf"^(?:aruco{_SEP})?marker{_SEP}(?P<id>\d+)$", re.IGNORECASE)
_FIELD_ID = re.compile(rf"^field{_SEP}(?P<name>.+)$", re.IGNORECASE)
_CARD_ID = re.compile(rf"^card{_SEP}(?P<name>[^:]+):(?P<owner>.+)$", re.IGNORECASE)


class SvgImportError(ValueError):
    """An SVG that does not describe a board; the message names the file and the element."""


@dataclass(frozen=True)
class _Item:
    role: str  # zone, marker, outline, field, card_slot, centre_line
    label: str  # how the element was named, for errors
    attrs: dict[str, Any]
    shape: dict[str, Any] | None = None  # the layout shape key and value (areas)
    points: NDArray[np.float64] | None = None  # marker corners, centre-line ends


def layout_from_svg(path: str | Path, name: str | None = None) -> dict[str, Any]:
    """The board layout (the ``parse_board`` form of a layout file) an SVG drawing describes."""
    import svgelements as se

    src = str(path)
    try:
        svg = se.SVG.parse(src, ppi=25.4)  # 25.4 px an inch: one CSS px of the drawing is a mm
    except FileNotFoundError:
        raise SvgImportError(f"{src}: no such file (expected an SVG drawing of the board)") from None
    except Exception as e:  # svgelements raises the XML parser's errors as they come
        raise SvgImportError(f"{src}: not a readable SVG file ({type(e).__name__}: {e})") from None
    items: list[_Item] = []
    for element in svg.elements():
        if isinstance(element, se.Shape):
            item = _classify(element, src, se)
            if item is not None:
                items.append(item)
    layout: dict[str, Any] = {
        "name": name or Path(src).stem,
        "description": f"imported from {Path(src).name}",
        "markers_dict": {"name": str(svg.values.get("data-markers-dict", "DICT_4X4_50"))},
    }
    outline = [i for i in items if i.role == "outline"]
    if len(outline) > 1:
        raise SvgImportError(
            f"{src}: {len(outline)} outlines ({outline[0].label}, {outline[1].label}); expected one"
        )
    if outline:
        layout["outline"] = outline[0].shape
    else:
        w, h = float(svg.width), float(svg.height)
        if not (w > 0 and h > 0):
            raise SvgImportError(
                f"{src}: no outline shape and no page size: mark the board's edge data-outline"
            )
        layout["outline"] = {"polygon": [[0, 0], [w, 0], [w, h], [0, h]]}
    layout["markers"] = [_marker_entry(i) for i in items if i.role == "marker"]
    layout["zones"] = [
        {"name": i.attrs["name"], "multiplier": i.attrs["multiplier"], **(i.shape or {})}
        for i in items
        if i.role == "zone"
    ]
    fields = [{"name": i.attrs["name"], **(i.shape or {})} for i in items if i.role == "field"]
    if fields:
        layout["fields"] = fields
    slots = [
        {"name": i.attrs["name"], "owner": i.attrs["owner"], **(i.shape or {})}
        for i in items
        if i.role == "card_slot"
    ]
    if slots:
        layout["card_slots"] = slots
    lines = [i for i in items if i.role == "centre_line"]
    if lines:
        a, b = lines[0].points[0], lines[0].points[-1]  # type: ignore[index]
        layout["centre_line"] = {
            "a": _pt(a),
            "b": _pt(b),
            "side_a_name": lines[0].attrs.get("side_a", "a"),
            "side_b_name": lines[0].attrs.get("side_b", "b"),
        }
    return layout


def _names(element: Any) -> list[str]:
    """The element's id and labels (Inkscape's ``inkscape:label``), as written."""
    out = []
    for key, v in element.values.items():
        if isinstance(v, str) and (key == "id" or str(key).endswith("label")):
            out.append(v.strip())
    return out


def _classify(element: Any, src: str, se: Any) -> _Item | None:
    v = element.values
    names = _names(element)
    label = f"<{type(element).__name__.lower()} id={element.id!r}>"
    where = f"{src}: {label}"
    if "data-zone" in v or any(_ZONE_ID.match(n) for n in names):
        if "data-zone" in v:
            zname, mult = str(v["data-zone"]), v.get("data-multiplier")
        else:
            m = next(m for m in (_ZONE_ID.match(n) for n in names) if m)
            zname, mult = m["name"], m["mult"]
        try:
            multiplier = int(str(mult))
        except ValueError:
            raise SvgImportError(
                f"{where}: zone {zname!r} needs data-multiplier, an int > 0, got {mult!r}"
            ) from None
        return _Item("zone", label, {"name": zname, "multiplier": multiplier}, _area(element, where, se))
    if "data-marker" in v or any(_MARKER_ID.match(n) for n in names):
        raw = v.get("data-marker") or next(m for m in (_MARKER_ID.match(n) for n in names) if m)["id"]
        try:
            marker_id = int(str(raw))
        except ValueError:
            raise SvgImportError(
                f"{where}: data-marker should be the ArUco id, an int, got {raw!r}"
            ) from None
        return _Item("marker", label, {"id": marker_id}, points=_marker_corners(element, where, se))
    if "data-outline" in v or "outline" in names:
        return _Item("outline", label, {}, _area(element, where, se))
    if "data-field" in v or any(_FIELD_ID.match(n) for n in names):
        fname = v.get("data-field") or next(m for m in (_FIELD_ID.match(n) for n in names) if m)["name"]
        return _Item("field", label, {"name": str(fname) or "field"}, _area(element, where, se))
    if "data-card-slot" in v or any(_CARD_ID.match(n) for n in names):
        if "data-card-slot" in v:
            cname, owner = str(v["data-card-slot"]), v.get("data-owner")
        else:
            m = next(m for m in (_CARD_ID.match(n) for n in names) if m)
            cname, owner = m["name"], m["owner"]
        if not owner:
            raise SvgImportError(f"{where}: card slot {cname!r} needs data-owner (the player it belongs to)")
        return _Item("card_slot", label, {"name": cname, "owner": str(owner)}, _area(element, where, se))
    if "data-centre-line" in v or "centre_line" in names or "center_line" in names:
        pts = _outline_points(element, se)[0]
        if len(pts) < 2:
            raise SvgImportError(f"{where}: a centre line needs two points")
        attrs = {
            k: str(v[f"data-{k.replace('_', '-')}"])
            for k in ("side_a", "side_b")
            if f"data-{k.replace('_', '-')}" in v
        }
        return _Item("centre_line", label, attrs, points=pts)
    return None


def _similarity(matrix: Any) -> tuple[float, float] | None:
    """(scale, rotation in degrees) when the transform keeps shapes (no skew, no mirror), else None."""
    a, b, c, d = matrix.a, matrix.b, matrix.c, matrix.d
    sx, sy = math.hypot(a, b), math.hypot(c, d)
    if sx <= 0 or abs(sx - sy) > 1e-9 * sx or abs(a * c + b * d) > 1e-9 * sx * sy or a * d - b * c < 0:
        return None
    return sx, math.degrees(math.atan2(b, a))


def _area(element: Any, where: str, se: Any) -> dict[str, Any]:
    """The layout shape of a closed SVG shape: circle, rectangle, or polygon."""
    sim = _similarity(element.transform)
    if isinstance(element, se.Circle | se.Ellipse) and sim is not None:
        rx, ry = float(element.implicit_rx), float(element.implicit_ry)
        if abs(rx - ry) < 1e-9 * max(rx, 1.0):
            c = element.implicit_center
            return {"circle": {"center": _pt((c.x, c.y)), "radius": _num(rx)}}
    if isinstance(element, se.Rect) and sim is not None and not (element.rx or element.ry):
        corners = _rect_corners(element)
        size = [
            _num(float(np.linalg.norm(corners[1] - corners[0]))),
            _num(float(np.linalg.norm(corners[3] - corners[0]))),
        ]
        d = corners[1] - corners[0]
        rot = math.degrees(math.atan2(d[1], d[0]))
        shape: dict[str, Any] = {"center": _pt(corners.mean(axis=0)), "size": size}
        if abs(rot) > 1e-9:
            shape["rotation"] = _num(rot)
        return {"rectangle": shape}
    rings = [p for p in _outline_points(element, se) if len(p) >= 3]
    if not rings:
        raise SvgImportError(f"{where}: expected a closed shape with area (rect, circle, polygon or path)")
    geom = shapely.Polygon()
    for ring in rings:  # even-odd: a part inside another is a hole
        geom = shapely.symmetric_difference(geom, shapely.make_valid(shapely.Polygon(ring)))
    geom = shapely.make_valid(geom)
    polys = [g for g in getattr(geom, "geoms", [geom]) if g.geom_type == "Polygon" and g.area > 0]
    if not polys:
        raise SvgImportError(f"{where}: the shape encloses no area")

    def polygon(p: Any) -> dict[str, Any]:
        outer = {"polygon": [_pt(q) for q in np.asarray(p.exterior.coords)[:-1]]}
        if not p.interiors:
            return outer
        holes = [{"polygon": [_pt(q) for q in np.asarray(r.coords)[:-1]]} for r in p.interiors]
        return {"difference": [outer, *holes]}

    return polygon(polys[0]) if len(polys) == 1 else {"union": [polygon(p) for p in polys]}


def _rect_corners(element: Any) -> NDArray[np.float64]:
    """A rectangle's corners (its own top-left, top-right, bottom-right, bottom-left), transformed."""
    x, y, w, h = (float(element.x), float(element.y), float(element.width), float(element.height))
    m = element.transform
    pts = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
    return np.array([[m.a * px + m.c * py + m.e, m.b * px + m.d * py + m.f] for px, py in pts])


def _marker_corners(element: Any, where: str, se: Any) -> NDArray[np.float64]:
    if isinstance(element, se.Rect):
        return _rect_corners(element)
    rings = _outline_points(element, se)
    if len(rings) != 1 or len(rings[0]) != 4:
        raise SvgImportError(f"{where}: a marker must be a square (a rect, or a path of 4 corners)")
    return rings[0]


def _outline_points(element: Any, se: Any) -> list[NDArray[np.float64]]:
    """Each sub-path of a shape as points (transform applied); curves sampled finely enough."""
    path = se.Path(element)
    path.reify()
    out = []
    for sub in path.as_subpaths():
        pts: list[tuple[float, float]] = []
        for seg in se.Path(sub):
            if isinstance(seg, se.Move):
                pts.append((seg.end.x, seg.end.y))
            elif isinstance(seg, se.Line | se.Close):
                if seg.end is not None:
                    pts.append((seg.end.x, seg.end.y))
            else:
                n = _steps(seg, se)
                for t in np.linspace(0, 1, n + 1)[1:]:
                    p = seg.point(float(t))
                    pts.append((p.x, p.y))
        arr = np.asarray(pts, np.float64).reshape(-1, 2)
        keep = np.ones(len(arr), bool)
        keep[1:] = np.linalg.norm(np.diff(arr, axis=0), axis=1) > 1e-9  # repeated points
        arr = arr[keep]
        if len(arr) > 2 and np.linalg.norm(arr[0] - arr[-1]) < 1e-9:
            arr = arr[:-1]
        out.append(arr)
    return out


def _steps(seg: Any, se: Any) -> int:
    """Chords for one curved segment: within the curve tolerance for circular arcs."""
    length = float(seg.length())
    if isinstance(seg, se.Arc):
        r = min(float(seg.rx), float(seg.ry))
        step = math.sqrt(8.0 * r * CURVE_TOLERANCE_MM) if r > 0 else CURVE_STEP_MM
    else:
        step = CURVE_STEP_MM
    return max(4, math.ceil(length / step))


def _marker_entry(item: _Item) -> dict[str, Any]:
    return {"id": item.attrs["id"], "corners": [_pt(p) for p in item.points]}  # type: ignore[union-attr]


def _num(x: float) -> float:
    # a micrometre: below what a printer draws, above the unit conversion's rounding
    return round(float(x), 3) + 0.0  # + 0.0 drops -0.0


def _pt(p: Any) -> list[float]:
    return [_num(p[0]), _num(p[1])]


def to_toml(layout: dict[str, Any]) -> str:
    """A layout (the ``parse_board`` form) as the text of a layout file."""
    lines = [f"name = {_toml(layout['name'])}"]
    if layout.get("description"):
        lines.append(f"description = {_toml(layout['description'])}")
    for key in ("outline", "markers_dict", "centre_line"):
        if key in layout:
            lines += ["", f"[{key}]"] + [f"{k} = {_toml(v)}" for k, v in layout[key].items()]
    for key in ("markers", "zones", "fields", "card_slots"):
        for entry in layout.get(key, []):
            lines += ["", f"[[{key}]]"] + [f"{k} = {_toml(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} to a layout file")
