"""The shared REAL numbered-dice photos: loaders and the fixed train / held-out split.

`../shared/fixtures/real/` (INDEX.md there) holds three sets the numbered reader is judged on:

* `d20_lurig/`: 913 480x480 crops of one d20 each, labelled by the face that points up, from four
  video set-ups (`group`): `d20_color` (coloured card on a turntable), `d20_off-angle` (the same
  turntable, camera tilted), `d20_top` (top-down on white), `d20_wood` (hand-held over wood,
  daylight).  Within a group each face was filmed as one or more clips of one die; frames of a clip
  are near-copies.  Which physical die is in a frame is not labelled (8-10 dice, several seen in
  more than one group), so the split is by SET-UP, the coarsest unit that is labelled:

      HELD_OUT_GROUPS = ("d20_top", "d20_wood")   # 509 frames: never trained or tuned on
      train groups:  d20_color, d20_off-angle      # 404 frames

  Fixed here for good: top-down on white is the table's own view, hand-held over wood the hardest
  light and background; the two train groups are the turntable clips.  A die seen in a train group
  may be seen again in a held-out one (the labels cannot tell), never the same clip or set-up.
  A clip (`Lurig.clip`) is a run of frames of one face at most CLIP_GAP frames apart.
* `d20_desk_scenes/`: 76 1440x960 webcam photos, exactly one d20 each, no box or face label:
  held out whole (never trained on).
* `negatives/`: 44 photos with no die: held out whole.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

HELD_OUT_GROUPS = ("d20_top", "d20_wood")
GROUPS = ("d20_color", "d20_off-angle", "d20_top", "d20_wood")
# Frames of one face in one group further apart than this belong to different clips.
CLIP_GAP = 10


@dataclass(frozen=True)
class Lurig:
    """One d20_lurig crop: the face that points up, its set-up, its frame and its clip."""

    path: Path
    face: int
    group: str
    frame: int
    clip: str  # "<group>/<first frame of the clip>"

    @property
    def held_out(self) -> bool:
        return self.group in HELD_OUT_GROUPS


def default_root() -> Path:
    """`../shared/fixtures/real` beside the project (the worktree's parent's `shared`)."""
    here = Path(__file__).resolve().parents[2]
    for base in (here.parent, *here.parents):
        if (base / "shared" / "fixtures" / "real").is_dir():
            return base / "shared" / "fixtures" / "real"
    return here.parent / "shared" / "fixtures" / "real"


def load_lurig(root: Path) -> list[Lurig]:
    """Every d20_lurig crop (`root`: the real fixtures folder), with its clip; raises ValueError on a
    labels file that is not as INDEX.md describes."""
    path = root / "d20_lurig" / "labels.csv"
    try:
        rows = list(csv.DictReader(path.open(encoding="utf-8")))
    except OSError as e:
        raise ValueError(f"{path}: expected the d20_lurig labels file ({e})") from None
    items = []
    for n, r in enumerate(rows, 2):
        try:
            face, frame, group = int(r["face"]), int(r["frame"]), r["group"]
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{path} line {n}: expected file, face, group, frame; got {r!r}") from None
        if group not in GROUPS or not 1 <= face <= 20:
            raise ValueError(f"{path} line {n}: expected a group of {GROUPS} and a face 1-20, got {r!r}")
        items.append((group, face, frame, root / "d20_lurig" / r["file"]))
    items.sort()
    out: list[Lurig] = []
    start = -1
    for i, (group, face, frame, p) in enumerate(items):
        prev = items[i - 1] if i else None
        if prev is None or prev[:2] != (group, face) or frame - prev[2] > CLIP_GAP:
            start = frame
        out.append(Lurig(p, face, group, frame, f"{group}/{start}"))
    return out


def load_images(root: Path, folder: str) -> list[Path]:
    """The photos listed in `folder`'s labels.csv (d20_desk_scenes, negatives)."""
    path = root / folder / "labels.csv"
    try:
        rows = list(csv.DictReader(path.open(encoding="utf-8")))
    except OSError as e:
        raise ValueError(f"{path}: expected the {folder} labels file ({e})") from None
    return [root / folder / r["file"] for r in rows]


# A d20_lurig crop is a close-up (the die ~200 of 480 pixels); at the table a die is about 100
# pixels of a 3456x2592 still.  `at_table` puts a crop there: shrunk by TABLE_SCALE and laid in the
# middle of a still of the crop's own border colour.  Used where a figure is about the table's view
# (learnt sets, benchmarks/vision_numbered_learnt.py); the held-out benchmark reads crops as they are.
TABLE_SCALE = 0.45
TABLE_STILL = (3456, 2592)


def at_table(image_bgr: np.ndarray) -> np.ndarray:
    """A d20_lurig crop (BGR uint8) at the table's scale in a TABLE_STILL frame."""
    import cv2
    import numpy

    small = cv2.resize(image_bgr, None, fx=TABLE_SCALE, fy=TABLE_SCALE, interpolation=cv2.INTER_AREA)
    edge = numpy.concatenate([small[0], small[-1], small[:, 0], small[:, -1]])
    w, h = TABLE_STILL
    frame = numpy.empty((h, w, 3), numpy.uint8)
    frame[:] = numpy.median(edge, 0)
    sh, sw = small.shape[:2]
    y0, x0 = (h - sh) // 2, (w - sw) // 2
    frame[y0 : y0 + sh, x0 : x0 + sw] = small
    return frame
