"""Pick the reader's two thresholds on the TRAIN photos only.

    nice -n 10 .venv/bin/python -m training.d6.tune [--real DIR] [--models DIR]

Every detector peak above a low floor is classified once; then each pair
(det_threshold, reject_threshold) is scored as dice read right minus false
detections (extra detections and wrong values both cost one) over byler_d6 and
the skovy scenes, train part only.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from training.dataset import is_held_out, load_byler, load_skovy_scenes, read_image
from vision.crops import MARGIN, Pyramid, crop_die
from vision.reader import DiceReader


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--real", type=Path, default=Path(__file__).resolve().parents[3] / "shared/fixtures/real")
    ap.add_argument("--models", type=Path, default=None)
    ap.add_argument("--rotations", type=int, default=1)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    kw = {}
    if args.models:
        kw = {"detector": args.models / "d6_detector.onnx", "classifier": args.models / "d6_classifier.onnx"}
    reader = DiceReader(det_threshold=0.1, rotations=args.rotations, **kw)
    items = [i for i in load_byler(args.real) + load_skovy_scenes(args.real) if not is_held_out(i.path.name)]
    rows = []  # (image index, det score, p_none, value, label index or -1, label value)
    n_labels = 0
    for k, item in enumerate(items):
        img = read_image(item.path)
        cands = reader.find(img)
        pyr = Pyramid(img)
        probs = reader.classify([crop_die(pyr, c.center, c.w * MARGIN, c.h * MARGIN) for c in cands])
        for c, p in zip(cands, probs, strict=True):
            hit = [
                j
                for j, d in enumerate(item.dice)
                if d.box[0] <= c.center[0] <= d.box[2] and d.box[1] <= c.center[1] <= d.box[3]
            ]
            j = hit[0] if hit else -1
            rows.append(
                (
                    k,
                    c.score,
                    p[0],
                    int(np.argmax(p[1:])) + 1,
                    n_labels + j if hit else -1,
                    item.dice[j].value if hit else 0,
                )
            )
        n_labels += len(item.dice)
    a = np.array(rows, np.float64)
    best = None
    for dt in np.arange(0.1, 0.75, 0.05):
        for rt in np.arange(0.2, 0.95, 0.05):
            keep = a[(a[:, 1] >= dt) & (a[:, 2] < rt)]
            seen: set[int] = set()
            right = wrong = 0
            for row in keep[np.argsort(-keep[:, 1])]:
                lab = int(row[4])
                if lab >= 0 and lab not in seen:
                    seen.add(lab)
                    right += row[3] == row[5]
                    wrong += row[3] != row[5]
                else:
                    wrong += 1
            score = right - wrong
            if best is None or score > best[0]:
                best = (score, dt, rt, right, wrong)
    assert best is not None
    print(
        f"labelled {n_labels}; best det_threshold {best[1]:.2f} reject_threshold {best[2]:.2f}: "
        f"{best[3]} right, {best[4]} wrong or extra"
    )


if __name__ == "__main__":
    main()
