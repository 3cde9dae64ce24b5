"""The table page and the admin page say when the table's empty-table picture was last learnt
(issue 30 item 1: the snapshot's ``empty_table``, controller.empty_learn), in real headless Chromium."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest
from table_rig import FRAME, Rig

from display.app import create_app
from display.hub import Hub
from display.server import ServerThread

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_pages_say_when_the_empty_table_was_learnt(browser: Any, rig: Rig) -> None:
    from playwright.sync_api import expect

    hub = Hub()
    rig.table.listeners.append(hub.notify)
    with ServerThread(create_app(rig.table, hub, admin_token=None, loopback_only_admin=True)) as server:
        page = browser.new_page()
        page.goto(server.url + "/")
        expect(page.locator("body")).to_have_attribute("data-connected", "yes", timeout=10_000)
        expect(page.locator("#empty-table")).to_have_text("empty table: not seen yet")

        learn = rig.table.empty_table
        learn.clock = lambda: time.time() - 150  # (the picture learnt two and a half minutes ago)
        assert rig.table.see_board(FRAME, 0.0, "empty", gate_empty=FRAME)  # the gate's first
        expect(page.locator("#empty-table")).to_have_text("empty table seen 2 min ago")
        # the lights dim: a still board with no die on it is learnt again, and the page says so
        dim = np.asarray(FRAME * 0.8, np.uint8)
        learnt = [rig.table.see_board(dim, 1.0 + 0.5 * k, "empty") for k in range(6)]
        learnt.append(rig.table.settle_board())  # judged on the learner's own thread: its verdict
        assert learnt.count(True) == 1
        learn.clock = time.time
        expect(page.locator("#empty-table")).to_have_text("empty table learnt 2 min ago")
        expect(page.locator("#empty-table")).to_have_attribute("data-source", "re-learnt")

        ja = browser.new_page()  # the page in one language (display/lang/ja.json)
        ja.goto(server.url + "/?lang=ja")
        expect(ja.locator("#empty-table")).to_have_text("空のテーブルの学習：2分前")
        ja.close()

        admin = browser.new_page()
        admin.goto(server.url + "/admin")
        expect(admin.locator("#empty-table")).to_have_text("empty table learnt 2 min ago")
        # a die put down is refused, and the admin page says why
        rig.seen = [{"kind": "d6", "value": 4, "colour": "red", "confidence": 0.99, "center": [300, 180]}]
        assert not rig.table.see_board(dim, 9.5, "rolling")
        for k in range(30):
            rig.table.see_board(dim, 10.0 + 0.5 * k, "settled")
        rig.table.settle_board()
        rig.table._emit()
        expect(admin.locator("#empty-table")).to_contain_text(
            "not learnt again: 1 die/dice read on the board"
        )
        expect(page.locator("#empty-table")).to_have_text("empty table learnt 2 min ago")
        page.close()
        admin.close()
