"""Synthetic d20 top faces for the numeral value head (issue 20, item 3): thousands a second, no Blender.

A d20 seen from above shows its value as the numeral on the face pointing up, at the centre of the
die, at any angle.  `numeral_patch(value, rng)` draws what the reader's crop of such a die holds
(`vision/numbered/crop.py`: a square round the top face's centre, MARGIN of the die's box): the top
face, a triangle, with its numeral (base parallel to an edge, as on real d20s; 6 and 9 with an
underline or a dot), the three neighbouring faces foreshortened round it with numerals of their own,
the rest of the die's outline darker, and the table round it.  The patch is the head's crop: the
middle NUMERAL_SHARE of the reader's square (vision/numbered/numeral.py), where the top face is
about three quarters of the crop wide.  Everything is random per patch:

* the numeral's font: the DejaVu and Liberation TrueType faces (through Pillow, the `train` extra,
  when it imports) and OpenCV's Hershey faces at several stroke widths (always); its size and width;
* colours: light numerals on a dark body or dark on light, any hue, contrast at least MIN_CONTRAST
  grey levels; the body plain, speckled, marbled or shaded like translucent resin;
* geometry: the face's size in the crop, the crop's centre off the face's (the top-face net's error),
  any rotation, a slight perspective; light: a shading per face, a highlight;
* camera: blur, lower resolution, noise, JPEG (`train_backbone.heavy`, applied by the trainer).

Seeded: the same `numpy.random.Generator` state and font list give the same patch.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation"))
# TrueType faces that do not look like dice numerals (maths symbols, extra light strokes).
SKIP_FONTS = ("MathTeXGyre", "ExtraLight")
HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
)
MASK_H = 48  # numeral masks are drawn this many pixels tall (cap height), then warped into place
MIN_CONTRAST = 60.0  # grey levels between numeral and body
DRAW = 2  # patches are drawn at DRAW x their side, then shrunk by area (smooth edges)


@dataclass(frozen=True)
class Font:
    """A numeral face: a TrueType file (`path`) or a Hershey face (`hershey`, with `stroke` width)."""

    name: str
    path: Path | None = None
    hershey: int = 0
    stroke: int = 2


def fonts(truetype: bool = True) -> tuple[Font, ...]:
    """The fonts the generator draws with: the TrueType faces found under FONT_DIRS (when `truetype`
    and Pillow imports) and the Hershey faces at three stroke widths, in a fixed order."""
    out: list[Font] = []
    if truetype and _pillow():
        for d in FONT_DIRS:
            for p in sorted(d.glob("*.ttf")) if d.is_dir() else []:
                if not any(s in p.name for s in SKIP_FONTS):
                    out.append(Font(p.stem, path=p))
    for h in HERSHEY:
        for stroke in (2, 4, 6):
            out.append(Font(f"hershey{h}-{stroke}", hershey=h, stroke=stroke))
    return tuple(out)


def _pillow() -> bool:
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    return True


@functools.lru_cache(maxsize=4096)
def numeral_mask(font: Font, value: int, mark: str) -> np.ndarray:
    """The numeral `value` in `font`, MASK_H px cap height, as a float32 0-1 mask cropped to its ink;
    `mark` ("line", "dot" or "") is drawn under 6 and 9 (real d20s mark them so)."""
    text = str(value)
    big = np.zeros((3 * MASK_H, 3 * MASK_H * len(text)), np.uint8)
    if font.path is not None:
        from PIL import Image, ImageDraw, ImageFont

        f = ImageFont.truetype(str(font.path), round(MASK_H * 1.38))
        im = Image.new("L", (big.shape[1], big.shape[0]), 0)
        ImageDraw.Draw(im).text((MASK_H // 2, MASK_H // 2), text, fill=255, font=f)
        big = np.asarray(im, np.uint8).copy()
    else:
        scale = cv2.getFontScaleFromHeight(font.hershey, MASK_H, font.stroke)
        cv2.putText(big, text, (MASK_H // 2, 2 * MASK_H), font.hershey, scale, 255, font.stroke, cv2.LINE_AA)
    ys, xs = np.nonzero(big > 40)
    if not len(ys):
        raise ValueError(f"font {font.name}: drew no ink for {text!r} (expected a numeral face)")
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    h, w = y1 - y0, x1 - x0
    if value in (6, 9) and mark:
        t = max(2, round(0.09 * h))
        gap = max(2, round(0.1 * h))
        if mark == "line":
            cv2.rectangle(big, (x0 + w // 8, y1 + gap), (x1 - w // 8, y1 + gap + t), 255, -1)
            y1 = y1 + gap + t + 1
        else:  # a dot after the numeral, on its base line
            r = max(2, round(0.07 * h))
            cx, cy = x1 + gap + r, y1 - r
            cv2.circle(big, (cx, cy), r, 255, -1, cv2.LINE_AA)
            x1 = cx + r + 1
    return big[y0:y1, x0:x1].astype(np.float32) / 255.0


def _affine(
    src_wh: tuple[int, int], centre: tuple[float, float], height: float, angle: float, squash: float
) -> np.ndarray:
    """The 2x3 map of a mask (`src_wh`) to `centre`, `height` px tall, turned by `angle` (radians, its
    up towards -y turned clockwise), then squashed by `squash` along its up direction."""
    w, h = src_wh
    s = height / h
    c, sn = math.cos(angle), math.sin(angle)
    # up (0, -1) turned: u = (sn, -c); right: r = (c, sn)
    r = np.array([c, sn])
    u = np.array([sn, -c])
    a = np.column_stack([r * s, -u * s * squash])  # mask x -> right, mask y (down) -> -up
    t = np.array(centre) - a @ np.array([w / 2, h / 2])
    return np.column_stack([a, t])


def _colours(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Body and ink BGR colours at least MIN_CONTRAST grey levels apart, light-on-dark or dark-on-light."""
    while True:
        hue = float(rng.uniform(0, 180))
        light = rng.random() < 0.5  # a light body with dark numerals
        v_body = rng.uniform(150, 255) if light else rng.uniform(15, 140)
        body = _hsv(hue, float(rng.uniform(0, 255)), float(v_body))
        if rng.random() < 0.7:  # white, black or gold ink, as most dice
            ink = (
                np.array([20.0, 20.0, 20.0]) * rng.uniform(0.3, 2.5)
                if light
                else (
                    np.array([235.0, 240.0, 245.0]) if rng.random() < 0.7 else np.array([60.0, 190.0, 215.0])
                )
                * rng.uniform(0.8, 1.05)
            )
        else:
            ink = _hsv(
                float(rng.uniform(0, 180)),
                float(rng.uniform(0, 255)),
                float(rng.uniform(0, 70) if light else rng.uniform(170, 255)),
            )
        if abs(_grey(body) - _grey(ink)) >= MIN_CONTRAST:
            return body, np.clip(ink, 0, 255)


def _hsv(h: float, s: float, v: float) -> np.ndarray:
    px = np.array([[[h, s, v]]], np.float32).clip(0, [180, 255, 255]).astype(np.uint8)
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0], np.float32)


def _grey(bgr: np.ndarray) -> float:
    return float(0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2])


def _texture(n: int, body: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An n x n body: plain, speckled, marbled or a smooth resin gradient."""
    img = np.empty((n, n, 3), np.float32)
    img[:] = body
    kind = rng.choice(4, p=[0.35, 0.25, 0.25, 0.15])
    if kind == 1:  # speckle: dots of another tone
        other = np.clip(body + rng.normal(0, 70, 3), 0, 255)
        dots = (rng.random((n, n)) < rng.uniform(0.02, 0.12)).astype(np.float32)
        dots = np.asarray(cv2.GaussianBlur(dots, (0, 0), float(rng.uniform(0.6, 1.8))), np.float32)
        a = np.clip(dots * rng.uniform(1.5, 4.0), 0, 1)[..., None]
        img = img * (1 - a) + other * a
    elif kind == 2:  # marble: smoothed noise between two tones
        other = np.clip(body + rng.normal(0, 60, 3), 0, 255)
        k = max(2, n // int(rng.integers(4, 12)))
        noise = cv2.resize(rng.random((k, k)).astype(np.float32), (n, n), interpolation=cv2.INTER_CUBIC)
        a = np.clip((noise - 0.3) * 2, 0, 1)[..., None]
        img = img * (1 - a) + other * a
    elif kind == 3:  # resin: a gradient across the die
        g = np.linspace(rng.uniform(0.5, 1.0), rng.uniform(1.0, 1.4), n, dtype=np.float32)
        grad = cv2.warpAffine(
            np.tile(g, (n, 1)),
            cv2.getRotationMatrix2D((n / 2, n / 2), float(rng.uniform(0, 360)), 1.0),
            (n, n),
            borderMode=cv2.BORDER_REPLICATE,
        )
        img = img * grad[..., None]
    return img


def _ink(img: np.ndarray, mask: np.ndarray, m: np.ndarray, ink: np.ndarray, clip: np.ndarray | None) -> None:
    """Blend `ink` into `img` where `mask`, warped by `m`, falls (inside `clip` when given)."""
    n = img.shape[0]
    a = cv2.warpAffine(mask, m, (n, n), flags=cv2.INTER_LINEAR, borderValue=0.0)
    if clip is not None:
        a = a * clip
    a = a[..., None]
    img *= 1 - a
    img += ink * a


def _poly_mask(n: int, pts: np.ndarray) -> np.ndarray:
    m = np.zeros((n, n), np.uint8)
    cv2.fillPoly(m, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return m.astype(np.float32) / 255.0


def numeral_patch(
    value: int, rng: np.random.Generator, side: int = 64, font_list: tuple[Font, ...] | None = None
) -> np.ndarray:
    """A `side` x `side` BGR uint8 crop of a d20 whose face pointing up shows `value` (1-20), as the
    reader cuts it; see the module's docstring.  `font_list`: the fonts to draw with (`fonts()`)."""
    if not 1 <= value <= 20:
        raise ValueError(f"value: expected a d20 face 1-20, got {value!r}")
    if side < 16:
        raise ValueError(f"side: expected at least 16 px, got {side!r}")
    font_list = font_list or _default_fonts()
    n = DRAW * side
    font = font_list[int(rng.integers(len(font_list)))]
    mark = ("line", "dot")[int(rng.random() < 0.3)]
    body, ink = _colours(rng)
    # The top face: an equilateral triangle, its centroid near the crop's centre.
    tri_side = float(rng.uniform(0.5, 1.1)) * n
    radius = tri_side / math.sqrt(3)
    centre = np.array([n / 2, n / 2]) + rng.normal(0, 0.06 * n, 2)
    theta = float(rng.uniform(0, 2 * math.pi))  # where the numeral's up points
    ang = [theta + k * 2 * math.pi / 3 for k in range(3)]
    top = np.array([centre + radius * np.array([math.sin(a), -math.cos(a)]) for a in ang])
    # Table round the die.
    table = _texture(n, np.clip(rng.uniform(0, 255, 3), 0, 255).astype(np.float32), rng)
    img = table.copy()
    tex = _texture(n, body, rng)
    # The die's outline: the top face and its neighbours grown, darker (the faces round them).
    squash = [float(rng.uniform(0.55, 0.95)) for _ in range(3)]
    neighbours = []
    for k in range(3):
        a, b = top[(k + 1) % 3], top[(k + 2) % 3]
        mid = (a + b) / 2
        apex = mid + (mid - top[k]) * squash[k]
        neighbours.append(np.array([a, b, apex]))
    hull = cv2.convexHull(np.concatenate([top, *neighbours]).astype(np.float32))[:, 0]
    grow = float(rng.uniform(1.05, 1.3))
    outline = centre + (hull - centre) * grow
    shade_out = float(rng.uniform(0.35, 0.8))
    a_out = _poly_mask(n, outline)[..., None]
    img = img * (1 - a_out) + tex * shade_out * a_out
    for k, tri in enumerate(neighbours):
        a_n = _poly_mask(n, tri)[..., None]
        img = img * (1 - a_n) + tex * float(rng.uniform(0.55, 0.95)) * a_n
        other = int(rng.integers(1, 20))
        other += other >= value
        m = numeral_mask(font, other, mark)
        nc = tri.mean(0)
        # the neighbour's numeral points at one of its corners; squashed as its face is tilted
        up = (
            math.atan2(*(tri[int(rng.integers(3))] - nc) * np.array([1, -1]))
            if rng.random() < 0.7
            else ang[k] + math.pi
        )
        h = float(rng.uniform(0.26, 0.42)) * tri_side
        _ink(img, m, _affine((m.shape[1], m.shape[0]), tuple(nc), h, up, squash[k]), ink, a_n[..., 0])
    a_t = _poly_mask(n, top)[..., None]
    shade_top = float(rng.uniform(0.9, 1.15))
    img = img * (1 - a_t) + tex * shade_top * a_t
    if rng.random() < 0.5:  # the edges catch the light (or shade)
        edge = np.zeros((n, n), np.uint8)
        cv2.polylines(
            edge, [np.round(top * 16).astype(np.int32)], True, 255, max(1, n // 64), cv2.LINE_AA, shift=4
        )
        e = (edge.astype(np.float32) / 255.0 * rng.uniform(0.2, 0.6))[..., None]
        img = img * (1 - e) + (255.0 if rng.random() < 0.6 else 0.0) * e
    # The value: centred on the face (a little off), base parallel to the edge opposite its up.
    m = numeral_mask(font, value, mark)
    h = float(rng.uniform(0.3, 0.46)) * tri_side
    w_max = 0.62 * tri_side
    if m.shape[1] * h / m.shape[0] > w_max:  # too wide for the face: condensed, as dice print them
        m = cv2.resize(m, (max(1, round(w_max * m.shape[0] / h)), m.shape[0]), interpolation=cv2.INTER_AREA)
    at = centre + rng.normal(0, 0.02 * tri_side, 2)
    _ink(img, m, _affine((m.shape[1], m.shape[0]), tuple(at), h, theta, 1.0), ink, None)
    if rng.random() < 0.3:  # a highlight
        spot = np.zeros((n, n), np.float32)
        cv2.circle(
            spot, tuple(int(v) for v in rng.uniform(0, n, 2)), int(rng.uniform(0.05, 0.2) * n), 1.0, -1
        )
        spot = cv2.GaussianBlur(spot, (0, 0), n * 0.05)[..., None] * rng.uniform(0.2, 0.7)
        img = img * (1 - spot) + 255.0 * spot
    img = np.clip(img, 0, 255).astype(np.uint8)
    # A slight perspective, then down to `side` by area.
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    dst = (src + rng.normal(0, 0.03 * n, (4, 2))).astype(np.float32)
    img = cv2.warpPerspective(
        img, cv2.getPerspectiveTransform(src, dst), (n, n), borderMode=cv2.BORDER_REFLECT
    )
    return cv2.resize(img, (side, side), interpolation=cv2.INTER_AREA)


@functools.lru_cache(maxsize=1)
def _default_fonts() -> tuple[Font, ...]:
    return fonts()
