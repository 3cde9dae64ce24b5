"""Printable boards at true scale: the layout drawn with its ArUco markers.

PNG files carry their resolution (a pHYs chunk) so a printer at 100 % scale
prints millimetres as millimetres; PDF files are minimal image PDFs whose pages
are true size. ``paper="full"`` prints the board on one page (the board plus a
strip below it); ``"a4"``/``"a3"`` tile it onto sheets at true scale, each sheet
labelled by row and column ("A1", "A2", .. "B1"), overlapping its neighbours by
:data:`OVERLAP_MM` with crosshairs to glue by. Every page carries a 100 mm ruler
so the printout's scale can be checked with a rule.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board import BoardLayout, Marker
from calibration.regions import Region

MM_PER_INCH = 25.4

#: Zone fill colours (BGR) by multiplier; other multipliers get a grey.
ZONE_COLOURS = {
    2: (235, 235, 200),
    3: (200, 230, 250),
    4: (200, 245, 205),
    6: (245, 215, 195),
    8: (215, 200, 245),
}


#: Paper sizes (portrait width, height) in mm.
PAPERS = {"a4": (210.0, 297.0), "a3": (297.0, 420.0)}
#: How far neighbouring sheets overlap (mm): the band both print, where the crosshairs sit.
OVERLAP_MM = 10.0
#: Margins of a sheet (mm): left/right, top (the sheet's label), bottom (the ruler).
SIDE_MM, TOP_MM, BOTTOM_MM = 8.0, 12.0, 20.0
#: The printed scale check: a bar this long (mm), and what it says.
RULER_MM = 100.0
RULER_TEXT = "measure: this bar must be 100 mm; if not, print at 100 % / actual size"
#: The strip added below the board on a ``full`` page for the ruler (mm), and that page's least width.
FULL_STRIP_MM, FULL_MIN_WIDTH_MM = 22.0, 200.0
MARK_COLOUR = (170, 0, 170)  # BGR: crosshairs and cut lines (magenta, apart from the board's colours)


class PrintError(ValueError):
    """The board cannot be printed as asked (names the option and what was expected)."""


def render_board_image(board: BoardLayout, px_per_mm: float = 10.0) -> NDArray[np.uint8]:
    """The board as printed: BGR uint8, ``px_per_mm`` pixels per millimetre, origin at (0, 0) mm."""
    if not 0.5 <= px_per_mm <= 40:
        raise PrintError(f"px_per_mm must be between 0.5 and 40, got {px_per_mm!r}")
    xmin, ymin, xmax, ymax = board.bounds()
    if xmin < 0 or ymin < 0:
        raise PrintError(f"board {board.name!r}: outline must lie at x, y >= 0 mm to be printed")
    w, h = round(xmax * px_per_mm), round(ymax * px_per_mm)
    img = np.full((h, w, 3), 255, np.uint8)
    thick = max(1, round(0.6 * px_per_mm))

    def pts(poly: NDArray[np.float64]) -> NDArray[np.int32]:
        return np.round(poly * px_per_mm).astype(np.int32).reshape(-1, 1, 2)

    def label(text: str, at: NDArray[np.float64], size_mm: float) -> None:
        scale = size_mm * px_per_mm / 22.0
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        org = (round(at[0] * px_per_mm - tw / 2), round(at[1] * px_per_mm + th / 2))
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (90, 90, 90), thick, cv2.LINE_AA)

    def fill(region: Region, colour: tuple[int, int, int]) -> None:
        cv2.fillPoly(img, [pts(r) for r in region.rings()], colour)

    def edge(region: Region, colour: tuple[int, int, int]) -> None:
        cv2.polylines(img, [pts(r) for r in region.rings()], True, colour, thick, cv2.LINE_AA)

    for f in board.fields:
        fill(f.region, (238, 244, 246))
    for z in board.zones:
        fill(z.region, ZONE_COLOURS.get(z.multiplier, (225, 225, 225)))
    for z in board.zones:
        edge(z.region, (60, 60, 60))
        label(f"x{z.multiplier}", z.region.label_point(), 12.0)
    for f in board.fields:
        edge(f.region, (40, 40, 40))
    for c in board.card_slots:
        fill(c.region, (235, 240, 240))
        edge(c.region, (120, 120, 120))
        label(c.name, c.polygon.mean(axis=0), 5.0)
    if board.centre_line is not None:
        a = np.round(np.asarray(board.centre_line.a) * px_per_mm).astype(int)
        b = np.round(np.asarray(board.centre_line.b) * px_per_mm).astype(int)
        cv2.line(img, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), (30, 30, 200), 2 * thick, cv2.LINE_AA)
    d = board.aruco_dictionary()
    for m in board.markers:
        if m.rotation == 0.0:
            _paste_upright(img, d, m, px_per_mm)
        else:
            _paste_turned(img, d, m, px_per_mm)
    cv2.polylines(img, [pts(board.outline)], True, (0, 0, 0), thick, cv2.LINE_AA)
    return img


def _paste_upright(img: NDArray[np.uint8], d: cv2.aruco.Dictionary, m: Marker, px_per_mm: float) -> None:
    side = round(m.size * px_per_mm)
    tag = cv2.aruco.generateImageMarker(d, m.id, side)
    x0 = round((m.center[0] - m.size / 2) * px_per_mm)
    y0 = round((m.center[1] - m.size / 2) * px_per_mm)
    quiet = max(1, round(m.size * px_per_mm / 6))  # white border so the marker stands out
    x1, y1 = x0 + side + quiet, y0 + side + quiet
    cv2.rectangle(img, (x0 - quiet, y0 - quiet), (x1, y1), (255, 255, 255), -1)
    img[y0 : y0 + side, x0 : x0 + side] = tag[..., None]


def _paste_turned(img: NDArray[np.uint8], d: cv2.aruco.Dictionary, m: Marker, px_per_mm: float) -> None:
    """A marker at any angle: its image (with a white quiet zone) warped onto its corners."""
    side = max(8, round(m.size * px_per_mm))
    quiet = max(1, round(side / 6))
    tag = cv2.copyMakeBorder(
        cv2.aruco.generateImageMarker(d, m.id, side),
        quiet,
        quiet,
        quiet,
        quiet,
        cv2.BORDER_CONSTANT,
        value=255,
    )
    n = side + 2 * quiet
    src = np.array(
        [[quiet, quiet], [quiet + side, quiet], [quiet + side, quiet + side], [quiet, quiet + side]]
    )
    dst = m.corners() * px_per_mm - 0.5  # pixel centres: pixel (i, j) covers [i, i + 1) mm/px
    h = cv2.getPerspectiveTransform((src - 0.5).astype(np.float32), dst.astype(np.float32))
    size = (img.shape[1], img.shape[0])
    warped = cv2.warpPerspective(tag, h, size, flags=cv2.INTER_AREA, borderValue=0)
    mask = cv2.warpPerspective(np.full((n, n), 255, np.uint8), h, size, flags=cv2.INTER_NEAREST)
    img[mask > 0] = warped[mask > 0][:, None]


def png_bytes_with_dpi(img: NDArray[np.uint8], px_per_mm: float) -> bytes:
    """PNG encoding of ``img`` with a pHYs chunk saying how many pixels make a metre."""
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise PrintError("could not encode the board as PNG")
    data = buf.tobytes()
    ppm = round(px_per_mm * 1000)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def pdf_bytes(img: NDArray[np.uint8], px_per_mm: float) -> bytes:
    """A one-page PDF whose page is the image at true size (``px_per_mm``)."""
    h, w = img.shape[:2]
    return pdf_pages_bytes([(img, w / px_per_mm, h / px_per_mm)], px_per_mm)


def pdf_pages_bytes(pages: list[tuple[NDArray[np.uint8], float, float]], px_per_mm: float) -> bytes:
    """A PDF of one page per ``(image, page width mm, page height mm)``.

    Each image is placed at the page's top-left corner at true size (``px_per_mm``), so a page
    whose size is not a whole number of pixels (A4 at 2.5 px/mm) still prints millimetres as
    millimetres; the MediaBox is the page size exactly.
    """
    pt = 72.0 / MM_PER_INCH
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    for img, page_w, page_h in pages:
        h, w = img.shape[:2]
        rgb = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
        stream = zlib.compress(rgb.tobytes(), 6)
        pw, ph = page_w * pt, page_h * pt
        iw, ih = w / px_per_mm * pt, h / px_per_mm * pt
        n = len(objects) + 1  # this page's object number; its image and content follow
        kids.append(f"{n} 0 R")
        content = f"q {iw:.3f} 0 0 {ih:.3f} 0 {ph - ih:.3f} cm /Im0 Do Q".encode()
        objects += [
            (
                f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.3f} {ph:.3f}] "
                f"/Resources << /XObject << /Im0 {n + 1} 0 R >> >> /Contents {n + 2} 0 R >>"
            ).encode(),
            (
                f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceRGB "
                f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(stream)} >>\nstream\n"
            ).encode()
            + stream
            + b"\nendstream",
            f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
        ]
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode()
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


@dataclass(frozen=True)
class Tile:
    """One sheet of a tiled board: the board area ``[x0, x0 + w] x [y0, y0 + h]`` mm it prints."""

    row: int
    col: int
    x0: float
    y0: float
    w: float
    h: float

    @property
    def name(self) -> str:
        """Row letter, column number: "A1" is the top-left sheet."""
        return f"{chr(ord('A') + self.row)}{self.col + 1}"


@dataclass(frozen=True)
class Sheets:
    """How a board is tiled: the page size (mm), where on a page the board area starts, the tiles."""

    paper: str
    landscape: bool
    page_w: float
    page_h: float
    left: float
    top: float
    overlap: float
    rows: int
    cols: int
    tiles: tuple[Tile, ...]


def tile_sheets(
    board: BoardLayout, paper: str, landscape: bool = False, overlap: float = OVERLAP_MM
) -> Sheets:
    """The sheets that print ``board`` at true scale on ``paper`` ("a4" or "a3").

    Every sheet shows a board area of the same size at the same place on the page; neighbours
    share a band ``overlap`` mm wide, so together the sheets cover the board once plus the bands.
    """
    if paper not in PAPERS:
        raise PrintError(f"--paper {paper!r}: expected one of a4, a3, full")
    pw, ph = PAPERS[paper]
    if landscape:
        pw, ph = ph, pw
    w, h = pw - 2 * SIDE_MM, ph - TOP_MM - BOTTOM_MM
    xmin, ymin, xmax, ymax = board.bounds()
    if xmin < 0 or ymin < 0:
        raise PrintError(f"board {board.name!r}: outline must lie at x, y >= 0 mm to be printed")
    cols = max(1, math.ceil((xmax - overlap) / (w - overlap) - 1e-9))
    rows = max(1, math.ceil((ymax - overlap) / (h - overlap) - 1e-9))
    if rows > 26:
        raise PrintError(f"board {board.name!r} is {ymax:.0f} mm tall: more than 26 rows of {paper} sheets")
    tiles = tuple(
        Tile(r, c, c * (w - overlap), r * (h - overlap), w, h) for r in range(rows) for c in range(cols)
    )
    return Sheets(paper, landscape, pw, ph, SIDE_MM, TOP_MM, overlap, rows, cols, tiles)


def _text(
    img: NDArray[np.uint8],
    text: str,
    at_mm: tuple[float, float],
    height_mm: float,
    px_per_mm: float,
    max_width_mm: float | None = None,
    colour: tuple[int, int, int] = (0, 0, 0),
) -> None:
    """``text`` with its baseline's left end at ``at_mm``, capitals ``height_mm`` tall (shrunk to fit)."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, round(0.25 * px_per_mm))
    (_, th), _ = cv2.getTextSize("H", font, 1.0, thick)
    scale = height_mm * px_per_mm / th
    if max_width_mm is not None:
        (tw, _), _ = cv2.getTextSize(text, font, scale, thick)
        if tw > max_width_mm * px_per_mm:
            scale *= max_width_mm * px_per_mm / tw
    org = (round(at_mm[0] * px_per_mm), round(at_mm[1] * px_per_mm))
    cv2.putText(img, text, org, font, scale, colour, thick, cv2.LINE_AA)


def draw_ruler(
    img: NDArray[np.uint8], x_mm: float, y_mm: float, px_per_mm: float, max_width_mm: float
) -> None:
    """The scale check: a solid bar :data:`RULER_MM` long from ``(x_mm, y_mm)``, ticks, the words."""
    x0, x1 = round(x_mm * px_per_mm), round((x_mm + RULER_MM) * px_per_mm)
    y0, y1 = round(y_mm * px_per_mm), round((y_mm + 2.5) * px_per_mm)
    img[y0:y1, x0:x1] = 0
    tick = max(1, round(0.3 * px_per_mm))
    for k in range(11):
        x = round((x_mm + 10 * k) * px_per_mm)
        top = round((y_mm - (2.5 if k in (0, 5, 10) else 1.5)) * px_per_mm)
        img[top:y0, max(x0, x - tick // 2) : min(x1, x - tick // 2 + tick)] = 0
    _text(img, "0", (x_mm - 1.0, y_mm - 3.5), 2.2, px_per_mm)
    _text(img, "100 mm", (x_mm + RULER_MM - 8.0, y_mm - 3.5), 2.2, px_per_mm)
    _text(img, RULER_TEXT, (x_mm, y_mm + 8.0), 3.0, px_per_mm, max_width_mm)


def _crosshair(img: NDArray[np.uint8], x_mm: float, y_mm: float, px_per_mm: float) -> None:
    c = (round(x_mm * px_per_mm), round(y_mm * px_per_mm))
    arm, thick = round(5.0 * px_per_mm), max(1, round(0.3 * px_per_mm))
    cv2.line(img, (c[0] - arm, c[1]), (c[0] + arm, c[1]), MARK_COLOUR, thick, cv2.LINE_AA)
    cv2.line(img, (c[0], c[1] - arm), (c[0], c[1] + arm), MARK_COLOUR, thick, cv2.LINE_AA)
    cv2.circle(img, c, round(2.5 * px_per_mm), MARK_COLOUR, thick, cv2.LINE_AA)


def _px(p_mm: tuple[float, float], px_per_mm: float) -> tuple[int, int]:
    return round(p_mm[0] * px_per_mm), round(p_mm[1] * px_per_mm)


def _dashed(
    img: NDArray[np.uint8], a_mm: tuple[float, float], b_mm: tuple[float, float], px_per_mm: float
) -> None:
    """A dashed cut line (4 mm dashes) from ``a_mm`` to ``b_mm`` (horizontal or vertical)."""
    (ax, ay), (bx, by) = a_mm, b_mm
    length = math.hypot(bx - ax, by - ay)
    thick = max(1, round(0.25 * px_per_mm))
    t = 0.0
    while t < length:
        u = min(length, t + 4.0)
        p = (
            round((ax + (bx - ax) * t / length) * px_per_mm),
            round((ay + (by - ay) * t / length) * px_per_mm),
        )
        q = (
            round((ax + (bx - ax) * u / length) * px_per_mm),
            round((ay + (by - ay) * u / length) * px_per_mm),
        )
        cv2.line(img, p, q, MARK_COLOUR, thick)
        t += 7.0


#: Where along an overlap band its crosshairs sit (fractions of the sheet's board area).
CROSSHAIR_AT = (0.12, 0.5, 0.88)


def render_sheet(
    board: BoardLayout, board_img: NDArray[np.uint8], sheets: Sheets, tile: Tile, px_per_mm: float
) -> NDArray[np.uint8]:
    """One sheet: its part of the board at true scale, its label, cut lines, crosshairs and the ruler."""
    ppm = px_per_mm
    page = np.full((round(sheets.page_h * ppm), round(sheets.page_w * ppm), 3), 255, np.uint8)
    cw, ch = round(tile.w * ppm), round(tile.h * ppm)
    bx, by = round(tile.x0 * ppm), round(tile.y0 * ppm)
    px, py = round(sheets.left * ppm), round(sheets.top * ppm)
    crop = board_img[by : by + ch, bx : bx + cw]
    page[py : py + crop.shape[0], px : px + crop.shape[1]] = crop
    left, top, ov = sheets.left, sheets.top, sheets.overlap
    right, bottom = left + tile.w, top + tile.h
    # The board area's frame (thin grey), then the cut lines where a neighbour above or to the
    # left overlaps: trim this sheet there and lay it over that neighbour.
    cv2.rectangle(page, (px, py), (px + cw, py + ch), (170, 170, 170), 1)
    if tile.col > 0:
        _dashed(page, (left, top - 3), (left, bottom + 3), ppm)
    if tile.row > 0:
        _dashed(page, (left - 3, top), (right + 3, top), ppm)
    # Crosshairs in the middle of every band this sheet shares: the neighbour prints them at the
    # same board position, so glued sheets line up when the crosshairs do.
    for side in ("left", "right"):
        if (side == "left" and tile.col > 0) or (side == "right" and tile.col < sheets.cols - 1):
            x = left + ov / 2 if side == "left" else right - ov / 2
            for f in CROSSHAIR_AT:
                _crosshair(page, x, top + f * tile.h, ppm)
    for side in ("top", "bottom"):
        if (side == "top" and tile.row > 0) or (side == "bottom" and tile.row < sheets.rows - 1):
            y = top + ov / 2 if side == "top" else bottom - ov / 2
            for f in CROSSHAIR_AT:
                _crosshair(page, left + f * tile.w, y, ppm)
    near = [
        f"{word} {Tile(r, c, 0, 0, 0, 0).name}"
        for word, r, c in (
            ("left:", tile.row, tile.col - 1),
            ("right:", tile.row, tile.col + 1),
            ("above:", tile.row - 1, tile.col),
            ("below:", tile.row + 1, tile.col),
        )
        if 0 <= r < sheets.rows and 0 <= c < sheets.cols
    ]
    _text(page, tile.name, (left, top - 3.0), 6.0, ppm)
    info = (
        f"{board.name}: sheet {tile.name} of {sheets.rows} x {sheets.cols}; {', '.join(near)}. "
        f"Cut along the dashed lines, lay over the neighbour, match the crosshairs."
    )
    _text(page, info, (left + 16.0, top - 3.5), 2.4, ppm, tile.w - 16.0, (60, 60, 60))
    draw_ruler(page, left, bottom + 7.0, ppm, tile.w)
    return page


def render_full_page(board: BoardLayout, board_img: NDArray[np.uint8], px_per_mm: float) -> NDArray[np.uint8]:
    """The whole board on one page, with a strip below it holding the 100 mm ruler."""
    h, w = board_img.shape[:2]
    width = max(w, round(FULL_MIN_WIDTH_MM * px_per_mm))
    page = np.full((h + round(FULL_STRIP_MM * px_per_mm), width, 3), 255, np.uint8)
    page[:h, :w] = board_img
    draw_ruler(page, 8.0, h / px_per_mm + 8.0, px_per_mm, width / px_per_mm - 16.0)
    return page


def print_board(
    board: BoardLayout,
    out: str | Path,
    px_per_mm: float = 10.0,
    paper: str = "full",
    landscape: bool = False,
) -> list[Path]:
    """Write a printable board at true scale; returns the files written.

    ``out`` is a .pdf (one page per sheet) or a .png (one file per sheet: ``NAME-A1.png``, ..,
    or ``NAME.png`` for ``paper="full"``).
    """
    p = Path(out)
    suffix = p.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise PrintError(f"--out {str(out)!r}: expected a file name ending in .png or .pdf")
    if paper not in ("full", *PAPERS):
        raise PrintError(f"--paper {paper!r}: expected one of a4, a3, full")
    if paper == "full" and landscape:
        raise PrintError("--landscape: only with --paper a4 or a3 (a full page is the board's own shape)")
    img = render_board_image(board, px_per_mm)
    pages: list[tuple[str, NDArray[np.uint8], float, float]] = []
    if paper == "full":
        page = render_full_page(board, img, px_per_mm)
        pages.append(("", page, page.shape[1] / px_per_mm, page.shape[0] / px_per_mm))
    else:
        sheets = tile_sheets(board, paper, landscape)
        for t in sheets.tiles:
            pages.append(
                (t.name, render_sheet(board, img, sheets, t, px_per_mm), sheets.page_w, sheets.page_h)
            )
    p.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".pdf":
        p.write_bytes(pdf_pages_bytes([(im, pw, ph) for _, im, pw, ph in pages], px_per_mm))
        return [p]
    written = []
    for name, im, _, _ in pages:
        f = p if not name else p.with_name(f"{p.stem}-{name}{p.suffix}")
        f.write_bytes(png_bytes_with_dpi(im, px_per_mm))
        written.append(f)
    return written
