"""Issue 47, item 3: nothing logged during an outage is logged wrong.  A full disk for 8 or 30 s of a
recording played at its own pace (the table's clock is the recording's: the held write is retried each
second of it) plays the game to the same inputs, values and result as without it; `run` never ends
well with input the log did not write."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from controller.config import parse_config
from controller.demo import DemoError, run_demo
from controller.eventlog import EventLog, LogWriteError

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def fill(ev: EventLog) -> None:
    """The log's file as full as a full disk (test_log_faults' way): no page can be added."""
    ev._db.execute("PRAGMA max_page_count = 1")
    with contextlib.suppress(LogWriteError):
        for _ in range(10_000):
            ev.append(0, "control", {"padding": "x" * 40}, "table")


def space_returns(ev: EventLog) -> None:
    ev._db.execute("PRAGMA max_page_count = 1073741823")


def paced(game: str, db: Path, outage: tuple[float, float] | None) -> tuple[dict[str, Any], list[Any]]:
    """The game's demo with its clock at the recording's time and the disk full during ``outage``
    (from, to, in the recording's seconds); its summary and every input logged, in order."""
    now = {"t": 0.0, "full": False}

    def observe(table: Any) -> None:
        table.clock = lambda: now["t"]  # paced: the held write is retried each second of the recording
        tick = table.tick

        def paced_tick(t: float) -> None:
            now["t"] = t
            inside = outage is not None and outage[0] <= t < outage[1]
            if inside and not now["full"]:
                fill(table.log)
            elif not inside and now["full"]:
                space_returns(table.log)
            now["full"] = inside
            tick(t)

        table.tick = paced_tick

    try:
        summary = run_demo(game, db=db, serve=False, quiet=True, observe=observe)
    except DemoError as e:
        summary = {"stopped": str(e)}
    with EventLog(db, read_only=True) as ev:
        game_no = ev.latest_game()
        inputs = [(e.player, e.data) for e in ev.inputs(game_no)] if game_no is not None else []
    return summary, inputs


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[Any]]:
    """The same recording, the same paced clock, no outage."""
    want = paced("die-angler", tmp_path_factory.mktemp("sound") / "sound.sqlite3", None)
    truth = json.loads((ROOT / "tests/fixtures/sessions/die-angler-demo/truth.json").read_text("utf-8"))
    assert want[0]["scores"] == truth["final_scores"]
    return want


@pytest.mark.parametrize("outage", [(7.0, 15.0), (7.0, 37.0), (20.0, 50.0)])
def test_a_paced_outage_plays_the_game_to_the_same_inputs_and_result(
    tmp_path: Path, outage: tuple[float, float], sound: tuple[dict[str, Any], list[Any]]
) -> None:
    """The probe's case: die-angler's secret selections made on the panels while the disk is full,
    between throws that come to rest meanwhile; each is logged with its true value, in order."""
    want, want_inputs = sound
    got, inputs = paced("die-angler", tmp_path / "outage.sqlite3", outage)
    secrets = [i for i, (_, data) in enumerate(want_inputs) if data["type"] == "secret"]
    assert len(secrets) > 10
    first = next((i for i, (a, b) in enumerate(zip(want_inputs, inputs, strict=False)) if a != b), None)
    assert first is None and len(inputs) == len(want_inputs), (first, len(inputs), got)
    assert got["scores"] == want["scores"] and got["status"] == "over"


def test_run_never_ends_well_with_input_the_log_did_not_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller import live, outage
    from controller.table import TableError

    cfg = parse_config(
        {
            "table": {"game": "dice-hunter", "options": {"deck": "virtual"}, "seed": 7},
            "camera": {"source": f"recorded:{ROOT / 'tests/fixtures/sessions/dice-hunter-demo'}"},
            "leds": {"url": "emu://"},
            "database": {"path": str(tmp_path / "t.sqlite3")},
        }
    )
    play = live.play

    def play_on_a_full_disk(t: Any, source: Any, **kw: Any) -> None:
        fill(t.log)  # full from the start, never grown: the first throw is held to the end
        play(t, source, **kw)

    monkeypatch.setattr(live, "play", play_on_a_full_disk)
    monkeypatch.setattr(outage, "HELD_WAIT_S", 0.0)
    with pytest.raises(TableError, match=r"the recording ended with \d+ input\(s\) the log could not write"):
        live.run_live(cfg, serve=False)
    assert '"status"' not in capsys.readouterr().out  # no summary printed as if the game were played
