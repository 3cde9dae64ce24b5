"""The table's roster of its dice on the admin page (issue 44 item 1): listed one row a die, owner and
colour renamed, size set, a die removed, a bad step refused by name; behind admin (the API needs the
token).  Real Chromium, real table; the roster file the table keeps is what the page changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from test_learn_browser import TOKEN, _table

from controller.roster import FORMAT, load_roster
from display.app import create_app
from display.hub import Hub
from display.server import ServerThread
from vision.numbered.learnt import DiceSet


def _roster(path: Path) -> None:
    learnt = DiceSet(
        "ann's green d20", "d20", "green", "e1", np.array([1, 2, 3]), np.eye(3, 4, dtype=np.float32)
    )
    dice = [
        {
            "id": "ann-green-d20",
            "kind": "d20",
            "owner": "ann",
            "colour": "green",
            "size_mm": None,
            "faces": {"dice_set": "sets/g.json", "set": learnt.to_json()},
        },
        {
            "id": "bob-blue-d10",
            "kind": "d10",
            "owner": "bob",
            "colour": "blue",
            "size_mm": 16,
            "appearance": "swirl",
        },
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": FORMAT, "dice": dice}), encoding="utf-8")


def test_the_roster_api_is_admin(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _roster(table.cfg.roster_path)
    table = _table(tmp_path / "t")
    with ServerThread(create_app(table, Hub(), admin_token=TOKEN)) as server:
        url = server.url + "/api/admin/roster"
        assert httpx.get(url).status_code == 401
        remove = {"who": "kim", "command": {"action": "remove", "id": "bob-blue-d10"}}
        assert httpx.post(url, json=remove).status_code == 401
        auth = {"X-Admin-Token": TOKEN}
        got = httpx.get(url, headers=auth).json()
        assert [d["id"] for d in got["dice"]] == ["ann-green-d20", "bob-blue-d10"]
        assert "set" not in got["dice"][0]["faces"]  # the crops' numbers stay in the file
        bad = httpx.post(
            url, headers=auth, json={"who": "kim", "command": {"action": "edit", "id": "x", "hue": 1}}
        )
        assert bad.status_code == 422
        bad = httpx.post(
            url, headers=auth, json={"who": "kim", "command": {"action": "edit", "id": "x", "owner": "a"}}
        )
        assert bad.status_code == 400 and bad.json()["error"].startswith(
            "id: expected the id of a die of the roster"
        )
        assert httpx.post(url, headers=auth, json=remove).json()["message"].startswith("bob's blue d10")
    assert [d.id for d in load_roster(table.cfg.roster_path)] == ["ann-green-d20"]


@pytest.mark.browser
def test_the_admin_page_lists_the_tables_dice_and_edits_them(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    table = _table(tmp_path)
    _roster(table.cfg.roster_path)
    table = _table(tmp_path / "t")
    with ServerThread(create_app(table, Hub(), admin_token=None, loopback_only_admin=True)) as server:
        page = browser.new_page()
        page.goto(server.url + "/admin")
        expect(page.locator("#roster tr[data-die]")).to_have_count(2)
        expect(page.locator("#roster-path")).to_have_text(str(table.cfg.roster_path))
        expect(page.locator('[data-faces="ann-green-d20"]')).to_have_text("3 faces, 3 crops")
        expect(page.locator('[data-faces="bob-blue-d10"]')).to_have_text("not taught")
        page.fill("#who", "kim")
        row = page.locator('tr[data-die="ann-green-d20"]')
        row.locator('input[data-field="owner"]').fill("cid")
        row.locator('input[data-field="colour"]').fill("teal")
        row.locator('input[data-field="size_mm"]').fill("19")
        row.locator("button[data-save]").click()
        expect(page.locator("#roster-msg")).to_have_text(
            "ann's green d20 (ann-green-d20) is now cid's teal d20, 19 mm"
        )
        expect(row.locator('input[data-field="owner"]')).to_have_value("cid")
        bob = page.locator('tr[data-die="bob-blue-d10"]')
        bob.locator('input[data-field="colour"]').fill("")
        bob.locator("button[data-save]").click()
        expect(page.locator("#roster-msg")).to_have_text(
            "colour: expected a name of 1 to 20 characters, got ''"
        )
        bob.locator("button[data-remove]").click()
        expect(page.locator("#roster tr[data-die]")).to_have_count(1)
        page.close()
    kept = load_roster(table.cfg.roster_path)
    assert [(d.id, d.owner, d.colour, d.size_mm) for d in kept] == [("ann-green-d20", "cid", "teal", 19.0)]
    assert kept[0].learnt() is not None and len(kept[0].learnt().values) == 3  # its faces kept


@pytest.mark.browser
def test_a_refused_roster_file_is_said_on_the_admin_page(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    table = _table(tmp_path)
    path = table.cfg.roster_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": FORMAT, "dice": [{"id": "a", "kind": "d12"}]}), encoding="utf-8")
    table = _table(tmp_path / "t")
    with ServerThread(create_app(table, Hub(), admin_token=None, loopback_only_admin=True)) as server:
        page = browser.new_page()
        page.goto(server.url + "/admin")
        expect(page.locator("#roster-error")).to_have_text(
            f"roster {path}: dice[0].kind: expected one of d6, d10, d10p, d20, got 'd12'"
        )
        expect(page.locator("#roster tr td.muted")).to_be_visible()
        page.close()
