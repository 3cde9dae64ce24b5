"""The classic pip-counting reader, kept as the benchmark's baseline (not used by the product).

As commonly published: blur, SimpleBlobDetector for the pips, DBSCAN-style distance
clustering of pip centres into dice (eps about 40 px on a 640 px frame), and the
value of a die is the number of pips in its cluster.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.image_check import check_bgr


def _blob_detector() -> cv2.SimpleBlobDetector:
    p = cv2.SimpleBlobDetector_Params()  # type: ignore[attr-defined]
    p.filterByInertia = True
    p.minInertiaRatio = 0.6
    p.filterByArea = True
    p.minArea = 8
    p.maxArea = 400
    p.filterByCircularity = True
    p.minCircularity = 0.6
    detector: cv2.SimpleBlobDetector = cv2.SimpleBlobDetector_create(p)  # type: ignore[attr-defined]
    return detector


def cluster(points: np.ndarray, eps: float) -> list[np.ndarray]:
    """DBSCAN with min_samples=1: connected components of the 'closer than eps' graph."""
    n = len(points)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        d = np.hypot(*(points[i + 1 :] - points[i]).T) if i + 1 < n else np.zeros(0)
        for j in np.nonzero(d < eps)[0]:
            parent[root(i)] = root(i + 1 + int(j))
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return [points[g] for g in groups.values()]


def read_dice_classic(image_bgr: np.ndarray) -> list[tuple[tuple[float, float], int]]:
    """(centre, value) per die, found by counting pip blobs."""
    image = check_bgr(image_bgr)
    scale = 640.0 / max(image.shape[:2])
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    gray = cv2.medianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), 5)
    keypoints = _blob_detector().detect(gray)
    if not keypoints:
        return []
    pts = np.array([k.pt for k in keypoints], np.float64)
    out = []
    for g in cluster(pts, eps=25.0):
        c = g.mean(0) / scale
        out.append(((float(c[0]), float(c[1])), min(6, len(g))))
    return out
