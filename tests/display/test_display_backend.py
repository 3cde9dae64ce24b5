"""The real table behind the display (what the pages rely on), serve-fake's drawn camera, the push
hub, and the CLI's input checks."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest
import typer
from table_rig import Rig, d6
from typer.testing import CliRunner

from controller.cli_display import fake_config, register
from controller.drawn_camera import DrawnCamera, throw_for_the_table
from controller.eventlog import EventLog
from controller.table import Table
from display.backend import AlreadyAnswered
from display.hub import Hub


def test_a_paused_table_reads_no_throw_until_resumed(rig: Rig) -> None:
    table = rig.table
    table.correct({"action": "pause"}, "ref")
    rig.settle([d6(6)] * 5)
    assert table.readings()["dice"] == [] and table.frame_jpeg() is None  # not even read
    assert table.snapshot()["waiting_for"] == "the referee to resume (paused)"
    assert table.correct({"action": "start"}, "ref")["message"] == "game playing"
    assert table.snapshot()["waiting_for"] == "roll from ann"  # the throw made while paused is not scored
    rig.settle([d6(6)] * 5)
    assert table.game.state["dice"] == [6, 6, 6, 6, 6]


def test_end_stops_the_game_and_says_so(rig: Rig) -> None:
    table = rig.table
    assert table.correct({"action": "end"}, "ref")["message"] == "game over"
    snap = table.snapshot()
    assert snap["status"] == "over" and snap["waiting_for"] == "nothing: the game was ended"
    with pytest.raises(ValueError, match="already over"):
        table.correct({"action": "end"}, "ref")
    rig.settle([d6(6)] * 5)
    assert table.readings()["dice"] == []


def test_confirming_again_does_not_score_twice(rig: Rig) -> None:
    table = rig.table
    rig.settle([d6(2, confidence=0.5), d6(3), d6(4), d6(5), d6(6)])
    table.correct({"action": "confirm", "reading": "r1.1"}, "ref")
    with pytest.raises(AlreadyAnswered, match="already answered by ref"):  # issue 47: no version named
        table.correct({"action": "confirm", "reading": "r1.1"}, "ref")
    table.correct({"action": "confirm", "reading": "r1.1", "version": 1}, "ref")  # its version named
    assert table.game.state["dice"] == [2, 3, 4, 5, 6]
    assert [e["data"]["type"] for e in table.events(0, 500) if e["kind"] == "input"] == ["roll"]


@pytest.mark.parametrize("seed", [2, 5])  # all five read sure; two read unsure
def test_serve_fake_throws_drawn_dice_for_the_player_the_table_waits_for(tmp_path: Path, seed: int) -> None:
    cfg = fake_config("dice-hunter", "ann:red,bob:blue,cid:green", ["deck=virtual"], "t1")
    camera = DrawnCamera(seed)
    with EventLog(tmp_path / "events.sqlite3") as events:
        table = Table(cfg, events, reader=camera.read, resume=False)
        assert throw_for_the_table(table, camera, 1.0)
        dice = table.readings()["dice"]
        assert len(dice) == 5 and {d["colour"] for d in dice} == {"red"}  # ann's colour: she throws first
        frame = cv2.imdecode(np.frombuffer(table.frame_jpeg() or b"", np.uint8), cv2.IMREAD_COLOR)
        for d in dice:  # each die is drawn where it is read: a red body (and pips), not the green felt
            inside = np.zeros(frame.shape[:2], np.uint8)
            cv2.fillConvexPoly(inside, np.array(d["quad"], np.int32), 1)
            _b, g, r = np.median(frame[inside > 0], axis=0)
            assert r > 150 and g < 100, d
        unsure = [d["id"] for d in dice if d["unsure"]]
        snap = table.snapshot()
        assert bool(unsure) == (seed == 5)
        if unsure:  # the table asks, and the camera waits for the answer
            assert snap["question"]["readings"] == unsure and not throw_for_the_table(table, camera, 2.0)
        else:
            assert snap["state"]["dice"] == sorted(d["value"] for d in dice)
        table.panels.close()


def test_hub_delivers_to_every_subscriber_from_another_thread() -> None:
    hub = Hub()

    async def main() -> list[str]:
        subs = [hub.subscribe() for _ in range(5)]
        threading.Thread(target=hub.notify, args=({"seq": 7},)).start()
        return await asyncio.wait_for(asyncio.gather(*(s.next() for s in subs)), 5)

    got = asyncio.run(main())
    assert all('"seq":7' in g for g in got) and len(got) == 5


def test_slow_subscriber_gets_the_newest_snapshot_only() -> None:
    hub = Hub()

    async def main() -> str:
        sub = hub.subscribe()
        for i in range(100):
            hub.notify({"seq": i})
        await asyncio.sleep(0.05)
        return await asyncio.wait_for(sub.next(), 5)

    assert '"seq":99' in asyncio.run(main())


def test_broken_listener_does_not_stop_the_push() -> None:
    hub = Hub()
    seen: list[int] = []

    def bad(snapshot: dict[str, int]) -> None:
        raise RuntimeError("boom")

    hub.add_listener(bad)
    hub.add_listener(lambda s: seen.append(s["seq"]))
    hub.notify({"seq": 1})
    assert seen == [1]


@pytest.mark.parametrize(
    "args, message",
    [
        (["hall", "--broker", "localhost:http"], "not a number"),
        (["serve-fake", "--game", "chess"], "table.game: one of dice-fighter, dice-hunter"),
        (["serve-fake", "--players", "ann:red,bob:pink"], "players.1.colour: one of red"),
        (["serve-fake", "--players", "ann:red,:blue"], "expected NAME:COLOUR"),
        (["serve-fake", "--table", "bad/id"], "table id 'bad/id'"),
        (["serve-fake", "--option", "novalue"], "expected KEY=VALUE"),
        (["serve-fake", "--players", "a:red,b:blue"], "dice-hunter takes 3-4 players, got 2"),
        (["serve-fake", "--game", "dice-fighter", "--players", "a:red"], "dice-fighter takes 2-2 players"),
        (["serve-fake", "--option", "deck=bogus"], "deck"),
    ],
)
def test_cli_refuses_bad_input_clearly(args: list[str], message: str) -> None:
    app = typer.Typer()
    register(app)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
