"""Render the held-out TEST scenes of numbered dice (seeded, reproducible).

    PYTHONPATH=. .venv/bin/python tools/render_numbered/generate.py           # tests/fixtures/numbered
    PYTHONPATH=. .venv/bin/python tools/render_numbered/generate.py --still   # tests/fixtures/numbered_still

The first set is 1280x960 video frames (seed 20261122, 80 scenes); the second is
3456x2592 stills, the Pi Camera 3's full 4:3 sensor height over the same field of
view (seed 20261123, 40 scenes: fewer, to keep the repository small).

* ``scene_NNNN.jpg`` + ``.json``: 1280x960 frames (JPEG quality 85) of 6-12 dice
  of all four kinds (d6, d10, percentile d10, d20) thrown on the DICETAR WARS or
  Dice Fighter example board; the JSON holds the camera and each die's kind,
  value, colour, pixel centre and box, and board placement.
* ``fighter_*.jpg``: a Dice Fighter round, six percentile d10 (two each of red,
  blue, green) on the Dice Fighter example board.
* ``angler_*.jpg``: Die-angler rolls, one frame per player (their d6s, d10, d20
  in their colour) on a plain table.

Scene ``i`` depends only on ``(seed, i)``.  The TEST generator's parameters
differ from the training generator's (see training/render/numbered/scenes.py and
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

from training.render.numbered.scenes import scene  # noqa: E402

SEED = 20261122
STILL_SEED = 20261123
STILL_SCALE = 2.7  # 3456x2592
STILL_COUNT = 40
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
    ap.add_argument("--still", action="store_true", help="the 3456x2592 still set (its own seed and folder)")
    ap.add_argument("--out", type=Path, help="folder (default tests/fixtures/numbered or numbered_still)")
    ap.add_argument("--count", type=int, help="scenes (default 80, or 40 for --still)")
    ap.add_argument("--seed", type=int, help="seed (default 20261122, or 20261123 for --still)")
    args = ap.parse_args(argv)
    scale = STILL_SCALE if args.still else 1.0
    seed = args.seed if args.seed is not None else (STILL_SEED if args.still else SEED)
    count = args.count if args.count is not None else (STILL_COUNT if args.still else 80)
    out = args.out or ROOT / "tests" / "fixtures" / ("numbered_still" if args.still else "numbered")
    out.mkdir(parents=True, exist_ok=True)
    total = 0
    for i in range(count):
        board = "dicetar-wars" if i % 2 == 0 else "dice-fighter"
        _, jpeg, truth = scene(seed, i, board, scale=scale)
        write(out, f"scene_{i:04d}", jpeg, truth)
        total += len(jpeg)
    _, jpeg, truth = scene(seed, 1000, "dice-fighter", scale=scale, **FIGHTER)  # type: ignore[arg-type]
    write(out, "fighter_round", jpeg, truth)
    for j, (player, throw) in enumerate(ANGLER.items()):
        _, jpeg, truth = scene(seed, 2000 + j, "", scale=scale, **throw)  # type: ignore[arg-type]
        truth["player"] = player
        write(out, f"angler_{player}", jpeg, truth)
    print(f"wrote {count} scenes + game frames to {out} ({total / 1e6:.1f} MB of scene JPEG)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
