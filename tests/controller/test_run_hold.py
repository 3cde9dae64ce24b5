"""`dicetable run` on a recording that ends before the game: the display stays up and says so."""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def short_recording(folder: Path, frames: int = 40) -> Path:
    """The demo session's first ``frames`` frames: the game is far from over when they end."""
    folder.mkdir()
    lines = (DEMO / "frames.csv").read_text(encoding="utf-8").splitlines()[: frames + 1]
    (folder / "frames.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for line in lines[1:]:
        name = line.split(",")[0]
        if not (folder / name).exists():
            shutil.copy2(DEMO / name, folder / name)
    shutil.copy2(DEMO / "session.json", folder / "session.json")
    return folder


def test_the_display_stays_up_after_the_recording_ends_and_says_so(tmp_path: Path) -> None:
    rec = short_recording(tmp_path / "rec")
    port = _free_port()
    toml = tmp_path / "table.toml"
    toml.write_text(
        f'[table]\ngame = "dice-hunter"\noptions = {{deck = "virtual"}}\nseed = 7\n'
        f'[camera]\nsource = "recorded:{rec}"\n[leds]\nurl = "emu://"\n'
        f'[database]\npath = "{tmp_path / "t.sqlite3"}"\n[display]\nport = {port}\n',
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--config", str(toml), "--hold"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        # started as a shell's background job is (SIGINT ignored): Ctrl-C must still stop the hold
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    try:
        notice, end = None, time.monotonic() + 120
        while time.monotonic() < end and proc.poll() is None:
            try:
                state = httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=2).json()
                notice = state.get("notice")
                if notice and "recording ended" in notice:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        assert proc.poll() is None, proc.communicate()
        assert notice and "recording ended" in notice, notice
        time.sleep(1.0)
        assert proc.poll() is None, "the display went away after the recording ended"
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # never leave it running: say what it was doing
            proc.kill()
            out, err = proc.communicate()
            why = f"`run --hold` did not stop on Ctrl-C within 60 s; stderr: {err[-2000:]}"
            raise AssertionError(why) from None
    assert proc.returncode == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["status"] != "over"
