"""Every labelled d6 the reader reads differently from its label, and every reading on no labelled
die, as a contact sheet to judge by eye.

    nice -n 10 .venv/bin/python -m benchmarks.label_audit [--split heldout|train] [--out /tmp/audit.png]

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

from benchmarks.harness import REAL, add_smoke, markdown_table, match_boxes, run_header, spaced
from training.dataset import is_held_out, load_byler, read_image
from vision.reader import default_reader

SHEET = Path("/tmp/dicetable-label-audit.png")
SMOKE_PHOTOS = 3  # --smoke: photos of the split (spaced)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--split", choices=["heldout", "train"], default="heldout")
    ap.add_argument("--out", type=Path, help=f"the contact sheet (default {SHEET}; none with --smoke)")
    add_smoke(ap)
    args = ap.parse_args()
    if args.out is None and not args.smoke:
        args.out = SHEET
    if args.out is not None and args.out.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        ap.error(f"--out {args.out}: expected an image file name ending .png or .jpg (the contact sheet)")
    if not (args.real / "byler_d6").is_dir():
        raise SystemExit(f"{args.real}/byler_d6: not found (pass --real DIR)")
    reader = default_reader()
    tiles = []
    rows: list[list[object]] = []
    items = [i for i in load_byler(args.real) if is_held_out(i.path.name) == (args.split == "heldout")]
    for item in spaced(items, SMOKE_PHOTOS) if args.smoke else items:
        img = read_image(item.path)
        reads = reader.read(img)
        # matched as benchmarks/vision_d6.py counts: each die the reading nearest its box's centre
        matched = match_boxes([d.box for d in item.dice], [r.center for r in reads])
        for d, i in zip(item.dice, matched, strict=True):
            x0, y0, x1, y1 = d.box
            hit = reads[i] if i is not None else None
            if hit is not None and hit.value == d.value:
                continue
            got = f"{hit.value} ({hit.confidence:.2f})" if hit else "no die"
            box = ", ".join(f"{v:.0f}" for v in d.box)
            rows.append([item.path.name, f"box ({box})", d.value, got])
            cx, cy, s = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * 0.75
            crop = img[max(0, int(cy - s)) : int(cy + s), max(0, int(cx - s)) : int(cx + s)]
            tile = cv2.resize(crop, (224, 224), interpolation=cv2.INTER_CUBIC)
            cv2.putText(tile, f"label {d.value} read {got}", (4, 16), 0, 0.45, (0, 255, 255), 1)
            cv2.putText(tile, item.path.stem[-10:], (4, 218), 0, 0.4, (0, 255, 255), 1)
            tiles.append(tile)
        for j, r in enumerate(reads):  # readings on no labelled die: a die the labels miss, or a false one
            if j in matched:
                continue
            where = f"at ({r.center[0]:.0f}, {r.center[1]:.0f})"
            rows.append([item.path.name, where, "no label", f"{r.value} ({r.confidence:.2f})"])
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
    print(run_header())
    print("\n".join(markdown_table(["photo", "where", "label", "read (confidence)"], rows)))
    if not tiles:
        print("no disagreements")
        return
    if args.out is None:
        return
    while len(tiles) % 6:
        tiles.append(np.zeros_like(tiles[0]))
    sheet = np.vstack([np.hstack(tiles[i : i + 6]) for i in range(0, len(tiles), 6)])
    cv2.imwrite(str(args.out), sheet)
    print(f"{len(tiles)} tiles written to {args.out}")


if __name__ == "__main__":
    main()
