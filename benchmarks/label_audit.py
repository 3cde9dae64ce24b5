"""Every labelled d6 the reader reads differently from its label, and every reading on no labelled
die, as a contact sheet to judge by eye.

    .venv/bin/python benchmarks/label_audit.py [--split heldout|train] [--out /tmp/audit.png]

The shared photos' labels are not perfect: where the reader and a label disagree, only a person
looking at the die can say which is right. This prints each disagreement (file, label box,
label, reading, confidence) and writes a sheet of enlarged crops to --out (outside the
repository: the photos are not copied into the project).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from training.dataset import is_held_out, load_byler, read_image
from vision.reader import default_reader

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=Path, default=ROOT.parent / "shared" / "fixtures" / "real")
    ap.add_argument("--split", choices=["heldout", "train"], default="heldout")
    ap.add_argument("--out", type=Path, default=Path("/tmp/dicetable-label-audit.png"))
    args = ap.parse_args()
    if args.out.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        ap.error(f"--out {args.out}: expected an image file name ending .png or .jpg (the contact sheet)")
    if not (args.real / "byler_d6").is_dir():
        raise SystemExit(f"{args.real}/byler_d6: not found (pass --real DIR)")
    reader = default_reader()
    tiles = []
    for item in load_byler(args.real):
        if is_held_out(item.path.name) != (args.split == "heldout"):
            continue
        img = read_image(item.path)
        reads = reader.read(img)
        for d in item.dice:
            x0, y0, x1, y1 = d.box
            hit = [r for r in reads if x0 <= r.center[0] <= x1 and y0 <= r.center[1] <= y1]
            if hit and hit[0].value == d.value:
                continue
            got = f"{hit[0].value} ({hit[0].confidence:.2f})" if hit else "no die"
            box = ", ".join(f"{v:.0f}" for v in d.box)
            print(f"{item.path.name}\tbox ({box})\tlabel {d.value}\tread {got}")
            cx, cy, s = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * 0.75
            crop = img[max(0, int(cy - s)) : int(cy + s), max(0, int(cx - s)) : int(cx + s)]
            tile = cv2.resize(crop, (224, 224), interpolation=cv2.INTER_CUBIC)
            cv2.putText(tile, f"label {d.value} read {got}", (4, 16), 0, 0.45, (0, 255, 255), 1)
            cv2.putText(tile, item.path.stem[-10:], (4, 218), 0, 0.4, (0, 255, 255), 1)
            tiles.append(tile)
        for r in reads:  # readings on no labelled die: a die the labels miss, or a false reading
            if any(
                d.box[0] <= r.center[0] <= d.box[2] and d.box[1] <= r.center[1] <= d.box[3] for d in item.dice
            ):
                continue
            print(
                f"{item.path.name}\tat ({r.center[0]:.0f}, {r.center[1]:.0f})\tno label"
                f"\tread {r.value} ({r.confidence:.2f})"
            )
            s = 40.0
            crop = img[
                max(0, int(r.center[1] - s)) : int(r.center[1] + s),
                max(0, int(r.center[0] - s)) : int(r.center[0] + s),
            ]
            tile = cv2.resize(crop, (224, 224), interpolation=cv2.INTER_CUBIC)
            cv2.putText(
                tile, f"no label, read {r.value} ({r.confidence:.2f})", (4, 16), 0, 0.45, (0, 255, 255), 1
            )
            cv2.putText(tile, item.path.stem[-10:], (4, 218), 0, 0.4, (0, 255, 255), 1)
            tiles.append(tile)
    if not tiles:
        print("no disagreements")
        return
    while len(tiles) % 6:
        tiles.append(np.zeros_like(tiles[0]))
    sheet = np.vstack([np.hstack(tiles[i : i + 6]) for i in range(0, len(tiles), 6)])
    cv2.imwrite(str(args.out), sheet)
    print(f"{len(tiles)} tiles written to {args.out}")


if __name__ == "__main__":
    main()
