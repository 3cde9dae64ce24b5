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
TURN_STEP = 15  # degrees between the turns tried (a divisor of 180)
EXPOSURES = (0.2, 0.35, 0.5)  # smears tried: these fractions of the way moved since the frame before
BLOB_SIDE = 16.0  # dice and hands are found in whole frames at this many pixels a die's side (or less)

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


def _check_image(image: np.ndarray) -> None:
    """A BGR or grey uint8 image, or a clear error (checked only: no frame is converted, as every
    frame of a throw passes here)."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        shape, dtype = getattr(image, "shape", None), getattr(image, "dtype", None)
        raise ValueError(f"tumble check: expected a BGR or grey uint8 image, got shape {shape} dtype {dtype}")
    if image.ndim == 3 and image.shape[2] != 3:
        raise ValueError(f"tumble check: expected a BGR image (H, W, 3), got shape {image.shape}")


@dataclass
class ThrowRecorder:
    """Keeps the frames of the table's current motion episode, at most ``max_width`` wide.

    Feed it every frame with whether the motion gate calls the table still (``empty`` or
    ``settled``): a still frame becomes the table before the next throw, a moving one joins the
    episode (the latest ``max_frames`` are kept: at 800 pixels wide, 1.4 MB each).  When the gate
    reports a throw settled, :meth:`judge` follows the dice back through the episode.

    A still frame is kept as it came (a copy) and brought to ``max_width`` only once it is the
    table before a throw (``before``): most frames are still, each replaced by the next, and the
    resize of a 1280x960 frame cost ~4 ms of the camera thread's every frame (issue 32)."""

    max_frames: int = 60
    max_width: int = 800
    fps: float = 10.0  # the camera's frame rate (how far a die may go between two frames), until
    # the frames' times (``add(..., t=)``) tell it
    frames: deque[np.ndarray] = field(init=False, repr=False)
    scale: float = field(default=1.0, init=False)
    _before: np.ndarray | None = field(default=None, init=False, repr=False)  # at max_width
    _still: np.ndarray | None = field(default=None, init=False, repr=False)  # as it came, not resized yet
    _last_t: float | None = field(default=None, init=False, repr=False)
    _gaps: deque[float] = field(default_factory=lambda: deque(maxlen=31), init=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_frames < 1 or self.max_width < 64 or not self.fps > 0:
            raise ValueError(
                f"ThrowRecorder: max_frames must be >= 1, max_width >= 64 and fps > 0, got "
                f"{self.max_frames}, {self.max_width}, {self.fps}"
            )
        self.frames = deque(maxlen=self.max_frames)

    @property
    def before(self) -> np.ndarray | None:
        """The still table before the episode, at most ``max_width`` wide (None: none seen yet)."""
        if self._still is not None:
            self._before, self._still = self._small(self._still, copy=False), None
        return self._before

    def _small(self, image: np.ndarray, copy: bool = True) -> np.ndarray:
        w = image.shape[1]
        scale = min(1.0, self.max_width / w)
        if scale < 1.0:
            size = (round(w * scale), round(image.shape[0] * scale))
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        return image.copy() if scale == 1.0 and copy else image

    def add(self, image: np.ndarray, still: bool, t: float | None = None) -> None:
        """One frame, and whether the table is still in it; ``t``: its time, seconds."""
        _check_image(image)
        self.scale = min(1.0, self.max_width / image.shape[1])
        if t is not None:
            if self._last_t is not None and t > self._last_t:
                self._gaps.append(t - self._last_t)
            self._last_t = t
        if still:
            self._still, self._before = image.copy(), None
            self.frames.clear()
        else:
            self.before  # noqa: B018  (the still frame before it is the table before the throw)
            self.frames.append(self._small(image))

    def snapshot(self) -> ThrowRecorder:
        """A copy that later ``add`` calls leave as it is (the frames themselves are never changed):
        for judging a throw on another thread while the camera goes on."""
        copy = ThrowRecorder(self.max_frames, self.max_width, self.fps)
        copy._before, copy._still, copy.scale, copy._last_t = (
            self._before,
            self._still,
            self.scale,
            self._last_t,
        )
        copy.frames.extend(self.frames)
        copy._gaps.extend(self._gaps)
        return copy

    def frame_rate(self) -> float:
        """Frames a second: the median interval between the frames' times, else ``fps``."""
        if len(self._gaps) < 3:
            return self.fps
        return 1.0 / float(np.median(list(self._gaps)))

    def judge(
        self, settled: np.ndarray, dice: Sequence[DieBox], settings: TumbleSettings | None = None
    ) -> ThrowVerdict:
        """The verdict on the dice (boxes in the settled frame's pixels) of the episode just ended."""
        _check_image(settled)
        after = self._small(settled)
        s = self.scale = min(1.0, self.max_width / settled.shape[1])
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

    Two scales keep it cheap (tens of milliseconds a throw, ``benchmarks/tumble.py``): what differs
    from the table (dice and hands) is found in whole frames at the *blob* scale, where a die is at
    most ``WORK_SIDE`` pixels (no frame is enlarged); the faces are compared at the *work* scale
    (a die ``WORK_SIDE`` pixels) only in small crops around the places a die was followed to.
    """
    st = settings or TumbleSettings()
    if not dice:
        return ThrowVerdict((), len(frames))
    _check_image(after)
    for img in (*frames, *([before] if before is not None else [])):
        _check_image(img)
        if img.shape[:2] != after.shape[:2]:
            raise ValueError(
                f"tumble check: frame of shape {img.shape[:2]}, the settled frame is {after.shape[:2]}"
            )
    sides = sorted(d.side for d in dice)
    side = sides[len(sides) // 2]
    if not side > 0:
        raise ValueError(f"tumble check: a die's side must be > 0 pixels, got {side!r}")
    if not fps > 0:
        raise ValueError(f"tumble check: fps must be > 0, got {fps!r}")
    view = _View(after.shape[1], after.shape[0], WORK_SIDE / side)
    after_c = view.colour(after)
    seq = [view.colour(f) for f in frames]
    before_c = view.colour(before) if before is not None else (seq[0] if seq else after_c)
    masks = [_blobs(c, before_c, after_c, view.blob_side, st) for c in seq]
    reach = max(1.5, st.reach_sides * 10.0 / fps) * view.blob_side  # reach_sides is per 0.1 s
    verdicts = []
    for d in dice:
        centre = view.to_blob(np.array([d.x, d.y], np.float64))
        followed = _track(centre, d.side * view.zb, after_c, before_c, seq, masks, reach, view.blob_side, st)
        if followed is None:
            verdicts.append(DieVerdict("stayed"))
            continue
        verdicts.append(_judge_track(centre, *followed, frames, after, view, st))
    return ThrowVerdict(tuple(verdicts), len(frames))


class _View:
    """The two scales of one throw's frames: ``z`` (work: a die ``WORK_SIDE`` pixels, where faces
    are compared) and ``zb = min(z, 1)`` (blob: where dice and hands are found in whole frames)."""

    def __init__(self, width: int, height: int, z: float) -> None:
        self.width, self.height, self.z = width, height, z
        self.zb = min(z * BLOB_SIDE / WORK_SIDE, 1.0)
        self.blob_side = WORK_SIDE * self.zb / z  # a die's side at the blob scale
        self.blob_size = (max(1, round(width * self.zb)), max(1, round(height * self.zb)))
        self.work_size = (max(1, round(width * z)), max(1, round(height * z)))

    def colour(self, img: np.ndarray) -> np.ndarray:
        """The frame at the blob scale, lightly blurred (uint8, colour kept: a hand may be as bright
        as the mat).  Halved exactly first while that stays above the size, so that the linear
        resize does not alias."""
        w = self.blob_size[0]
        while img.shape[1] >= 2 * w:
            img = cv2.pyrDown(img)
        if (img.shape[1], img.shape[0]) != self.blob_size:
            img = cv2.resize(img, self.blob_size, interpolation=cv2.INTER_LINEAR)
        out: np.ndarray = cv2.GaussianBlur(img, (3, 3), 0.8)
        return out

    def to_blob(self, p: np.ndarray) -> np.ndarray:
        """Frame pixels (a pixel's index is its centre) to blob pixels."""
        return (p + 0.5) * self.zb - 0.5

    def to_work(self, p: np.ndarray) -> np.ndarray:
        """Blob pixels to work pixels."""
        return (p + 0.5) * (self.z / self.zb) - 0.5

    def detail(self, img: np.ndarray, at: np.ndarray, half: int) -> np.ndarray | None:
        """The face's detail (the pips, not the light: the grey frame less its smooth shading) at the
        work scale, the ``2 * half + 1`` square around ``at`` (work pixels), from a crop of ``img``
        (frame pixels) just large enough for the blurs' reach."""
        z = self.z
        pad = half + _SHADING_REACH + 2
        h, w = img.shape[:2]
        u = (at + 0.5) / z - 0.5  # in frame pixels
        x0, y0 = max(0, math.floor(u[0] - pad / z)), max(0, math.floor(u[1] - pad / z))
        x1, y1 = min(w, math.ceil(u[0] + pad / z) + 1), min(h, math.ceil(u[1] + pad / z) + 1)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return None
        size = (max(1, round((x1 - x0) * z)), max(1, round((y1 - y0) * z)))
        crop = img[y0:y1, x0:x1]
        small = cv2.resize(crop, size, interpolation=cv2.INTER_AREA if z < 1 else cv2.INTER_LINEAR)
        colour = cv2.GaussianBlur(small.astype(np.float32), (3, 3), 0.8)
        grey = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY) if colour.ndim == 3 else colour
        detail = grey - cv2.GaussianBlur(grey, (0, 0), WORK_SIDE * 0.15)
        sx, sy = size[0] / (x1 - x0), size[1] / (y1 - y0)
        local = np.array([(u[0] - x0 + 0.5) * sx - 0.5, (u[1] - y0 + 0.5) * sy - 0.5])
        return _patch(detail, local, half)


# how far the shading blur (sigma 0.15 WORK_SIDE, float: a 39-pixel kernel) and the light blur reach
_SHADING_REACH = 19 + 1


@dataclass(frozen=True)
class _Blobs:
    dice: list[np.ndarray]  # centroids of die-sized blobs that are not a die already at rest
    hand_dist: np.ndarray | None  # distance to the nearest hand-sized blob (None: no hand in view)


def _blobs(
    frame: np.ndarray, before: np.ndarray, after: np.ndarray, side: float, st: TumbleSettings
) -> _Blobs:
    """What differs from the table before the throw: die-sized blobs, and hands (far bigger);
    ``side``: a die's side in these pixels."""
    raw = (_differ(frame, before) > st.grey_step).astype(np.uint8)
    opened = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    close = 5 if side >= 24 else 3
    fg: np.ndarray = cv2.morphologyEx(opened, cv2.MORPH_CLOSE, np.ones((close, close), np.uint8))
    # 16-bit labels (far faster stats): a component holds at least the opening's square
    ltype = cv2.CV_16U if fg.size < 60000 * 9 else cv2.CV_32S
    n, labels, stats, cents = cv2.connectedComponentsWithStats(fg, connectivity=8, ltype=ltype)
    die_area = side * side
    dice: list[np.ndarray] = []
    hands: np.ndarray | None = None
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        x, y, w, h = (int(v) for v in stats[i, :4])
        at_edge = x == 0 or y == 0 or x + w >= fg.shape[1] or y + h >= fg.shape[0]
        if area >= st.hand_area * die_area and at_edge:
            # an arm comes in from the edge of the view; dice flying together do not
            hands = (labels == i) if hands is None else (hands | (labels == i))
        elif area >= 0.25 * die_area:
            own = labels[y : y + h, x : x + w] == i
            box = _differ(frame[y : y + h, x : x + w], after[y : y + h, x : x + w]) > st.grey_step
            if float(box[own].mean()) >= 0.15:  # else: a die already at rest
                dice.append(np.asarray(cents[i], np.float64))
    dist = None
    if hands is not None:
        dist = cv2.distanceTransform((~hands).astype(np.uint8), cv2.DIST_L2, 3)
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


def _disc_index() -> tuple[np.ndarray, np.ndarray]:
    """The compared disc (a square of side 2 FACE_R + 1), and where each place's disc lies in a
    window (2 (FACE_R + SLACK) + 1 square) as flat indices: (places, disc pixels)."""
    size = 2 * FACE_R + 1
    disc = np.zeros((size, size), np.uint8)
    cv2.circle(disc, (FACE_R, FACE_R), FACE_R, 1, -1)
    side, places = 2 * (FACE_R + SLACK) + 1, 2 * SLACK + 1
    ys, xs = np.nonzero(disc)
    starts = (np.arange(places)[:, None] * side + np.arange(places)[None, :]).ravel()
    return disc.astype(bool), starts[:, None] + (ys * side + xs)[None, :]


_DISC, _DISC_INDEX = _disc_index()


class _Face:
    """A die's face at rest (its detail at the work scale), turned in steps: what it looks like at
    any turn, sharp or smeared, compared with a frame as ``cv2.matchTemplate``'s masked
    ``TM_CCOEFF_NORMED`` would, at every turn, smear and place at once (one matrix product)."""

    def __init__(self, patch: np.ndarray | None) -> None:
        half = int(WORK_SIDE)
        self.cut, self.size = half - FACE_R, 2 * FACE_R + 1
        self.disc, self.index = _DISC, _DISC_INDEX
        # (turns, 2 half + 1, 2 half + 1), the turns of half a circle: every smear is a straight line
        # through the middle, so a turn by 180 degrees more is the same square upside down, compared
        # as the window's pixels in reverse order (the disc is symmetric)
        self.turned: np.ndarray | None = None
        self._padded: tuple[int, np.ndarray] | None = None
        if patch is not None:
            rots = [cv2.getRotationMatrix2D((half, half), t, 1.0) for t in range(0, 180, TURN_STEP)]
            shape = patch.shape[::-1]
            turned = [cv2.warpAffine(patch, r, shape, borderMode=cv2.BORDER_REPLICATE) for r in rots]
            self.turned = np.stack(turned).astype(np.float32)
            c, size = self.cut, self.size
            self.sharp = self._templates(self.turned[:, c : c + size, c : c + size])

    def _templates(self, squares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The compared squares as rows of their disc's pixels less their mean, and those rows'
        squared norms; squares with next to no detail (std < 0.5) are left out."""
        keep = squares.reshape(len(squares), -1).std(axis=1) >= 0.5
        t = squares[keep][:, self.disc]
        t -= t.mean(axis=1, keepdims=True)
        return t, np.einsum("ij,ij->i", t, t)

    def _smeared(self, step: np.ndarray) -> list[np.ndarray]:
        """Every turn smeared along ``step`` by each of ``EXPOSURES`` (a straight line of pixels as
        long as the fraction of the step, averaged), the compared squares of each: (turns, size, size)."""
        assert self.turned is not None
        length = float(np.linalg.norm(step))
        halves = [(n | 1) // 2 for n in (round(e * length) for e in EXPOSURES) if n >= 2]
        if not halves:
            return []
        ux, uy = step / length
        major = max(abs(ux), abs(uy))
        # the line's pixels, from its middle out: t along the major axis, the minor one rounded;
        # a shorter exposure's line is the middle of a longer one's
        ends = [round(m * major) for m in halves]
        reach = max(ends)

        def tap(t: int) -> tuple[int, int]:  # (row, column)
            return (round(t * uy / ux), t) if abs(ux) >= abs(uy) else (t, round(t * ux / uy))

        c, size = self.cut, self.size
        pad = max(0, reach - c)  # beyond the turned square: its edge mirrored (filter2D's border)
        if self._padded is None or self._padded[0] < pad:
            self._padded = (pad, np.pad(self.turned, ((0, 0), (pad, pad), (pad, pad)), mode="reflect"))
        p0, src = self._padded
        o = c + p0

        def shifted(t: int) -> np.ndarray:
            dy, dx = tap(t)
            return src[:, o + dy : o + dy + size, o + dx : o + dx + size]

        acc = shifted(0).copy()
        out = []
        for t in range(1, reach + 1):
            acc += shifted(t)
            acc += shifted(-t)
            out += [acc / (2 * t + 1)] * ends.count(t)
        out += [shifted(0)] * ends.count(0)
        return out

    def likeness(self, window: np.ndarray | None, step: np.ndarray) -> float:
        """The best correlation within ``window`` (the frame's detail around where the die was,
        ``2 (FACE_R + SLACK) + 1`` square) of the face at any turn, sharp or smeared along ``step``
        (how far the die moved between this frame and a neighbour)."""
        if window is None or self.turned is None:
            return 0.0
        t, t_norm = self.sharp
        smeared = self._smeared(step)
        if smeared:
            more, more_norm = self._templates(np.concatenate(smeared))
            t, t_norm = np.concatenate([t, more]), np.concatenate([t_norm, more_norm])
        if not len(t):
            return -1.0
        x = np.ascontiguousarray(window, np.float32).ravel()[self.index]  # (places, disc pixels)
        x_upside_down = np.ascontiguousarray(x[:, ::-1])
        x_var = (
            np.einsum("ij,ij->i", x, x, dtype=np.float64) - x.sum(axis=1, dtype=np.float64) ** 2 / x.shape[1]
        )
        flat = ~(x_var > 1e-9)  # a place with nothing in it: no correlation (-1, as NaN was)
        x_scale = (1.0 / np.sqrt(np.where(flat, 1.0, x_var))).astype(np.float32)
        num = np.maximum(x @ t.T, x_upside_down @ t.T)
        r = num * x_scale[:, None] * (1.0 / np.sqrt(t_norm)).astype(np.float32)[None, :]
        r[flat] = -1.0
        return float(r.max())


def _track(
    centre: np.ndarray,
    side: float,
    after: np.ndarray,
    before: np.ndarray,
    seq: list[np.ndarray],
    masks: list[_Blobs],
    reach: float,
    die: float,
    st: TumbleSettings,
) -> tuple[list[tuple[int, np.ndarray, bool]], bool] | None:
    """Follow one die back from where it lies (``centre``; every image at the blob scale, where a
    die is ``die`` pixels and this one ``side``): where it was seen, latest first (frame, place,
    beside a hand), and whether a hand touched it; None when it lay there before the throw."""
    half = int(side * 0.6)
    rest = _patch(after, centre, half)

    def looks_as_at_rest(img: np.ndarray, most: float) -> bool:
        here = _patch(img, centre, half)
        return (
            here is not None
            and rest is not None
            and float(np.mean(_differ(here, rest) > st.grey_step)) < most
        )

    if looks_as_at_rest(before, 0.15):
        return None
    track: list[tuple[int, np.ndarray, bool]] = []
    at = centre.copy()
    gap = 0
    hand = False
    resting = True  # walking back through the frames where it already lay still
    for k in range(len(seq) - 1, -1, -1):
        frame_c, blobs = seq[k], masks[k]
        if resting and looks_as_at_rest(frame_c, 0.1):
            continue
        resting = False
        h, w = frame_c.shape[:2]
        xi, yi = min(max(round(float(at[0])), 0), w - 1), min(max(round(float(at[1])), 0), h - 1)
        near_hand = blobs.hand_dist is not None and float(blobs.hand_dist[yi, xi]) <= st.hand_near * die
        hand |= near_hand  # the die is in, under or beside a hand
        found = [(float(np.linalg.norm(c - at)), c) for c in blobs.dice]
        found = [f for f in found if f[0] <= reach]
        if near_hand and (not found or min(f[0] for f in found) > die):
            break  # back in the hand that brought it: nothing before this is the die on its own
        if not found:
            gap += 1
            if gap > st.max_gap:
                break
            continue
        gap = 0
        at = min(found, key=lambda f: f[0])[1]
        track.append((k, at, near_hand))
    return track, hand


def _judge_track(
    centre: np.ndarray,
    track: list[tuple[int, np.ndarray, bool]],
    hand: bool,
    frames: Sequence[np.ndarray],
    after: np.ndarray,
    view: _View,
    st: TumbleSettings,
) -> DieVerdict:
    """Compare the die's face at rest with what it showed where it was followed to."""
    face: _Face | None = None  # made when first compared
    seen: list[tuple[float, float]] = []
    points = [centre, *(c for _, c, _ in track)]
    m = FACE_R + SLACK
    w, h = view.work_size
    for n, (k, c, near_hand) in enumerate(track):
        away = float(np.linalg.norm(c - centre)) / view.blob_side
        cw = view.to_work(c)
        if near_hand or not (m <= cw[0] < w - m and m <= cw[1] < h - m):
            seen.append((away, math.nan))  # partly covered by the hand, or partly out of view
            continue
        # the smear is of the way the die moved while the shutter was open: towards the next frame's
        # place or from the last one's, whichever is longer (a die slows down)
        step = points[n] - c
        if n + 2 < len(points) and np.linalg.norm(c - points[n + 2]) > np.linalg.norm(step):
            step = c - points[n + 2]
        step = step * (view.z / view.zb)
        if face is None:
            face = _Face(view.detail(after, view.to_work(centre), int(WORK_SIDE)))
        seen.append((away, face.likeness(view.detail(frames[k], cw, m), step)))
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
