"""`dicetable install-service`: a unit systemd itself accepts, for a config that `run` can play."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"
needs_systemd = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed (Debian's systemd)"
)


def dicetable(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def table_toml(tmp_path: Path) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\nid = "hall-3"\ngame = "dice-hunter"\noptions = {deck = "virtual"}\n'
        f'[camera]\nsource = "recorded:{DEMO}"\n[leds]\nurl = "emu://"\n'
        f'[database]\npath = "{tmp_path / "hall-3.sqlite3"}"\n',
        encoding="utf-8",
    )
    return path


@needs_systemd
def test_the_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    unit = tmp_path / "dicetable-hall-3.service"
    res = dicetable("install-service", "--config", str(table_toml(tmp_path)), "--out", str(unit))
    assert res.returncode == 0, res.stderr
    text = unit.read_text(encoding="utf-8")
    assert "Restart=on-failure" in text and "LimitNOFILE=" in text and "DICETABLE_DATA_DIR=" in text
    assert f'ExecStart="{sys.executable}" -m controller run --config "{tmp_path / "table.toml"}"' in text
    assert "systemctl enable --now dicetable-hall-3.service" in res.stdout
    check = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert check.returncode == 0 and not check.stderr.strip(), check.stderr


@needs_systemd
def test_systemd_analyze_would_catch_a_broken_unit(tmp_path: Path) -> None:
    """The check above can fail: a unit whose program does not exist is refused."""
    unit = tmp_path / "broken.service"
    res = dicetable("install-service", "--config", str(table_toml(tmp_path)), "--out", str(unit))
    assert res.returncode == 0, res.stderr
    unit.write_text(unit.read_text().replace(sys.executable, "/no/such/python"), encoding="utf-8")
    check = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert check.returncode != 0 or "/no/such/python" in check.stderr


def test_a_config_run_refuses_writes_no_unit(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text('[table]\ngame = "chess"\n', encoding="utf-8")
    unit = tmp_path / "x.service"
    res = dicetable("install-service", "--config", str(bad), "--out", str(unit))
    assert res.returncode == 2 and "no service written" in res.stderr and "Traceback" not in res.stderr
    assert not unit.exists()
