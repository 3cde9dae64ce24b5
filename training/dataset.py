"""The shared labelled d6 photos: loaders and the fixed train / held-out split.

The split is by image, decided by a hash of the file name alone, so it never
changes when files are added and anyone can reproduce it: an image is held out
when the first 8 hex digits of sha1(file name) are divisible by 5 (about 20 %).
Training and tuning use only the train part; benchmarks report both.
"""

from __future__ import annotations

import csv
import hashlib
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: its value and its box (x0, y0, x1, y1) in pixels."""

    value: int
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class LabelledImage:
    """A photo and the dice labelled on it (for crops: one die filling the image)."""

    path: Path
    dice: tuple[LabelledDie, ...]


def is_held_out(name: str) -> bool:
    """The committed split rule: held out when sha1(name)[:8] as hex is divisible by 5."""
    return int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) % 5 == 0


def split_of(path: Path) -> str:
    return "heldout" if is_held_out(path.name) else "train"


def load_byler(root: Path) -> list[LabelledImage]:
    """byler_d6: 640x640 photos with YOLO labels (class index + 1 = face value)."""
    out = []
    for img in sorted((root / "byler_d6" / "images").glob("*.jpg")):
        lab = root / "byler_d6" / "labels" / (img.stem + ".txt")
        dice = []
        for line in lab.read_text().split("\n"):
            parts = line.split()
            if len(parts) != 5:
                continue
            c, x, y, w, h = int(parts[0]), *map(float, parts[1:])
            s = 640.0
            dice.append(
                LabelledDie(c + 1, ((x - w / 2) * s, (y - h / 2) * s, (x + w / 2) * s, (y + h / 2) * s))
            )
        out.append(LabelledImage(img, tuple(dice)))
    return out


def load_skovy_crops(root: Path) -> list[LabelledImage]:
    """skovy_d6 crops: one die per image, value from the folder name; box = whole image."""
    out = []
    for folder, value in WORDS.items():
        for img in sorted((root / "skovy_d6" / "crops" / folder).glob("*.jpg")):
            out.append(LabelledImage(img, (LabelledDie(value, (0.0, 0.0, 0.0, 0.0)),)))
    return out


def load_skovy_scenes(root: Path) -> list[LabelledImage]:
    """skovy_d6 scenes: values from the AutoML CSV, tight boxes from the VOC xml, matched by position."""
    base = root / "skovy_d6" / "scenes"
    coarse: dict[str, list[tuple[int, float, float]]] = {}
    with open(base / "labels.csv", newline="") as f:
        for row in csv.reader(f):
            if len(row) < 9 or not row[2].strip().isdigit():
                continue
            name = Path(row[1]).name
            cx = (float(row[3]) + float(row[7])) / 2 * 1920
            cy = (float(row[4]) + float(row[8])) / 2 * 1080
            coarse.setdefault(name, []).append((int(row[2]), cx, cy))
    out = []
    for img in sorted(base.glob("*.jpg")):
        boxes = []
        for xml in base.glob(f"voc_*_{img.stem}.xml"):
            for obj in ET.parse(xml).getroot().iter("bndbox"):
                vals = [float(obj.findtext(k) or 0) for k in ("xmin", "ymin", "xmax", "ymax")]
                boxes.append((vals[0], vals[1], vals[2], vals[3]))
        dice = []
        for value, cx, cy in coarse.get(img.name, []):
            if boxes:
                best = min(boxes, key=lambda b: ((b[0] + b[2]) / 2 - cx) ** 2 + ((b[1] + b[3]) / 2 - cy) ** 2)
            else:
                best = (cx - 40, cy - 40, cx + 40, cy + 40)
            dice.append(LabelledDie(value, best))
        out.append(LabelledImage(img, tuple(dice)))
    return out


def load_all(root: Path) -> dict[str, list[LabelledImage]]:
    return {
        "byler_d6": load_byler(root),
        "skovy_d6/scenes": load_skovy_scenes(root),
        "skovy_d6/crops": load_skovy_crops(root),
    }


def apply_corrections(items: list[LabelledImage], path: Path) -> tuple[list[LabelledImage], int]:
    """`items` with the label corrections of the CSV at `path` applied (a die's value changed, or
    a die the labels miss added), and how many were applied.

    Lines starting with # are comments; columns: file, x0, y0, x1, y1, label, value, seen. A
    correction whose label is not "-" must match a labelled die of that file (its box within 2 px
    and its label), else the file is refused: corrections must never silently apply to other labels.
    """
    rows = [
        r for r in csv.DictReader(line for line in path.read_text().splitlines() if not line.startswith("#"))
    ]
    by_name = {item.path.name: item for item in items}
    fixed: dict[str, list[LabelledDie]] = {}
    for n, r in enumerate(rows, 1):
        try:
            box = (float(r["x0"]), float(r["y0"]), float(r["x1"]), float(r["y1"]))
            value, label = int(r["value"]), r["label"].strip()
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(
                f"{path}: correction {n}: expected file,x0,y0,x1,y1,label,value,seen ({e})"
            ) from e
        item = by_name.get(r["file"])
        if item is None:
            continue  # a photo not loaded (e.g. another set's root)
        dice = fixed.setdefault(item.path.name, list(item.dice))
        if label == "-":
            dice.append(LabelledDie(value, box))
            continue
        hits = [
            i
            for i, d in enumerate(dice)
            if d.value == int(label) and max(abs(a - b) for a, b in zip(d.box, box, strict=True)) <= 2.0
        ]
        if len(hits) != 1:
            raise ValueError(f"{path}: correction {n}: no labelled {label} at {box} in {r['file']}")
        dice[hits[0]] = LabelledDie(value, dice[hits[0]].box)
    out = [LabelledImage(item.path, tuple(fixed.get(item.path.name, item.dice))) for item in items]
    applied = sum(1 for r in rows if r["file"] in by_name)
    return out, applied


def load_rendered(folder: Path) -> list[LabelledImage]:
    """The project's rendered board scenes (scene_*.json beside each image).

    The box of a die is its top face's bounding box grown by a quarter, so a reading whose
    centre lands on the visible die counts; dice whose top face is mostly hidden are skipped.
    """
    import json

    out = []
    for meta in sorted(folder.glob("scene_*.json")):
        data = json.loads(meta.read_text())
        dice = []
        for d in data.get("dice", []):
            if d.get("kind") != "d6" or d.get("top_visible_fraction", 1.0) < 0.5:
                continue
            xs = [p[0] for p in d["top_quad_px"]]
            ys = [p[1] for p in d["top_quad_px"]]
            gx, gy = (max(xs) - min(xs)) * 0.125, (max(ys) - min(ys)) * 0.125
            dice.append(
                LabelledDie(int(d["value"]), (min(xs) - gx, min(ys) - gy, max(xs) + gx, max(ys) + gy))
            )
        out.append(LabelledImage(folder / data["image"], tuple(dice)))
    return out


def read_image(path: Path) -> np.ndarray:
    """Decode a photo as BGR uint8, or raise ValueError naming the file."""
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError(f"{path}: not a readable image")
    return np.asarray(img)


# -- photos with no d6 in them, and their held-out split (by source, by physical die) -----------

#: negatives/ is split by the repository the photo came from, never by photo: scikit-image's
#: textures, coins and printed text and EasyOCR's street signs are held out; the rsandrini desk
#: and the opencv_contrib scene-text photos are the train part.
NEGATIVE_HELD_OUT_SOURCES = ("skimage_", "easyocr_")


def load_no_d6(root: Path, folder: str) -> list[LabelledImage]:
    """The photos of `folder` (negatives, d20_desk_scenes) as images with no d6 on them."""
    return [LabelledImage(p, ()) for p in sorted((root / folder / "images").glob("*")) if p.is_file()]


def negative_held_out(path: Path) -> bool:
    """negatives/: held out by source repository (see NEGATIVE_HELD_OUT_SOURCES)."""
    return path.name.startswith(NEGATIVE_HELD_OUT_SOURCES)


def d20_die_is_green(image: np.ndarray) -> bool:
    """d20_desk_scenes holds two physical d20s, a red one and a green-speckled one: whether this
    photo shows the green one (the most saturated pixels are green rather than red)."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    strong = (hsv[..., 1] > 60) & (hsv[..., 2] > 40)
    hue = hsv[..., 0][strong]
    green = int(np.count_nonzero((hue > 35) & (hue < 95)))
    red = int(np.count_nonzero((hue < 12) | (hue > 165)))
    return green > red


def d20_desk_held_out(image: np.ndarray) -> bool:
    """d20_desk_scenes is split by physical die: the photos of the green d20 are held out."""
    return d20_die_is_green(image)
