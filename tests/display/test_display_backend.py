"""The fake table over a real engine game, the push hub, and the CLI's input checks."""

from __future__ import annotations

import asyncio
import threading

import pytest
import typer
from typer.testing import CliRunner

from controller.cli_display import register
from display.backend import FakeTable, describe_expectation
from display.hub import Hub


def test_fake_table_drives_dice_hunter() -> None:
    t = FakeTable(
        "t", "dice-hunter", [("ann", "red"), ("bob", "blue"), ("cid", "green")], {"deck": "virtual"}
    )
    t.correct({"action": "start"}, "ref")
    t.settle([{"kind": "d6", "value": v} for v in (3, 3, 3, 5, 6)])
    assert t.snapshot()["waiting_for"] == "a choice from ann"
    t.correct({"action": "input", "input": {"type": "choice", "player": "ann", "take": "trio"}}, "ref")
    snap = t.snapshot()
    assert snap["state"]["scores"]["ann"] == 200
    assert snap["state"]["holdings"]["ann"] == ["trio"]
    assert snap["waiting_for"] == "a roll from bob"
    # a corrected value replays the roll: with a 4 instead of a 3 there is no trio to have taken
    with pytest.raises(ValueError, match="makes the game's later inputs illegal"):
        t.correct({"action": "set_value", "reading": "r1", "value": 4}, "ref")
    assert t.snapshot()["state"]["scores"]["ann"] == 200


def test_unknown_game_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        FakeTable("t", "chess")


def test_pause_holds_readings_until_resumed() -> None:
    t = FakeTable("t", "demo-sum", [("ann", "red")])
    t.correct({"action": "start"}, "ref")
    t.correct({"action": "pause"}, "ref")
    t.settle([{"kind": "d6", "value": 6}])
    assert t.snapshot()["state"]["scores"]["ann"] == 0
    assert t.snapshot()["waiting_for"] == "the referee to resume (paused)"
    t.correct({"action": "start"}, "ref")
    assert t.snapshot()["state"]["scores"]["ann"] == 6


def test_end_stops_the_game_and_says_so() -> None:
    t = FakeTable("t", "demo-sum", [("ann", "red")])
    t.correct({"action": "start"}, "ref")
    t.correct({"action": "end"}, "ref")
    snap = t.snapshot()
    assert snap["status"] == "over" and snap["waiting_for"] == "nothing: the game was ended"
    with pytest.raises(ValueError, match="already over"):
        t.correct({"action": "end"}, "ref")


def test_describe_expectation_in_plain_words() -> None:
    assert describe_expectation({"kind": "throw", "players": ["ann", "bob"]}) == (
        "a throw onto the board from ann or bob"
    )
    assert describe_expectation({"kind": None}) == "nothing: the game is over"


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
        (["serve-fake", "--game", "chess"], "unknown game 'chess'"),
        (["serve-fake", "--players", "ann:red,:blue"], "expected NAME:COLOUR"),
        (["serve-fake", "--table", "bad/id"], "table id 'bad/id'"),
        (["serve-fake", "--option", "novalue"], "expected KEY=VALUE"),
    ],
)
def test_cli_refuses_bad_input_clearly(args: list[str], message: str) -> None:
    app = typer.Typer()
    register(app)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_confirming_again_does_not_score_twice() -> None:
    t = FakeTable("t", "demo-sum", [("ann", "red"), ("bob", "blue")])
    t.correct({"action": "start"}, "ref")
    t.settle([{"kind": "d6", "value": 6}], "ann")
    t.correct({"action": "confirm", "reading": "r1"}, "ref")
    assert t.snapshot()["state"]["scores"] == {"ann": 6, "bob": 0}
