"""The games' Japanese names are accepted wherever a game is named, and stored as the table name."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from controller.config import ConfigError, parse_config
from controller.demo import session_dir
from controller.scenario import Setup
from controller.tournament_file import load_tournament
from engine import GAME_ALIASES, GAMES, find_game, game_name

JAPANESE = {
    "ダイ公望": "die-angler",
    "ダイスハンター": "dice-hunter",
    "ノゾクダイス": "nozoku-dice",
    "ダイスファイター": "dice-fighter",
}


def test_the_engine_finds_a_game_by_its_japanese_name() -> None:
    assert GAME_ALIASES == JAPANESE
    for ja, name in JAPANESE.items():
        assert game_name(ja) == name
        assert find_game(ja) is find_game(name)
    assert game_name("ﾀﾞｲｽﾊﾝﾀｰ") == "dice-hunter"  # half-width katakana, as some keyboards type it
    for name in GAMES:
        assert game_name(name) == name
    with pytest.raises(ValueError, match=r"unknown game 'ダイス'; expected one of .*ダイスハンター"):
        find_game("ダイス")


def test_table_toml_takes_a_japanese_game_name() -> None:
    players = [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}]
    cfg = parse_config(
        {"table": {"game": "ダイスハンター", "options": {"deck": "virtual"}}, "players": players}
    )
    assert cfg.table.game == "dice-hunter"  # logged and published as the table name
    with pytest.raises(ConfigError, match="got 'チェス'"):
        parse_config({"table": {"game": "チェス"}, "players": players})


def test_a_tournament_file_takes_a_japanese_game_name(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "X"\ntables = ["t1"]\n\n'
        '[[players]]\nname = "ann"\n\n[[players]]\nname = "bob"\n\n'
        '[[rounds]]\ngame = "ノゾクダイス"\n\n[[rounds]]\ngame = "ダイ公望"\n',
        encoding="utf-8",
    )
    assert [r.game for r in load_tournament(path).rounds] == ["nozoku-dice", "die-angler"]


def test_a_scenario_setup_and_the_demo_take_a_japanese_game_name() -> None:
    setup = Setup.from_json({"game": "ダイ公望", "players": ["ann", "bob"]})
    assert setup.game == "die-angler"
    assert session_dir("ダイスハンター") == session_dir("dice-hunter")


def test_the_cli_game_option_takes_a_japanese_name() -> None:
    from controller.cli_display import fake_config

    assert fake_config("ダイスハンター", "ann:red,bob:blue", ["deck=virtual"], "table-1").table.game == (
        "dice-hunter"
    )
    from controller.cli import app

    res = CliRunner().invoke(app, ["demo", "--game", "チェス", "--no-serve"])
    assert res.exit_code != 0 and "no recorded demo session for game 'チェス'" in res.output
