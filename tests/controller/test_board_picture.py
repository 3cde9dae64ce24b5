"""One picture of the board (issue 45 item 5): the DICETAR WARS demo session's real frames read by a real
table (its board, calibration and the empty table the camera saw), and each die drawn on the frame with
its id, colour and owner, value, zones, support and score; the board's zones outlined from the
calibration.  Served as /api/board.png (guarded like every page, nothing of a secret selection) and
written by ``dicetable read --explain``.

The committed example picture (docs/screenshots/board-picture-dicetar-wars.png) is made so:

    DICETABLE_WRITE_SCREENSHOTS=1 PYTHONPATH=$PWD .venv/bin/python -m pytest -p no:xdist \\
        tests/controller/test_board_picture.py
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from controller.board_picture import Picture, die_facts, draw, geometry_zones
from controller.cli import app
from controller.eventlog import EventLog
from controller.session import session_config
from controller.table import Table
from display.app import create_app
from display.hub import Hub

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "fixtures" / "sessions" / "dicetar-wars-demo"
#: half 1 of the demo: ann's first throw, both players' second, the rethrow of the die off the board
HALF_1 = ("00007.jpg", "00013.jpg", "00020.jpg")
EMPTY = "00001.jpg"


def _image(name: str) -> np.ndarray:
    img = cv2.imread(str(DEMO / name))
    assert img is not None
    return img


def _play(table: Table, frames: tuple[str, ...]) -> None:
    empty = _image(EMPTY)
    for t, name in enumerate(frames, 1):
        table.on_settled(_image(name), float(t), float(t), empty=empty)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    """A real table of the demo's config, having read half 1's three throws."""
    folder = tmp_path_factory.mktemp("board-picture")
    cfg = session_config(DEMO)
    table = Table(cfg, EventLog(folder / "events.sqlite3"), resume=False)
    try:
        _play(table, HALF_1)
        yield table
    finally:
        table.panels.close()
        table.log.close()


def _truth_half_1() -> list[dict[str, Any]]:
    truth = json.loads((DEMO / "truth.json").read_text(encoding="utf-8"))
    return list(truth["halves"][0]["dice"])


def _picture(table: Table) -> tuple[Picture, list[Any], np.ndarray]:
    frame = cv2.imdecode(np.frombuffer(table.frame_jpeg() or b"", np.uint8), cv2.IMREAD_COLOR)
    dice = table.readings()["dice"]
    multipliers = dict(table.game.board.multipliers)  # type: ignore[attr-defined]
    facts = die_facts(dice, multipliers, {"red": "ann", "blue": "bob"})
    zones = geometry_zones(table.perceiver.geometry, frame)
    return draw(frame, facts, zones, scoring=True), facts, frame


def test_each_die_scores_what_the_engine_scored_and_the_truth_says(table: Table) -> None:
    _, facts, _ = _picture(table)
    truth = _truth_half_1()
    assert table.readings()["seq"] == 3 and len(facts) == len(truth) == 10
    got = Counter((f.owner, f.value, f.multiplier, f.stacked, f.points) for f in facts)
    want = Counter((d["owner"], d["value"], d["multiplier"], d["stacked"], d["points"]) for d in truth)
    assert got == want
    scored = table.game.state_json()["table"]  # the engine's own scoring of the same throw
    assert sorted(f.points or 0 for f in facts) == sorted(s["points"] for s in scored)
    # the stacked die says which die it rests on, the die under it that it is under
    stacked = next(f for f in facts if f.stacked)
    below = next(f for f in facts if stacked.support == f"on die {f.id}")
    assert below.support == f"on the board, under {stacked.id}"
    assert stacked.points == stacked.value * below.multiplier * 4  # type: ignore[operator]
    assert (
        stacked.lines(True)[2] == f"on die {below.id}: {stacked.value}x{below.multiplier}x4={stacked.points}"
    )


def test_the_picture_labels_every_die_readably_on_the_real_frame(table: Table) -> None:
    picture, facts, frame = _picture(table)
    h, w = frame.shape[:2]
    assert picture.image.shape == frame.shape
    assert [lb.id for lb in picture.labels] == [f.id for f in facts]
    for lb, f in zip(picture.labels, facts, strict=True):
        head = f"{f.id} {f.colour} {f.owner} = {f.value}"
        assert lb.lines[0] == head and any(z in lb.lines[1] for z in f.zones or ("",))
        x0, y0, x1, y1 = lb.box
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h  # inside the picture
    boxes = [lb.box for lb in picture.labels]
    for i, a in enumerate(boxes):  # no two labels overlap on this frame
        for b in boxes[i + 1 :]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
    board = table.perceiver.geometry.board  # type: ignore[union-attr]
    assert picture.zones == tuple(z.name for z in board.zones) and "south-east-L" in picture.zones
    changed = np.abs(picture.image.astype(int) - frame.astype(int)).sum(axis=2) > 30
    for f in facts:
        if f.support.endswith(f"under {next(g.id for g in facts if g.stacked)}"):
            continue  # the die under a stack is not seen: its outline is where the memory put it
        q = np.round(np.asarray(f.quad)).astype(np.int32)
        edge = np.zeros(changed.shape, np.uint8)
        cv2.polylines(edge, [q], True, 1, 1)
        assert changed[edge > 0].mean() > 0.5, f.id  # the die's outline is drawn where the die is
    assert not changed[h - 40 :, :40].any()  # the felt far from the board and the dice is the frame's


def test_the_table_serves_the_picture_as_png_guarded_like_every_page(table: Table, tmp_path: Path) -> None:
    made = create_app(
        table,
        Hub(),
        admin_token="s3cret-token-for-tests",
        loopback_only_admin=False,
        allowed_hosts=["testserver"],
    )
    client = TestClient(made)
    reply = client.get("/api/board.png")
    assert reply.status_code == 200 and reply.headers["content-type"] == "image/png"
    assert reply.headers["cache-control"] == "no-store"
    img = cv2.imdecode(np.frombuffer(reply.content, np.uint8), cv2.IMREAD_COLOR)
    picture, _, frame = _picture(table)
    assert img.shape == frame.shape and not np.array_equal(img, frame)
    assert "/api/board.png" in client.get("/openapi.json").json()["paths"]
    # a foreign Host is refused here as on the frame itself (display.guard, before any route)
    foreign = {"Host": "evil.example"}
    refused = client.get("/api/board.png", headers=foreign)
    assert refused.status_code == 421 == client.get("/api/frame.jpg", headers=foreign).status_code
    assert refused.headers["content-type"].startswith("application/json")
    assert client.post("/api/board.png").status_code == 405  # read-only
    # before any frame: 404, as /api/frame.jpg
    fresh = Table(session_config(DEMO), EventLog(tmp_path / "fresh.sqlite3"), resume=False)
    try:
        empty = TestClient(create_app(fresh, Hub(), admin_token=None, loopback_only_admin=True))
        assert empty.get("/api/board.png").status_code == 404
    finally:
        fresh.panels.close()
        fresh.log.close()
    if os.environ.get("DICETABLE_WRITE_SCREENSHOTS") == "1":  # the served picture, cropped to the board
        outline = geometry_zones(table.perceiver.geometry, frame)[0].rings[0]
        boxes = np.array([lb.box for lb in picture.labels])
        x0 = int(max(0, min(outline[:, 0].min(), boxes[:, 0].min()) - 12))
        y0 = int(max(0, min(outline[:, 1].min(), boxes[:, 1].min()) - 12))
        x1 = int(min(img.shape[1], max(outline[:, 0].max(), boxes[:, 2].max()) + 12))
        y1 = int(min(img.shape[0], max(outline[:, 1].max(), boxes[:, 3].max()) + 12))
        small = img[y0:y1, x0:x1] // 8 * 8 + 4  # fewer shades of the felt's noise: a smaller file
        path = ROOT / "docs" / "screenshots" / "board-picture-dicetar-wars.png"
        cv2.imwrite(str(path), small, [cv2.IMWRITE_PNG_COMPRESSION, 9])


def test_read_explain_writes_the_board_picture_beside_its_text(tmp_path: Path) -> None:
    frame = tmp_path / "throw.jpg"
    frame.write_bytes((DEMO / "00020.jpg").read_bytes())
    args = ["read", str(frame), "--board", str(ROOT / "boards" / "dicetar-wars.example.toml")]
    args += ["--calibration", str(DEMO / "camera.json"), "--colours", "red,blue", "--explain"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    out = tmp_path / "throw.explain.png"
    assert f"picture: {out}" in res.stdout
    drawn = cv2.imread(str(out))
    assert drawn is not None and drawn.shape == _image("00020.jpg").shape
    assert not np.array_equal(drawn, cv2.imread(str(frame)))
    line = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)
    assert line["picture"] == str(out)
    # what it draws: each die's label beside it
    facts = die_facts(line["dice"], {"r1c4": 8})
    picture = draw(cv2.imread(str(frame)), facts, scoring=True)
    assert {lb.id for lb in picture.labels} == {d["id"] for d in line["dice"]}
    r1c4 = next(lb for lb, f in zip(picture.labels, facts, strict=True) if "r1c4" in f.zones)
    assert r1c4.lines[1] == "r1c4 x8" and r1c4.lines[2].endswith("x8=" + str(8 * int(r1c4.lines[0][-1])))


def test_a_die_whose_support_is_asked_scores_nothing_until_answered() -> None:
    dice = [
        {"id": "r3.1", "value": 4, "colour": "red", "zones": ["a"], "field_status": "field", "quad": []},
        {"id": "r3.2", "value": 5, "colour": "blue", "zones": ["a"], "support": "asked", "unsure": True},
        {"id": "r3.3", "value": 2, "colour": "blue", "zones": ["a"], "stack_level": 1, "rests_on": 0},
        {"id": "r3.4", "value": 6, "colour": "red", "field_status": "off"},
    ]
    facts = die_facts(dice, {"a": 3}, {"red": "ann", "blue": "bob"}, asked_ids=("r3.2",))
    assert [f.support for f in facts] == ["on the board", "asked", "on die r3.1", "off the board"]
    assert [f.points for f in facts] == [12, None, 24, 0]
    lines = [f.lines(True) for f in facts]
    assert lines[1] == ["? r3.2 blue bob = 5", "a x3", "asked: score ?"]
    assert lines[3][1:] == ["off the board", "off the board: 0"]
    # a question about what a die rests on (its ids): those dice are "asked", and so is what lies on them
    facts = die_facts(dice, {"a": 3}, support_asked=("r3.1",))
    assert [f.support for f in facts][:3] == ["asked", "asked", "on die r3.1"]
    assert [f.points for f in facts] == [None, None, None, 0]
