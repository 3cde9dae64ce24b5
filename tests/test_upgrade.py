"""The scheduled upgrade check: do the newest versions pyproject.toml allows still pass?

    pytest -m upgrade tests/test_upgrade.py        (needs PyPI; about as long as ./dev.sh test)
    DICETABLE_UPGRADE_TESTS="-n 0 tests/engine" pytest -m upgrade tests/test_upgrade.py   (a part only)

Marked ``upgrade``: ./dev.sh test and CI deselect it (tests/conftest.py), so a new upstream release
never turns CI red by itself. It resolves the newest allowed versions as ``./dev.sh lock --upgrade``
would (without touching requirements.lock), installs them with their hashes into a temp venv, and
runs ruff, mypy and the whole suite there. When it passes, ``./dev.sh lock --upgrade`` and a commit
of the new lock make the upgrade; when it fails, its message names the versions that moved."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from lock import LOCK, ROOT, blocks, compile_lock, name_of

pytestmark = pytest.mark.upgrade


def _moved(newest: str) -> list[str]:
    locked = {name_of(k): k for k in blocks(LOCK.read_text(encoding="utf-8"))}
    new = {name_of(k): k for k in blocks(newest)}
    return [f"{locked.get(n, '(new)')} -> {v}" for n, v in sorted(new.items()) if locked.get(n) != v]


def test_the_newest_allowed_versions_pass_ruff_mypy_and_the_suite(tmp_path: Path) -> None:
    newest = compile_lock(upgrade=True)
    lock = tmp_path / "newest.lock"
    lock.write_text(newest, encoding="utf-8")
    moved = _moved(newest)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py, bindir = str(venv / "bin" / "python"), venv / "bin"
    pip = [py, "-m", "pip", "install", "-q", "--no-compile", "--disable-pip-version-check"]
    subprocess.run([*pip, "--require-hashes", "-r", str(lock)], check=True)
    subprocess.run([*pip, "--no-deps", "-e", str(ROOT)], check=True)
    # the lock test's check of the installed versions is the one thing that must differ here
    env = {**os.environ, "DICETABLE_UPGRADE_CHECK": "1"}
    steps = [
        [str(bindir / "ruff"), "check", "."],
        [str(bindir / "mypy")],
        # the whole suite as ./dev.sh test runs it, or the part DICETABLE_UPGRADE_TESTS names
        [
            py,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *os.environ.get("DICETABLE_UPGRADE_TESTS", "-n auto --dist loadfile").split(),
        ],
    ]
    for step in steps:
        run = subprocess.run(step, cwd=ROOT, env=env, capture_output=True, text=True)
        tail = "\n".join((run.stdout + run.stderr).splitlines()[-30:])
        assert run.returncode == 0, (
            f"{' '.join(step[-3:])} failed with the newest allowed versions; moved since the lock: "
            f"{moved or 'nothing'}\n{tail}"
        )
