"""Learn each player's die colours under the table's own light, from one throw.

Given a frame and the top-face quads of the dice in it (from the vision
reader, or found by :func:`find_dice_by_difference` against a frame of the
empty board), each die's body colour is measured in CIE Lab (pips and rim
left out); the dice are grouped into as many colours as the players named,
and each group is matched to a name by the nominal colours the caller gives.

The palette file is JSON that ``vision.Palette.from_dict`` loads::

    {"red": {"lab": [L, a, b], "cov": [[...3x3...]], "samples": 5}, ...}
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray


class ColourError(ValueError):
    """Colours cannot be learnt from this input (says which input and what was expected)."""


def to_lab(bgr_pixels: NDArray[np.uint8]) -> NDArray[np.float64]:
    """BGR uint8 pixels (n, 3) -> Lab (L 0..100), the same scale as ``vision.palette``."""
    px = np.asarray(bgr_pixels, np.float32).reshape(-1, 1, 3) / 255.0
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2Lab).reshape(-1, 3), np.float64)


def face_samples(image_bgr: NDArray[np.uint8], quad_px: Any, inner: float = 0.7) -> NDArray[np.float64]:
    """Lab samples of a die's body colour inside its top-face quad (pips and rim dropped)."""
    q = np.asarray(quad_px, np.float64).reshape(4, 2)
    c = q.mean(axis=0)
    shrunk = c + (q - c) * inner
    mask = np.zeros(image_bgr.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(shrunk).astype(np.int32)], 1)
    pixels = image_bgr[mask > 0]
    if len(pixels) < 6:
        raise ColourError(f"die quad {q.round(1).tolist()} covers too few pixels to measure a colour")
    lab = to_lab(pixels)
    median_l = float(np.median(lab[:, 0]))
    body = lab[np.abs(lab[:, 0] - median_l) < 20.0]  # pips are far lighter or darker than the body
    return body if len(body) >= 6 else lab


def learn_palette(
    image_bgr: NDArray[np.uint8],
    quads_px: Sequence[Any],
    colours: Sequence[str],
    nominal_lab: Mapping[str, Sequence[float]],
) -> dict[str, dict[str, Any]]:
    """A palette {name: {"lab", "cov", "samples"}} for the named colours from one throw."""
    if not isinstance(image_bgr, np.ndarray) or image_bgr.dtype != np.uint8 or image_bgr.ndim != 3:
        raise ColourError("expected a BGR uint8 frame (h, w, 3)")
    names = list(dict.fromkeys(colours))
    if not names:
        raise ColourError("name at least one expected colour (e.g. --colour red)")
    unknown = [n for n in names if n not in nominal_lab]
    if unknown:
        raise ColourError(f"unknown colour name(s) {unknown}: expected some of {sorted(nominal_lab)}")
    if len(quads_px) < len(names):
        raise ColourError(f"found {len(quads_px)} dice but {len(names)} colours were named: throw more dice")
    samples = [face_samples(image_bgr, q) for q in quads_px]
    means = np.array([s.mean(axis=0) for s in samples], np.float32)
    k = len(names)
    if k == 1:
        labels = np.zeros(len(means), np.int32)
        centres = means.mean(axis=0, keepdims=True)
    else:
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 0.1)
        cv2.setRNGSeed(1)
        # through Any: opencv-python-headless's stubs for kmeans changed between 5.0 (no overload takes
        # bestLabels=None) and 5.1 (they do, typed loosely), and the code must type-check under both
        kmeans: Any = cv2.kmeans
        _, lab_idx, centres = kmeans(means, k, None, crit, 8, cv2.KMEANS_PP_CENTERS)
        labels = np.asarray(lab_idx, np.int32).ravel()
    # Match groups to names: the assignment with the least total distance to the nominal colours.
    nominal = np.array([nominal_lab[n] for n in names], np.float64)
    best = min(
        itertools.permutations(range(k)),
        key=lambda perm: sum(float(np.linalg.norm(centres[g] - nominal[perm[g]])) for g in range(k)),
    )
    out: dict[str, dict[str, Any]] = {}
    for g in range(k):
        pix = np.concatenate([samples[i] for i in range(len(samples)) if labels[i] == g])
        cov = np.cov(pix.T) if len(pix) > 3 else np.eye(3)
        out[names[best[g]]] = {
            "lab": [round(float(v), 2) for v in pix.mean(axis=0)],
            "cov": [[round(float(v), 3) for v in row] for row in cov],
            "samples": int(np.count_nonzero(labels == g)),
        }
    return out


def find_dice_by_difference(
    empty_bgr: NDArray[np.uint8], throw_bgr: NDArray[np.uint8], min_area_px: int = 80
) -> list[NDArray[np.float64]]:
    """Quads (rotated rectangles) of the blobs that differ between an empty-board frame and a throw."""
    if empty_bgr.shape != throw_bgr.shape:
        raise ColourError(
            f"the empty-board frame is {empty_bgr.shape[1]}x{empty_bgr.shape[0]} but the throw is "
            f"{throw_bgr.shape[1]}x{throw_bgr.shape[0]}: take both with the same camera setting"
        )
    diff = cv2.absdiff(cv2.GaussianBlur(empty_bgr, (5, 5), 0), cv2.GaussianBlur(throw_bgr, (5, 5), 0))
    grey = diff.max(axis=2)
    _, fg = cv2.threshold(grey, 40, 255, cv2.THRESH_BINARY)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for c in contours:
        if cv2.contourArea(c) < min_area_px:
            continue
        box = cv2.boxPoints(cv2.minAreaRect(c))
        quads.append(np.asarray(box, np.float64))
    return quads


def save_palette(palette: Mapping[str, Any], path: str | Path) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(dict(palette), indent=1) + "\n", encoding="utf-8")
