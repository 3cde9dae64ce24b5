"""Run the fuzz suite (tests/test_fuzz.py) at full size: 2,000 fresh random inputs per surface
(config files, scenario lines, HTTP bodies and query strings, serial input, image files), 10,000 in all.

    nice -n 10 .venv/bin/python -m benchmarks.fuzz [--per-surface 2000]

Prints how many inputs each surface got and whether any gave a 500, a traceback or a crash (any such
input fails its test, and hypothesis prints the smallest one it found).  CI runs the same tests at
200 inputs per surface.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from benchmarks.harness import ROOT, add_smoke, markdown_table, run_header

FUZZ_FILE = ROOT / "tests" / "test_fuzz.py"
SMOKE_PER_SURFACE = 3


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--per-surface", type=int, default=2000)
    add_smoke(parser)
    args = parser.parse_args()
    per_surface = SMOKE_PER_SURFACE if args.smoke else args.per_surface
    os.environ["DICETABLE_FUZZ_EXAMPLES"] = str(per_surface)  # also: fresh randomness
    import pytest

    started = time.perf_counter()
    code = pytest.main(["-q", "-p", "no:cacheprovider", str(FUZZ_FILE)])
    fuzz = next(m for m in list(sys.modules.values()) if getattr(m, "__file__", "") == str(FUZZ_FILE))
    seconds = time.perf_counter() - started
    total = sum(fuzz.SEEN.values())
    print("\n" + run_header())
    print("\n".join(markdown_table(["surface", "inputs"], sorted(fuzz.SEEN.items()))))
    print(
        f"\ntotal: {total} inputs in {seconds:.0f} s; "
        + ("no failure" if code == 0 else f"pytest exit {code}")
    )
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
