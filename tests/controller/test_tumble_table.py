"""A throw whose dice did not tumble is flagged to the referee, logged and shown; never refused.

The recorded throws of tests/fixtures/sessions/throws are played into a Dice Hunter table (its
throws hold 1 to 4 dice, so every one is read and asked about, never scored, and the next is
read too) through the real motion gate and the real d6 reader.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.config import ConfigError, parse_config
from controller.eventlog import EventLog
from controller.live import play
from controller.session import mock_pins
from controller.table import Table
from display.describe import describe
from hardware.frames import RecordedSource

ROOT = Path(__file__).resolve().parents[2]
THROWS = ROOT / "tests" / "fixtures" / "sessions" / "throws"
TRUTH = json.loads((THROWS / "truth.json").read_text())

pytestmark = pytest.mark.slow


def table(tmp_path: Path, **vision: Any) -> tuple[Table, list[dict[str, Any]]]:
    players = [{"name": n, "colour": "white", "pins": mock_pins(i).model_dump()} for i, n in enumerate("abc")]
    game = {"game": "dice-hunter", "options": {"deck": "virtual"}, "seed": 1}
    cfg = parse_config({"table": game, "players": players, "vision": vision})
    snaps: list[dict[str, Any]] = []
    return Table(cfg, EventLog(tmp_path / "t.sqlite3"), listeners=[snaps.append], resume=False), snaps


def flags(t: Table) -> list[Any]:
    events = t.log.events(t.game_no)
    return [e for e in events if e.kind == "control" and e.data.get("action") == "not_tumbled"]


def throw_at(t: float) -> dict[str, Any]:
    """The recorded throw that came to rest just before the settled frame at ``t``."""
    return max((th for th in TRUTH["throws"] if th["t_rest"] <= t), key=lambda th: th["t_rest"])


def test_placed_and_slid_throws_are_flagged_logged_and_shown(tmp_path: Path) -> None:
    t, snaps = table(tmp_path)
    with RecordedSource(THROWS) as src:
        play(t, src)
    readings = [e for e in t.log.events(t.game_no) if e.kind == "reading"]
    assert len(readings) == len(TRUTH["throws"]), "every throw is read"
    flagged = {throw_at(e.data["t"])["t_rest"] for e in flags(t)}
    faked = {th["t_rest"] for th in TRUTH["throws"] if th["kind"] != "thrown"}
    assert flagged == faked
    for e in flags(t):
        # logged after its reading (and whatever the table made of it), naming the dice it is about
        reading = max((r for r in readings if r.seq < e.seq), key=lambda r: r.seq)
        assert reading.data["t"] == e.data["t"]
        assert {d["reading"] for d in e.data["dice"]} <= {d["id"] for d in reading.data["dice"]}
        assert any(d["verdict"] in ("placed", "slid") for d in e.data["dice"])
        # in words on the events list
        text = describe(e.to_json(), "dice-hunter")
        assert text.startswith("Flagged for the referee: the throw at") and "did not tumble" in text
    # shown on the table's snapshot while it is the latest throw, gone after a real throw
    shown = [s["flag"] for s in snaps if s.get("flag")]
    assert shown and all(f["action"] == "not_tumbled" for f in shown)
    last = TRUTH["throws"][-1]
    assert (t.flag is not None) == (last["kind"] != "thrown")
    # never refused: the table still waits for the roll, the game goes on
    assert t.status == "playing"
    assert t.question is not None and t.question.kind == "count"


def test_the_check_can_be_switched_off(tmp_path: Path) -> None:
    t, snaps = table(tmp_path, tumble_check=False)
    with RecordedSource(THROWS) as src:
        play(t, src)
    assert not flags(t)
    assert not any(s.get("flag") for s in snaps)


def test_a_bad_switch_is_a_clear_config_error() -> None:
    with pytest.raises(ConfigError, match="tumble_check"):
        parse_config({"vision": {"tumble_check": "sometimes"}})
