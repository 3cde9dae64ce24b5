"""table.toml validation: every problem named by its key, defaults that run anywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import ConfigError, TableConfig, load_config, runnable_problems
from controller.setup_check import camera_problems

GOOD = """
[table]
id = "hall-3"
game = "die-angler"

[[players]]
name = "ann"
colour = "red"
pins = { up = 5, down = 6, select = 13, confirm = 19 }

[[players]]
name = "bob"
colour = "blue"
pins = { up = 12, down = 16, select = 20, confirm = 21 }

[camera]
source = "v4l2:0"

[display]
port = 8080
"""

BAD = """
[table]
game = "chess"
confidence_threshold = 1.5

[[players]]
name = "ann"
colour = "pink"
pins = { up = 40 }

[leds]
wiring = "zigzag"
baud = -1

[board]
fit = "guess"

[display]
port = "eighty"
colour = "red"
"""


def dicetable(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], capture_output=True, text=True, timeout=120
    )


def test_defaults_run_anywhere() -> None:
    cfg = TableConfig()
    assert cfg.camera.source.startswith("recorded:")
    assert cfg.buttons.pin_factory == "mock"
    assert cfg.leds.url == "emu://"
    assert cfg.display.host == "127.0.0.1"
    assert cfg.database_path().name == "table-1.sqlite3"


def test_good_file_loads(tmp_path: Path) -> None:
    f = tmp_path / "table.toml"
    f.write_text(GOOD)
    cfg = load_config(f)
    assert cfg.table.game == "die-angler"
    assert [p.pins.confirm for p in cfg.players] == [19, 21]
    assert cfg.display.port == 8080


def test_every_problem_is_named_by_key(tmp_path: Path) -> None:
    f = tmp_path / "table.toml"
    f.write_text(BAD)
    with pytest.raises(ConfigError) as e:
        load_config(f)
    keys = {k for k, _ in e.value.problems}
    assert {
        "table.game",
        "table.confidence_threshold",
        "players.0.colour",
        "players.0.pins.up",
        "leds.wiring",
        "leds.baud",
        "display.port",
        "display.colour",
        "board.fit",
    } <= keys
    messages = dict(e.value.problems)
    assert "chess" in messages["table.game"] and "dice-hunter" in messages["table.game"]
    assert "0-27" in messages["players.0.pins.up"]
    assert "unknown key" in messages["display.colour"]
    assert "body" in messages["board.fit"] and "guess" in messages["board.fit"]


def test_pins_used_twice_and_open_host_without_token(tmp_path: Path) -> None:
    f = tmp_path / "t.toml"
    f.write_text(
        '[[players]]\nname="a"\ncolour="red"\npins={up=5}\n[[players]]\nname="b"\ncolour="blue"\n'
        'pins={up=5}\n[display]\nhost="0.0.0.0"\n'
    )
    with pytest.raises(ConfigError) as e:
        load_config(f)
    text = str(e.value)
    assert "used twice: [5]" in text


def test_not_toml_and_missing_file(tmp_path: Path) -> None:
    f = tmp_path / "broken.toml"
    f.write_text("[table\ngame=")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(f)
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "absent.toml")


def test_check_config_command(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.toml", tmp_path / "bad.toml"
    good.write_text(GOOD)
    bad.write_text(BAD)
    ok = dicetable("check-config", "--offline", str(good))  # its camera, v4l2:0, is another machine's
    assert ok.returncode == 0 and "OK" in ok.stdout
    res = dicetable("check-config", str(bad))
    assert res.returncode == 1
    assert "table.game:" in res.stdout and "leds.wiring:" in res.stdout
    assert "Traceback" not in res.stdout + res.stderr


def test_a_table_toml_cut_short_is_refused_at_every_cut_that_changes_its_meaning(tmp_path: Path) -> None:
    """A file cut mid-line, or cut before [camera] in a game the demo recording does not play, is refused
    (issue 31 item 10): it would otherwise play the demo's recording into the default database."""
    text = GOOD.replace('game = "die-angler"', 'game = "dice-fighter"').replace(
        "[camera]", "# the club's camera\n[camera]"
    )
    path = tmp_path / "cut.toml"
    passed = []
    for cut in range(len(text) + 1):
        path.write_text(text[:cut], encoding="utf-8")
        try:
            cfg = load_config(path)
            problems = runnable_problems(cfg) + camera_problems(cfg)
        except ConfigError as e:
            problems = e.problems
        if not problems:
            passed.append(cut)
    # only the cuts after the [camera] section's last line pass without a word
    camera_end = text.index('"v4l2:0"\n') + len('"v4l2:0"\n')
    assert passed and min(passed) >= camera_end, [repr(text[:c][-30:]) for c in passed if c < camera_end]


def test_a_missing_camera_is_refused_even_when_the_demo_plays_the_game(tmp_path: Path) -> None:
    """Issue 42 item 5: no game falls back to the demo's recording (it was a warning for dice-hunter)."""
    path = tmp_path / "t.toml"
    path.write_text('[table]\ngame = "dice-hunter"\n', encoding="utf-8")
    res = dicetable("check-config", str(path))
    assert res.returncode == 1 and "camera.source: missing" in res.stdout, res.stdout + res.stderr
    path.write_text(
        '[table]\ngame = "die-angler"\n[[players]]\nname = "a"\ncolour = "red"\n', encoding="utf-8"
    )
    res = dicetable("check-config", str(path))
    assert res.returncode == 1 and "camera.source: missing" in res.stdout, res.stdout + res.stderr


@pytest.mark.parametrize(
    ("section", "key"),
    [
        ('[camera]\nsource = "v4l2:0"\npalette = "{tmp}/palette.json"\n', "camera.palette"),
        (
            '[camera]\nsource = "v4l2:0"\n[vision]\nempty_table_frame = "{tmp}/empty.png"\n',
            "vision.empty_table_frame",
        ),
        ('dice_set = "sets/no-such-set.json"\n[camera]\nsource = "v4l2:0"\n', "table.dice_set"),
        ('[camera]\nsource = "picamera"\n', "camera.source"),
    ],
)
def test_check_config_opens_every_file_as_run_does(section: str, key: str, tmp_path: Path) -> None:
    """A broken palette, a text file as the empty-table picture, a missing dice set and a misspelt camera
    pass the file's types but not ``run`` (issue 34 item 5): check-config refuses them with the key."""
    (tmp_path / "palette.json").write_text("not json\n", encoding="utf-8")
    (tmp_path / "empty.png").write_text("hello\n", encoding="utf-8")
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "dice-hunter"\n' + section.format(tmp=tmp_path), encoding="utf-8")
    res = dicetable("check-config", str(path))
    assert res.returncode == 1 and "Traceback" not in res.stdout + res.stderr
    assert f"{path}: {key}: " in res.stdout, res.stdout + res.stderr
