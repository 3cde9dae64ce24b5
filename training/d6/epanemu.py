"""The real oblique pip-d6 photos (``epanemu_d6_oblique``) split by content group (issue 46 item 1).

Photos CC BY 4.0, Epanemu/GameDiceRecognition (see the set's README.md and LICENSE.txt): keep the
attribution wherever its pictures or numbers appear.

The split is a data file, ``training/d6/epanemu_split.csv`` (one row a photo: stem, content group,
split), made once by ``python -m training.d6.epanemu --write`` from ``GROUPS`` below and committed.
The groups were decided by viewing every photo on contact sheets in stem order (neighbouring stems
are the same layout shot again, so a group is a run of stems, never single frames):

- ``white_table`` (train): one die in the middle of a white office table (white, red, pink, purple,
  brown dice);
- ``catan_table`` (HELD OUT): the red and the yellow Catan dice on a white table, no board;
- ``catan_board`` (HELD OUT): the same Catan dice on and beside a Catan board (often 14-28 px);
- ``cloth_translucent`` (HELD OUT): two to five translucent dice on blue or purple cloth;
- ``cloth_groups`` (train): about 15 dice of mixed colours on purple or blue cloth;
- ``desk`` (HELD OUT): 15-21 dice on a granite desk, a white table, blue paper beside a laptop.

Held out: every Catan photo (dice never seen in training: unseen dice and another camera), the
translucent dice on cloth and the desk scenes (other settings and cameras).  ``blocks`` cuts a train
group into runs of stems for fitting choices out of fold (never by frame either).
"""

from __future__ import annotations

import argparse
import csv
import re
from dataclasses import dataclass
from pathlib import Path

SET = "epanemu_d6_oblique"
SPLIT_FILE = Path(__file__).resolve().parent / "epanemu_split.csv"
#: content group: (first stem number, last stem number, split)
GROUPS: dict[str, tuple[int, int, str]] = {
    "white_table": (8, 172, "train"),
    "catan_table": (175, 199, "held-out"),
    "catan_board": (200, 368, "held-out"),
    "cloth_translucent": (369, 378, "held-out"),
    "cloth_groups": (379, 429, "train"),
    "desk": (431, 442, "held-out"),
}
HEADER = (
    "# epanemu_d6_oblique (CC BY 4.0, Epanemu/GameDiceRecognition) split by content group, issue 46.\n"
    "# Made by `python -m training.d6.epanemu --write` from training/d6/epanemu.py GROUPS (runs of\n"
    "# stems decided by viewing every photo in stem order); never split by frame.\n"
)


@dataclass(frozen=True)
class Photo:
    stem: str
    group: str
    split: str
    path: Path
    #: (x0, y0, x1, y1) in pixels of the image, value 1..6
    dice: tuple[tuple[tuple[float, float, float, float], int], ...]


def number(stem: str) -> int:
    m = re.match(r"dice_(\d+)_", stem)
    if m is None:
        raise ValueError(f"{stem!r}: not an epanemu_d6_oblique stem (expected dice_<n>_jpg)")
    return int(m.group(1))


def group_of(stem: str) -> tuple[str, str]:
    n = number(stem)
    for name, (lo, hi, split) in GROUPS.items():
        if lo <= n <= hi:
            return name, split
    raise ValueError(f"{stem!r}: stem number {n} is in no content group")


def read_split(path: Path = SPLIT_FILE) -> dict[str, tuple[str, str]]:
    """stem -> (group, split), from the committed split file."""
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: the epanemu split file is missing (python -m training.d6.epanemu --write)"
        )
    rows = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    out = {}
    for row in csv.DictReader(rows):
        out[row["stem"]] = (row["group"], row["split"])
    return out


def load(real: Path, split: str | None = None, path: Path = SPLIT_FILE) -> list[Photo]:
    """The set's photos (of one split: "train" / "held-out"; None: all) with their labelled dice,
    in stem order.  The image size is 640x640 (the labels are normalised: scaled by the image's)."""
    import cv2

    root = real / SET
    if not (root / "images").is_dir():
        return []
    table = read_split(path)
    out = []
    for img in sorted((root / "images").glob("*.jpg"), key=lambda p: number(p.stem)):
        group, sp = table[img.stem]
        if split is not None and sp != split:
            continue
        small = cv2.imread(str(img), cv2.IMREAD_REDUCED_GRAYSCALE_8)  # its size only (640x640)
        if small is None:
            raise ValueError(f"{img}: not a readable image")
        h, w = small.shape[0] * 8, small.shape[1] * 8
        dice = []
        for line in (root / "labels" / f"{img.stem}.txt").read_text().splitlines():
            if line.strip():
                c, cx, cy, bw, bh = (float(v) for v in line.split())
                x0, y0 = (cx - bw / 2) * w, (cy - bh / 2) * h
                dice.append(((x0, y0, x0 + bw * w, y0 + bh * h), int(c) + 1))
        out.append(Photo(img.stem, group, sp, img, tuple(dice)))
    return out


def blocks(photos: list[Photo], n: int = 4) -> list[int]:
    """A fold number (0..n-1) for each photo: each group's photos cut in stem order into n runs."""
    by: dict[str, list[int]] = {}
    for i, p in enumerate(photos):
        by.setdefault(p.group, []).append(i)
    fold = [0] * len(photos)
    for idx in by.values():
        for k, i in enumerate(idx):
            fold[i] = k * n // len(idx)
    return fold


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--real", type=Path, default=Path(__file__).resolve().parents[2].parent / "shared/fixtures/real"
    )
    ap.add_argument("--write", action="store_true", help=f"write {SPLIT_FILE.name} from GROUPS")
    args = ap.parse_args()
    stems = sorted((p.stem for p in (args.real / SET / "images").glob("*.jpg")), key=number)
    if not stems:
        raise SystemExit(f"--real: no {SET}/images under {args.real}")
    rows = [(s, *group_of(s)) for s in stems]
    if args.write:
        with SPLIT_FILE.open("w", newline="") as f:
            f.write(HEADER)
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["stem", "group", "split"])
            w.writerows(rows)
    counts: dict[str, int] = {}
    for _, g, sp in rows:
        counts[f"{g} ({sp})"] = counts.get(f"{g} ({sp})", 0) + 1
    for k, v in counts.items():
        print(f"{k}: {v} photos")


if __name__ == "__main__":
    main()
