"""Pixels to numbered dice: a small detector finds dice of every kind, a classifier names kind and value.

Both networks run on the CPU through OpenCV's dnn module from ONNX files in
vision/models/ (numbered_detector.onnx, numbered_classifier.onnx; trained by
vision/numbered/train.py on rendered dice, see vision/numbered/MODELS.md).

The classifier sees a 48x48 crop round each detected die, at the frame's own
resolution, and answers one of 47 classes: not a die, d6 1-6, d10 0-9,
percentile d10 00-90, d20 1-20.  The kind is the kind with the most probability
summed over its values; the value is that kind's most likely value.  The crop is
centred on the die, so the face pointing up (the one in the middle, seen
frontally) is what it reads; the slanted neighbours round it are context.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.face import body_lab, face_quad
from vision.image_check import check_bgr
from vision.numbered.crop import CROP, MARGIN, crop_die
from vision.numbered.labels import CLASSES, KIND_SLICES, KINDS
from vision.palette import Palette
from vision.reading import DieReading
from vision.runtime import Model

MODELS = Path(__file__).resolve().parent.parent / "models"
STRIDE = 4
# Mean absolute difference (grey levels) between a crop and its sigma-1 blur.  Camera frames
# of dice stay under about 17 (JPEG, sensor noise, numerals and edges included); pixel noise
# is above 27.  A crop above this is noise the detector fired on, not a die.
NOISE_LEVEL = 22.0


@dataclass(frozen=True)
class Found:
    """A detector peak: centre and box size in frame pixels, and peak score."""

    center: tuple[float, float]
    w: float
    h: float
    score: float


@dataclass(frozen=True)
class Verdict:
    """The classifier's answer for one crop."""

    kind: str  # "none" when it is not a die
    value: int
    confidence: float
    kind_confidence: float


def _load(name: str, path: Path | None) -> Model:
    return Model(path or MODELS / name)


def verdict(p: np.ndarray, reject: float = 0.5) -> Verdict:
    """Kind by summed probability, then that kind's most likely value."""
    kind_p = {k: float(p[s].sum()) for k, s in KIND_SLICES.items()}
    if float(p[0]) >= reject or max(kind_p.values()) < 1e-6:
        return Verdict("none", 0, float(p[0]), float(p[0]))
    kind = max(KINDS, key=lambda k: kind_p[k])
    s = KIND_SLICES[kind]
    i = s.start + int(np.argmax(p[s]))
    return Verdict(kind, CLASSES[i][1], float(p[i]), kind_p[kind])


class NumberedReader:
    """Reads d6, d10, percentile d10 and d20 dice. Thread-safe (the nets are guarded by a lock)."""

    def __init__(
        self,
        detector: Path | None = None,
        classifier: Path | None = None,
        det_scale: float = 0.5,
        det_threshold: float = 0.3,
        reject_threshold: float = 0.5,
        turns: int = 4,
    ) -> None:
        if turns not in (1, 2, 4):
            raise ValueError(f"turns: expected 1, 2 or 4 (quarter turns averaged per die), got {turns!r}")
        self._det = _load("numbered_detector.onnx", detector)
        self._cls = _load("numbered_classifier.onnx", classifier)
        self.det_scale = det_scale
        self.det_threshold = det_threshold
        self.reject_threshold = reject_threshold
        self.turns = turns

    def detect(self, image: np.ndarray) -> list[Found]:
        h, w = image.shape[:2]
        s = self.det_scale
        dw, dh = max(16, round(w * s / 16) * 16), max(16, round(h * s / 16) * 16)
        sx, sy = dw / w, dh / h
        small = cv2.resize(image, (dw, dh), interpolation=cv2.INTER_AREA if sx < 1 else cv2.INTER_LINEAR)
        blob = small.astype(np.float32).transpose(2, 0, 1)[None] / 255.0
        out = self._det(blob)[0]
        heat = 1.0 / (1.0 + np.exp(-out[0]))
        peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= self.det_threshold)
        found = []
        for y, x in zip(*np.nonzero(peaks), strict=True):
            bw = math.exp(float(np.clip(out[1, y, x], -3, 6))) * STRIDE / sx
            bh = math.exp(float(np.clip(out[2, y, x], -3, 6))) * STRIDE / sy
            found.append(Found(((x + 0.5) * STRIDE / sx, (y + 0.5) * STRIDE / sy), bw, bh, float(heat[y, x])))
        return suppress(found)

    def classify(self, crops: list[np.ndarray]) -> np.ndarray:
        """Softmax over the 47 classes for each CROP x CROP BGR crop, averaged over quarter turns.

        A numeral can lie at any angle; reading each crop turned `turns` ways and averaging
        evens out the angles the network reads least well.
        """
        if not crops:
            return np.zeros((0, len(CLASSES)), np.float32)
        step = 4 // self.turns
        batch = np.stack([np.rot90(c, k) for k in range(0, 4, step) for c in crops])
        blob = batch.astype(np.float32).transpose(0, 3, 1, 2) / 255.0
        logits = self._cls(blob)
        e = np.exp(logits - logits.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        return p.reshape(self.turns, len(crops), -1).mean(0)  # type: ignore[no-any-return]

    def crops(self, image: np.ndarray, found: list[Found]) -> list[np.ndarray]:
        levels = [image]
        return [crop_die(levels, f.center, max(f.w, f.h) * MARGIN) for f in found]

    def read(self, image: np.ndarray, palette: Palette | None = None) -> list[DieReading]:
        """Every die in a BGR uint8 frame: kind, value, centre, outline, confidence, colour."""
        image = check_bgr(image)
        if min(image.shape[:2]) < 16:
            return []
        palette = palette or Palette.default()
        found = self.detect(image)
        crops = self.crops(image, found)
        out = []
        for f, p, crop in zip(found, self.classify(crops), crops, strict=True):
            v = verdict(p, self.reject_threshold)
            if v.kind == "none" or _noise(crop) > NOISE_LEVEL:
                continue
            out.append(_reading(image, f, v, crop, palette))
        out.sort(key=lambda r: (r.center[1], r.center[0]))
        return out


def _reading(image: np.ndarray, f: Found, v: Verdict, crop: np.ndarray, palette: Palette) -> DieReading:
    lab = body_lab(crop[CROP // 6 : CROP - CROP // 6, CROP // 6 : CROP - CROP // 6])
    quad: tuple[tuple[float, float], ...]
    shape = face_quad(image, f.center, f.w, f.h, lab) if v.kind == "d6" else None
    if shape is not None:
        quad = tuple((float(x), float(y)) for x, y in shape[0])
    else:
        # The die's outline box (the top face of a d10 or d20 is the middle of it).
        x, y, hw, hh = f.center[0], f.center[1], f.w / 2, f.h / 2
        quad = ((x - hw, y - hh), (x + hw, y - hh), (x + hw, y + hh), (x - hw, y + hh))
    conf = max(0.0, min(1.0, v.confidence * min(1.0, f.score / 0.5)))
    return DieReading(
        kind=v.kind,
        value=v.value,
        center=f.center,
        quad=quad,  # type: ignore[arg-type]
        confidence=conf,
        colour=palette.nearest_lab(lab)[0],
    )


def _noise(crop: np.ndarray) -> float:
    c = crop.astype(np.float32)
    return float(np.mean(np.abs(c - cv2.GaussianBlur(c, (0, 0), 1.0))))


def suppress(found: list[Found]) -> list[Found]:
    """Drop weaker peaks whose centre lies within half a die of a stronger one."""
    kept: list[Found] = []
    for c in sorted(found, key=lambda c: -c.score):
        r = 0.45 * min(c.w, c.h)
        if all(
            math.hypot(c.center[0] - k.center[0], c.center[1] - k.center[1]) > max(r, 0.45 * min(k.w, k.h))
            for k in kept
        ):
            kept.append(c)
    return kept


_default: NumberedReader | None = None
_default_lock = threading.Lock()


def default_reader() -> NumberedReader:
    global _default
    with _default_lock:
        if _default is None:
            _default = NumberedReader()
        return _default


def read_numbered(image_bgr: np.ndarray, palette: Palette | None = None) -> list[DieReading]:
    """Every d6, d10, percentile d10 and d20 in a BGR uint8 frame (d10p values 0, 10, ... 90)."""
    return default_reader().read(image_bgr, palette)
