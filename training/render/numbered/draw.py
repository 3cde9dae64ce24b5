"""Draw d6, d10, percentile d10 and d20 dice into a camera frame, with exact truth.

The camera model, board texture, d6 faces and finishing (noise, JPEG) are the
calibration renderer's (`training.render.synthetic`); this module adds the other
solids.  Each visible face is painted in its own plane: a small texture holding
the face polygon, its body (solid or marbled), a rounded-edge rim and the
numeral in a Hershey font (6 and 9 carry an underline or a dot), warped into the
frame by the plane's exact homography, far dice first, Lambert-shaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from training.render.numbered.solids import F64, Die
from training.render.synthetic import DIE_COLOURS, face_texture, plane_homography, project

U8 = NDArray[np.uint8]

FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
)
MARKED = {"d10": (6, 9), "d20": (6, 9), "d10p": ()}


@dataclass
class Light:
    direction: F64  # unit vector towards the light (board frame, up is -z)
    ambient: float = 0.45
    diffuse: float = 0.6
    gain: float = 1.0


@dataclass(frozen=True)
class Look:
    """How a numbered die is made: body colour(s), ink, font and 6/9 mark."""

    body: tuple[int, int, int]
    ink: tuple[int, int, int]
    vein: tuple[int, int, int] | None = None  # marbled when set
    marble_freq: float = 3.0
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    weight: float = 0.09  # stroke thickness / text height
    text_size: float = 0.9  # fraction of the largest numeral that fits the face
    mark: str = "underline"  # or "dot"
    seed: int = 0


def numeral(kind: str, value: int) -> str:
    return f"{value:02d}" if kind == "d10p" else str(value)


def _marble(t: int, look: Look, face: int) -> NDArray[np.float32]:
    img = np.empty((t, t, 3), np.float32)
    img[:] = look.body
    if look.vein is None:
        return img
    rng = np.random.default_rng([look.seed, face])
    g = max(3, t // 12)
    n = cv2.resize(rng.normal(0, 1, (g, g)).astype(np.float32), (t, t), interpolation=cv2.INTER_CUBIC)
    yy, xx = np.mgrid[0:t, 0:t].astype(np.float32) / t
    phase = rng.uniform(0, 6.3)
    m = np.abs(np.sin(look.marble_freq * (xx + 0.7 * yy) * 3.0 + 2.2 * n + phase)) ** 3
    m = m[..., None]
    return np.asarray(img * (1 - 0.6 * m) + np.asarray(look.vein, np.float32) * 0.6 * m, np.float32)


def _fits(poly: NDArray[np.float32], pts: list[tuple[float, float]], margin: float) -> bool:
    return all(cv2.pointPolygonTest(poly, (float(x), float(y)), True) >= margin for x, y in pts)


def numbered_texture(
    kind: str,
    value: int,
    look: Look,
    poly: NDArray[np.float32],
    centre: tuple[float, float],
    t: int,
    face: int,
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Texture (t x t, float BGR) and coverage mask of one face; numeral upright, centred at `centre`."""
    img = _marble(t, look, face)
    mask = np.zeros((t, t), np.uint8)
    cv2.fillConvexPoly(mask, np.round(poly * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
    dist = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 3)
    rim = np.clip(1.0 - dist / max(1.0, 0.09 * t), 0, 1) ** 1.5
    img *= (1.0 - 0.35 * rim)[..., None]
    text = numeral(kind, value)
    marked = value in MARKED[kind]
    # The largest numeral that fits the face with a margin, then the die's own size.
    lo, hi = 0.05, t / 10.0
    for _ in range(18):
        mid = (lo + hi) / 2
        (tw, th), _ = cv2.getTextSize(text, look.font, mid, 1)
        x0, y0 = centre[0] - tw / 2, centre[1] - th / 2
        extra = 0.35 * th if marked else 0.0
        box = [(x0, y0), (x0 + tw, y0), (x0 + tw, y0 + th + extra), (x0, y0 + th + extra)]
        if _fits(poly, box, 0.035 * t):
            lo = mid
        else:
            hi = mid
    scale = lo * look.text_size
    (tw, th), _ = cv2.getTextSize(text, look.font, scale, 1)
    thick = max(1, round(look.weight * th * 16))
    org = (centre[0] - tw / 2, centre[1] + th / 2)
    ink = tuple(float(v) for v in look.ink)
    sh = 16
    # putText has no sub-pixel shift: draw at 4x and shrink, for smooth strokes.
    big = np.zeros((t * 4, t * 4), np.uint8)
    cv2.putText(
        big,
        text,
        (round(org[0] * 4), round(org[1] * 4)),
        look.font,
        scale * 4,
        255,
        max(1, round(thick * 4 / sh)),
        cv2.LINE_AA,
    )
    if marked:
        lw = max(1, round(thick * 4 / sh))
        y = round((org[1] + 0.22 * th) * 4)
        if look.mark == "underline":
            cv2.line(
                big,
                (round((org[0] + 0.1 * tw) * 4), y),
                (round((org[0] + 0.9 * tw) * 4), y),
                255,
                lw,
                cv2.LINE_AA,
            )
        else:
            cv2.circle(
                big,
                (round((org[0] + tw + 0.18 * th) * 4), round(org[1] * 4)),
                max(2, lw),
                255,
                -1,
                cv2.LINE_AA,
            )
    small = cv2.resize(big, (t, t), interpolation=cv2.INTER_AREA)
    a = (small.astype(np.float32) / 255.0)[..., None]
    img = img * (1 - a) + np.asarray(ink, np.float32) * a
    return img, mask.astype(np.float32) / 255.0


def _face_frame(die: Die, f: int) -> tuple[F64, F64, F64, float]:
    """Face centroid, in-plane axes U (numeral right) and V (numeral up), and radius."""
    p = die.face_points(f)
    c = p.mean(axis=0)
    n = die.face_normal(f)
    up = die.vertices()[die.shape.up_vertex[f]] - c
    v = up - np.dot(up, n) * n
    v /= np.linalg.norm(v)
    u = np.cross(v, n)
    r = float(np.max(np.linalg.norm(p - c, axis=1)))
    return c, u, v, r


def _numeral_centre(die: Die, f: int, poly: NDArray[np.float32], t: int) -> tuple[float, float]:
    c = poly.mean(axis=0)
    if die.shape.kind == "d20":  # a little towards the base, where the triangle is wide
        return float(c[0]), float(c[1] + 0.04 * t)
    if die.shape.kind in ("d10", "d10p"):  # the kite's wide part, below the side corners
        return float(c[0]), float(c[1] + 0.03 * t)
    return float(c[0]), float(c[1])


def render_dice(
    frame: NDArray[np.float32],
    dice: Sequence[Die],
    r: F64,
    t: F64,
    k: F64,
    light: Light,
) -> None:
    """Shadows, then every camera-facing face of every die, far dice first (in place, float BGR)."""
    h, w = frame.shape[:2]
    cam = -r.T @ t
    shadow = np.zeros((h, w), np.float32)
    ld = light.direction
    for d in dice:
        v = d.vertices()
        s = v[:, 2] / ld[2]
        ground = v - s[:, None] * ld[None, :]
        hull = cv2.convexHull(ground[:, :2].astype(np.float32)).reshape(-1, 2)
        px = project(np.column_stack([hull, np.zeros(len(hull))]), r, t, k)
        cv2.fillPoly(shadow, [np.round(px * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
    shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), max(2.0, w / 400)), np.float32)
    frame *= (1.0 - 0.35 * shadow)[..., None]
    order = sorted(range(len(dice)), key=lambda i: -float(np.linalg.norm(dice[i].centre - cam)))
    for i in order:
        d = dice[i]
        for f in range(len(d.shape.faces)):
            p = d.face_points(f)
            n = d.face_normal(f)
            if np.dot(p.mean(axis=0) - cam, n) >= 0:
                continue
            _paint_face(frame, d, f, r, t, k, light)


def _paint_face(frame: NDArray[np.float32], d: Die, f: int, r: F64, t: F64, k: F64, light: Light) -> None:
    h, w = frame.shape[:2]
    pts3 = d.face_points(f)
    quad = project(pts3, r, t, k)
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    extent = float(np.max(np.linalg.norm(quad - quad.mean(axis=0), axis=1)))
    if d.shape.kind == "d6":
        tex = face_texture(d.shape.values[f], d.colour, 72).astype(np.float32)
        ts = tex.shape[0]
        corners = np.array([[0, 0], [ts, 0], [ts, ts], [0, ts]], np.float32) - 0.5
        # Cube faces are squares: pick the corner order so the texture is not mirrored.
        m = cv2.getPerspectiveTransform(corners, (quad - [x0, y0]).astype(np.float32))
        mask = np.ones((ts, ts), np.float32)
    else:
        ts = int(np.clip(round(4 * extent), 32, 128))
        c, u, v, rad = _face_frame(d, f)
        rel = pts3 - c
        poly = np.stack(
            [(rel @ u / rad + 1) * ts / 2 - 0.5, (1 - rel @ v / rad) * ts / 2 - 0.5], axis=1
        ).astype(np.float32)
        look = d.look["look"]
        assert isinstance(look, Look)
        tex, mask = numbered_texture(
            d.shape.kind, d.shape.values[f], look, poly, _numeral_centre(d, f, poly, ts), ts, f
        )
        tc = np.array([[-0.5, -0.5], [ts - 0.5, -0.5], [ts - 0.5, ts - 0.5], [-0.5, ts - 0.5]], np.float64)
        p3 = [c + ((x + 0.5) * 2 / ts - 1) * rad * u + (1 - (y + 0.5) * 2 / ts) * rad * v for x, y in tc]
        dst = project(np.array(p3), r, t, k) - [x0, y0]
        m = cv2.getPerspectiveTransform(tc.astype(np.float32), dst.astype(np.float32))
        sigma = 0.5 * ts / max(2 * extent, 1.0)
        if sigma > 0.6:  # pre-filter a texture much finer than its footprint in the frame
            tex = np.asarray(cv2.GaussianBlur(tex, (0, 0), sigma), np.float32)
    size = (int(x1 - x0), int(y1 - y0))
    patch = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_LINEAR)
    cover = cv2.warpPerspective(mask, m, size, flags=cv2.INTER_LINEAR)
    if d.shape.kind != "d6":
        clip = np.zeros(size[::-1], np.uint8)
        cv2.fillConvexPoly(clip, np.round((quad - [x0, y0]) * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
        cover = np.minimum(cover, clip.astype(np.float32) / 255.0)
    n = d.face_normal(f)
    shade = light.ambient + light.diffuse * max(0.0, float(np.dot(n, light.direction)))
    roi = frame[y0:y1, x0:x1]
    roi[:] = roi * (1 - cover[..., None]) + patch * shade * cover[..., None]


def board_background(
    h: int,
    w: int,
    r: F64,
    t: F64,
    k: F64,
    texture: U8 | None,
    px_per_mm: float,
    table_bgr: tuple[int, int, int],
    rng: np.random.Generator,
) -> NDArray[np.float32]:
    """The table (plain, a little grain) with the printed board laid on it, as float BGR."""
    frame = np.empty((h, w, 3), np.float32)
    frame[:] = table_bgr
    grain = rng.normal(0, 6, (h // 8 + 1, w // 8 + 1)).astype(np.float32)
    frame += cv2.resize(grain, (w, h), interpolation=cv2.INTER_CUBIC)[..., None]
    if texture is not None:
        hm = plane_homography(r, t, k, px_per_mm)
        board = cv2.warpPerspective(texture, hm, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)
        bm = cv2.warpPerspective(np.ones(texture.shape[:2], np.float32), hm, (w, h))
        frame = frame * (1 - bm[..., None]) + board * bm[..., None]
    return frame


def truth_of(d: Die, r: F64, t: F64, k: F64) -> dict[str, object]:
    """What a reader should report for die `d`: kind, value, and where it is in pixels."""
    top = d.top_face()
    pts = project(d.vertices(), r, t, k)
    top_px = project(d.face_points(top), r, t, k)
    centre = project(d.face_points(top).mean(axis=0, keepdims=True), r, t, k)[0]
    return {
        "kind": d.shape.kind,
        "value": d.top_value(),
        "colour": d.colour,
        "center_px": [round(float(v), 2) for v in centre],
        "box_px": [round(float(v), 2) for v in (*pts.min(axis=0), *pts.max(axis=0))],
        "top_px": [[round(float(x), 2), round(float(y), 2)] for x, y in top_px],
        "center_mm": [round(float(v), 2) for v in d.centre[:2]],
        "height_mm": round(d.height(), 2),
        "size_mm": round(d.size, 2),
        "footprint_mm": [[round(float(x), 2), round(float(y), 2)] for x, y in d.footprint()],
    }


__all__ = ["DIE_COLOURS", "FONTS", "Light", "Look", "board_background", "render_dice", "truth_of"]
