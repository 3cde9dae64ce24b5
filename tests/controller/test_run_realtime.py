"""`dicetable run --realtime` (issue 48 item 5): a recorded camera plays at its recorded pace, as a
live camera would, so that a recording stands in for one on the pages; without the flag it plays as
fast as it reads. The pace is checked on a clock the test keeps (never the machine's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_run_hold import _free_port, short_recording
from typer.testing import CliRunner

from controller.cli import app
from hardware.frames import RecordedSource, read_frames_csv


class Clock:
    """A clock that moves only when the source sleeps: the sleeps it was asked for, summed."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.now += s


@pytest.mark.parametrize("realtime", [True, False])
def test_run_plays_a_recording_at_its_pace_with_realtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, realtime: bool
) -> None:
    rec = short_recording(tmp_path / "rec", frames=30)
    clock = Clock()
    defaults = dict(RecordedSource.__init__.__kwdefaults__ or {})
    paced = {**defaults, "clock": clock, "sleep": clock.sleep}
    monkeypatch.setattr(RecordedSource.__init__, "__kwdefaults__", paced)
    toml = tmp_path / "table.toml"
    toml.write_text(
        f'[table]\ngame = "dice-hunter"\noptions = {{deck = "virtual"}}\nseed = 7\n'
        f'[camera]\nsource = "recorded:{rec}"\n[leds]\nurl = "emu://"\n'
        f'[database]\npath = "{tmp_path / "t.sqlite3"}"\n[display]\nport = {_free_port()}\n',
        encoding="utf-8",
    )
    args = ["run", "--config", str(toml), "--no-hold", *(["--realtime"] if realtime else [])]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout.strip().splitlines()[-1])["status"] == "playing"  # the recording ended first
    times = [t for _, t in read_frames_csv(rec)]
    if realtime:  # every frame waited for until its recorded time: the run took the recording's length
        assert sum(clock.slept) == pytest.approx(times[-1] - times[0], abs=1e-6)
        assert len(clock.slept) == len(times) - 1
    else:
        assert clock.slept == []


def test_run_says_what_realtime_does() -> None:
    out = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    assert "--realtime" in out.output and "recorded pace" in out.output
