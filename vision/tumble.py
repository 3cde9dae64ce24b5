"""Did the dice tumble?  The motion record of one throw tells a throw from a placement or a slide.

A thrown die tumbles: while it moves, the face it shows the camera changes.  A die
set down by hand appears at its place with a hand over or beside it and no
rolling phase; a slid die moves with the same face up all the way.  The camera
sees all three in the frames between the table starting to move and the dice
settling (the motion gate's episode), which :class:`ThrowRecorder` keeps.

:func:`judge_throw` follows each die the reader found at rest back through those
frames (pixels only: numpy and OpenCV).  In each earlier frame it looks for a
die-sized blob that differs from the table before the throw, near where the die
was last seen, and compares what it shows with the die's face at rest, best over
turns in the table's plane and over smears along a line (a moving die is blurred):

* a frame where it shows something else (a new top face): the die **tumbled**;
* otherwise, when a hand (a blob much larger than a die, coming in from the edge
  of the view) covered or touched it before it came to rest, and it was never
  seen away from the hand showing anything but its face at rest: **placed**;
* otherwise, when it was seen away from its place with its face at rest, and never
  with another: **slid**;
* a die that lay there before the throw: **stayed** (kept, or not thrown);
* a die never seen before it lay still, with no hand near: **unseen** (too fast
  for the camera to tell), or seen but neither clearly another face nor clearly its
  own: **unclear**; neither is flagged.

A throw with a placed or slid die is flagged (``ThrowVerdict.flagged``); the table
shows it to the referee and logs it, and never refuses the throw on its own.
Figures on drawn throws: ``benchmarks/results/tumble.md``.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

WORK_SIDE = 32.0  # a die is compared with its face at rest at this many pixels a side
FACE_R = 15  # the disc of the face compared: radius in pixels at WORK_SIDE (every pip of a d6)
SLACK = 6  # pixels the face may lie off the blob's centre
TURN_STEP = 15  # degrees between the turns tried
EXPOSURES = (0.2, 0.35, 0.5)  # smears tried: these fractions of the way moved since the frame before

VERDICTS = ("tumbled", "placed", "slid", "stayed", "unseen", "unclear")
FLAGGED = ("placed", "slid")


@dataclass(frozen=True)
class DieBox:
    """Where a die lies in the settled frame: its centre and the side of its top face, pixels."""

    x: float
    y: float
    side: float


@dataclass(frozen=True)
class TumbleSettings:
    """The check's thresholds (fractions of a die's side, grey levels, correlations)."""

    same_face: float = 0.8  # correlation with the face at rest at or above which a frame shows it
    new_face: float = 0.6  # below this, the die showed another face: it tumbled
    changed_frames: int = 2  # frames with another face a tumbling die needs
    slid_frames: int = 2  # frames away from its place with its face at rest a slid die needs
    moved: float = 0.5  # a die this many sides from its place was moving
    grey_step: float = 22.0  # grey levels a pixel differs from the table before to be foreground
    max_gap: int = 2  # frames a die may be lost for before its track ends
    reach_sides: float = 6.0  # how far (sides) a die may move between frames 0.1 s apart
    hand_area: float = 6.0  # a blob of this many die areas touching the view's edge is a hand and arm
    hand_near: float = 1.2  # a hand this many sides from a die touches it

    def __post_init__(self) -> None:
        if not 0 <= self.new_face <= self.same_face <= 1:
            raise ValueError(
                f"tumble check: need 0 <= new_face <= same_face <= 1, got {self.new_face}, {self.same_face}"
            )
        if self.changed_frames < 1 or self.slid_frames < 1 or self.max_gap < 0:
            raise ValueError("tumble check: changed_frames and slid_frames must be >= 1, max_gap >= 0")


@dataclass(frozen=True)
class DieVerdict:
    """What one die did before it came to rest."""

    verdict: str  # one of VERDICTS
    seen: int = 0  # frames it was found in while not yet at rest
    new_faces: int = 0  # of those, frames showing another face
    same_faces: int = 0  # frames away from its place showing its face at rest
    hand: bool = False  # a hand covered or touched it
    travel: float = 0.0  # farthest it was seen from its place, in die sides

    def to_json(self) -> dict[str, object]:
        return {
            "verdict": self.verdict,
            "seen": self.seen,
            "new_faces": self.new_faces,
            "same_faces": self.same_faces,
            "hand": self.hand,
            "travel": round(self.travel, 2),
        }


@dataclass(frozen=True)
class ThrowVerdict:
    """Every die's verdict, in the order of the boxes given."""

    dice: tuple[DieVerdict, ...]
    frames: int = 0  # frames in the motion record

    @property
    def flagged(self) -> bool:
        return any(d.verdict in FLAGGED for d in self.dice)

    def reason(self, names: Sequence[str] | None = None) -> str:
        """In words, for the referee: which dice did not tumble and why (``names``: one per die)."""
        labels = list(names) if names is not None else [f"die {i}" for i in range(1, len(self.dice) + 1)]
        if len(labels) != len(self.dice):
            raise ValueError(f"reason: {len(labels)} names for {len(self.dice)} dice")
        parts = []
        for name, d in zip(labels, self.dice, strict=True):
            if d.verdict == "placed":
                parts.append(f"{name} came with a hand and did not roll")
            elif d.verdict == "slid":
                parts.append(f"{name} slid {d.travel:.1f} die widths with the same face up")
        return "; ".join(parts) if parts else "every die tumbled"

    def to_json(self) -> dict[str, object]:
        return {
            "flagged": self.flagged,
            "frames": self.frames,
            "dice": [d.to_json() for d in self.dice],
            "reason": self.reason(),
        }


def _grey(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        shape, dtype = getattr(image, "shape", None), getattr(image, "dtype", None)
        raise ValueError(f"tumble check: expected a BGR or grey uint8 image, got shape {shape} dtype {dtype}")
    if image.ndim == 3:
        if image.shape[2] != 3:
            raise ValueError(f"tumble check: expected a BGR image (H, W, 3), got shape {image.shape}")
        out: np.ndarray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        return out
    return image


@dataclass
class ThrowRecorder:
    """Keeps the frames of the table's current motion episode, at most ``max_width`` wide.

    Feed it every frame with whether the motion gate calls the table still (``empty`` or
    ``settled``): a still frame becomes the table before the next throw, a moving one joins the
    episode (the latest ``max_frames`` are kept: at 800 pixels wide, 1.4 MB each).  When the gate
    reports a throw settled, :meth:`judge` follows the dice back through the episode.
    """

    max_frames: int = 60
    max_width: int = 800
    fps: float = 10.0  # the camera's frame rate (how far a die may go between two frames), until
    # the frames' times (``add(..., t=)``) tell it
    before: np.ndarray | None = field(default=None, init=False, repr=False)
    frames: deque[np.ndarray] = field(init=False, repr=False)
    scale: float = field(default=1.0, init=False)
    _last_t: float | None = field(default=None, init=False, repr=False)
    _gaps: deque[float] = field(default_factory=lambda: deque(maxlen=31), init=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_frames < 1 or self.max_width < 64 or not self.fps > 0:
            raise ValueError(
                f"ThrowRecorder: max_frames must be >= 1, max_width >= 64 and fps > 0, got "
                f"{self.max_frames}, {self.max_width}, {self.fps}"
            )
        self.frames = deque(maxlen=self.max_frames)

    def _small(self, image: np.ndarray) -> np.ndarray:
        _grey(image)
        w = image.shape[1]
        self.scale = min(1.0, self.max_width / w)
        if self.scale < 1.0:
            size = (round(w * self.scale), round(image.shape[0] * self.scale))
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        return image.copy() if self.scale == 1.0 else image

    def add(self, image: np.ndarray, still: bool, t: float | None = None) -> None:
        """One frame, and whether the table is still in it; ``t``: its time, seconds."""
        small = self._small(image)
        if t is not None:
            if self._last_t is not None and t > self._last_t:
                self._gaps.append(t - self._last_t)
            self._last_t = t
        if still:
            self.before = small
            self.frames.clear()
        else:
            self.frames.append(small)

    def frame_rate(self) -> float:
        """Frames a second: the median interval between the frames' times, else ``fps``."""
        if len(self._gaps) < 3:
            return self.fps
        return 1.0 / float(np.median(list(self._gaps)))

    def judge(
        self, settled: np.ndarray, dice: Sequence[DieBox], settings: TumbleSettings | None = None
    ) -> ThrowVerdict:
        """The verdict on the dice (boxes in the settled frame's pixels) of the episode just ended."""
        after = self._small(settled)
        s = self.scale
        boxes = [DieBox(d.x * s, d.y * s, d.side * s) for d in dice]
        return judge_throw(list(self.frames), boxes, self.before, after, settings, self.frame_rate())


def judge_throw(
    frames: Sequence[np.ndarray],
    dice: Sequence[DieBox],
    before: np.ndarray | None,
    after: np.ndarray,
    settings: TumbleSettings | None = None,
    fps: float = 10.0,
) -> ThrowVerdict:
    """Each die's verdict (see the module doc).

    ``frames``: the motion episode in time order (BGR or grey uint8, all the size of ``after``);
    ``dice``: the dice at rest in ``after``; ``before``: the still table before the throw (None:
    the first frame of the episode stands in for it); ``fps``: the frames' rate, for how far a die
    may go between two of them.
    """
    st = settings or TumbleSettings()
    if not dice:
        return ThrowVerdict((), len(frames))
    _grey(after)  # a BGR or grey uint8 image, or a clear error
    sides = sorted(d.side for d in dice)
    side = sides[len(sides) // 2]
    if not side > 0:
        raise ValueError(f"tumble check: a die's side must be > 0 pixels, got {side!r}")
    z = WORK_SIDE / side

    def work(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Grey (for the face) and colour (for what differs: a hand may be as bright as the mat)."""
        _grey(img)  # checked as ``after``
        if img.shape[:2] != after.shape[:2]:
            raise ValueError(
                f"tumble check: frame of shape {img.shape[:2]}, the settled frame is {after.shape[:2]}"
            )
        size = (max(1, round(img.shape[1] * z)), max(1, round(img.shape[0] * z)))
        small = cv2.resize(img, size, interpolation=cv2.INTER_AREA if z < 1 else cv2.INTER_LINEAR)
        colour = cv2.GaussianBlur(small.astype(np.float32), (3, 3), 0.8)
        grey = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY) if colour.ndim == 3 else colour
        return grey, colour

    def detail(img: np.ndarray) -> np.ndarray:
        # the pips, not the light: what is left after the face's smooth shading is taken away
        out: np.ndarray = img - cv2.GaussianBlur(img, (0, 0), WORK_SIDE * 0.15)
        return out

    after_w, after_c = work(after)
    seq = [(g, detail(g), c) for g, c in (work(f) for f in frames)]
    before_c = work(before)[1] if before is not None else (seq[0][2] if seq else after_c)
    masks = [_blobs(c, before_c, after_c, st) for _, _, c in seq]
    if not fps > 0:
        raise ValueError(f"tumble check: fps must be > 0, got {fps!r}")
    reach = max(1.5, st.reach_sides * 10.0 / fps) * WORK_SIDE  # reach_sides is per 0.1 s
    verdicts = []
    for d in dice:
        centre = np.array([d.x * z, d.y * z])
        verdicts.append(
            _follow(centre, d.side * z, (after_w, detail(after_w), after_c), before_c, seq, masks, reach, st)
        )
    return ThrowVerdict(tuple(verdicts), len(frames))


@dataclass(frozen=True)
class _Blobs:
    dice: list[np.ndarray]  # centroids of die-sized blobs that are not a die already at rest
    hand_dist: np.ndarray | None  # distance to the nearest hand-sized blob (None: no hand in view)


def _blobs(frame: np.ndarray, before: np.ndarray, after: np.ndarray, st: TumbleSettings) -> _Blobs:
    """What differs from the table before the throw: die-sized blobs, and hands (far bigger)."""
    raw = (_differ(frame, before) > st.grey_step).astype(np.uint8)
    opened = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    fg: np.ndarray = cv2.morphologyEx(opened, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(fg, connectivity=8)
    die_area = WORK_SIDE * WORK_SIDE
    moved = _differ(frame, after) > st.grey_step
    dice: list[np.ndarray] = []
    hands = np.zeros(fg.shape, np.uint8)
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        x, y, w, h = (int(v) for v in stats[i, :4])
        at_edge = x == 0 or y == 0 or x + w >= fg.shape[1] or y + h >= fg.shape[0]
        if area >= st.hand_area * die_area and at_edge:
            hands[labels == i] = 1  # an arm comes in from the edge of the view; dice flying together do not
        elif area >= 0.25 * die_area:
            own = labels[y : y + h, x : x + w] == i
            if float(moved[y : y + h, x : x + w][own].mean()) >= 0.15:  # else: a die already at rest
                dice.append(np.asarray(cents[i], np.float64))
    dist = None
    if hands.any():
        dist = cv2.distanceTransform((1 - hands).astype(np.uint8), cv2.DIST_L2, 3)
    return _Blobs(dice, dist)


def _differ(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pixel, the largest difference over the colour channels."""
    d = cv2.absdiff(a, b)
    if d.ndim == 2:
        return d
    out: np.ndarray = cv2.max(cv2.max(d[..., 0], d[..., 1]), d[..., 2])
    return out


def _patch(img: np.ndarray, centre: np.ndarray, half: int) -> np.ndarray | None:
    x, y = round(float(centre[0])), round(float(centre[1]))
    h, w = img.shape[:2]
    if x - half < 0 or y - half < 0 or x + half + 1 > w or y + half + 1 > h:
        padded = cv2.copyMakeBorder(img, half, half, half, half, cv2.BORDER_REPLICATE)
        x, y = x + half, y + half
        img = padded
        h, w = img.shape[:2]
        if x - half < 0 or y - half < 0 or x + half + 1 > w or y + half + 1 > h:
            return None
    return img[y - half : y + half + 1, x - half : x + half + 1]


class _Face:
    """A die's face at rest (the detail image), turned in steps: what it looks like at any turn."""

    def __init__(self, after_d: np.ndarray, centre: np.ndarray) -> None:
        half = int(WORK_SIDE)
        patch = _patch(after_d, centre, half)
        self.turned: list[np.ndarray] = []
        if patch is not None:
            for turn in range(0, 360, TURN_STEP):
                rot = cv2.getRotationMatrix2D((half, half), turn, 1.0)
                self.turned.append(
                    cv2.warpAffine(patch, rot, patch.shape[::-1], borderMode=cv2.BORDER_REPLICATE)
                )
        size = 2 * FACE_R + 1
        self.mask = np.zeros((size, size), np.float32)
        cv2.circle(self.mask, (FACE_R, FACE_R), FACE_R, 1.0, -1)
        self.cut = half - FACE_R

    def likeness(self, frame_d: np.ndarray, centre: np.ndarray, step: np.ndarray) -> float:
        """The best correlation, near ``centre`` in ``frame_d``, of the face at any turn, sharp or
        smeared along ``step`` (how far the die moved between this frame and a neighbour)."""
        window = _patch(frame_d, centre, FACE_R + SLACK)
        if window is None or not self.turned:
            return 0.0
        kernels: list[np.ndarray | None] = [None]
        length = float(np.linalg.norm(step))
        for e in EXPOSURES:
            n = round(e * length)
            if n >= 2:
                k = np.zeros((n | 1, n | 1), np.float32)
                m = (k.shape[0] - 1) / 2
                dx, dy = step / length * m
                cv2.line(k, (round(m - dx), round(m - dy)), (round(m + dx), round(m + dy)), 1.0, 1)
                kernels.append(k / k.sum())
        best = -1.0
        c, size = self.cut, 2 * FACE_R + 1
        for turned in self.turned:
            for kernel in kernels:
                img = turned if kernel is None else cv2.filter2D(turned, -1, kernel)
                t = np.ascontiguousarray(img[c : c + size, c : c + size])
                if float(t.std()) < 0.5:
                    continue
                r = cv2.matchTemplate(window, t, cv2.TM_CCOEFF_NORMED, mask=self.mask)
                best = max(best, float(np.nan_to_num(r, nan=-1.0).max()))
        return best


def _follow(
    centre: np.ndarray,
    side: float,
    after: tuple[np.ndarray, np.ndarray, np.ndarray],
    before: np.ndarray,
    seq: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    masks: list[_Blobs],
    reach: float,
    st: TumbleSettings,
) -> DieVerdict:
    """Follow one die back from where it lies (``centre``, work pixels) and judge it.

    ``after`` and each of ``seq``: (grey, detail, colour) at the work scale; ``before`` in colour.
    """
    _, after_d, after_c = after
    half = int(side * 0.6)
    rest = _patch(after_c, centre, half)

    def looks_as_at_rest(img: np.ndarray, most: float) -> bool:
        here = _patch(img, centre, half)
        return (
            here is not None
            and rest is not None
            and float(np.mean(_differ(here, rest) > st.grey_step)) < most
        )

    if looks_as_at_rest(before, 0.15):
        return DieVerdict("stayed")
    track: list[tuple[int, np.ndarray, bool]] = []  # (frame, where the die was, beside a hand), latest first
    at = centre.copy()
    gap = 0
    hand = False
    resting = True  # walking back through the frames where it already lay still
    for k in range(len(seq) - 1, -1, -1):
        frame_c, blobs = seq[k][2], masks[k]
        if resting and looks_as_at_rest(frame_c, 0.1):
            continue
        resting = False
        h, w = frame_c.shape[:2]
        xi, yi = min(max(round(float(at[0])), 0), w - 1), min(max(round(float(at[1])), 0), h - 1)
        near_hand = blobs.hand_dist is not None and float(blobs.hand_dist[yi, xi]) <= st.hand_near * WORK_SIDE
        hand |= near_hand  # the die is in, under or beside a hand
        found = [(float(np.linalg.norm(c - at)), c) for c in blobs.dice]
        found = [f for f in found if f[0] <= reach]
        if near_hand and (not found or min(f[0] for f in found) > WORK_SIDE):
            break  # back in the hand that brought it: nothing before this is the die on its own
        if not found:
            gap += 1
            if gap > st.max_gap:
                break
            continue
        gap = 0
        at = min(found, key=lambda f: f[0])[1]
        track.append((k, at, near_hand))
    face = _Face(after_d, centre)
    seen: list[tuple[float, float]] = []
    points = [centre, *(c for _, c, _ in track)]
    for n, (k, c, near_hand) in enumerate(track):
        away = float(np.linalg.norm(c - centre)) / WORK_SIDE
        h, w = seq[k][0].shape
        m = FACE_R + SLACK
        if near_hand or not (m <= c[0] < w - m and m <= c[1] < h - m):
            seen.append((away, math.nan))  # partly covered by the hand, or partly out of view
            continue
        # the smear is of the way the die moved while the shutter was open: towards the next frame's
        # place or from the last one's, whichever is longer (a die slows down)
        step = points[n] - c
        if n + 2 < len(points) and np.linalg.norm(c - points[n + 2]) > np.linalg.norm(step):
            step = c - points[n + 2]
        seen.append((away, face.likeness(seq[k][1], c, step)))
    return decide(seen, hand, st)


def decide(seen: Sequence[tuple[float, float]], hand: bool, st: TumbleSettings) -> DieVerdict:
    """The verdict on one die from the frames it was seen in before it lay still, latest first:
    (how far from its place, in sides; its likeness to its face at rest, NaN when not comparable),
    and whether a hand touched it."""
    scores = [score for away, score in seen if away >= st.moved and not math.isnan(score)]
    new = sum(1 for _, score in seen if score < st.new_face)
    same = sum(1 for score in scores if score >= st.same_face)
    rolling = len(scores) - same  # frames away from its place not clearly showing its face at rest
    travel = max((away for away, _ in seen), default=0.0)
    middle = float(np.median(scores)) if scores else 1.0
    if new >= st.changed_frames or (len(scores) >= 2 and middle < st.same_face):
        verdict = "tumbled"
    elif hand and rolling == 0:
        verdict = "placed"  # it came with a hand, and never rolled on its own
    elif same >= st.slid_frames and new == 0:
        verdict = "slid"  # its face at rest all the way
    else:
        verdict = "unseen" if not seen else "unclear"
    return DieVerdict(verdict, len(seen), new, same, hand, travel)
