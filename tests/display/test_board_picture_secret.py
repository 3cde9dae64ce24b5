"""The board picture (/api/board.png, issue 45) under the secret rule: two real Dice Fighter tables read
the same throw from the camera, then ann declares a normal attack on one and her special on the other
while bob has not declared.  The picture is the dice read, which are public: it is served on both, and it
is the same picture on both, before and after ann's hidden declaration (test_secret_rule.py checks the
rest of what a player sees)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from fastapi.testclient import TestClient
from table_rig import ANGLERS, Rig
from test_secret_rule import BOTH_MATCH

from display.app import create_app
from display.hub import Hub


def _table(folder: Path) -> tuple[Rig, TestClient]:
    folder.mkdir()
    rig = Rig(folder, game="dice-fighter", players=ANGLERS, options={"initial_power": {}})
    rig.play({"type": "secret", "player": "ann", "fighter": "lv1-brawler"})
    rig.play({"type": "secret", "player": "bob", "fighter": "lv3-champion"})
    rig.settle(BOTH_MATCH)  # the throw, read from the camera's frame
    exp = rig.table.game.expects()
    assert exp.kind is not None and exp.kind.value == "choice" and exp.secret
    return rig, TestClient(
        create_app(rig.table, Hub(), admin_token="s3cret-token", loopback_only_admin=False)
    )


def test_the_board_picture_is_the_same_whatever_a_player_declared_in_secret(tmp_path: Path) -> None:
    (normal, a), (special, b) = _table(tmp_path / "a"), _table(tmp_path / "b")
    try:
        before = a.get("/api/board.png")
        assert before.status_code == 200 and before.headers["content-type"] == "image/png"
        img = cv2.imdecode(np.frombuffer(before.content, np.uint8), cv2.IMREAD_COLOR)
        assert img is not None and img.shape[:2] == (360, 640)
        normal.press("ann", "up", "up", "confirm")  # "attack normal"
        special.press("ann", "up", "select", "confirm")  # "attack lv1-brawler"
        assert b.get("/api/state").json()["secret"]["confirmed"] == ["ann"]
        shown_a, shown_b = a.get("/api/board.png"), b.get("/api/board.png")
        assert shown_a.status_code == shown_b.status_code == 200
        assert shown_a.content == shown_b.content == before.content
    finally:
        normal.close()
        special.close()
