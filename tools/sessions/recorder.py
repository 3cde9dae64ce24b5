"""Write a recorded session folder, the format ``dicetable demo`` plays (tests/fixtures/sessions/README.md).

:class:`Recorder` writes the frames and the ``frames.csv`` timeline; the
functions empty the folder, write the other files (``script.jsonl``,
``session.json``, ``truth.json``, a README) and give every generator the same
command line.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine import Game, Input

STEP = 0.1  # seconds between frames (10 fps)


class Recorder:
    """Writes JPEG frames and the frames.csv timeline; a still is one file listed many times.

    ``dedup``: a picture identical to one already written is listed again rather
    than written again; off, every picture gets its own file, as the Dice Hunter
    and the rendered sessions were recorded (a rendered picture never repeats: its
    sensor noise differs).
    """

    def __init__(self, out: Path, quality: int = 82, dedup: bool = False) -> None:
        self.out = out
        self.quality = quality
        self.dedup = dedup
        self.rows: list[tuple[str, float]] = []
        self.t = 0.0
        self._count = 0
        self._names: dict[str, str] = {}

    def write(self, image: np.ndarray) -> str:
        """The file name the picture is stored under."""
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        jpeg = buf.tobytes()
        key = hashlib.sha1(jpeg).hexdigest()
        if self.dedup and key in self._names:
            return self._names[key]
        self._count += 1
        name = f"{self._count:05d}.jpg"
        (self.out / name).write_bytes(jpeg)
        self._names[key] = name
        return name

    def show(self, name: str, seconds: float) -> float:
        """List file ``name`` for ``seconds`` (one frame at least); returns the time of its first frame."""
        first = self.t
        for _ in range(max(1, round(seconds / STEP))):
            self.rows.append((name, round(self.t, 3)))
            self.t += STEP
        return first

    def still(self, image: np.ndarray, seconds: float) -> tuple[str, float]:
        """Show one picture for ``seconds``: its file name and the time of its first frame."""
        name = self.write(image)
        return name, self.show(name, seconds)

    def frame(self, image: np.ndarray) -> str:
        return self.still(image, STEP)[0]

    def close(self) -> None:
        with (self.out / "frames.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["file", "t"])
            w.writerows(self.rows)


def clean(out: Path) -> None:
    """An empty session folder but for a README written by hand; sub-folders (another session) stay."""
    out.mkdir(parents=True, exist_ok=True)
    for f in out.iterdir():
        if f.is_file() and f.name != "README.md":
            f.unlink()


def choice_line(t: float, inp: Input) -> dict[str, Any]:
    """A script line: a choice made on a player's panel at ``t``."""
    return {"t": round(t, 3), "source": "button", "input": inp.to_json()}


def press_line(t: float, player: str, button: str, hold: float) -> dict[str, Any]:
    """A script line: a raw press of ``button`` on ``player``'s panel, held ``hold`` s (0: a click)."""
    return {"t": round(t, 3), "source": "button", "player": player, "press": button, "hold": hold}


def result_truth(seed: int, game: Game, frames: int, **more: Any) -> dict[str, Any]:
    """The truth a session ends with: scores and winners, what the generator adds, the frame count."""
    result = game.result()
    winners = list(result.winners) if result else []
    return {"seed": seed, "final_scores": game.scores(), "winners": winners, **more, "frames": frames}


def write_session(
    out: Path,
    script: list[dict[str, Any]],
    meta: dict[str, Any],
    truth: dict[str, Any],
    truth_indent: int = 1,
) -> None:
    """``script.jsonl`` (in time order), ``session.json`` and ``truth.json``."""
    lines = sorted(script, key=lambda s: s["t"])
    (out / "script.jsonl").write_text("".join(json.dumps(s) + "\n" for s in lines))
    (out / "session.json").write_text(json.dumps(meta, indent=2) + "\n")
    (out / "truth.json").write_text(json.dumps(truth, indent=truth_indent) + "\n")


def session_meta(
    setup: dict[str, Any], size: tuple[int, int], generator: str, seed: int, **more: Any
) -> dict[str, Any]:
    """``session.json``: the setup, what the game adds (colours, board...), the frames' size and rate."""
    width, height = size
    return {
        "setup": setup,
        **more,
        "width": width,
        "height": height,
        "fps": 1 / STEP,
        "generator": f"tools/sessions/{generator}",
        "seed": seed,
    }


def write_readme(out: Path, command: str, what: str) -> None:
    (out / "README.md").write_text(
        f"# {out.name}: a recorded demo session (generated, not photographed)\n\n"
        f"Made by `{command}` (tools/sessions/; seeded, deterministic).\n"
        f"{what}\n\n"
        "Frames are drawn top-down d6 dice on a play mat (training/render/tabletop.py), 800x600 JPEG,\n"
        "10 fps in `frames.csv`; identical pictures are stored once. `script.jsonl` holds the button\n"
        "presses and choices with their times, `session.json` the game setup and colours,\n"
        "`truth.json` the true dice of every settled frame, the engine inputs, scores and winners.\n"
        "Checked by tests/sessions/test_session_fixtures_s1.py.\n"
    )


def arguments(
    doc: str | None, seed: int, out: Path | None, out_help: str | None = None
) -> argparse.ArgumentParser:
    """The command line every generator takes: ``--seed`` and ``--out``."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--out", type=Path, default=out, help=out_help)
    return ap


def report(truth: dict[str, Any], out: Path) -> None:
    """The result, the frame count and the folder's size, on one line."""
    keys = [k for k in ("final_scores", "winners", "reason", "frames") if k in truth]
    size = sum(f.stat().st_size for f in out.iterdir() if f.is_file())
    print(json.dumps({k: truth[k] for k in keys}), f"{size / 1e6:.1f} MB")


def run(make: Callable[[int, Path], dict[str, Any]], doc: str | None, seed: int, out: Path) -> None:
    """Make the session the command line names (``--seed``, ``--out``) and report its result."""
    args = arguments(doc, seed, out).parse_args()
    report(make(args.seed, args.out), args.out)
