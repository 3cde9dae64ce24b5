"""The motion gate: is the table empty, are dice rolling, is a hand in view, or has a throw settled?

Pixels only (numpy/OpenCV).  The gate is fed ``(image_bgr, t)`` pairs and
works in seconds, never in frame counts, so it behaves the same at 10 or 60
frames per second.  Its thresholds follow the camera: the sensor noise is
estimated from the differences between consecutive still frames.

The gate learns the empty table from the first still ``background_s`` seconds it
sees (or from :meth:`MotionGate.set_background`), so start it on an empty table.
A still change over most of the view (a lamp switched on, the camera knocked)
is taken as a new empty table, with a warning, rather than as a throw.

``empty_frame`` keeps the latest full-size frame the gate labelled empty (the
empty table under the light of the moment) for the reader's empty-table step
(``vision.where.EmptyTable``); a light change forgets it until the table is next
seen empty.

Events, each reported exactly once:

* ``settled_now``: a throw has come to rest for ``settle_s`` seconds.  This is
  the one moment the dice are read.
* ``changed``: an already-settled scene was nudged (a small, local movement,
  no hand, the table never emptied) and settled again in a different
  arrangement.  A change, not a new roll: the controller re-reads and asks.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from enum import StrEnum

import cv2
import numpy as np

log = logging.getLogger(__name__)

WORK_WIDTH = 160  # the gate looks at a small copy: cheap on a Pi, and noise averages out


class RollState(StrEnum):
    """What the table is doing."""

    EMPTY = "empty"
    ROLLING = "rolling"
    HANDLED = "handled"
    SETTLED = "settled"


@dataclass(frozen=True)
class GateUpdate:
    """The gate's answer for one frame."""

    state: RollState
    settled_now: bool = False
    changed: bool = False
    t_rest: float | None = None  # time of the frame in which the dice came to rest
    #: still, but not yet for ``settle_s``: the time the dice have lain still since (a throw may be
    #: read early, then scored when it settles: controller.early_read)
    resting_since: float | None = None
    moving_fraction: float = 0.0
    foreground_fraction: float = 0.0


@dataclass
class _Episode:
    """What happened since the scene last settled: used to tell a nudge from a new throw."""

    footprint: np.ndarray | None = None  # union of moving pixels
    handled: bool = False
    emptied: bool = False

    def add_motion(self, mask: np.ndarray) -> None:
        self.footprint = mask.copy() if self.footprint is None else (self.footprint | mask)


@dataclass
class _Settled:
    image: np.ndarray  # small blurred BGR (float32)
    foreground: np.ndarray  # bool mask vs the empty table
    t_rest: float


@dataclass
class MotionGate:
    """Classifies each frame as empty / rolling / handled / settled (see the module doc).

    Tunables are fractions of the image area or multiples of the noise, so they
    do not depend on the camera's resolution.
    """

    settle_s: float = 0.4
    noise_k: float = 4.5  # a pixel moved when it differs by noise_k x the noise sigma ...
    min_level: float = 8.0  # ... and by at least this many grey levels
    moving_min_frac: float = 0.001  # this much of the image moving counts as motion
    empty_max_frac: float = 0.0015  # less foreground than this vs the empty table: empty
    hand_min_frac: float = 0.03  # a skin-coloured foreground blob this big is a hand
    edge_blob_min_frac: float = 0.04  # a foreground blob this big touching the border is an arm
    large_motion_frac: float = 0.25  # this much moving at once: someone is handling the table
    nudge_max_ratio: float = 1.0  # motion footprint / settled foreground at most this: a nudge ...
    nudge_area_tolerance: float = (
        0.35  # ... and the foreground grew or shrank by at most this (no dice added)
    )
    background_s: float = 0.3  # the empty table is learned from the first still spell this long
    relearn_frac: float = 0.6  # a still change over this much of the view is lighting, not dice
    change_min_frac: float = 0.0008  # a re-settled scene differs by at least this: changed

    noise_sigma: float = field(default=2.0, init=False)  # of the difference of two still frames
    state: RollState = field(default=RollState.EMPTY, init=False)
    _prev: np.ndarray | None = field(default=None, init=False, repr=False)
    _background: np.ndarray | None = field(default=None, init=False, repr=False)
    _bg_candidate_since: float | None = field(default=None, init=False, repr=False)
    _still_since: float | None = field(
        default=None, init=False, repr=False
    )  # t_rest of the current still spell
    _reported: bool = field(default=False, init=False, repr=False)  # this still spell has been judged
    _settled: _Settled | None = field(default=None, init=False, repr=False)
    _episode: _Episode = field(default_factory=_Episode, init=False, repr=False)
    _noise_samples: int = field(default=0, init=False, repr=False)
    _last_t: float | None = field(default=None, init=False, repr=False)
    _prev_t: float = field(default=0.0, init=False, repr=False)
    _quiet_since: float | None = field(default=None, init=False, repr=False)  # no motion since
    #: the latest full-size frame labelled empty (for vision.where.EmptyTable); None until one is seen
    empty_frame: np.ndarray | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.settle_s > 0:
            raise ValueError(f"settle_s must be > 0 seconds, got {self.settle_s!r}")

    # -- inputs ---------------------------------------------------------------------------------
    def set_background(self, image_bgr: np.ndarray) -> None:
        """Use this picture of the empty table as the reference."""
        self._background = self._small(image_bgr)
        self.empty_frame = image_bgr.copy()

    def reset(self) -> None:
        """Forget the empty table and the last settled scene (relearned from the next still frames)."""
        self._background = None
        self.empty_frame = None
        self._bg_candidate_since = None
        self._settled = None
        self._episode = _Episode(emptied=True)
        self.state = RollState.EMPTY

    @property
    def has_background(self) -> bool:
        return self._background is not None

    def update(self, image_bgr: np.ndarray, t: float) -> GateUpdate:
        """Classify one frame taken at time ``t`` (seconds, non-decreasing)."""
        if self._last_t is not None and t < self._last_t:
            raise ValueError(f"frame time {t!r} is before the previous frame's {self._last_t!r}")
        self._last_t = t
        small = self._small(image_bgr)
        prev, self._prev = self._prev, small
        prev_t, self._prev_t = self._prev_t, t
        if prev is None:
            self._still_since = t
            return GateUpdate(self.state)

        frame_diff = _channel_max_absdiff(small, prev)
        self._learn_noise(small, prev, frame_diff)
        moving = self._mask(frame_diff)
        moving_frac = float(moving.mean())
        is_moving = moving_frac >= self.moving_min_frac

        if self._background is None:
            upd = self._learn_background(small, t, is_moving, moving_frac)
            if self._background is not None:
                self.empty_frame = image_bgr.copy()
            return upd

        fg = self._foreground_mask(small)
        fg_frac = float(fg.mean())
        if is_moving:
            self._quiet_since = None
        elif self._quiet_since is None:
            self._quiet_since = prev_t
        quiet_for = 0.0 if self._quiet_since is None else t - self._quiet_since
        if fg_frac >= self.relearn_frac and quiet_for >= self.background_s:
            # No throw and no arm covers most of the view for long: the lights changed or the camera moved.
            log.warning(
                "motion gate: %.0f%% of the view changed and stayed; taking it as the empty table "
                "(lights or camera changed?)",
                fg_frac * 100,
            )
            self._background = small.copy()
            # the old empty frame is of another light; the next frame labelled empty replaces it
            self.empty_frame = None
            self._settled, self._episode = None, _Episode(emptied=True)
            fg, fg_frac = np.zeros_like(fg), 0.0
        handled = moving_frac >= self.large_motion_frac or self._hand_in_view(small, fg)

        if is_moving or handled:
            self._still_since = None
            self._reported = False
            self._episode.add_motion(moving)
            self._episode.handled |= handled
            self.state = RollState.HANDLED if handled else RollState.ROLLING
            return GateUpdate(self.state, moving_fraction=moving_frac, foreground_fraction=fg_frac)

        if self._still_since is None:
            # This frame matches the previous one: the dice came to rest in the previous frame.
            self._still_since = prev_t
        upd = self._still(small, fg, fg_frac, t, moving_frac)
        if upd.state is RollState.EMPTY:
            self.empty_frame = image_bgr.copy()  # the empty table under today's light
        return upd

    # -- still frames ---------------------------------------------------------------------------
    def _still(
        self, small: np.ndarray, fg: np.ndarray, fg_frac: float, t: float, moving_frac: float
    ) -> GateUpdate:
        t_rest = self._still_since if self._still_since is not None else t
        if fg_frac < self.empty_max_frac:
            self.state = RollState.EMPTY
            self._settled = None
            self._episode = _Episode(emptied=True)
            self._reported = True
            self._adapt_background(small)
            return GateUpdate(self.state, moving_fraction=moving_frac, foreground_fraction=fg_frac)
        if t - t_rest < self.settle_s - 1e-6 or self._reported:  # (frame times are floats: 0.2 is 0.2)
            if not self._reported and self.state is not RollState.SETTLED:
                self.state = RollState.ROLLING
            return GateUpdate(
                self.state,
                moving_fraction=moving_frac,
                foreground_fraction=fg_frac,
                resting_since=None if self._reported else t_rest,
            )

        # Resting long enough and not yet judged: a new throw, a change, or the same scene again.
        self._reported = True
        self.state = RollState.SETTLED
        previous, episode = self._settled, self._episode
        self._settled = _Settled(small, fg, t_rest)
        self._episode = _Episode()
        if previous is not None and not episode.emptied and not self._differs(previous.image, small):
            self._settled = previous  # the same arrangement again (a hand came and went): no event
            return GateUpdate(self.state, moving_fraction=moving_frac, foreground_fraction=fg_frac)
        nudge = previous is not None and self._is_nudge(episode, previous, fg)
        return GateUpdate(
            self.state,
            settled_now=not nudge,
            changed=nudge,
            t_rest=t_rest,
            moving_fraction=moving_frac,
            foreground_fraction=fg_frac,
        )

    def _is_nudge(self, episode: _Episode, previous: _Settled, foreground: np.ndarray) -> bool:
        """Small, local movement of the same dice: no hand, never emptied, about as much foreground."""
        if episode.handled or episode.emptied:
            return False
        fg_area = max(int(previous.foreground.sum()), 1)
        footprint = 0 if episode.footprint is None else int(episode.footprint.sum())
        same_amount = abs(int(foreground.sum()) - fg_area) <= self.nudge_area_tolerance * fg_area
        return footprint <= self.nudge_max_ratio * fg_area and same_amount

    def _differs(self, a: np.ndarray, b: np.ndarray) -> bool:
        mask = self._diff_mask(a, b)
        return float(mask.mean()) >= self.change_min_frac

    # -- background -----------------------------------------------------------------------------
    def _learn_background(
        self, small: np.ndarray, t: float, is_moving: bool, moving_frac: float
    ) -> GateUpdate:
        if is_moving:
            self._bg_candidate_since = None
        elif self._bg_candidate_since is None:
            self._bg_candidate_since = t
        elif t - self._bg_candidate_since >= self.background_s:
            self._background = small
            self._still_since = t
        self.state = RollState.EMPTY
        return GateUpdate(self.state, moving_fraction=moving_frac)

    def _adapt_background(self, small: np.ndarray) -> None:
        # Follow slow lighting drift while the table is known to be empty.
        assert self._background is not None
        cv2.accumulateWeighted(small, self._background, 0.05)

    # -- pixel measures -------------------------------------------------------------------------
    @staticmethod
    def _small(image_bgr: np.ndarray) -> np.ndarray:
        if (
            not isinstance(image_bgr, np.ndarray)
            or image_bgr.dtype != np.uint8
            or image_bgr.ndim != 3
            or image_bgr.shape[2] != 3
        ):
            shape, dtype = getattr(image_bgr, "shape", None), getattr(image_bgr, "dtype", None)
            raise ValueError(
                f"motion gate: expected a BGR uint8 image (H, W, 3), got shape {shape} dtype {dtype}"
            )
        h, w = image_bgr.shape[:2]
        scale = WORK_WIDTH / w if w > WORK_WIDTH else 1.0
        small = cv2.resize(
            image_bgr, (round(w * scale), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
        )
        return cv2.GaussianBlur(small.astype(np.float32), (3, 3), 0)

    def _threshold(self) -> float:
        return max(self.min_level, self.noise_k * self.noise_sigma)

    def _diff_mask(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self._mask(_channel_max_absdiff(a, b))

    def _mask(self, diff: np.ndarray) -> np.ndarray:
        raw = (diff > self._threshold()).astype(np.uint8)
        # An opening drops isolated noise pixels; a die's moving edge survives it.
        opened: np.ndarray = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        return opened.astype(bool)

    def _foreground_mask(self, small: np.ndarray) -> np.ndarray:
        assert self._background is not None
        return self._diff_mask(small, self._background)

    def _learn_noise(self, small: np.ndarray, prev: np.ndarray, frame_diff: np.ndarray) -> None:
        # Where nothing moves, frames differ by sensor noise only, and for normal noise
        # median |d| = 0.6745 sigma (green channel).  The median ignores the few pixels of
        # moving dice; frames with a hand or arm all over them are left out.
        if float((frame_diff > self._threshold()).mean()) > self.large_motion_frac:
            return
        sigma = float(np.median(cv2.absdiff(small[..., 1], prev[..., 1]))) / 0.6745
        self._noise_samples += 1
        rate = max(0.05, 1.0 / self._noise_samples)
        self.noise_sigma = (1 - rate) * self.noise_sigma + rate * sigma

    def _hand_in_view(self, small: np.ndarray, fg: np.ndarray) -> bool:
        area = fg.size
        if fg.sum() < min(self.hand_min_frac, self.edge_blob_min_frac) * area:
            return False  # not enough foreground for a hand or an arm
        # 16-bit labels where they fit (the gate's 160-pixel copy: always): the same labels, faster
        ltype = cv2.CV_16U if fg.size < 65535 else cv2.CV_32S
        n, labels, stats, _ = cv2.connectedComponentsWithStats(
            fg.astype(np.uint8), connectivity=8, ltype=ltype
        )
        if n <= 1:
            return False
        h, w = fg.shape
        skin = _skin_mask(small) & fg
        for i in range(1, n):
            x, y, bw, bh, count = stats[i]
            if count < self.hand_min_frac * area and count < self.edge_blob_min_frac * area:
                continue
            touches_edge = x == 0 or y == 0 or x + bw >= w or y + bh >= h
            if touches_edge and count >= self.edge_blob_min_frac * area:
                return True
            if count >= self.hand_min_frac * area:
                skin_count = int(skin[labels == i].sum())
                if skin_count >= self.hand_min_frac * area:
                    return True
        return False


def _channel_max_absdiff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pixel, the largest absolute difference over B, G and R."""
    d = cv2.absdiff(a, b)
    out: np.ndarray = np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2])
    return out


def _skin_mask(small_bgr: np.ndarray) -> np.ndarray:
    """Skin-like pixels (a classic YCrCb box); only meaningful inside the foreground."""
    ycrcb = cv2.cvtColor(np.clip(small_bgr, 0, 255).astype(np.uint8), cv2.COLOR_BGR2YCrCb)
    cr, cb = ycrcb[..., 1], ycrcb[..., 2]
    mask: np.ndarray = (cr >= 135) & (cr <= 180) & (cb >= 80) & (cb <= 130) & (ycrcb[..., 0] > 50)
    return mask
