"""Write requirements.lock: every runtime and test dependency of dicetable, pinned, with hashes.

    ./dev.sh lock              keep the locked versions that pyproject.toml still allows, add what it
                               newly names (the lock changes only where pyproject did)
    ./dev.sh lock --upgrade    the newest versions pyproject.toml allows (a reviewed change: run
                               ./dev.sh test with it, as the `upgrade` test does)

The resolver is uv's ``uv pip compile --universal --generate-hashes`` (uv is installed, at the
version below, into ``.tools/``, never into ``.venv``): one resolution that holds on every platform
and Python the project supports, written as a plain pip requirements file, so the machines that
install it need nothing but pip (``pip install --require-hashes -r requirements.lock``). pip-tools'
``pip-compile`` resolves for the machine it runs on only (a lock made on x86-64 3.11 need not hold
on a Pi's aarch64 or on 3.13), and ``uv lock`` writes uv.lock, which pip cannot install from.

The lock has two parts: the runtime packages (what ``./dev.sh demo`` installs), then, after the
line ``TEST_MARK``, the test extra's own (``./dev.sh test`` installs the whole file). Both come from
one resolution of the runtime and test dependencies together, so a version is the same in each.
Each locked version is then checked to have a wheel for every target below (no sdist is ever
built on a Pi). The ``train`` and ``render`` extras are not locked (torch and bpy: installed by
hand to train or render, see README)."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
TOOLS = ROOT / ".tools"
UV_VERSION = "0.13.9"
# (Python, platform): Raspberry Pi OS Bookworm's 3.11 on aarch64, a PC's x86-64, and 3.13 on both
TARGETS = [
    (py, f"{arch}-unknown-linux-gnu") for py in ("3.11", "3.13") for arch in ("x86_64", "aarch64")
]
TEST_MARK = "# ---- the test extra: ./dev.sh test installs these too (./dev.sh demo stops here) ----"
HEADER = """\
# dicetable's locked dependencies: every runtime and test package at one version, with the sha256
# of each of its files on PyPI; for Linux x86-64 and aarch64, Python 3.11 and 3.13.
# Written by `./dev.sh lock` (tools/lock.py, uv {uv}) from pyproject.toml's ranges: never edit by hand.
# ./dev.sh installs it: pip install --require-hashes -r requirements.lock, then pip install --no-deps -e .
"""


def uv() -> Path:
    """uv, installed at UV_VERSION into its own venv ``.tools`` (the project's venv never has it)."""
    exe = TOOLS / "bin" / "uv"
    have = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout if exe.exists() else ""
    if f"uv {UV_VERSION}" not in have:
        if not (TOOLS / "bin" / "python").exists():
            subprocess.run([sys.executable, "-m", "venv", TOOLS], check=True)
        subprocess.run(
            [TOOLS / "bin" / "python", "-m", "pip", "install", "-q", f"uv=={UV_VERSION}"], check=True
        )
    return exe


def blocks(text: str) -> dict[str, str]:
    """A requirements file's entries: ``name==version[ ; marker]`` -> the entry with its hashes."""
    out: dict[str, str] = {}
    key = None
    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            key = line.removesuffix("\\").strip()
            out[key] = line + "\n"
        elif key is not None and line.startswith(" "):
            out[key] += line + "\n"
        else:
            key = None
    return out


def name_of(key: str) -> str:
    return re.sub(r"[-_.]+", "-", key.split("==", 1)[0]).lower()


def compile_lock(upgrade: bool) -> str:
    exe = uv()
    with tempfile.TemporaryDirectory() as tmp:
        full, runtime = Path(tmp) / "full.txt", Path(tmp) / "runtime.txt"
        if LOCK.exists() and not upgrade:
            full.write_text(LOCK.read_text())  # uv keeps an output file's pins where still allowed
        common = ["--universal", "--generate-hashes", "--python-version", "3.11", "--no-header"]
        run: list[str | Path] = [exe, "pip", "compile", "--quiet", "pyproject.toml", *common]
        subprocess.run([*run, "--extra", "test", "-o", full, *(["--upgrade"] if upgrade else [])],
                       cwd=ROOT, check=True)
        # the runtime packages alone, held to the full resolution's versions
        subprocess.run([*run, "-c", full, "-o", runtime], cwd=ROOT, check=True)
        for py, platform in TARGETS:  # each locked version has a wheel for each target
            subprocess.run(
                [exe, "pip", "compile", "--quiet", "pyproject.toml", "--extra", "test", "--no-header",
                 "--python-version", py, "--python-platform", platform, "--only-binary", ":all:",
                 "-c", full, "-o", Path(tmp) / f"check-{py}-{platform}.txt"],
                cwd=ROOT, check=True,
            )
        every, run_keys = blocks(full.read_text()), blocks(runtime.read_text()).keys()
        missing = [k for k in run_keys if k not in every]
        if missing:
            raise SystemExit(f"error: the runtime resolution locked {missing}, not in the full one")
    text = HEADER.format(uv=UV_VERSION)
    text += "".join(every[k] for k in every if k in run_keys)
    text += TEST_MARK + "\n"
    text += "".join(every[k] for k in every if k not in run_keys)
    return text


def main(argv: list[str]) -> int:
    if argv not in ([], ["--upgrade"]):
        print("usage: ./dev.sh lock [--upgrade]", file=sys.stderr)
        return 2
    text = compile_lock(upgrade=argv == ["--upgrade"])
    old = LOCK.read_text() if LOCK.exists() else ""
    LOCK.write_text(text)
    before = {name_of(k): k for k in blocks(old)}
    after = {name_of(k): k for k in blocks(text)}
    changes = [f"  {before.get(n, '(new)')} -> {after.get(n, '(gone)')}"
               for n in sorted(before.keys() | after.keys()) if before.get(n) != after.get(n)]
    print(f"{LOCK.name}: {len(after)} packages; " + (f"{len(changes)} changed:" if changes else "unchanged"))
    print("\n".join(changes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
