"""requirements.lock (./dev.sh lock) pins every runtime and test dependency within pyproject.toml's
ranges, with hashes, and the environment the tests run in holds exactly the locked versions."""

from __future__ import annotations

import importlib.metadata
import os
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from lock import LOCK, ROOT, TEST_MARK, blocks

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
TEXT = LOCK.read_text(encoding="utf-8")
RUNTIME, _, TEST = TEXT.partition(TEST_MARK + "\n")
# the machines the lock is for: Linux x86-64 and aarch64, CPython 3.11 and 3.13
TARGETS = [
    {
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": arch,
        "python_version": py,
        "python_full_version": f"{py}.0",
        "platform_python_implementation": "CPython",
        "implementation_name": "cpython",
        "os_name": "posix",
        "extra": "",
    }
    for py in ("3.11", "3.13")
    for arch in ("x86_64", "aarch64")
]


def _pins(text: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """name -> locked version, of the entries whose marker holds in env (this machine by default)."""
    out: dict[str, str] = {}
    for key, entry in blocks(text).items():
        spec, _, marker = key.partition(";")
        if marker.strip() and not Marker(marker.strip()).evaluate(env):
            continue
        name, version = spec.strip().split("==")
        assert name not in out, f"{name} locked twice for one machine"
        assert "--hash=sha256:" in entry, f"{key}: no hash"
        out[canonicalize_name(name)] = version
    return out


def _requirements(group: list[str]) -> list[Requirement]:
    return [Requirement(r) for r in group]


def test_the_lock_has_its_two_parts_each_hashed() -> None:
    assert TEXT.count(TEST_MARK) == 1
    for part in (RUNTIME, TEST):
        for key, entry in blocks(part).items():
            assert entry.count("--hash=sha256:") >= 1, key


@pytest.mark.parametrize("env", TARGETS, ids=lambda e: f"{e['python_version']}-{e['platform_machine']}")
def test_every_dependency_is_locked_within_its_range(env: dict[str, str]) -> None:
    """Each runtime requirement of pyproject.toml is locked in the runtime part (what ./dev.sh demo
    installs), each test requirement in the lock, at a version the range allows: a pyproject edited
    without ./dev.sh lock fails here."""
    runtime, every = _pins(RUNTIME, env), _pins(TEXT, env)
    groups = [
        (PYPROJECT["project"]["dependencies"], runtime),
        (PYPROJECT["project"]["optional-dependencies"]["test"], every),
    ]
    for group, pins in groups:
        for req in _requirements(group):
            if req.marker and not req.marker.evaluate(env):
                continue
            name = canonicalize_name(req.name)
            assert name in pins, f"{req} is not locked for {env['python_version']} {env['platform_machine']}"
            assert req.specifier.contains(pins[name], prereleases=True), f"{req}: locked {pins[name]}"
    names = [{canonicalize_name(r.name) for r in _requirements(group)} for group, _ in groups]
    assert not (names[1] - names[0]) & runtime.keys(), "./dev.sh demo would install test tools"


def test_the_train_and_render_extras_stay_out_of_the_lock() -> None:
    pins = _pins(TEXT, TARGETS[0])
    assert "torch" not in pins and "bpy" not in pins


@pytest.mark.skipif(
    os.environ.get("DICETABLE_UPGRADE_CHECK") == "1", reason="the upgrade check runs the newest versions"
)
def test_this_environment_holds_exactly_the_locked_versions() -> None:
    """What ./dev.sh installed is what the lock says (pip freeze against the lock, package by package)."""
    wrong = {}
    for name, version in _pins(TEXT).items():
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            have = "missing"
        if have != version:
            wrong[name] = f"locked {version}, installed {have}"
    assert not wrong, f"the venv is not the lock's (./dev.sh test installs it again): {wrong}"
