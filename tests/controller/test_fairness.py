"""Dice fairness from the event logs: `dicetable stats` flags a loaded die and not a fair one."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.eventlog import EventLog
from controller.fairness import chi2_sf, collect, flagged_at, log_report, wilson
from controller.scenario import Setup, new_game
from engine import Input, InputKind

ROOT = Path(__file__).resolve().parents[2]


def dicetable(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], capture_output=True, text=True, timeout=300, cwd=ROOT
    )


def test_chi2_survival_matches_the_tables() -> None:
    assert abs(chi2_sf(20.515, 5) - 0.001) < 1e-5  # d6 critical value at 0.001
    assert abs(chi2_sf(3.841, 1) - 0.05) < 1e-4
    assert abs(chi2_sf(43.820, 19) - 0.001) < 1e-5  # d20


def test_wilson_interval_holds_the_share() -> None:
    lo, hi = wilson(20, 120)
    assert lo < 20 / 120 < hi
    assert (round(lo, 3), round(hi, 3)) == (0.111, 0.243)  # by hand: centre 0.1770, half 0.0664


def _dicetar_log(path: Path, rolls: int, seed: int) -> None:
    """Rolls of 5 red dice loaded towards 6 (ann) and 5 fair green dice (bob), no outcomes needed.

    (Nozoku Dice's log is read without replaying it: every die of a roll is rolled.)
    """
    rng = random.Random(seed)
    log = EventLog(path)
    game = log.start_game(Setup("nozoku-dice", ("ann", "bob", "cid"), {}, 0))
    for _ in range(rolls // 5):
        red = [6 if rng.random() < 0.4 else rng.randint(1, 5) for _ in range(5)]
        green = [rng.randint(1, 6) for _ in range(5)]
        for player, colour, values in (("ann", "red", red), ("bob", "green", green)):
            dice = [{"kind": "d6", "value": v, "colour": colour} for v in values]
            log.append_input(game, Input(InputKind.ROLL, player, {"dice": dice}), [], "camera")
    log.close()


def test_stats_flags_the_loaded_die_and_not_the_fair_one(tmp_path: Path) -> None:
    log = tmp_path / "table-3.sqlite3"
    _dicetar_log(log, 600, seed=1)
    r = dicetable("stats", str(log), "--json")
    assert r.returncode == 0, r.stderr
    dice = {d["die"]: d for d in json.loads(r.stdout)["dice"]}
    assert set(dice) == {"table-3/red/d6", "table-3/green/d6"}
    red, green = dice["table-3/red/d6"], dice["table-3/green/d6"]
    assert red["rolls"] == green["rolls"] == 600
    assert red["flagged"] and red["p"] < 0.001
    assert not green["flagged"]
    six = red["faces"][5]
    assert six["face"] == 6 and six["low"] < six["share"] < six["high"] and six["low"] > 1 / 6
    text = dicetable("stats", str(log))
    assert "flagged: table-3/red/d6" in text.stdout


def test_too_few_rolls_are_not_tested(tmp_path: Path) -> None:
    log = tmp_path / "t.sqlite3"
    _dicetar_log(log, 40, seed=2)
    red = next(d for d in (x.verdict() for x in collect([log])) if d["colour"] == "red")
    assert red["rolls"] == 40 and not red["enough"] and not red["flagged"]
    assert "needs 60" in red["note"]


def test_undone_throws_and_kept_dice_are_not_counted(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    setup = Setup("dice-hunter", ("ann", "bob", "cid"), {"deck": "virtual"}, 3)
    log = EventLog(path)
    game_no = log.start_game(setup)
    game = new_game(setup)
    seqs = []
    for inp in (
        Input(InputKind.ROLL, "ann", {"dice": [1, 2, 3, 4, 4]}),
        Input(InputKind.CHOICE, "ann", {"keep": [4, 4]}),
        Input(InputKind.ROLL, "ann", {"dice": [4, 4, 6, 6, 6]}),
    ):
        seqs.append(log.append_input(game_no, inp, game.apply(inp), "camera"))
    log.close()
    (die,) = collect([path])
    assert die.kind == "d6" and die.colour is None
    assert sorted(die.values) == [1, 2, 3, 4, 4, 6, 6, 6]  # the kept 4s rolled once


def test_a_fair_sequence_is_not_flagged_and_a_loaded_one_is() -> None:
    rng = random.Random(5)
    fair = [rng.randint(1, 6) for _ in range(2000)]
    loaded = [6 if rng.random() < 0.35 else rng.randint(1, 5) for _ in range(2000)]
    assert flagged_at(fair, range(1, 7)) is None
    at = flagged_at(loaded, range(1, 7))
    assert at is not None and at < 1000


def test_stats_names_a_file_that_is_not_a_log(tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    r = dicetable("stats", str(bad))
    assert r.returncode == 2
    assert "notes.txt: not an SQLite event log" in r.stderr


def test_dice_left_lying_on_the_board_are_counted_once(tmp_path: Path) -> None:
    """DICETAR WARS lists every die on the board after each throw: only the thrown ones count."""
    scenario = ROOT / "tests" / "scenarios" / "dicetar-wars" / "full-game-rethrow.jsonl"
    shutil.copy(scenario.parent / "board.toml", tmp_path / "board.toml")
    log = tmp_path / "t4.sqlite3"
    r = dicetable("replay", str(scenario), "--log", str(log))
    assert r.returncode == 0, r.stderr
    dice = {d.key: d for d in collect([log])}
    # each half: 5 green, 5 purple, then the rethrow (half 1 unmarked: g6, g4, p5; half 2 marked: p1, g3);
    # the inputs list 50 dice in all
    assert sorted(dice["t4/green/d6"].values) == sorted([5, 2, 6, 1, 4, 6, 4, 6, 6, 5, 4, 3, 3])
    assert sorted(dice["t4/purple/d6"].values) == sorted([6, 3, 5, 2, 1, 5, 6, 5, 1, 2, 3, 1])


def test_a_log_whose_game_cannot_be_replayed_is_named(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "t.sqlite3")
    log.start_game(Setup("dicetar-wars", ("ann", "bob"), {}, 0, {"board": "missing.toml"}))
    log.close()
    r = dicetable("stats", str(tmp_path / "t.sqlite3"))
    assert r.returncode == 2
    assert "game 1 (dicetar-wars) cannot be replayed" in r.stderr and "t.sqlite3" in r.stderr


def test_two_logs_of_one_name_stay_two_tables(tmp_path: Path) -> None:
    for seed, hall in enumerate(("hall-a", "hall-b"), start=3):  # two games (one game counts once)
        (tmp_path / hall).mkdir()
        _dicetar_log(tmp_path / hall / "table-1.sqlite3", 20, seed=seed)
    keys = {
        d.key
        for d in collect([tmp_path / "hall-a" / "table-1.sqlite3", tmp_path / "hall-b" / "table-1.sqlite3"])
    }
    assert keys == {f"{h}/table-1/{c}/d6" for h in ("hall-a", "hall-b") for c in ("red", "green")}


def test_a_game_appended_twice_counts_once_whatever_log_it_is_in(tmp_path: Path) -> None:
    once = tmp_path / "once" / "table-1.sqlite3"
    once.parent.mkdir()
    _dicetar_log(once, 200, seed=5)
    twice = tmp_path / "table-1.sqlite3"
    _dicetar_log(twice, 200, seed=5)
    _dicetar_log(twice, 200, seed=5)  # the same game appended again: game 2 of the log
    _dicetar_log(twice, 200, seed=6)  # another game (other rolls) counts
    with EventLog(twice, read_only=True) as log:
        assert log.latest_game() == 3
        report = {(d["colour"], d["rolls"]) for d in log_report(log, "table-1")}
    assert report == {("red", 400), ("green", 400)}
    # across logs too: the game in two files is one game
    counts = {d.colour: len(d.values) for d in collect([twice, once])}
    assert counts == {"red": 400, "green": 400}


@pytest.mark.slow
def test_two_demo_runs_into_one_log_count_as_one(tmp_path: Path) -> None:
    """`dicetable demo` appends its recorded game to one log each run; the stats count it once."""
    from controller.demo import run_demo

    db = tmp_path / "demo.sqlite3"
    run_demo("dice-fighter", db=db, serve=False, quiet=True)
    one = {d.key: len(d.values) for d in collect([db])}
    run_demo("dice-fighter", db=db, serve=False, quiet=True)
    with EventLog(db, read_only=True) as log:
        assert log.latest_game() == 2 and log.count(1) == log.count(2)
    assert one and sum(one.values()) > 0
    assert {d.key: len(d.values) for d in collect([db])} == one
