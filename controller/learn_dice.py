"""The guided session that learns a set of a table's own dice (`dicetable learn-dice`).

`see`: the table looks at frames of one set (a kind and a colour) showing its faces; every die in
them is cut out and embedded (`vision.numbered.embed`), and the crops are grouped so that each group
is one face (`cluster`: average-linkage on likeness, LINK).  It writes, in the session folder:

* `seen.json`: every crop's frame, centre, group, the classifier's guess and its embedding;
* `confirm.csv`: one row a group (`group, crops, guess, face`): the person fills in `face`, the value
  the group's die shows (or `-`: not one of the set's dice);
* `groups.png`: a contact sheet, one row a group, to look at while filling it in.

`confirm`: the filled-in sheet (or a labels file of the same form) makes the set
(`vision.numbered.learnt.DiceSet`), saved where the table's config points (`[table] dice_set`).
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.numbered.embed import TURNS, likeness
from vision.numbered.labels import KINDS, VALUES
from vision.numbered.learnt import DiceSet
from vision.numbered.reader import NumberedReader, verdict

SEEN, SHEET, PICTURE = "seen.json", "confirm.csv", "groups.png"
# Two groups of crops are one face while their crops are on average at least this alike (at the
# best turn).  Not tuned: crops of one face in a clip are mostly 0.9 alike or more, of two faces
# rarely over 0.8 (benchmarks/vision_numbered_learnt.py).
LINK = 0.85
THUMB, PER_ROW = 72, 12  # contact sheet: a crop's side in pixels, crops shown a group


class LearnError(ValueError):
    """A learn-dice session cannot go on: the message names the input and what was expected."""


@dataclass(frozen=True)
class Seen:
    frame: str
    centre: tuple[float, float]
    group: int
    guess: int | None
    features: list[float]


def cluster(turned: np.ndarray, link: float = LINK) -> list[int]:
    """A group number for each of N crops (N x T x D embeddings at T turns): average-linkage
    grouping, merged while two groups' mean likeness is at least `link`; groups numbered by size."""
    n = len(turned)
    if n == 0:
        return []
    sims = likeness(turned, turned[:, 0])
    sims = np.maximum(sims, sims.T).astype(np.float64)
    np.fill_diagonal(sims, -np.inf)
    members: dict[int, list[int]] = {i: [i] for i in range(n)}
    while len(members) > 1:
        i, j = (int(k) for k in np.unravel_index(int(np.argmax(sims)), sims.shape))
        if sims[i, j] < link:
            break
        a, b = len(members[i]), len(members[j])
        row = (sims[i] * a + sims[j] * b) / (a + b)  # the merged group's mean likeness to each other
        sims[i], sims[:, i] = row, row
        sims[i, i] = -np.inf
        sims[j], sims[:, j] = -np.inf, -np.inf
        members[i] += members.pop(j)
    groups = sorted(members.values(), key=lambda m: (-len(m), m[0]))
    out = [0] * n
    for g, m in enumerate(groups):
        for k in m:
            out[k] = g
    return out


def _image(path: Path) -> np.ndarray:
    data = np.fromfile(str(path), np.uint8) if path.is_file() else np.zeros(0, np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise LearnError(f"{path}: expected a readable image (JPEG, PNG) of the table showing the dice")
    return img


def see(
    frames: list[Path], name: str, kind: str, colour: str, folder: Path, reader: NumberedReader
) -> list[Seen]:
    """Look at the frames, group what was seen, and write the session folder (module docstring)."""
    if kind not in KINDS:
        raise LearnError(f"--kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    if not frames:
        raise LearnError("frames: expected one or more images of the set's dice showing their faces")
    where, crops, guesses = [], [], []
    for path in frames:
        img = _image(path)
        for f, crop in reader.top_faces(img, (kind,)):
            v = verdict(reader.classify([crop])[0], reader.reject_threshold, (kind,))
            where.append((str(path), (round(f.center[0], 1), round(f.center[1], 1))))
            crops.append(crop)
            guesses.append(v.value if v.kind == kind else None)
    if not crops:
        raise LearnError(
            f"frames: no die found in any of the {len(frames)} frames (expected the set's {kind}s)"
        )
    turned = reader.embedder().embed(crops, TURNS)
    groups = cluster(turned)
    seen = [
        Seen(fr, c, g, guess, [round(float(x), 5) for x in t[0]])
        for (fr, c), g, guess, t in zip(where, groups, guesses, turned, strict=True)
    ]
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"name": name, "kind": kind, "colour": colour, "embedder": reader.embedder().digest}
    (folder / SEEN).write_text(json.dumps({**meta, "seen": [s.__dict__ for s in seen]}), encoding="utf-8")
    with (folder / SHEET).open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["group", "crops", "guess", "face"])
        for g in range(max(groups) + 1):
            mine = [s.guess for s in seen if s.group == g and s.guess is not None]
            guess = Counter(mine).most_common(1)[0][0] if mine else ""
            w.writerow([g, sum(s.group == g for s in seen), guess, ""])
    cv2.imwrite(str(folder / PICTURE), contact_sheet(crops, groups))
    return seen


def contact_sheet(crops: list[np.ndarray], groups: list[int]) -> np.ndarray:
    """One row a group: its number, then up to PER_ROW of its crops."""
    rows = []
    for g in range(max(groups) + 1):
        mine = [c for c, k in zip(crops, groups, strict=True) if k == g]
        step = max(1, len(mine) // PER_ROW)
        tiles = [cv2.resize(c, (THUMB, THUMB), interpolation=cv2.INTER_AREA) for c in mine[::step][:PER_ROW]]
        label = np.full((THUMB, THUMB, 3), 255, np.uint8)
        cv2.putText(label, str(g), (8, THUMB - 24), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2)
        tiles += [np.full((THUMB, THUMB, 3), 255, np.uint8)] * (PER_ROW - len(tiles))
        rows.append(np.hstack([label, *tiles]))
    return np.vstack(rows)


def read_faces(path: Path, kind: str) -> dict[int, int | None]:
    """A filled-in confirm sheet: group -> face (None: not one of the set's dice; a group left
    blank is an error, so nothing is learnt unconfirmed)."""
    try:
        rows = list(csv.DictReader(path.open(encoding="utf-8")))
    except OSError as e:
        raise LearnError(
            f"{path}: expected the confirm sheet written by 'dicetable learn-dice see' ({e})"
        ) from None
    out: dict[int, int | None] = {}
    for n, r in enumerate(rows, 2):
        face = (r.get("face") or "").strip()
        try:
            group = int(r["group"])
            out[group] = None if face == "-" else int(face)
        except (KeyError, TypeError, ValueError):
            raise LearnError(
                f"{path} line {n}: expected a group number and its face (a value the {kind} shows, "
                f"or - for not one of the set's dice), got {r!r}"
            ) from None
        value = out[group]
        if value is not None and value not in VALUES[kind]:
            raise LearnError(
                f"{path} line {n}: a {kind} shows {VALUES[kind][0]}..{VALUES[kind][-1]}, got {face!r}"
            )
    return out


def confirm(folder: Path, sheet: Path | None = None) -> DiceSet:
    """The set learnt in a session folder, its groups named by the filled-in sheet (default the
    folder's confirm.csv)."""
    try:
        data = json.loads((folder / SEEN).read_text(encoding="utf-8"))
        kind = str(data["kind"])
        seen = data["seen"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise LearnError(
            f"{folder}: expected a session folder from 'dicetable learn-dice see' ({e})"
        ) from None
    sheet = sheet or folder / SHEET
    faces = read_faces(sheet, kind)
    missing = sorted({int(s["group"]) for s in seen} - set(faces))
    if missing:
        raise LearnError(f"{sheet}: expected a face (or -) for every group, missing {missing}")
    keep = [s for s in seen if faces[int(s["group"])] is not None]
    if not keep:
        raise LearnError(f"{sheet}: every group is '-': expected at least one face of the set")
    return DiceSet(
        str(data["name"]),
        kind,
        str(data.get("colour", "")),
        str(data["embedder"]),
        np.array([faces[int(s["group"])] for s in keep], np.int64),
        np.array([s["features"] for s in keep], np.float32),
    )
