"""The damaged-log salvage sweep (issue 31 item 8): damage copies of a real game's log at random pages,
salvage each with ``dicetable log salvage``'s code, and count the salvaged logs that replay and pass
``log check``, beside what the old salvage (every intact event copied) gave, in one run; then every
single-byte damage of the file header, and the log truncated to 25, 50 and 75% (issue 47 item 5).

    nice -n 10 .venv/bin/python -m benchmarks.log_salvage [--logs 200] [--seed 1] [--out FILE.md]

The log is a Dice Hunter game (tests/scenarios/dice-hunter/three-players-virtual-deck.jsonl: its
inputs, their outcomes, and three camera readings before each input, as a table logs them).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from benchmarks.harness import ROOT, add_smoke, markdown_table, run_header, write
from controller.eventlog import EventLog, LogError, replay_events
from controller.logrepair import read_intact, salvage
from controller.scenario import Setup, new_game, parse_lines
from engine import Input

SCENARIO = ROOT / "tests" / "scenarios" / "dice-hunter" / "three-players-virtual-deck.jsonl"


def game_log(path: Path, scenario: Path = SCENARIO) -> int:
    """A real game's log at ``path``: the scenario's inputs with their outcomes, camera readings between."""
    lines = scenario.read_text(encoding="utf-8").splitlines()
    inputs = 0
    with EventLog(path) as ev:
        game = game_no = None
        for _, _, obj in parse_lines(lines, str(scenario)):
            if "setup" in obj:
                setup = Setup.from_json(obj["setup"])
                game, game_no = new_game(setup, scenario.parent), ev.start_game(setup)
                continue
            if "expect" in obj or "expect_error" in obj or game is None or game_no is None:
                continue
            inp = Input.from_json(obj)
            for k in range(3):  # what the camera saw before the input: spreads the inputs over pages
                ev.append(game_no, "reading", {"t": inputs, "k": k, "pad": "x" * 300}, "camera")
            ev.append_input(game_no, inp, game.apply(inp), "camera")
            inputs += 1
    return inputs


def damage(path: Path, seed: int) -> None:
    """Garble 6, 200 or 1,000 bytes at a random place of a random page (not the first)."""
    data = bytearray(path.read_bytes())
    rng = random.Random(seed)
    page = rng.randrange(1, len(data) // 4096)
    off = page * 4096 + rng.randrange(0, 3000)
    for k in range(rng.choice([6, 200, 1000])):
        data[off + k] ^= rng.randrange(1, 256)
    path.write_bytes(bytes(data))


def replays(path: Path) -> bool:
    """The log passes ``log check`` and every game in it replays."""
    if not read_intact(path).ok:
        return False
    try:
        with EventLog(path, read_only=True) as ev:
            for game in {e.game for e in ev.events()}:
                replay_events(ev.events(game), str(path))
    except LogError:
        return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=int, default=200, help="damaged logs to salvage")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    add_smoke(ap)
    args = ap.parse_args()
    logs = 3 if args.smoke else args.logs
    tally = {"old": [0, 0, 0], "new": [0, 0, 0]}  # replays, events written, events intact
    with tempfile.TemporaryDirectory() as tmp:
        sound = Path(tmp) / "sound.sqlite3"
        game_log(sound)
        total = len(read_intact(sound).events)
        for i in range(logs):
            db = Path(tmp) / f"d{i}.sqlite3"
            db.write_bytes(sound.read_bytes())
            damage(db, args.seed * 100_003 + i)
            new = Path(tmp) / f"new{i}.sqlite3"
            report = salvage(db, new)
            old = Path(tmp) / f"old{i}.sqlite3"
            with EventLog(old) as ev:  # what salvage did before: every intact event, replayable or not
                ev.restore(report.events)
            for name, path, written in (("old", old, len(report.events)), ("new", new, report.written)):
                tally[name][0] += replays(path)
                tally[name][1] += written
                tally[name][2] += len(report.events)
            print(f"\r{i + 1}/{logs} logs", end="", file=sys.stderr, flush=True)
        header = [0, 0]  # single-byte damages of the file header: logs keeping every event, written
        for at in range(8 if args.smoke else 100):
            data = bytearray(sound.read_bytes())
            data[at] ^= 0xFF
            db = Path(tmp) / f"h{at}.sqlite3"
            db.write_bytes(bytes(data))
            try:
                report = salvage(db, Path(tmp) / f"hs{at}.sqlite3")
            except LogError:
                continue
            header[0] += report.written == total
            header[1] += report.written
        n_header = 8 if args.smoke else 100
        cuts = []
        size = sound.stat().st_size
        for frac in (0.25, 0.5, 0.75):
            db = Path(tmp) / f"cut{frac}.sqlite3"
            db.write_bytes(sound.read_bytes()[: int(size * frac)])
            report = salvage(db, Path(tmp) / f"cuts{frac}.sqlite3")
            cuts.append(
                f"{frac:.0%}: {len(report.events)} read, {report.written} written, {len(report.lost)} lost"
            )
    print(file=sys.stderr)
    rows = [
        (
            name,
            f"{t[0]} of {logs}",
            f"{t[1] / logs:.0f} of {t[2] / logs:.0f} intact ({total} in the sound log)",
        )
        for name, t in (("salvage before (every intact event)", tally["old"]), ("salvage now", tally["new"]))
    ]
    text = "\n".join(
        [
            run_header(),
            "",
            *markdown_table(["", "salvaged logs that replay", "events kept (mean)"], rows),
            "",
            f"Single-byte damage of each of the first {n_header} bytes (the file header): "
            f"{header[0]} of {n_header} salvages keep all {total} events "
            f"({header[1] / n_header:.0f} written on average).",
            f"The log truncated to a share of its {size} bytes: " + "; ".join(cuts) + ".",
        ]
    )
    write(text + "\n", args.out)
    return 0 if tally["new"][0] == logs else 1


if __name__ == "__main__":
    sys.exit(main())
