"""Rendered dice scenes on the example boards, with exact ground truth (seeded, reproducible).

``make_scene(i, seed)`` gives scene ``i`` of a seed: a 1280x960 JPEG of a DICETAR
WARS or Dice Fighter example board seen by a Raspberry Pi Camera Module 3 (ideal
pinhole, see ``calibration.camera.pi_camera3_calibration``), and a truth dict
with the camera, the light and every die.  Scene ``i`` depends only on
``(seed, i)``.  The d6 trainer renders its board scenes here (seed 4242,
``training/d6/renders.py``); ``tools/render/generate.py`` writes the test
fixtures ``tests/fixtures/rendered`` (seed 20261121).

What varies: camera height 450-800 mm (Dice Fighter from 560 mm so the mat
fits), tilt 0-30 degrees in any direction, roll +-8 degrees, light direction,
exposure and noise, die size 12-19 mm, die colours; throws include dice
straddling zone borders and the centre line, dice off the board or field,
dice on power-card slots, stacks of 2 and 3 and cocked dice (tipped 10-35
degrees on an edge), and sometimes a hand over some of the board's markers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration import polygons as pg
from calibration.board import BoardLayout, load_board
from calibration.camera import pi_camera3_calibration
from calibration.geometry import boundary_clearance, classify, is_borderline
from calibration.printing import render_board_image
from training.render.synthetic import (
    Cube,
    Light,
    finish,
    look_at,
    project,
    render_scene,
    rotation_for_top,
    tilt_about_edge,
)

ROOT = Path(__file__).resolve().parents[2]
W, H = 1280, 960
TEXTURE_PX_PER_MM = 3.0
JPEG_QUALITY = 85
TEST_SCENES = 150  # scenes 0..149 are "test", the rest "tune"
BOARDS = {
    "dicetar-wars": "boards/dicetar-wars.example.toml",
    "dice-fighter": "boards/dice-fighter.example.toml",
}
PAIRS = [("red", "blue"), ("white", "black"), ("green", "yellow"), ("purple", "white"), ("blue", "yellow")]


#: the held-out variant's light colours (B, G, R gains): tungsten, very warm, shade, fluorescent green
HELDOUT_CASTS = [(0.62, 0.85, 1.0), (0.5, 0.75, 1.0), (1.0, 0.9, 0.75), (0.8, 1.0, 0.82)]


class Rejected(Exception):
    """A sampled die that does not fit; sample again."""


def _camera(rng: np.random.Generator, board: BoardLayout) -> dict[str, Any]:
    xmin, ymin, xmax, ymax = board.bounds()
    lo = 450.0 if board.name == "dicetar-wars" else 560.0
    height = float(rng.uniform(lo, 800.0))
    tilt = float(rng.uniform(0.0, 30.0))
    az = float(rng.uniform(0.0, 2 * np.pi))
    target = np.array([(xmin + xmax) / 2 + rng.normal(0, 15), (ymin + ymax) / 2 + rng.normal(0, 15), 0.0])
    off = height * np.tan(np.radians(tilt))
    cam = target + np.array([off * np.cos(az), off * np.sin(az), -height])
    roll = float(rng.uniform(-8, 8))
    r, t = look_at(cam, target, roll)
    return {"r": r, "t": t, "height_mm": height, "tilt_deg": tilt, "roll_deg": roll}


def _in_view(points_px: np.ndarray, margin: float = 12.0) -> bool:
    return bool(
        np.all(points_px[:, 0] > margin)
        and np.all(points_px[:, 0] < W - margin)
        and np.all(points_px[:, 1] > margin)
        and np.all(points_px[:, 1] < H - margin)
    )


class Throw:
    """Dice being laid out on the board, with the checks that keep them physical."""

    def __init__(
        self, rng: np.random.Generator, board: BoardLayout, cam: dict[str, Any], size: float
    ) -> None:
        self.rng, self.board, self.cam, self.s = rng, board, cam, size
        self.k = pi_camera3_calibration(W, H).camera_matrix
        self.cubes: list[Cube] = []

    def visible(self, cube: Cube) -> bool:
        return _in_view(project(cube.vertices(), self.cam["r"], self.cam["t"], self.k))

    def clashes(self, cube: Cube, level: int) -> bool:
        fp = cube.footprint()
        for other in self.cubes:
            if other.extra["level"] != level:
                continue
            grown = pg.as_poly(other.footprint())
            c = grown.mean(axis=0)
            grown = c + (grown - c) * (1 + 0.6 / self.s)  # keep ~0.3 mm apart
            if pg.overlap_area(fp, grown) > 0:
                return True
        return False

    def flat(self, value: int, colour: str, xy: np.ndarray, yaw: float, level: int = 0) -> Cube:
        centre = np.array([xy[0], xy[1], -(level + 0.5) * self.s])
        return Cube(
            value, colour, self.s, rotation_for_top(value, yaw), centre, {"level": level, "cocked": False}
        )

    def add(self, cube: Cube) -> None:
        if not self.visible(cube) or self.clashes(cube, int(cube.extra["level"])):  # type: ignore[call-overload]
            raise Rejected
        self.cubes.append(cube)

    # --- where a die lands ------------------------------------------------------------
    def random_point(self) -> np.ndarray:
        f = self.board.fields[int(self.rng.integers(len(self.board.fields)))].polygon
        lo, hi = f.min(axis=0), f.max(axis=0)
        return np.asarray(self.rng.uniform(lo, hi), np.float64)

    def border_point(self) -> np.ndarray:
        lines = [b for b in self.board.boundaries()]
        if self.board.centre_line is not None and self.rng.random() < 0.5:
            cl = self.board.centre_line
            a, b = np.asarray(cl.a), np.asarray(cl.b)
            p = a + self.rng.uniform(0.05, 0.95) * (b - a)
            d = (b - a) / np.linalg.norm(b - a)
            n = np.array([d[1], -d[0]])
        else:
            poly, closed = lines[int(self.rng.integers(len(lines)))]
            i = int(self.rng.integers(len(poly) if closed else len(poly) - 1))
            a, b = poly[i], poly[(i + 1) % len(poly)]
            if np.linalg.norm(b - a) > 2000:  # the extended centre line
                a, b = a + 0.45 * (b - a), a + 0.55 * (b - a)
            p = a + self.rng.uniform(0, 1) * (b - a)
            d = (b - a) / np.linalg.norm(b - a)
            n = np.array([d[1], -d[0]])
        return np.asarray(p + n * self.rng.uniform(-0.7, 0.7) * self.s, np.float64)

    def off_point(self) -> np.ndarray:
        px = np.array([self.rng.uniform(40, W - 40), self.rng.uniform(40, H - 40)])
        r, t = self.cam["r"], self.cam["t"]
        ray = np.linalg.solve(self.k, np.array([px[0], px[1], 1.0])) @ r
        c = -r.T @ t
        lam = -c[2] / ray[2]
        return np.asarray((c + lam * ray)[:2], np.float64)

    def _square(self, p: np.ndarray) -> np.ndarray:
        """A square 1.5 die edges wide at ``p``: room for the die at any turn."""
        return Cube(1, "white", 1.5 * self.s, np.eye(3), np.array([p[0], p[1], 0.0])).footprint()

    def paper_point(self) -> np.ndarray:
        """A point on the board's white paper: on the sheet, in no zone."""
        x0, y0, x1, y1 = self.board.bounds()
        for _ in range(200):
            p = np.asarray(self.rng.uniform([x0, y0], [x1, y1]), np.float64)
            if not classify(self._square(p), self.board).zones:
                return p
        raise Rejected

    def zone_point(self, multiplier: int) -> np.ndarray:
        """A point well inside a zone of ``multiplier`` (the x8 zones are printed red)."""
        zones = [z for z in self.board.zones if z.multiplier == multiplier]
        if not zones:
            raise ValueError(f"board {self.board.name!r} has no x{multiplier} zone")
        for _ in range(200):
            poly = zones[int(self.rng.integers(len(zones)))].polygon
            p = np.asarray(self.rng.uniform(poly.min(axis=0), poly.max(axis=0)), np.float64)
            place = classify(self._square(p), self.board)
            if place.zones and place.min_multiplier == multiplier and len(place.zones) == 1:
                return p
        raise Rejected

    def red_zone_point(self) -> np.ndarray:
        return self.zone_point(8)

    def slot_point(self) -> np.ndarray:
        slot = self.board.card_slots[int(self.rng.integers(len(self.board.card_slots)))].polygon
        lo, hi = slot.min(axis=0) + self.s / 2, slot.max(axis=0) - self.s / 2
        return np.asarray(self.rng.uniform(lo, hi), np.float64)


def _place_die(throw: Throw, value: int, colour: str, how: str) -> None:
    rng = throw.rng
    for _ in range(400):
        try:
            yaw = float(rng.uniform(0, 90))
            if how == "stack":
                bases = [
                    c
                    for c in throw.cubes
                    if not c.extra["cocked"] and c.extra["level"] < 2 and c.extra.get("covered") is None
                ]
                if not bases:
                    how = "field"
                    continue
                base = bases[int(rng.integers(len(bases)))]
                throw.s = base.size  # a die stacks on one of its own size (a no-op with one size a scene)
                ang = rng.uniform(0, 2 * np.pi)
                dist = rng.uniform(0.15, 0.38) * throw.s
                xy = base.centre[:2] + dist * np.array([np.cos(ang), np.sin(ang)])
                level = int(base.extra["level"]) + 1  # type: ignore[call-overload]
                cube = throw.flat(value, colour, xy, yaw, level)
                throw.add(cube)
                base.extra["covered"] = len(throw.cubes) - 1
                cube.extra["rests_on"] = next(i for i, c in enumerate(throw.cubes) if c is base)
                return
            xy = {
                "field": throw.random_point,
                "border": throw.border_point,
                "off": throw.off_point,
                "slot": throw.slot_point,
                "cocked": throw.random_point,
                "paper": throw.paper_point,
                "red zone": throw.red_zone_point,
            }[how]()
            cube = throw.flat(value, colour, xy, yaw)
            if how == "off":
                fp = cube.footprint()
                if classify(fp, throw.board).field_status != "off":
                    raise Rejected
            if how == "cocked":
                angle = float(rng.uniform(10, 35))
                edge = yaw + 90 * int(rng.integers(4))
                rot, centre = tilt_about_edge(cube.rot, cube.centre, throw.s, angle, edge)
                if np.max(Cube(value, colour, throw.s, rot, centre).vertices()[:, 2]) > 1e-6:
                    rot, centre = tilt_about_edge(cube.rot, cube.centre, throw.s, angle, edge + 180)
                cube = Cube(
                    value, colour, throw.s, rot, centre, {"level": 0, "cocked": True, "tilt_deg": angle}
                )
            throw.add(cube)
            return
        except Rejected:
            continue
    raise Rejected


#: make_scene's variants: the training ranges, the held-out variant, and the low-contrast set (every
#: die on its own colour: white dice on the white paper, red dice on the red x8 zones; the held-out
#: variant's sizes, and its coloured light in odd scenes)
VARIANTS = ("train", "heldout", "lowcontrast", "otherprint")
#: the held-out variant's dice set: several sizes a scene, drawn from these (never 12-19 uniform)
HELDOUT_SIZES = (14.0, 16.0, 19.0)
#: the held-out variant's pairs: white dice on the white board in every DICETAR WARS scene, red on red zones
HELDOUT_PAIRS = [("white", "black"), ("purple", "white"), ("red", "white"), ("white", "blue")]


def make_scene(
    index: int,
    seed: int,
    variant: str = "train",
    earlier: bool = False,
    empty: bool = False,
    still: float = 0.0,
) -> tuple[np.ndarray, bytes, dict[str, Any]]:
    """Scene ``index`` of ``seed``.  ``variant="heldout"`` pushes the settings outside what the d6
    models trained on: dice of 14, 16 and 19 mm mixed in one scene, a white die in every DICETAR WARS
    pair, and a coloured light (a warm or cool cast, harder and dimmer) the training scenes never have.

    ``earlier=True``: the same scene (camera, light, noise) before the dice of its stacks landed: only
    the dice on the board itself (level 0), as an earlier throw left them; a table's memory
    (calibration/memory.py) carries a lower die from this frame into the scene's own.

    ``empty=True``: the same table before the throw, as the motion gate keeps it (the same camera,
    board, light and table grain; no dice, no hand): its sensor noise is drawn anew and its exposure
    and white balance drift a little from the scene's (each channel's gain x 0.94-1.06, from its own
    generator ``[seed, index, 1]``), as two frames of a real camera differ.

    ``still``: the same scene (camera, dice, light, truth in the video frame's pixels) as the camera's
    full-resolution still ``still`` times the frame's size (2.7: a Pi Camera Module 3's 3456x2592 over
    the same field of view, `hardware.stills`), its board print drawn that much finer; its sensor
    noise is its own (generator ``[seed, index, 2]``) and it shows no hand over the markers (the
    table finds the board's pose in the video frame)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    low = variant == "lowcontrast"
    heldout = variant == "heldout" or low
    rng = np.random.default_rng([seed, index])
    board_name = "dicetar-wars" if index % 5 < 3 or low else "dice-fighter"
    board = load_board(ROOT / BOARDS[board_name])
    cal = pi_camera3_calibration(W, H)
    while True:
        cam = _camera(rng, board)
        size = float(rng.uniform(12.0, 19.0))
        throw = Throw(rng, board, cam, size)
        if low:
            colours = ["white"] * 5 + ["red"] * 5
        elif board_name == "dicetar-wars":
            pairs = HELDOUT_PAIRS if heldout else PAIRS
            pair = pairs[int(rng.integers(len(pairs)))]
            colours = [pair[0]] * 5 + [pair[1]] * 5
        else:
            colours = ["red", "blue", "green"] * 2
        n = len(colours)
        plan = ["field"] * n
        order = list(rng.permutation(n))
        slots = iter(order)
        if rng.random() < 0.55:
            plan[next(slots)] = "stack"
            if rng.random() < 0.45:
                plan[next(slots)] = "stack"
        if rng.random() < 0.35:
            plan[next(slots)] = "cocked"
        if rng.random() < 0.4:
            plan[next(slots)] = "off"
        if board.card_slots and rng.random() < 0.5:
            plan[next(slots)] = "slot"
        for j in range(n):
            if plan[j] == "field" and rng.random() < 0.4:
                plan[j] = "border"
        if low:  # every die on its own colour: white dice on the white paper, red dice on the red zones
            plan = ["paper" if c == "white" else "red zone" for c in colours]
        # Stacks go last so they have bases to sit on.
        sequence = sorted(range(n), key=lambda j: plan[j] == "stack")
        sizes = [float(rng.choice(HELDOUT_SIZES)) if heldout else size for _ in range(n)]
        try:
            for j in sequence:
                throw.s = sizes[j]
                _place_die(throw, int(rng.integers(1, 7)), colours[j], plan[j])
        except Rejected:
            continue
        # At least two markers in view, or sample another camera.
        mk = [
            m
            for m in board.markers
            if _in_view(project(_marker3d(m), cam["r"], cam["t"], cal.camera_matrix), 4)
        ]
        if len(mk) >= 2:
            break

    ld = rng.normal(0, 1, 3)
    el = np.radians(rng.uniform(35, 85))
    azl = rng.uniform(0, 2 * np.pi)
    ld = np.array([np.cos(el) * np.cos(azl), np.cos(el) * np.sin(azl), -np.sin(el)])
    light = Light(
        ld, float(rng.uniform(0.35, 0.55)), float(rng.uniform(0.5, 0.7)), float(rng.uniform(0.85, 1.12))
    )
    cast = (1.0, 1.0, 1.0)
    if heldout and not (low and index % 2 == 0):
        # harder, dimmer light with a colour cast (training: ambient 0.35-0.55, white light); the
        # low-contrast set keeps the training light in its even scenes (contrast alone)
        light = Light(
            ld, float(rng.uniform(0.2, 0.32)), float(rng.uniform(0.7, 0.9)), float(rng.uniform(0.7, 1.25))
        )
        cast = HELDOUT_CASTS[int(rng.integers(len(HELDOUT_CASTS)))]
    if earlier:
        throw.cubes = [c for c in throw.cubes if c.extra["level"] == 0]
    if empty:
        throw.cubes = []
    texture = (other_print if variant == "otherprint" else render_board_image)(board, TEXTURE_PX_PER_MM)
    frame, labels = render_scene(texture, TEXTURE_PX_PER_MM, throw.cubes, cam["r"], cam["t"], cal, light, rng)
    if cast != (1.0, 1.0, 1.0):
        frame = np.asarray(np.clip(frame.astype(np.float32) * np.asarray(cast, np.float32), 0, 255), np.uint8)
    if empty:
        own = np.random.default_rng([seed, index, 1])
        drift = own.uniform(0.94, 1.06, 3).astype(np.float32)
        frame = np.asarray(np.clip(frame.astype(np.float32) * drift, 0, 255), np.uint8)
        image, jpeg = finish(frame, own, float(own.uniform(1.0, 2.5)), JPEG_QUALITY)
        truth = _truth(index, seed, board, cam, cal, light, throw, labels, [m.id for m in mk])
        truth.update(empty=True, drift_bgr=[float(g) for g in drift])
        if variant != "train":
            truth["variant"] = variant
        return image, jpeg, truth
    hidden = _hand(frame, labels, rng, board, cam, cal.camera_matrix, mk) if rng.random() < 0.12 else []
    image, jpeg = finish(frame, rng, float(rng.uniform(1.0, 2.5)), JPEG_QUALITY)
    truth = _truth(
        index, seed, board, cam, cal, light, throw, labels, [m.id for m in mk if m.id not in hidden]
    )
    # only what differs from the committed test scenes, whose JSON stays byte for byte as it was
    if variant != "train":
        truth["variant"] = variant
    if earlier:
        truth["earlier"] = True
    if heldout:
        truth["die_sizes_mm"] = list(HELDOUT_SIZES)
        truth["light"]["cast_bgr"] = list(cast)
    if still:
        image, jpeg = _still(
            board, variant, throw, cam, light, cast, still, np.random.default_rng([seed, index, 2])
        )
        truth["still_size"] = [image.shape[1], image.shape[0]]
    return image, jpeg, truth


def _still(
    board: BoardLayout,
    variant: str,
    throw: Throw,
    cam: dict[str, Any],
    light: Light,
    cast: tuple[float, float, float],
    k: float,
    own: np.random.Generator,
) -> tuple[np.ndarray, bytes]:
    """The scene drawn ``k`` times the video frame's size (`make_scene`'s ``still``)."""
    cal = pi_camera3_calibration(round(W * k), round(H * k))
    ppm = TEXTURE_PX_PER_MM * k
    texture = (other_print if variant == "otherprint" else render_board_image)(board, ppm)
    frame, _ = render_scene(texture, ppm, throw.cubes, cam["r"], cam["t"], cal, light, own)
    if cast != (1.0, 1.0, 1.0):
        frame = np.asarray(np.clip(frame.astype(np.float32) * np.asarray(cast, np.float32), 0, 255), np.uint8)
    return finish(frame, own, float(own.uniform(1.0, 2.5)), JPEG_QUALITY)


#: the other print's zone colours (BGR) by multiplier: none of the project's own
OTHER_ZONES = {
    2: (150, 200, 150),
    3: (205, 225, 170),
    4: (215, 170, 200),
    6: (120, 200, 230),
    8: (140, 130, 60),
}


def other_print(board: BoardLayout, px_per_mm: float) -> np.ndarray:
    """The board drawn differently from the project's own print (calibration.printing): the same
    layout and markers on a pale blue-grey sheet dotted all over, zones in other colours with white
    edges, labels "3x" in another font and colour, a dashed blue centre line (issue 30 item 4: the
    board look, which knows the project's print, must not be what finds the dice)."""
    from calibration.printing import _paste_turned, _paste_upright

    _, _, xmax, ymax = board.bounds()
    w, h = round(xmax * px_per_mm), round(ymax * px_per_mm)
    img = np.full((h, w, 3), (228, 222, 214), np.uint8)
    for y in range(0, h, round(6 * px_per_mm)):  # a dotted sheet
        for x in range(0, w, round(6 * px_per_mm)):
            cv2.circle(img, (x, y), max(1, round(0.4 * px_per_mm)), (200, 190, 175), -1, cv2.LINE_AA)

    def pts(poly: np.ndarray) -> np.ndarray:
        return np.round(np.asarray(poly) * px_per_mm).astype(np.int32).reshape(-1, 1, 2)

    for f in board.fields:
        cv2.fillPoly(img, [pts(r) for r in f.region.rings()], (236, 236, 226))
    for z in board.zones:
        cv2.fillPoly(img, [pts(r) for r in z.region.rings()], OTHER_ZONES.get(z.multiplier, (190, 190, 190)))
    thick = max(1, round(0.8 * px_per_mm))
    for z in board.zones:
        cv2.polylines(img, [pts(r) for r in z.region.rings()], True, (250, 250, 250), thick, cv2.LINE_AA)
        at = z.region.label_point()
        text, font, scale = f"{z.multiplier}x", cv2.FONT_HERSHEY_TRIPLEX, 9.0 * px_per_mm / 22.0
        (tw, th), _ = cv2.getTextSize(text, font, scale, 1)
        org = (round(at[0] * px_per_mm - tw / 2), round(at[1] * px_per_mm + th / 2))
        cv2.putText(img, text, org, font, scale, (110, 40, 20), max(1, thick // 2), cv2.LINE_AA)
    for f in board.fields:
        cv2.polylines(img, [pts(r) for r in f.region.rings()], True, (110, 40, 20), thick, cv2.LINE_AA)
    for c in board.card_slots:
        cv2.fillPoly(img, [pts(r) for r in c.region.rings()], (210, 235, 245))
    if board.centre_line is not None:
        a = np.asarray(board.centre_line.a, np.float64) * px_per_mm
        b = np.asarray(board.centre_line.b, np.float64) * px_per_mm
        for t0 in np.arange(0.0, 1.0, 0.04):  # dashed
            p0, p1 = a + t0 * (b - a), a + min(1.0, t0 + 0.02) * (b - a)
            cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), (170, 90, 30), 2 * thick)
    d = board.aruco_dictionary()
    for m in board.markers:
        (_paste_upright if m.rotation == 0.0 else _paste_turned)(img, d, m, px_per_mm)
    return img


def _marker3d(m: Any) -> np.ndarray:
    return np.column_stack([m.corners(), np.zeros(4)])


def _uncovered(m: Any, labels: np.ndarray, cam: dict[str, Any], k: np.ndarray) -> bool:
    """No die drawn over any part of the marker."""
    px = project(_marker3d(m), cam["r"], cam["t"], k)
    mask = np.zeros(labels.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(px).astype(np.int32)], 1)
    return not np.any(labels[mask > 0] >= 0)


def _hand(
    frame: np.ndarray,
    labels: np.ndarray,
    rng: np.random.Generator,
    board: BoardLayout,
    cam: dict[str, Any],
    k: np.ndarray,
    in_view: list[Any],
) -> list[int]:
    """Paint a hand-coloured blob over some markers, leaving at least two uncovered and no die."""
    if len(in_view) < 3:
        return []
    covered = [m for m in in_view if rng.random() < 0.5][: len(in_view) - 2]
    hidden = []
    for m in covered:
        px = project(_marker3d(m), cam["r"], cam["t"], k)
        c = px.mean(axis=0)
        radius = int(np.max(np.linalg.norm(px - c, axis=1)) * 1.4)
        y0, y1 = max(0, int(c[1]) - radius), min(H, int(c[1]) + radius)
        x0, x1 = max(0, int(c[0]) - radius), min(W, int(c[0]) + radius)
        if np.any(labels[y0:y1, x0:x1] >= 0):
            continue  # never hide a die: the truth would be wrong
        cv2.ellipse(
            frame,
            (int(c[0]), int(c[1])),
            (radius, int(radius * 0.8)),
            float(rng.uniform(0, 180)),
            0,
            360,
            (120, 150, 205),
            -1,
            cv2.LINE_AA,
        )
        hidden.append(m.id)
    return hidden


def _truth(
    index: int,
    seed: int,
    board: BoardLayout,
    cam: dict[str, Any],
    cal: Any,
    light: Light,
    throw: Throw,
    labels: np.ndarray,
    markers: list[int],
) -> dict[str, Any]:
    k = cal.camera_matrix
    dice: list[dict[str, Any]] = []
    placements = [classify(c.footprint(), board) for c in throw.cubes]
    for i, cube in enumerate(throw.cubes):
        top = cube.top_value()
        quad = project(cube.face_corners(top), cam["r"], cam["t"], k)
        centre_px = project(cube.face_corners(top).mean(axis=0, keepdims=True), cam["r"], cam["t"], k)[0]
        fp = cube.footprint()
        p = placements[i]
        rests_on = cube.extra.get("rests_on")
        status, slot = p.field_status, p.card_slot
        root = rests_on
        while root is not None:
            status, slot = placements[int(root)].field_status, placements[int(root)].card_slot  # type: ignore[call-overload]
            root = throw.cubes[int(root)].extra.get("rests_on")  # type: ignore[call-overload]
        visible = float(np.count_nonzero(labels == 100 * i + top)) / max(pg.area(quad), 1.0)
        dice.append(
            {
                "kind": "d6",
                "value": top,
                "colour": cube.colour,
                "size_mm": round(cube.size, 3),
                "center_px": [round(float(v), 3) for v in centre_px],
                "center_mm": [round(float(v), 3) for v in cube.centre[:2]],
                "height_mm": round(float(-cube.centre[2] + cube.size / 2), 3),
                "footprint_mm": [[round(float(x), 3), round(float(y), 3)] for x, y in fp],
                "top_quad_px": [[round(float(x), 3), round(float(y), 3)] for x, y in quad],
                "top_visible_fraction": round(min(visible, 1.0), 3),
                "stack_level": int(cube.extra["level"]),  # type: ignore[call-overload]
                "rests_on": rests_on,
                "cocked": bool(cube.extra["cocked"]),
                "tilt_deg": round(float(cube.extra.get("tilt_deg", 0.0)), 2),  # type: ignore[arg-type]
                "zones": list(p.zones),
                "min_multiplier": p.min_multiplier,
                "side": p.side,
                "field_status": status,
                "card_slot": slot,
                "clearance_mm": round(boundary_clearance(fp, board), 3),
                "borderline": is_borderline(fp, board),
            }
        )
    rvec, _ = cv2.Rodrigues(cam["r"])
    return {
        "scene": index,
        "split": "test" if index < TEST_SCENES else "tune",
        "seed": seed,
        "board": board.name,
        "board_file": BOARDS[board.name],
        "image": f"scene_{index:04d}.jpg",
        "image_size": [W, H],
        "camera": {
            "model": "Raspberry Pi Camera Module 3, 4:3 crop scaled to 1280x960, ideal pinhole",
            "camera_matrix": k.tolist(),
            "dist_coeffs": [0.0] * 5,
            "rvec": rvec.ravel().tolist(),
            "tvec": cam["t"].tolist(),
            "height_mm": round(cam["height_mm"], 2),
            "tilt_deg": round(cam["tilt_deg"], 2),
            "roll_deg": round(cam["roll_deg"], 2),
        },
        "light": {
            "direction": light.direction.tolist(),
            "ambient": light.ambient,
            "diffuse": light.diffuse,
            "gain": light.gain,
        },
        "die_size_mm": round(throw.s, 3),
        "markers_visible": markers,
        "dice": dice,
    }
