"""Render the held-out TEST scenes of numbered dice (seeded, reproducible) into tests/fixtures/numbered/.

    PYTHONPATH=. .venv/bin/python tools/render_numbered/generate.py

* ``scene_NNNN.jpg`` + ``.json``: 1280x960 frames (JPEG quality 85) of 6-12 dice
  of all four kinds (d6, d10, percentile d10, d20) thrown on the DICETAR WARS or
  Dice Fighter example board; the JSON holds the camera and each die's kind,
  value, colour, pixel centre and box, and board placement.
* ``fighter_*.jpg``: a Dice Fighter round, six percentile d10 (two each of red,
  blue, green) on the Dice Fighter example board.
* ``angler_*.jpg``: Die-angler rolls, one frame per player (their d6s, d10, d20
  in their colour) on a plain table.

Scene ``i`` depends only on ``(seed, i)``.  The TEST generator's parameters
differ from the training generator's (see tools/render_numbered/scenes.py and
tests/fixtures/README.numbered.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.render_numbered.scenes import scene  # noqa: E402

SEED = 20261122
#: The Dice Fighter round: kinds, colours and values as thrown.
FIGHTER = {
    "kinds": ["d10p"] * 6,
    "colours": ["red", "red", "blue", "blue", "green", "green"],
    "values": [70, 50, 90, 0, 40, 60],
}
#: Die-angler rolls: ann (red) threw 2 d6 + d10 + d20, bob (blue) 3 d6 + d10.
ANGLER = {
    "ann": {"kinds": ["d6", "d6", "d10", "d20"], "colours": ["red"] * 4, "values": [3, 2, 0, 16]},
    "bob": {"kinds": ["d6", "d6", "d6", "d10"], "colours": ["blue"] * 4, "values": [1, 6, 2, 9]},
}


def write(out: Path, name: str, jpeg: bytes, truth: dict[str, Any]) -> None:
    truth["image"] = f"{name}.jpg"
    (out / f"{name}.jpg").write_bytes(jpeg)
    (out / f"{name}.json").write_text(json.dumps(truth, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "numbered")
    ap.add_argument("--count", type=int, default=80)
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    total = 0
    for i in range(args.count):
        board = "dicetar-wars" if i % 2 == 0 else "dice-fighter"
        _, jpeg, truth = scene(args.seed, i, board)
        write(args.out, f"scene_{i:04d}", jpeg, truth)
        total += len(jpeg)
    _, jpeg, truth = scene(args.seed, 1000, "dice-fighter", **FIGHTER)  # type: ignore[arg-type]
    write(args.out, "fighter_round", jpeg, truth)
    for j, (player, throw) in enumerate(ANGLER.items()):
        _, jpeg, truth = scene(args.seed, 2000 + j, "", **throw)  # type: ignore[arg-type]
        truth["player"] = player
        write(args.out, f"angler_{player}", jpeg, truth)
    print(f"wrote {args.count} scenes + game frames to {args.out} ({total / 1e6:.1f} MB of scene JPEG)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
