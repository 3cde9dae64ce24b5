"""The later rolls of a d20_lurig set-up that the table's roster reads wrong, as a contact sheet to judge
by eye whether the label is the face the camera shows (issue 44 item 4).

    nice -n 10 .venv/bin/python -m benchmarks.lurig_label_audit --group d20_wood --out /tmp/wood_audit.png

The two dice are taught as `benchmarks.roster_read` teaches them (4 frames a face from the first half of
each clip, d20_top as ann's d20, d20_wood as bob's), and `--group`'s later rolls (every `--step`-th
frame of each clip's second half) are read through the trusted roster table.  Each roll read as
another value (or not at all) is one row of the sheet: the photo (labelled with its file, label and
reading), then the crops taught for its labelled face, then the crops taught for the face it was read
as (each tile is the 48x48 crop the set was taught, enlarged).  The sheet is written outside the
repository (the photos are not copied into the project).  A person then says per row which face the
camera shows; the corrections go in benchmarks/labels/lurig_corrections.csv.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import cv2
import numpy as np

from benchmarks.harness import REAL, add_smoke, imread, markdown_table, nearest_centre, run_header, write
from benchmarks.roster_read import DICE, ROWS, STEP, split, tables, teach
from benchmarks.table_stills import STILL, VIDEO_W, frames_of
from controller.perceive import Perceiver
from training.numbered.real import load_lurig

TILE = 96


def tile(img: np.ndarray, text: str = "", side: int = TILE) -> np.ndarray:
    t = cv2.resize(
        img, (side, side), interpolation=cv2.INTER_AREA if img.shape[0] > side else cv2.INTER_CUBIC
    )
    if text:
        cv2.rectangle(t, (0, 0), (side, 14), (0, 0, 0), -1)
        cv2.putText(t, text, (2, 11), cv2.FONT_HERSHEY_SIMPLEX, 0.36, (255, 255, 255), 1, cv2.LINE_AA)
    return t


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--group", default="d20_wood", help="the d20_lurig set-up whose later rolls are audited")
    ap.add_argument("--step", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("/tmp/dicetable-lurig-audit.png"))
    ap.add_argument("--list", type=Path, default=None, help="the rows as a markdown table (default: stdout)")
    add_smoke(ap)
    a = ap.parse_args(argv)
    if a.out.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        ap.error(f"--out {a.out}: expected an image file name ending .png or .jpg (the contact sheet)")
    groups = [g for _, _, _, g in DICE]
    if a.group not in groups:
        ap.error(f"--group {a.group!r}: expected one of the roster's set-ups {groups}")
    lurig = load_lurig(REAL)
    sets, looks, later = [], [], []
    for _, _, _, group in DICE:
        mine = [x for x in lurig if x.group == group]
        if a.smoke:  # two clips of each die, two rolls each
            clips = sorted({x.clip for x in mine})[:2]
            mine = [x for x in mine if x.clip in clips]
        taught, rest = split(mine, 2 if a.smoke else 4, a.step or STEP)
        s, _, look = teach(taught, dict((g, i) for i, _, _, g in DICE)[group])
        sets.append((group, s, taught))
        looks.append(look)
        later += [x for x in rest if x.group == a.group]
    if a.smoke:
        later = later[:2]
    # the taught crops of the audited die, by face (recut: `teach` keeps only their embeddings)
    from vision.numbered.reader import default_reader

    reader = default_reader()
    taught_crops: dict[int, list[np.ndarray]] = {}
    for group, _, taught in sets:
        if group != a.group:
            continue
        from controller.learn_dice import learning_perceiver

        perceiver = learning_perceiver("d20", None, False, reader)
        for x in taught:
            still = frames_of(imread(x.path))[0]
            found = [d.to_json() for d in perceiver.perceive(still).dice]
            i = nearest_centre([tuple(d["center"]) for d in found], STILL)
            if i is not None:
                mid = found[i]
                taught_crops.setdefault(x.face, []).append(reader.crops_of(still, [mid], "box")[0])
    rows, sheet = [], []
    k = VIDEO_W / STILL[0]
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.png"
        table: Perceiver | None = None  # the trusted roster row (roster.TRUST_TAUGHT, the default)
        for x in later:
            photo = imread(x.path)
            still, video, _, empty_video = frames_of(photo)
            if table is None:
                cv2.imwrite(str(empty), empty_video)
                table = tables([s for _, s, _ in sets], looks, Path(tmp), empty, rows=(ROWS[4],))[ROWS[4]]
            table.set_empty(empty_video)
            seen = list(table.perceive(still, frame=video).dice)
            j = nearest_centre([d.center or (-1e9, -1e9) for d in seen], (VIDEO_W, round(STILL[1] * k)))
            die = seen[j] if j is not None else None
            got = die.value if die is not None else None
            if got == x.face:
                continue
            conf = f"{die.confidence:.2f}" if die is not None and die.confidence is not None else "-"
            rows.append([x.path.name, x.clip, x.face, got, conf])
            strip = [tile(photo, f"{x.path.name[:-4]} L{x.face} R{got}", 2 * TILE)]
            for face, tag in ((x.face, "L"), (got, "R")):
                crops = taught_crops.get(face, []) if face is not None else []
                pad = [np.full((TILE, TILE, 3), 40, np.uint8)] * max(0, 4 - len(crops))
                col = [tile(c, f"{tag}{face}") for c in crops[:4]] + pad
                strip.append(np.vstack([np.hstack(col[:2]), np.hstack(col[2:4])]))
            sheet.append(np.hstack(strip))
    head = f"{a.group}: {len(rows)} of {len(later)} later rolls read wrong by the trusted roster table"
    if sheet:
        cv2.imwrite(str(a.out), np.vstack(sheet))
    text = "\n".join(
        [f"# {head}", "", run_header(), "", *markdown_table(("photo", "clip", "label", "read", "conf"), rows)]
    )
    write(text + "\n", a.list)


if __name__ == "__main__":
    main()
