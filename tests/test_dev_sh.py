"""./dev.sh installs what each command needs from requirements.lock: `demo` the table alone, `test`
the test tools too, each package at its locked version with its hash checked.

The venv here is a stand-in whose programs only write down how they were called, so the test
sees every pip install dev.sh asks for without installing anything."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _program(path: Path, log: Path) -> None:
    path.write_text(f'#!/bin/sh\necho "{path.name} $*" >> "{log}"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def checkout(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    repo, log = tmp_path / "repo", tmp_path / "calls.log"
    repo.mkdir()
    for name in ("dev.sh", "pyproject.toml", "requirements.lock"):
        shutil.copy2(ROOT / name, repo / name)
    bindir = repo / ".venv" / "bin"
    bindir.mkdir(parents=True)
    for name in ("python", "dicetable", "ruff", "mypy", "pytest", "coverage"):
        _program(bindir / name, log)
    tools = tmp_path / "tools"  # the system packages `test` wants, present
    tools.mkdir()
    for name in ("chromium", "mosquitto"):
        _program(tools / name, log)
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}", "PYTHON": sys.executable}
    return repo, log, env


def _run(repo: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["bash", str(repo / "dev.sh"), *args], cwd=repo, env=env, check=True, capture_output=True)


def _installs(log: Path) -> list[str]:
    """What each pip install installed: "." for dicetable, "runtime"/"full" for the lock's parts."""
    calls = log.read_text().splitlines() if log.exists() else []
    out = []
    for c in calls:
        if not c.startswith("python -m pip install"):
            continue
        if " -e " in c:
            assert " --no-deps -e " in c, c  # dicetable alone: its dependencies come from the lock
            out.append(c.split(" -e ", 1)[1])
        else:
            assert " --require-hashes -r " in c, c
            reqs = c.split(" -r ", 1)[1]
            out.append("full" if reqs == "requirements.lock" else "runtime")
    return out


def test_demo_installs_no_test_tools_and_test_adds_them(checkout: tuple[Path, Path, dict[str, str]]) -> None:
    repo, log, env = checkout
    _run(repo, env, "demo", "--no-serve")
    assert _installs(log) == ["runtime", "."]  # the table alone: no playwright, mypy, ruff, pytest
    runtime = (repo / ".venv" / "requirements-runtime.lock").read_text()
    assert "\nopencv-python-headless==" in runtime and "--hash=sha256:" in runtime
    assert "\npytest==" not in runtime and "\nmypy==" not in runtime and "\nplaywright==" not in runtime
    assert "dicetable demo --no-serve" in log.read_text()
    _run(repo, env, "demo", "--no-serve")
    assert _installs(log) == ["runtime", "."], "installed once"
    _run(repo, env, "test", "-q")
    assert _installs(log) == ["runtime", ".", "full", "."], "from demo to test installs the test tools"
    calls = log.read_text()
    assert "ruff check ." in calls and "mypy" in calls
    tests = next(c for c in calls.splitlines() if c.startswith("pytest "))
    # in parallel, whole files per worker, the slow files first (tests/conftest.py)
    assert tests.startswith("pytest -q -n auto --dist loadfile --no-loadscope-reorder --cov"), tests
    assert tests.endswith(" -q"), tests  # what follows `test` comes last: `./dev.sh test -n 0` wins
    _run(repo, env, "test")
    _run(repo, env, "demo")
    assert _installs(log) == ["runtime", ".", "full", "."], "the test tools' install serves the demo too"


def test_an_edited_pyproject_installs_again(checkout: tuple[Path, Path, dict[str, str]]) -> None:
    repo, log, env = checkout
    _run(repo, env, "test")
    (repo / "pyproject.toml").write_text((repo / "pyproject.toml").read_text() + "\n# edited\n")
    _run(repo, env, "demo")
    _run(repo, env, "test")
    assert _installs(log) == ["full", ".", "runtime", ".", "full", "."]


def test_a_new_lock_installs_again(checkout: tuple[Path, Path, dict[str, str]]) -> None:
    repo, log, env = checkout
    _run(repo, env, "test")
    _run(repo, env, "test")
    assert _installs(log) == ["full", "."]
    lock = repo / "requirements.lock"
    lock.write_text(lock.read_text() + "\n# locked again\n")
    _run(repo, env, "test")
    assert _installs(log) == ["full", ".", "full", "."], "the stamp keys on the lock"


def test_the_tests_keep_the_modules_they_compile_whatever_the_environment_says(
    checkout: tuple[Path, Path, dict[str, str]],
) -> None:
    """The tests start hundreds of Python processes: with PYTHONDONTWRITEBYTECODE set (as where CI
    ran), each compiled every module it imported again, twice a CLI test's CPU time. pytest runs
    without it, the compiled modules kept under .venv/pycache, never beside the sources."""
    repo, log, env = checkout
    (repo / ".venv" / "bin" / "pytest").write_text(
        f'#!/bin/sh\necho "pytest-env ${{PYTHONDONTWRITEBYTECODE:-unset}} $PYTHONPYCACHEPREFIX" >> "{log}"\n'
    )
    _run(repo, {**env, "PYTHONDONTWRITEBYTECODE": "1"}, "test")
    line = next(c for c in log.read_text().splitlines() if c.startswith("pytest-env "))
    assert line == f"pytest-env unset {repo}/.venv/pycache", line
