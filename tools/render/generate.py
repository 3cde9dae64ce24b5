"""Write the rendered test scenes (``tests/fixtures/rendered``) with exact ground truth.

    .venv/bin/python tools/render/generate.py --out tests/fixtures/rendered --count 200 --seed 20261121

Each scene ``scene_NNNN`` is a 1280x960 JPEG (quality 85) plus a JSON file with
its truth, rendered by ``training/render/board_scenes.py`` (see there for what
varies).  Scene ``i`` depends only on ``(seed, i)``, so any single scene can be
regenerated alone.

The held-out variant (settings outside the d6 models' training ranges: dice of 14/16/19 mm mixed in a
scene, white dice on the white board, coloured light; ``make_scene(..., variant="heldout")``) is not
committed; it is made where the benchmarks read it:

    .venv/bin/python tools/render/generate.py --variant heldout --seed 20261124 --count 100 \\
        --out /tmp/dicetable_heldout

``--empty`` also writes each scene's empty table (``OUT/empty/scene_NNNN.jpg``; the benchmarks render
it on the fly when a folder has none: ``benchmarks.scenes.empty_frame``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from training.render.board_scenes import VARIANTS, make_scene  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "rendered")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--variant", choices=list(VARIANTS), default="train")
    ap.add_argument(
        "--earlier",
        action="store_true",
        help="also write, for each scene with a stack, the frame before its stacked dice landed "
        "(OUT/earlier/scene_NNNN.*: the same camera and light, level-0 dice only)",
    )
    ap.add_argument(
        "--empty",
        action="store_true",
        help="also write each scene's empty table (OUT/empty/scene_NNNN.jpg: the same camera, board and "
        "light, no dice, a little exposure drift and its own noise; make_scene(..., empty=True))",
    )
    ap.add_argument(
        "--still",
        type=float,
        default=0.0,
        help="also write each DICETAR WARS scene as the camera's full-resolution still, this many times "
        "the frame's size (OUT/still/scene_NNNN.jpg; 2.7: a Pi Camera Module 3's 3456x2592; "
        "make_scene(..., still=K))",
    )
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    total = 0
    for i in range(args.start, args.start + args.count):
        _, jpeg, truth = make_scene(i, args.seed, args.variant)
        (args.out / truth["image"]).write_bytes(jpeg)
        (args.out / f"scene_{i:04d}.json").write_text(json.dumps(truth, indent=1) + "\n")
        total += len(jpeg)
        if args.earlier and any(d["stack_level"] > 0 for d in truth["dice"]):
            _, jpeg, before = make_scene(i, args.seed, args.variant, earlier=True)
            (args.out / "earlier").mkdir(exist_ok=True)
            (args.out / "earlier" / before["image"]).write_bytes(jpeg)
            (args.out / "earlier" / f"scene_{i:04d}.json").write_text(json.dumps(before, indent=1) + "\n")
        if args.empty:
            _, jpeg, _ = make_scene(i, args.seed, args.variant, empty=True)
            (args.out / "empty").mkdir(exist_ok=True)
            (args.out / "empty" / f"scene_{i:04d}.jpg").write_bytes(jpeg)
        if args.still and truth["board"] == "dicetar-wars":
            _, jpeg, _ = make_scene(i, args.seed, args.variant, still=args.still)
            (args.out / "still").mkdir(exist_ok=True)
            (args.out / "still" / f"scene_{i:04d}.jpg").write_bytes(jpeg)
    print(f"wrote {args.count} scenes to {args.out} ({total / 1e6:.1f} MB of JPEG)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
