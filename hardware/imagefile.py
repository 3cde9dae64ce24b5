"""Image files read safely: the size comes from the header, and a picture too large is refused
before a single pixel is decoded (a small PNG can claim 20000 x 20000 pixels: 1.2 GB decoded).

``image_size(data)`` reads the width and height of a JPEG, PNG, BMP, GIF, WebP, TIFF or PNM file
from its first bytes; ``read_image(path)`` checks them against ``MAX_PIXELS`` and only then decodes
(OpenCV, BGR uint8).  Errors are ``ImageError`` (a ``ValueError``) naming the file and what was
expected.  Pure Python apart from the decode: nothing here needs a camera.
"""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

#: the most pixels decoded (64 MP: the largest camera sensors; 192 MB as BGR)
MAX_PIXELS = 64_000_000
#: the longest side decoded (OpenCV itself refuses more than 2**20)
MAX_SIDE = 65_535
#: the largest image file read at all
MAX_FILE_BYTES = 256 * 1024 * 1024
FORMATS = "JPEG, PNG, BMP, GIF, WebP, TIFF or PNM"


class ImageError(ValueError):
    """An image file that is not read: unreadable, of an unknown format, or too large."""


def _jpeg(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return w, h
        i += 2 + length
    return None


#: the most TIFF directories (pages) looked at; a chain longer than this is refused
MAX_TIFF_IFDS = 64
_TIFF_SIZE_TAGS = {256: "width", 257: "height"}
_TIFF_SUBIFD_TAGS = (330, 34665)  # SubIFDs, the EXIF directory: libtiff may read these as images too


def _worse(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Is size ``a`` further over the limits than ``b`` (a side too long first, then more pixels)?"""
    return (max(a) > MAX_SIDE, a[0] * a[1]) > (max(b) > MAX_SIDE, b[0] * b[1])


def _tiff_directory(data: bytes, end: str, ifd: int) -> tuple[dict[int, int], list[int]]:
    """One TIFF directory's size tags (tag -> value) and the directories it points to."""
    if ifd < 8 or ifd + 2 > len(data):
        raise ImageError(f"a TIFF directory at byte {ifd} lies outside the file ({len(data)} bytes)")
    (n,) = struct.unpack(end + "H", data[ifd : ifd + 2])
    if ifd + 2 + 12 * n + 4 > len(data):
        raise ImageError(f"the TIFF directory at byte {ifd} ({n} entries) runs past the end of the file")
    size: dict[int, int] = {}
    links = [struct.unpack(end + "I", data[ifd + 2 + 12 * n : ifd + 6 + 12 * n])[0]]
    for k in range(n):
        at = ifd + 2 + 12 * k
        tag, kind, count = struct.unpack(end + "HHI", data[at : at + 8])
        if tag in _TIFF_SIZE_TAGS:
            what = _TIFF_SIZE_TAGS[tag]
            if tag in size:
                raise ImageError(
                    f"the TIFF names its {what} twice in one directory ({size[tag]} and more); "
                    "an image whose size is ambiguous is not read"
                )
            if kind not in (3, 4) or count != 1:
                raise ImageError(f"the TIFF's {what} is not one number (type {kind}, count {count})")
            fmt = end + ("H" if kind == 3 else "I")
            size[tag] = struct.unpack(fmt, data[at + 8 : at + 8 + struct.calcsize(fmt)])[0]
        elif tag in _TIFF_SUBIFD_TAGS and kind in (4, 13) and count <= MAX_TIFF_IFDS:
            (where,) = struct.unpack(end + "I", data[at + 8 : at + 12])
            if count == 1:
                links.append(where)
            elif where + 4 * count > len(data):
                raise ImageError(f"the TIFF's sub-image list at byte {where} lies outside the file")
            else:
                links += struct.unpack(f"{end}{count}I", data[where : where + 4 * count])
    return size, links


def _tiff(data: bytes) -> tuple[int, int] | None:
    """The largest size any directory of a TIFF names (width x height), or None if it names none.

    A TIFF may name its size more than once: a tag repeated in one directory (libtiff takes one,
    a reader that takes another sees another picture), or several directories (pages, sub-images).
    What is decoded must be what is checked, so a repeated size tag is refused outright and every
    directory's size is checked: the largest one stands for the file.
    """
    end = "<" if data[:2] == b"II" else ">"
    (first,) = struct.unpack(end + "I", data[4:8])
    todo, seen = [first], set()
    biggest: tuple[int, int] | None = None
    while todo:
        ifd = todo.pop()
        if ifd in seen or ifd == 0:
            continue
        seen.add(ifd)
        if len(seen) > MAX_TIFF_IFDS:
            raise ImageError(f"the TIFF has more than {MAX_TIFF_IFDS} directories (pages)")
        size, links = _tiff_directory(data, end, ifd)
        if len(size) == 2:
            wh = (size[256], size[257])
            if biggest is None or _worse(wh, biggest):
                biggest = wh
        elif ifd == first:
            return None  # no size in the first directory: not an image a decoder reads either
        # (a later directory without a size, such as EXIF, is not an image)
        todo += links
    return biggest


def _pnm(data: bytes) -> tuple[int, int] | None:
    tokens: list[bytes] = []
    for line in data[2:4096].splitlines():
        tokens += line.split(b"#", 1)[0].split()
        if len(tokens) >= 2:
            break
    try:
        return int(tokens[0]), int(tokens[1])
    except (IndexError, ValueError):
        return None


def image_size(data: bytes) -> tuple[str, int, int] | None:
    """(format, width, height) from an image file's first bytes, or None if unknown.

    64 KB suffice, except for a TIFF: its directories may lie anywhere (libtiff writes them last),
    so give it the whole file.  For a TIFF the size is the largest any of its directories names;
    a TIFF whose size is ambiguous (a size tag twice in one directory) raises ImageError.
    """
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            w, h = struct.unpack(">II", data[16:24])
            return "PNG", w, h
        if data[:2] == b"\xff\xd8":
            wh = _jpeg(data)
            return None if wh is None else ("JPEG", *wh)
        if data[:2] == b"BM":
            w, h = struct.unpack("<ii", data[18:26])
            return "BMP", abs(w), abs(h)
        if data[:6] in (b"GIF87a", b"GIF89a"):
            w, h = struct.unpack("<HH", data[6:10])
            return "GIF", w, h
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            chunk = data[12:16]
            if chunk == b"VP8X":
                w = int.from_bytes(data[24:27], "little") + 1
                h = int.from_bytes(data[27:30], "little") + 1
                return "WebP", w, h
            if chunk == b"VP8L":
                bits = int.from_bytes(data[21:25], "little")
                return "WebP", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
            if chunk == b"VP8 ":
                w, h = struct.unpack("<HH", data[26:30])
                return "WebP", w & 0x3FFF, h & 0x3FFF
            return None
        if data[:4] in (b"II*\x00", b"MM\x00*"):
            wh = _tiff(data)
            return None if wh is None else ("TIFF", *wh)
        if data[:1] == b"P" and data[1:2] in b"123456" and len(data) > 2:
            wh = _pnm(data)
            return None if wh is None else ("PNM", *wh)
    except struct.error:
        return None
    return None


def check_header(data: bytes, name: str, max_pixels: int = MAX_PIXELS) -> tuple[str, int, int]:
    """The image's format and size from its header; raises ImageError when unknown or too large."""
    head = data if data[:4] in (b"II*\x00", b"MM\x00*") else data[: 64 * 1024]
    try:
        found = image_size(head)
    except ImageError as e:
        raise ImageError(f"{name}: {e}") from None
    if found is None:
        raise ImageError(f"{name}: not a readable image (expected a {FORMATS} file)")
    check_size(*found, name, max_pixels)
    return found


def check_size(fmt: str, w: int, h: int, name: str, max_pixels: int = MAX_PIXELS) -> None:
    """The one size check (a header's, or a frame a camera library decoded): ImageError when over."""
    if w <= 0 or h <= 0:
        raise ImageError(f"{name}: the {fmt} header gives an empty size {w}x{h}")
    if w > MAX_SIDE or h > MAX_SIDE:
        raise ImageError(f"{name}: the {fmt} image is {w}x{h}; a side of at most {MAX_SIDE} pixels is read")
    if w * h > max_pixels:
        raise ImageError(
            f"{name}: the {fmt} image is {w}x{h} = {w * h / 1e6:.0f} megapixels; at most "
            f"{max_pixels / 1e6:.0f} are read (a camera frame is far smaller)"
        )


def decode(data: bytes, name: str, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Decode an image file's bytes to BGR uint8 once its header passes ``check_header``."""
    fmt, w, h = check_header(data, name, max_pixels)
    try:
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error as e:  # a header that passed ours but not the decoder's own checks
        raise ImageError(f"{name}: not a readable image ({str(e).strip().splitlines()[-1][:120]})") from None
    if img is None or img.size == 0:
        raise ImageError(f"{name}: not a readable image (its header is an image's, its data is not)")
    if img.shape[1] * img.shape[0] > w * h:  # the header checked is not what was decoded
        got = f"{img.shape[1]}x{img.shape[0]}"
        raise ImageError(f"{name}: the {fmt} header says {w}x{h}, its data decodes to {got}; not read")
    return img


def read_image(path: str | Path, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Read an image file as BGR uint8, refusing an unknown format or a size over ``max_pixels``
    before decoding it; raises ImageError naming the file."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ImageError(f"{path}: {size} bytes; an image file of at most {MAX_FILE_BYTES} is read")
        data = path.read_bytes()
    except OSError as e:
        raise ImageError(f"{path}: cannot read ({e.strerror or e})") from None
    return decode(data, str(path), max_pixels)
