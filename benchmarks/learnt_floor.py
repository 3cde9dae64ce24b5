"""`benchmarks.roster_read` with the OCR head weighing a learnt die from another box side (issue 44 item 4:
`vision.numbered.ocr.LEARNT_MIN_SIDE`; 100 is the head's own floor, as before).

    nice -n 15 .venv/bin/python -m benchmarks.learnt_floor --floor 100 --train --trust --calibrated \
        --no-faces-alone --no-untrusted --no-before --die-px 60 --blur --step 1

Every other option is roster_read's (see its doc); ``--floor`` only sets the floor for the run.
"""

from __future__ import annotations

import argparse

from benchmarks import roster_read
from vision.numbered import ocr


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="roster_read with the head's floor for learnt dice set")
    ap.add_argument("--floor", type=float, default=ocr.LEARNT_MIN_SIDE, help="box side in pixels")
    ap.add_argument(
        "--small-weight",
        type=float,
        default=ocr.LEARNT_SMALL_WEIGHT,
        help="the head's weight for a die under 100 px (default: ocr.LEARNT_SMALL_WEIGHT)",
    )
    a, rest = ap.parse_known_args(argv)
    ocr.LEARNT_SMALL_WEIGHT = a.small_weight
    if not 8 <= a.floor <= 1000:
        ap.error(f"--floor: expected a box side of 8 to 1000 pixels, got {a.floor:g}")
    ocr.LEARNT_MIN_SIDE = a.floor
    roster_read.main(rest)


if __name__ == "__main__":
    main()
