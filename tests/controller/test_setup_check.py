"""check-config refuses what a game needs and the file does not give (issue 34 item 5): a board for a
game that scores dice by where they lie, and a colour of their own for players whose dice the game
tells apart by colour.  What a game needs is the engine's answer, so every game is tried."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import load_config
from controller.scenario import Setup, new_game
from controller.session import session_config
from controller.setup_check import game_problems, table_problems, tells_players_apart_by_colour

SESSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "sessions"
POWER_SLOTS = (
    '[table.options]\npower_slots = { ann = ["power-first-1", "power-first-2"], '
    'bob = ["power-second-1", "power-second-2"] }\n'
)


def table_toml(game: str, colours: list[str], board: bool = False) -> str:
    names = ["ann", "bob", "cid"][: len(colours)]
    text = f'[table]\nid = "t"\ngame = "{game}"\n'
    if game == "dice-fighter":
        text += POWER_SLOTS
    for name, colour in zip(names, colours, strict=True):
        text += f'[[players]]\nname = "{name}"\ncolour = "{colour}"\n'
    if board:
        cal = SESSIONS / f"{game}-demo" / "camera.json"
        text += f'[board]\nlayout = "{game}.example.toml"\ncalibration = "{cal}"\n'
    return text + '[camera]\nsource = "v4l2:0"\n'


def check(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "controller", "check-config", "--offline", str(path)],  # v4l2:0 is elsewhere
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("game", ["dice-fighter", "dicetar-wars"])
def test_a_game_played_on_a_board_is_refused_without_one_naming_the_key(tmp_path: Path, game: str) -> None:
    res = check(tmp_path, table_toml(game, ["red", "blue"]))
    assert res.returncode == 1, res.stdout + res.stderr
    assert f"board: missing: {game} scores each die by where it lies on its board" in res.stdout
    assert f"layout = the board's layout file (shipped: '{game}.example.toml')" in res.stdout
    assert "Traceback" not in res.stdout + res.stderr
    res = check(tmp_path, table_toml(game, ["red", "blue"], board=True))
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize("game", ["dice-hunter", "die-angler", "nozoku-dice"])
def test_a_game_without_a_board_needs_none(tmp_path: Path, game: str) -> None:
    path = tmp_path / "table.toml"
    path.write_text(table_toml(game, ["red", "blue", "green"] if game == "dice-hunter" else ["red", "blue"]))
    assert [k for k, _ in game_problems(load_config(path))] == []


def test_two_players_of_one_colour_are_refused_where_the_game_tells_dice_apart_by_colour(
    tmp_path: Path,
) -> None:
    res = check(tmp_path, table_toml("die-angler", ["red", "blue", "red"]))
    assert res.returncode == 1, res.stdout + res.stderr
    assert (
        "players[2].colour: 'red' is also ann's colour: die-angler tells the players' dice apart by their "
        "colour; expected a colour no other player has (free: green, purple, yellow, orange, white, black)"
    ) in res.stdout
    res = check(tmp_path, table_toml("dicetar-wars", ["blue", "blue"], board=True))
    assert res.returncode == 1 and "players[1].colour: 'blue' is also ann's colour" in res.stdout


@pytest.mark.parametrize(
    ("game", "colours", "by_colour"),
    [
        ("die-angler", ["red", "blue"], True),
        ("dicetar-wars", ["red", "blue"], True),
        ("dice-fighter", ["red", "blue"], False),  # a shared pool of red, blue and green dice
        ("dice-hunter", ["red", "blue", "green"], False),
        ("nozoku-dice", ["red", "blue"], False),
    ],
)
def test_the_engine_says_which_games_tell_dice_apart_by_colour(
    tmp_path: Path, game: str, colours: list[str], by_colour: bool
) -> None:
    path = tmp_path / "table.toml"
    path.write_text(table_toml(game, colours, board=game in ("dice-fighter", "dicetar-wars")))
    cfg = load_config(path)
    assert (
        tells_players_apart_by_colour(new_game(Setup.for_table(cfg)), [p.name for p in cfg.players])
        is by_colour
    )
    same = path.read_text().replace('colour = "blue"', f'colour = "{colours[0]}"')
    path.write_text(same)
    problems = [k for k, _ in table_problems(load_config(path))]
    assert ("players[1].colour" in problems) is by_colour


def test_the_demo_tables_pass(tmp_path: Path) -> None:
    for folder in sorted(p for p in SESSIONS.iterdir() if p.name.endswith("-demo")):
        assert table_problems(session_config(folder)) == [], folder.name
