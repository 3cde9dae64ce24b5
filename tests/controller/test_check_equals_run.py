"""Issue 42 items 4-6, each as a user meets it on the command line (the real CLI in a subprocess).

4. ``install-service`` under sudo and without: the unit's user, its HOME and the table's data dir are
   one person's (who called sudo; else the invoking user), never root's.
5. ``check-config`` = ``run``: whatever ``run`` refuses at start, ``check-config`` refuses, every
   problem in one pass; the camera is opened for a frame and the pin factory loaded (``--offline``
   skips the devices); a file without ``[camera]`` is refused for every game; ``install-service``
   refuses the same.
6. Messages: no doubled "got", no doubled camera name, no OpenCV ``[ WARN ]`` lines, ``[section]``
   words kept in ``--help``.
"""

from __future__ import annotations

import getpass
import importlib.util
import os
import pwd
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from engine import GAMES

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"
ON_A_PI = Path("/proc/device-tree/model").exists()
HAS_PICAMERA2 = importlib.util.find_spec("picamera2") is not None


def dicetable(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=dict(os.environ, COLUMNS="200") if env is None else env,
    )


def table_toml(tmp_path: Path, camera: str | None, extra: str = "", game: str = "dice-hunter") -> Path:
    text = f'[table]\ngame = "{game}"\noptions = {{deck = "virtual"}}\n' if game == "dice-hunter" else ""
    text = text or f'[table]\ngame = "{game}"\n'
    if camera is not None:
        text += f'[camera]\nsource = "{camera}"\n'
    text += f'[database]\npath = "{tmp_path / "t.sqlite3"}"\n[leds]\nurl = "emu://"\n' + extra
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once the socket is closed


def one_line(text: str) -> str:
    return " ".join(text.split())


# -- 5. check-config refuses what run refuses, the devices included ------------------------------------


DEVICE_CASES = [
    pytest.param("v4l2:7", "", "camera.source", "camera 'v4l2:7': cannot open it", id="v4l2:7"),
    pytest.param("usb:3", "", "camera.source", "camera 'usb:3': cannot open it", id="usb:3"),
    pytest.param("http://127.0.0.1:{port}/video", "", "camera.source", "no stream there", id="http"),
    pytest.param(
        "picam",
        "",
        "camera.source",
        "camera 'picam': picamera2 does not import",
        id="picam",
        marks=pytest.mark.skipif(ON_A_PI or HAS_PICAMERA2, reason="a Pi's camera may be there"),
    ),
    pytest.param(
        f"recorded:{DEMO}",
        '[buttons]\npin_factory = "lgpio"\n',
        "buttons.pin_factory",
        "'lgpio' cannot be used here",
        id="lgpio",
        marks=pytest.mark.skipif(ON_A_PI, reason="a Pi loads lgpio"),
    ),
    pytest.param(  # TEST-NET-1: no machine's own address
        f"recorded:{DEMO}",
        '[display]\nhost = "192.0.2.1"\nadmin_token = "Zx9-kq2P_vLr83TmWnB4yH"\n',
        "display.host",
        "cannot serve on '192.0.2.1'",
        id="display-host",
    ),
]


@pytest.mark.parametrize(("camera", "extra", "key", "why"), DEVICE_CASES)
def test_check_config_refuses_the_devices_run_refuses(
    tmp_path: Path, camera: str, extra: str, key: str, why: str
) -> None:
    path = table_toml(tmp_path, camera.format(port=closed_port()), extra)
    res = dicetable("check-config", str(path))
    out = one_line(res.stdout + res.stderr)
    assert res.returncode == 1, out
    assert f"{key}: " in out and why in out and "Traceback" not in out, out
    res = dicetable("run", "--no-hold", "--config", str(path))
    assert res.returncode == 2 and why in one_line(res.stderr) and "Traceback" not in res.stderr, res.stderr
    assert not (tmp_path / "t.sqlite3").exists(), "run started a log for a table it cannot play"
    # written for another machine: the devices are not opened, the rest is checked
    res = dicetable("check-config", "--offline", str(path))
    assert res.returncode == 0 and "not opened: --offline" in res.stdout, res.stdout + res.stderr


def test_every_problem_is_reported_in_one_pass(tmp_path: Path) -> None:
    """Type errors, missing files and devices together, not in rounds (the board file used to be named
    only once the type errors were fixed)."""
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\ngame = "dice-fighter"\nconfidence_threshold = 7\n'
        '[leds]\nwiring = "zigzag"\n'
        '[board]\nlayout = "nowhere.toml"\ncalibration = "/nowhere/camera.json"\n'
        '[camera]\nsource = "v4l2:7"\npalette = "/nowhere/palette.json"\n'
        '[buttons]\npin_factory = "lgpio"\n',
        encoding="utf-8",
    )
    keys = [
        "table.confidence_threshold",
        "leds.wiring",
        "board.layout",
        "board.calibration",
        "camera.palette",
        "camera.source",
        *([] if ON_A_PI else ["buttons.pin_factory"]),
    ]
    res = dicetable("check-config", str(path))
    assert res.returncode == 1, res.stdout + res.stderr
    said = [
        k for k in re.findall(rf"^{re.escape(str(path))}: ([\w.\[\]]+): ", res.stdout, re.M) if k != "note"
    ]
    assert sorted(said) == sorted(keys), res.stdout
    assert f"{len(keys)} problem(s)" in res.stderr
    res = dicetable("run", "--no-hold", "--config", str(path))
    assert res.returncode == 2 and f"{len(keys)} problem(s)" in res.stderr, res.stderr
    assert all(f"  {k}: " in res.stderr for k in keys), res.stderr


def test_a_wrong_game_and_a_missing_file_come_out_together(tmp_path: Path) -> None:
    path = table_toml(tmp_path, f"recorded:{DEMO}", '[board]\nlayout = "nowhere.toml"\n', game="dice-poker")
    res = dicetable("check-config", str(path))
    assert res.returncode == 1, res.stdout + res.stderr
    for key in ("table.game", "board.layout", "board"):
        assert f"{path}: {key}: " in res.stdout, res.stdout


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_file_without_a_camera_is_refused_for_every_game(tmp_path: Path, game: str) -> None:
    from controller.setup_check import check_table

    path = table_toml(tmp_path, None, game=game)
    check = check_table(path, offline=True)
    assert any(k == "camera.source" and m.startswith("missing: ") for k, m in check.problems), check.problems
    assert "recorded:DIR" in dict(check.problems)["camera.source"]


def test_check_config_and_run_refuse_a_file_without_a_camera_naming_the_key(tmp_path: Path) -> None:
    path = table_toml(tmp_path, None)  # dice-hunter: the demo recording's game, once a mere warning
    res = dicetable("check-config", str(path))
    assert res.returncode == 1 and f"{path}: camera.source: missing" in res.stdout, res.stdout + res.stderr
    res = dicetable("run", "--no-hold", "--config", str(path))
    assert res.returncode == 2 and "camera.source: missing" in one_line(res.stderr), res.stderr
    assert not (tmp_path / "t.sqlite3").exists()
    # no file at all: the embedded defaults name no camera either
    env = dict(os.environ, DICETABLE_DATA_DIR=str(tmp_path / "data"))
    res = dicetable("run", "--no-hold", env=env)
    assert res.returncode == 2 and "camera.source: missing" in one_line(res.stderr), res.stderr
    assert not (tmp_path / "data").exists()


def test_check_config_says_what_the_table_will_use(tmp_path: Path) -> None:
    path = table_toml(tmp_path, f"recorded:{DEMO}")
    res = dicetable("check-config", str(path))
    assert res.returncode == 0, res.stdout + res.stderr
    uses = dict(
        line.removeprefix(f"{path}: will use: ").split(": ", 1)
        for line in res.stdout.splitlines()
        if line.startswith(f"{path}: will use: ")
    )
    assert uses["camera"] == f"recorded:{DEMO} (read one 800x600 frame)", uses
    assert uses["game"].startswith("dice-hunter, table table-1, 3 players: ann (red)"), uses
    assert uses["event log"] == str(tmp_path / "t.sqlite3") and uses["buttons"] == "pin factory mock", uses
    assert f"{path}: OK (dice-hunter, 3 players" in res.stdout


def test_install_service_refuses_what_check_config_refuses(tmp_path: Path) -> None:
    unit = tmp_path / "x.service"
    for camera in ("v4l2:7", None):
        path = table_toml(tmp_path, camera)
        res = dicetable("install-service", "--config", str(path), "--out", str(unit))
        assert res.returncode == 2 and "no service written" in res.stderr, res.stdout + res.stderr
        assert "camera.source: " in one_line(res.stderr) and "Traceback" not in res.stderr
        assert not unit.exists()


# -- 4. install-service: one person's user, HOME and data dir ------------------------------------------


def _other_user() -> pwd.struct_passwd | None:
    me = os.getuid()
    for name in ("nobody", "daemon", "www-data", "games"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        if entry.pw_uid != me:
            return entry
    return None


def _unit(tmp_path: Path, env: dict[str, str], *extra: str) -> tuple[subprocess.CompletedProcess[str], str]:
    unit = tmp_path / "dicetable-table-1.service"
    unit.unlink(missing_ok=True)
    path = table_toml(tmp_path, f"recorded:{DEMO}")
    res = dicetable("install-service", "--config", str(path), "--out", str(unit), *extra, env=env)
    return res, unit.read_text(encoding="utf-8") if unit.exists() else ""


def _env(**kw: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("SUDO_USER", "DICETABLE_DATA_DIR", "XDG_DATA_HOME")
    }
    return {**env, "COLUMNS": "200", **kw}


def test_install_service_under_sudo_runs_the_table_as_who_called_sudo(tmp_path: Path) -> None:
    other = _other_user()
    if other is None:
        pytest.skip("no second user (nobody, daemon) on this machine")
    root_home = tmp_path / "root-home"  # sudo's own HOME: never the table's
    res, text = _unit(tmp_path, _env(SUDO_USER=other.pw_name, HOME=str(root_home)))
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"User={other.pw_name}\n" in text, text
    assert f'Environment="HOME={other.pw_dir}"' in text, text
    assert f'Environment="DICETABLE_DATA_DIR={Path(other.pw_dir) / ".local/share/dicetable"}"' in text, text
    assert str(root_home) not in text
    assert f"runs as {other.pw_name}" in res.stdout


def test_install_service_without_sudo_runs_the_table_as_the_invoking_user(tmp_path: Path) -> None:
    me = pwd.getpwuid(os.getuid())
    res, text = _unit(tmp_path, _env(HOME=me.pw_dir))
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"User={getpass.getuser()}\n" in text and f'Environment="HOME={me.pw_dir}"' in text, text
    assert f'Environment="DICETABLE_DATA_DIR={Path(me.pw_dir) / ".local/share/dicetable"}"' in text, text
    # the owner's own data dir is kept
    res, text = _unit(tmp_path, _env(HOME=me.pw_dir, DICETABLE_DATA_DIR=str(tmp_path / "data")))
    assert res.returncode == 0 and f'Environment="DICETABLE_DATA_DIR={tmp_path / "data"}"' in text, text


def test_install_service_refuses_a_user_who_is_not_there(tmp_path: Path) -> None:
    res, text = _unit(tmp_path, _env(), "--user", "no-such-user-42")
    assert res.returncode == 2 and "user 'no-such-user-42': no such user" in res.stderr, res.stderr
    assert text == ""


# -- 6. the messages ------------------------------------------------------------------------------------


def test_a_wrong_value_is_said_with_one_got(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\ngame = "dice-poker"\n[[players]]\nname = "ann"\ncolour = "pink"\n', encoding="utf-8"
    )
    res = dicetable("check-config", "--offline", str(path))
    assert res.returncode == 1, res.stdout + res.stderr
    assert res.stdout.count("got 'dice-poker'") == 1 and res.stdout.count("got 'pink'") == 1, res.stdout


@pytest.mark.parametrize("camera", ["v4l2:7", "http://127.0.0.1:{port}/video"])
def test_a_camera_that_is_not_there_is_said_once_in_our_words(tmp_path: Path, camera: str) -> None:
    spec = camera.format(port=closed_port())
    path = table_toml(tmp_path, spec)
    for args in (("run", "--no-hold", "--config", str(path)), ("check-config", str(path))):
        res = dicetable(*args)
        out = res.stdout + res.stderr
        assert res.returncode != 0, out
        assert one_line(out).count(f"camera {spec!r}") == 1, out
        # OpenCV's and FFmpeg's own lines ("[ WARN:0@0.05] global cap_v4l.cpp", "[tcp @ 0x...]") stay off
        assert not re.search(r"\[ ?(WARN|ERROR|INFO)|\[tcp @|global cap", res.stderr), res.stderr


def test_help_keeps_the_section_words() -> None:
    res = dicetable("learn-dice", "see", "--help")
    assert res.returncode == 0 and "[vision] steps" in one_line(res.stdout.replace("│", " ")), res.stdout
    res = dicetable("learn-dice", "confirm", "--help")
    assert "where its [table] dice_set points" in one_line(res.stdout.replace("│", " ")), res.stdout


def test_every_commands_help_keeps_its_bracketed_words() -> None:
    """Every command's and option's help, rendered: a "[word]" or "<word>" in its text is on the page."""
    import typer.main
    from typer.testing import CliRunner

    from controller.cli import app

    def walk(command: object, path: list[str]) -> list[tuple[object, list[str]]]:
        found = [(command, path)]
        for name, sub in getattr(command, "commands", {}).items():
            found += walk(sub, [*path, name])
        return found

    runner = CliRunner()
    checked, lost = 0, []
    for command, path in walk(typer.main.get_command(app), []):
        texts = [getattr(command, "help", None) or ""]
        texts += [getattr(p, "help", None) or "" for p in getattr(command, "params", [])]
        words = {w for t in texts for w in re.findall(r"\[[^\]\s]+\]|<[^>\s]+>", t)}
        if not words:
            continue
        shown = one_line(runner.invoke(app, [*path, "--help"], terminal_width=200).output.replace("│", " "))
        checked += len(words)
        lost += [(" ".join(path), w) for w in words if w not in shown]
    assert checked >= 5 and not lost, lost


def test_check_config_refuses_an_event_log_run_cannot_open(tmp_path: Path) -> None:
    """A file at database.path that is not an event log: run refuses it at start, so check-config does
    (opened read-only: nothing is written to it)."""
    path = table_toml(tmp_path, f"recorded:{DEMO}")
    (tmp_path / "t.sqlite3").write_text("hello\n", encoding="utf-8")
    res = dicetable("check-config", str(path))
    assert res.returncode == 1 and f"{path}: database.path: " in res.stdout, res.stdout + res.stderr
    assert "not a dicetable event log" in res.stdout, res.stdout
    res = dicetable("run", "--no-hold", "--config", str(path))
    assert res.returncode == 2 and "not a dicetable event log" in one_line(res.stderr), res.stderr
    assert (tmp_path / "t.sqlite3").read_text(encoding="utf-8") == "hello\n"
