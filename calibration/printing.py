"""Printable boards at true scale: the layout drawn with its ArUco markers.

PNG files carry their resolution (a pHYs chunk) so a printer at 100 % scale
prints millimetres as millimetres; PDF files are a minimal single-image PDF
whose page is exactly the board's size.
"""

from __future__ import annotations

import struct
import zlib
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
    rgb = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    stream = zlib.compress(rgb.tobytes(), 6)
    pw = w / px_per_mm / MM_PER_INCH * 72.0
    ph = h / px_per_mm / MM_PER_INCH * 72.0
    content = f"q {pw:.3f} 0 0 {ph:.3f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.3f} {ph:.3f}] "
            "/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>"
        ).encode(),
        (
            f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceRGB "
            f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(stream)} >>\nstream\n"
        ).encode()
        + stream
        + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
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


def print_board(board: BoardLayout, out: str | Path, px_per_mm: float = 10.0) -> Path:
    """Write a printable board to ``out`` (.png or .pdf) at true scale."""
    p = Path(out)
    suffix = p.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise PrintError(f"--out {str(out)!r}: expected a file name ending in .png or .pdf")
    img = render_board_image(board, px_per_mm)
    data = png_bytes_with_dpi(img, px_per_mm) if suffix == ".png" else pdf_bytes(img, px_per_mm)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p
