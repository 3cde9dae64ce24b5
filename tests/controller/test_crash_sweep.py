"""A crash at every event boundary of every game's demo: the resumed table ends as the uninterrupted one.

The sweep plays each recorded demo once, the way ``dicetable run`` plays a recorded camera, and copies
the event log just before every commit (a process killed there, before or during that transaction,
leaves exactly that file).  From each copy a fresh ``Table`` resumes and plays the session to its end.
Each must reach the same scores, status, winners and logged inputs as the uninterrupted run, and no
copy may hold a secret selection of a round that is not complete (``/api/events`` would show it).

The frames are decoded, put through the real motion gate and read by the real reader once per game
(the replayed gate and reader give the same answers at a fraction of the cost); everything from the
``Table`` down (panels, secret rounds, script, event log, resume) is the product's own code.  A real
``kill -9`` of ``dicetable run`` at a few of these boundaries, including inside a reveal's
transaction, is in ``test_kill_9_inside_a_reveal`` below.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from controller.config import TableConfig
from controller.eventlog import EventLog
from controller.live import SETTLE_S, load_script, play
from controller.referee import RecordedReferee
from controller.session import session_config
from controller.table import Table
from display.app import create_app
from display.hub import Hub
from engine import Game, InputKind
from hardware.frames import Frame, read_frames_csv
from vision import tumble
from vision.motion import MotionGate
from vision.tumble import ThrowRecorder

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = ROOT / "tests" / "fixtures" / "sessions"
GAMES = ("dice-hunter", "die-angler", "dice-fighter", "dicetar-wars", "nozoku-dice")


@dataclass
class Recording:
    """One demo session decoded once: its frames, the motion gate's verdicts, the reader's answers."""

    folder: Path
    cfg: TableConfig
    rows: list[tuple[str, float]]
    images: dict[str, np.ndarray]
    updates: list[Any]
    memo: dict[tuple[int, str], Any] = field(default_factory=dict)
    flags: dict[tuple[int, float], Any] = field(default_factory=dict)
    small: dict[tuple[int, bool], np.ndarray] = field(default_factory=dict)

    def recorder(self) -> type[ThrowRecorder]:
        """The tumble check's frame recorder, its copy of each of the session's frames made smaller
        once (a resize of every moving frame was a third of each replay's time; the copies are never
        changed, as the recorder's own snapshots rely on); any other image is made smaller as ever."""
        mine = {id(image): image for image in self.images.values()}
        small = self.small

        class Recorder(ThrowRecorder):
            def _small(self, image: np.ndarray, copy: bool = True) -> np.ndarray:
                if mine.get(id(image)) is not image:
                    return super()._small(image, copy)
                key = (id(image), copy)
                if key not in small:
                    small[key] = super()._small(image, copy)
                return small[key]

        return Recorder


@functools.cache
def recording(game: str) -> Recording:
    folder = SESSIONS / f"{game}-demo"
    rows = read_frames_csv(folder)
    images: dict[str, np.ndarray] = {}
    for name, _ in rows:
        if name not in images:
            images[name] = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
    gate = MotionGate(settle_s=SETTLE_S)
    updates = [gate.update(images[name], t) for name, t in rows]
    return Recording(folder, session_config(folder), rows, images, updates)


class ReplaySource:
    """The session's frames, as ``RecordedSource`` gives them (named ``recorded:`` so a table resumes)."""

    def __init__(self, rec: Recording) -> None:
        self.rec, self.i, self.name = rec, 0, f"recorded:{rec.folder}"

    def read(self) -> Frame | None:
        if self.i >= len(self.rec.rows):
            return None
        name, t = self.rec.rows[self.i]
        self.i += 1
        return Frame(self.rec.images[name], t, self.name)


class ReplayGate:
    """The real motion gate's verdicts on the same frames, in order."""

    def __init__(self, rec: Recording) -> None:
        self.rec, self.i = rec, 0

    def update(self, image: np.ndarray, t: float) -> Any:
        upd = self.rec.updates[self.i]
        self.i += 1
        return upd


def play_session(rec: Recording, ev: EventLog) -> Table:
    """What ``dicetable run`` does with a recorded camera (resuming what the log holds), plus the
    session's recorded referee answering its questions, as ``dicetable demo`` does."""
    table = Table(rec.cfg, ev)
    inner = table.reader

    class Memo:  # the real reader, once per frame and arguments
        def read(self, image: np.ndarray, *args: Any) -> Any:
            return self.examine(image, *args).readings

        def examine(self, image: np.ndarray, *args: Any) -> Any:
            key = (id(image), repr(args))
            if key not in rec.memo:
                rec.memo[key] = inner.examine(image, *args)
            return rec.memo[key]

    table.reader = Memo()
    judge = table.tumble.judge

    def tumble_flag(motion: Any, image: np.ndarray, readings: Any, t: float, seq: int) -> Any:
        # the tumble check's verdict on a throw, once per throw (its flag is a control event, which
        # the outcome below does not compare; judging it again at every boundary took minutes)
        key = (id(image), t)
        if key not in rec.flags:
            rec.flags[key] = judge(motion, image, readings, t, seq)
        return copy.deepcopy(rec.flags[key])

    table.tumble.judge = tumble_flag
    table.pending = load_script(rec.folder / "script.jsonl")
    referee = RecordedReferee.from_session(rec.folder)

    def tick(t: float, what: str) -> None:
        if referee is not None:
            referee.answer(table)

    with mock.patch.object(tumble, "ThrowRecorder", rec.recorder()):
        play(table, ReplaySource(rec), progress=tick, gate=ReplayGate(rec))
    return table


def outcome(table: Table) -> dict[str, Any]:
    result = table.game.result()
    return {
        "scores": table.game.scores(),
        "status": table.status,
        "winners": list(result.winners) if result else [],
        "inputs": [e.data for e in table.log.inputs(table.game_no)],
    }


class QuickLog(EventLog):
    """The product's event log without the fsync of each commit.

    What a crash leaves is simulated here by copying the committed file, so durability is not what
    these runs test (the real kill below is); without the fsyncs the sweep takes seconds, not minutes.
    """

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._db.execute("PRAGMA synchronous=OFF")


class BoundaryLog(QuickLog):
    """An event log that copies itself just before each commit: the file a kill there leaves."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.copies: list[tuple[bytes, list[str]]] = []

    def _insert(self, rows: Sequence[tuple[int, str, str, str | None, dict[str, Any]]]) -> list[int]:
        with self._lock:
            image = self._db.serialize()
        what = [f"{kind}:{data.get('type', data.get('action', ''))}" for _, _, kind, _, data in rows]
        self.copies.append((image, what))
        return super()._insert(rows)


def early_secrets(game: Game) -> list[str]:
    """Players whose secret selection the log holds while the round still waits for others."""
    exp = game.expects()
    if exp.kind is not InputKind.SECRET:
        return []
    return [str(p) for p in exp.detail.get("confirmed") or []]


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_crash_at_every_event_boundary_changes_nothing(game: str, tmp_path: Path) -> None:
    rec = recording(game)
    ev = BoundaryLog(tmp_path / "straight.sqlite3")
    straight = play_session(rec, ev)
    want = outcome(straight)
    straight.close()
    ev.close()
    assert want["status"] == "over" and want["inputs"], f"{game}: the uninterrupted demo did not finish"
    assert len(ev.copies) > 10, f"{game}: only {len(ev.copies)} commits: the sweep tests nothing"

    failures: list[str] = []
    for i, (image, what) in enumerate(ev.copies):
        copy = tmp_path / f"crashed-{i:04d}.sqlite3"
        copy.write_bytes(image)
        with QuickLog(copy) as crashed:
            if crashed.latest_game() is not None:
                leaked = early_secrets(crashed.replay())
                if leaked:
                    failures.append(f"boundary {i} (before {what}): secret of {leaked} logged before reveal")
            table = play_session(rec, crashed)
            got = outcome(table)
            table.close()
        if got != want:
            diff = {k: (got[k], want[k]) for k in want if got[k] != want[k] and k != "inputs"}
            if got["inputs"] != want["inputs"]:
                diff["inputs"] = f"{len(got['inputs'])} logged, {len(want['inputs'])} expected"
            failures.append(f"boundary {i} (before {what}): {diff}")
    assert not failures, f"{game}: {len(failures)} of {len(ev.copies)} boundaries differ:\n" + "\n".join(
        failures[:10]
    )


# -- a real kill -9 of `dicetable run`, inside a reveal's transaction and at plain boundaries ------------


def _run_until_killed(toml: Path, what: str, at: int) -> subprocess.CompletedProcess[str]:
    driver = Path(__file__).with_name("kill_driver.py")
    cmd = [sys.executable, str(driver), what, str(at), "--", "run", "--config", str(toml)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)


def _public_events(db: Path, cfg: TableConfig) -> str:
    """What ``GET /api/events`` shows of the game in ``db`` once a table has reopened it."""
    with EventLog(db) as ev:
        table = Table(cfg, ev)
        try:
            return TestClient(create_app(table, Hub())).get("/api/events", params={"limit": 500}).text
        finally:
            table.close()


@pytest.mark.slow
def test_kill_9_inside_a_reveal_then_restart_changes_nothing(tmp_path: Path) -> None:
    from tests.controller.test_faults import RUN, _free_port, logged_inputs, write_table_toml

    rec = recording("die-angler")
    straight_db, killed_db = tmp_path / "straight.sqlite3", tmp_path / "killed.sqlite3"
    write_table_toml(rec.cfg, tmp_path / "straight.toml", straight_db, _free_port())
    straight = subprocess.run(
        [*RUN, "--config", str(tmp_path / "straight.toml")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert straight.returncode == 0, straight.stderr[-2000:]
    want = json.loads(straight.stdout.strip().splitlines()[-1])

    toml = tmp_path / "killed.toml"
    # inside the first reveal (after 2 of its 3 selections are written), inside the second one after a
    # restart (which first reveals the first round again: 3 + 2), then at a plain commit
    for what, at in (("secret", 2), ("secret", 5), ("commit", 12)):
        write_table_toml(rec.cfg, toml, killed_db, _free_port())
        res = _run_until_killed(toml, what, at)
        assert res.returncode == -signal.SIGKILL, f"not killed at {what} {at}: {res.stderr[-2000:]}"
        with EventLog(killed_db) as ev:
            assert early_secrets(ev.replay()) == [], (
                f"a selection is in the log before its reveal ({what} {at})"
            )
            n_secret = sum(1 for e in ev.inputs() if e.data["type"] == "secret")
        shown = json.loads(_public_events(killed_db, rec.cfg))["events"]
        assert sum(1 for e in shown if e["kind"] == "input" and e["data"]["type"] == "secret") == n_secret
        assert n_secret % 3 == 0, f"{n_secret} selections shown: a round is shown before all three chose"
    write_table_toml(rec.cfg, toml, killed_db, _free_port())
    final = subprocess.run(
        [*RUN, "--config", str(toml)], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert final.returncode == 0, final.stderr[-2000:]
    got = json.loads(final.stdout.strip().splitlines()[-1])
    assert (got["scores"], got["status"], got["winners"]) == (want["scores"], want["status"], want["winners"])
    assert got["status"] == "over" and got["winners"] == ["cid"]
    assert logged_inputs(killed_db) == logged_inputs(straight_db)
