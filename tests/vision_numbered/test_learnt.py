"""`dicetable learn-dice`: a table learns its own dice from frames, a person confirms each face, and
the reader then reads those dice with the set and says so.  On the real d20_lurig frames, put at the
table's scale (`training.numbered.real.at_table`); figures: benchmarks/vision_numbered_learnt.py."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from controller.cli import app
from controller.config import load_config
from controller.learn_dice import cluster
from controller.perceive import TableError, load_learnt, reader_for
from tests.real_photos import real_photos
from training.numbered.real import Lurig, at_table, default_root, load_lurig
from vision.numbered.learnt import DiceSet, load_set
from vision.numbered.reader import NumberedReader

REAL = default_root()
needs_real = real_photos("d20_lurig/labels.csv")


def _clips(group: str, faces: tuple[int, ...]) -> dict[str, list[Lurig]]:
    clips: dict[str, list[Lurig]] = {}
    for x in sorted(load_lurig(REAL), key=lambda x: x.frame):
        if x.group == group and x.face in faces:
            clips.setdefault(x.clip, []).append(x)
    return clips


def _write(items: list[Lurig], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for x in items:
        p = folder / f"{x.face:02d}_{x.frame:04d}.jpg"
        cv2.imwrite(str(p), at_table(cv2.imread(str(x.path))))
        out.append(p)
    return out


@needs_real
def test_learn_dice_from_one_clip_stretch_and_read_the_rest(tmp_path: Path, reader: NumberedReader) -> None:
    """Learn three faces of d20_top from the first frames of their clips (see, fill in the sheet as
    a person would from the contact sheet, confirm into the table's data dir), then read the last
    frames of those clips: the set reads them, says so, and reads more right than the classifier."""
    faces = (9, 11, 20)
    clips = _clips("d20_top", faces)
    learn = [x for c in clips.values() for x in c[: len(c) // 3 : 2]]
    later = [x for c in clips.values() for x in c[-len(c) // 3 :: 2]]
    frames = _write(learn, tmp_path / "learn")
    session = tmp_path / "session"
    args = ["--set", "blue-d20", "--kind", "d20", "--session", str(session)]
    run = CliRunner().invoke(app, ["learn-dice", "see", *map(str, frames), *args])
    assert run.exit_code == 0, run.output
    assert (session / "groups.png").is_file() and cv2.imread(str(session / "groups.png")) is not None
    seen = json.loads((session / "seen.json").read_text())["seen"]
    truth = {str(p): x.face for p, x in zip(frames, learn, strict=True)}
    # the person: each group's face is what its crops show (the frames' labels)
    rows = list(csv.DictReader((session / "confirm.csv").open()))
    for r in rows:
        shown = Counter(truth[s["frame"]] for s in seen if s["group"] == int(r["group"]))
        r["face"] = str(shown.most_common(1)[0][0])
    with (session / "confirm.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, ["group", "crops", "guess", "face"])
        w.writeheader()
        w.writerows(rows)
    pure = sum(
        Counter(truth[s["frame"]] for s in seen if s["group"] == g).most_common(1)[0][1]
        for g in {s["group"] for s in seen}
    )
    assert pure >= 0.9 * len(seen), f"groups mix faces: {pure} of {len(seen)} crops in their group's face"

    cfg = tmp_path / "table.toml"
    cfg.write_text('[table]\ngame = "dice-hunter"\nkinds = ["d20"]\ndice_set = "sets/blue-d20.json"\n')
    data = tmp_path / "data"
    env = {"DICETABLE_DATA_DIR": str(data)}
    confirm = ["learn-dice", "confirm", str(session), "--config", str(cfg)]
    run = CliRunner().invoke(app, confirm, env=env)
    assert run.exit_code == 2 and "lacks faces 1, 2, 3" in run.output  # three faces of twenty
    run = CliRunner().invoke(app, [*confirm, "--allow-missing"], env=env)
    assert run.exit_code == 0, run.output
    saved = data / "sets" / "blue-d20.json"
    dice = load_set(saved, reader.embedder().digest)
    assert dice.name == "blue-d20" and dice.faces == list(faces)

    right = {"with": 0, "without": 0}
    said = 0
    for x in later:
        img = at_table(cv2.imread(str(x.path)))
        h, w = img.shape[:2]
        for key, s in (("with", dice), ("without", None)):
            got = reader.read(img, kinds=("d20",), learnt=s)
            die = min(got, key=lambda r: np.hypot(r.center[0] - w / 2, r.center[1] - h / 2), default=None)
            right[key] += die is not None and die.value == x.face
            if s is not None and die is not None and die.to_json().get("learnt") == "blue-d20":
                said += 1
    assert said >= 0.8 * len(later), f"the set read {said} of {len(later)}"
    assert right["with"] >= 0.85 * len(later), (right, len(later))
    assert right["with"] > right["without"], right


def test_table_reads_with_its_learnt_set_and_refuses_a_bad_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICETABLE_DATA_DIR", str(tmp_path))
    cfg = tmp_path / "table.toml"
    cfg.write_text('[table]\ngame = "dice-hunter"\nkinds = ["d20"]\ndice_set = "red.json"\n')
    path = load_config(cfg).dice_set_path
    assert path == tmp_path / "red.json"
    with pytest.raises(TableError, match=r"red\.json.*learn-dice confirm"):
        load_learnt(path)
    path.write_text("{}")
    with pytest.raises(TableError, match=r"red\.json.*dicetable-dice-set/1"):
        load_learnt(path)
    d = DiceSet("red", "d10", "red", "x", np.array([3]), np.ones((1, 4), np.float32))
    with pytest.raises(TableError, match=r"a set of d10, expected one of the game's kinds \('d20',\)"):
        reader_for("dice-hunter", ["d20"], d)
    with pytest.raises(ValueError, match=r"a d10 shows 0..9, got \[12\]"):
        DiceSet("red", "d10", "red", "x", np.array([12]), np.ones((1, 4), np.float32))


def test_confirm_needs_a_face_for_every_group(tmp_path: Path) -> None:
    session = tmp_path / "s"
    session.mkdir()
    one = {"frame": "a.jpg", "centre": [1, 2], "guess": None, "features": [1.0, 0.0]}
    seen = [{**one, "group": g} for g in (0, 1)]
    meta = {"name": "red", "kind": "d20", "colour": "red", "embedder": "x", "seen": seen}
    (session / "seen.json").write_text(json.dumps(meta))
    (session / "confirm.csv").write_text("group,crops,guess,face\n0,1,,7\n")
    run = CliRunner().invoke(app, ["learn-dice", "confirm", str(session), "--out", str(tmp_path / "o.json")])
    assert run.exit_code == 2 and "missing [1]" in run.output
    (session / "confirm.csv").write_text("group,crops,guess,face\n0,1,,7\n1,1,,21\n")
    run = CliRunner().invoke(app, ["learn-dice", "confirm", str(session), "--out", str(tmp_path / "o.json")])
    assert run.exit_code == 2 and "a d20 shows 1..20, got '21'" in run.output
    (session / "confirm.csv").write_text("group,crops,guess,face\n0,1,,7\n1,1,,-\n")
    out = ["learn-dice", "confirm", str(session), "--out", str(tmp_path / "o.json")]
    run = CliRunner().invoke(app, out)
    assert run.exit_code == 2 and "lacks faces 1, 2, 3, 4, 5, 6, 8, 9" in run.output, run.output
    assert "(1 of 20 seen)" in run.output and "--allow-missing" in run.output
    run = CliRunner().invoke(app, [*out, "--allow-missing"])
    assert run.exit_code == 0, run.output
    assert load_set(tmp_path / "o.json").faces == [7]


def test_cluster_groups_alike_crops() -> None:
    a, b = np.eye(4, dtype=np.float32)[0], np.eye(4, dtype=np.float32)[1]
    turned = np.stack([[a], [a * 0.99 + b * 0.01], [b], [b]]).astype(np.float32)
    turned /= np.linalg.norm(turned, axis=2, keepdims=True)
    assert cluster(turned) in ([0, 0, 1, 1], [1, 1, 0, 0])


def test_a_learnt_face_the_classifier_does_not_confirm_is_asked_not_scored() -> None:
    from vision.numbered.learnt import Match
    from vision.numbered.reader import UNCONFIRMED, Verdict, learnt_verdict

    match = Match(value=13, likeness=0.93, margin=0.05)
    confirmed = learnt_verdict("d20", match, Verdict("d20", 13, 0.4, 0.9))
    assert (confirmed.value, confirmed.confidence) == (13, 0.93)
    for other in (Verdict("d20", 7, 0.99, 0.99), Verdict("d6", 3, 0.99, 0.99), Verdict("none", 0, 0.9, 0.9)):
        asked = learnt_verdict("d20", match, other)
        assert (asked.kind, asked.value) == ("d20", 13)  # the learnt face stays the guess
        assert asked.confidence == UNCONFIRMED < 0.8  # under the table's asking threshold


def test_the_ocr_heads_evidence_picks_among_the_sets_faces_and_makes_a_face_sure_only_together() -> None:
    from vision.numbered.learnt import LearntReading
    from vision.numbered.ocr import VALUES as OCR_VALUES
    from vision.numbered.reader import LEARNT_OCR_SURE, UNCONFIRMED, learnt_face, learnt_with_ocr

    def evidence(**by_value: float) -> list[float]:
        ev = [0.0] * len(OCR_VALUES["d20"])
        for v, e in by_value.items():
            ev[OCR_VALUES["d20"].index(int(v[1:]))] = e
        return ev

    faces, likes = (3, 9, 12), (0.84, 0.86, 0.80)
    # the set alone would say 9 (the nearest crop); the head reads a 3 clearly: 3
    assert learnt_face(faces, likes, [0.9, 0.001, 0.001]) == 3
    # the head cannot tell them apart: the nearest face
    assert learnt_face(faces, likes, [0.01, 0.01, 0.01]) == 9
    # without weight: the set alone
    assert learnt_face(faces, likes, [0.9, 0.001, 0.001], 0.0) == 9
    box = ((0.0, 0.0), (120.0, 0.0), (120.0, 120.0), (0.0, 120.0))
    r = LearntReading(
        kind="d20",
        value=9,
        center=(60.0, 60.0),
        quad=box,
        confidence=UNCONFIRMED,
        colour="red",
        dice_set="red",
        faces=faces,
        likenesses=likes,
    )
    # the head reads the set's nearest face surely enough: sure at its likeness
    sure = learnt_with_ocr(r, 9, LEARNT_OCR_SURE, evidence(v9=0.9))
    assert (sure.value, sure.confidence) == (9, 0.86) and sure.to_json()["learnt"] == "red"
    # the head's face is another: that face, asked
    other = learnt_with_ocr(r, 3, 0.95, evidence(v3=0.95))
    assert (other.value, other.confidence) == (3, UNCONFIRMED)
    # the head agrees but unsurely: asked
    assert learnt_with_ocr(r, 9, LEARNT_OCR_SURE - 0.01, evidence(v9=0.5)).confidence == UNCONFIRMED
    # the classifier agreed (the set's likeness is its own features): not sure without the head
    agreed = LearntReading(**{**r.__dict__, "confidence": 0.86})
    assert learnt_with_ocr(agreed, 9, 0.2, evidence(v9=0.3)).confidence == UNCONFIRMED
    # a face the set has not learnt, read surely by the head: asked
    assert learnt_with_ocr(agreed, 19, 0.9, evidence(v19=0.9, v9=0.01)).value == 9
    assert learnt_with_ocr(agreed, 19, 0.9, evidence(v19=0.9, v9=0.01)).confidence == UNCONFIRMED
    # a trusted set (the referee's answers): sure unless the head reads another value surely
    trusted = LearntReading(**{**agreed.__dict__, "trusted": True})
    assert learnt_with_ocr(trusted, 9, 0.2, evidence(v9=0.3)).confidence == 0.86
    assert learnt_with_ocr(trusted, 19, 0.9, evidence(v19=0.9, v9=0.01)).confidence == UNCONFIRMED
    assert "faces" not in agreed.to_json() and "likenesses" not in agreed.to_json()


@needs_real
def test_a_learnt_wood_die_the_set_alone_misread_is_read_with_the_ocr_heads_evidence(
    reader: NumberedReader,
) -> None:
    """d20_wood (held out): five faces taught as learn-dice teaches them, 4 frames of each clip's first
    third; later frames that the set alone read as another face (its nearest crop another face's, or no
    face MARGIN nearer) or did not read at all are read right with the OCR head's evidence weighed in,
    asked (none surely wrong)."""
    from benchmarks.harness import imread
    from benchmarks.vision_numbered_learnt import learn, nearest, taught
    from vision.reading import DieReading

    faces = (3, 7, 9, 11, 12)
    clips = _clips("d20_wood", faces)
    dice = learn(reader, [x for c in clips.values() for x in taught(c[: max(1, len(c) // 3)], 4)], "wood")
    assert dice.faces == list(faces)
    later = {(12, 355), (12, 408), (12, 465), (11, 903), (7, 999)}
    right = {"before": 0, "now": 0}
    weight = reader.learnt_ocr
    try:
        for x in [x for c in clips.values() for x in c if (x.face, x.frame) in later]:
            img = at_table(imread(x.path))
            for way, w in (("before", None), ("now", weight)):
                reader.learnt_ocr = w
                got = reader.read(img, kinds=("d20",), learnt=dice)
                die = nearest([(r.center, r) for r in got], (img.shape[1], img.shape[0]))
                assert die is None or isinstance(die, DieReading)
                ok = die is not None and die.value == x.face
                right[way] += ok
                assert ok or die is None or die.confidence < 0.8, (way, x.face, x.frame, die)
    finally:
        reader.learnt_ocr = weight
    # before: 1 of 5 until issue 44 item 2, 2 since the taught crops are cut where `read` finds the die
    assert right["before"] <= 2 and right["now"] >= 4, right
