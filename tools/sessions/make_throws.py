"""Generate recorded throws with ground truth: real throws, placed dice and slid dice.

    python tools/sessions/make_throws.py [--seed 22] [--out DIR] [--throws 9] [--kinds thrown,placed,slid]

The tumble check (``vision.tumble``) tells a throw from a die set down by hand or
pushed across the table; these sessions are what it is measured on.  Each throw
starts on the empty table and ends with the dice at rest for 1.2 s, then a hand
clears them away.  Three kinds, in turn (``truth.json`` names each one):

- ``thrown``: a hand reaches in from the bottom edge; the dice leave it and fly to
  their places over 3..7 frames, bouncing (seen larger when higher), tumbling (a
  new top face and turn in each frame, now and then the final face already in the
  last frame, as a die that rolls onto it and skids), smeared along their path;
  sometimes the hand is still in view in the first frame of the flight;
- ``placed``: a hand brings each die to its place and withdraws; the die rides at
  the fingertips (partly under the fingers) with one face up, or hidden under the
  palm until the hand lifts;
- ``slid``: the dice glide to their places over 3..6 frames, slowing down, the same
  face up all the way (turning a little in the table's plane), smeared by their
  speed; sometimes a pushing hand is in view in the first frame.

Frames are drawn top-down d6 on a felt table or a beige mat (training/render/tabletop.py),
800x600, 10 fps (the recorded sessions' rate; a real camera gives 3x more frames).
A moving die is smeared by drawing it at several points of its path within the
exposure (a third of the frame interval) and averaging.  The committed fixture is
``tests/fixtures/sessions/throws`` (seed 22); ``benchmarks/tumble.py`` makes its
held-out set with another seed.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from recorder import Recorder, arguments, clean, write_session

from training.render.tabletop import DrawnDie, draw_die, draw_hand, felt, mat, spread

WIDTH, HEIGHT = 800, 600
SIZE = 52.0
KINDS = ("thrown", "placed", "slid")
STYLES = ["ivory", "red", "blue", "black", "yellow"]
READER_COLOUR = {"ivory": "white", "red": "red", "blue": "blue", "black": "black", "yellow": "yellow"}
EXPOSURE = 0.33  # of the frame interval the shutter is open
SUBSTEPS = 5  # points of a die's path drawn within one exposure
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sessions" / "throws"


class ThrowFilm:
    """Draws the frames of one session of throws and keeps their truth."""

    def __init__(self, out: Path, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.rec = Recorder(out, dedup=True)
        self.background = (
            felt(WIDTH, HEIGHT, self.rng) if self.rng.random() < 0.5 else mat(WIDTH, HEIGHT, self.rng)
        )
        self.throws: list[dict[str, Any]] = []

    # -- drawing ------------------------------------------------------------------------------
    def picture(self, dice: Sequence[DrawnDie], hand: tuple[float, float] | None = None) -> np.ndarray:
        img = self.background.copy()
        for d in dice:
            draw_die(img, d)
        if hand is not None:
            draw_hand(img, hand[0], hand[1], np.random.default_rng(0))
        return img

    def smeared(
        self,
        paths: Sequence[Sequence[DrawnDie]],
        still: Sequence[DrawnDie] = (),
        hand: tuple[float, float] | None = None,
    ) -> np.ndarray:
        """Each die drawn at every point of its path within the exposure, averaged: motion blur."""
        acc = np.zeros((HEIGHT, WIDTH, 3), np.float32)
        steps = max(len(p) for p in paths) if paths else 1
        for k in range(steps):
            acc += self.picture([*still, *(p[min(k, len(p) - 1)] for p in paths)], hand).astype(np.float32)
        return np.clip(acc / steps, 0, 255).astype(np.uint8)

    def frame(self, image: np.ndarray) -> None:
        self.rec.frame(image)

    # -- the kinds ----------------------------------------------------------------------------
    def thrown(self, final: list[DrawnDie]) -> None:
        hx = float(self.rng.uniform(WIDTH * 0.3, WIDTH * 0.7))
        for reach in (0.25, 0.4):
            self.frame(self.picture([], (reach, hx)))
        start = np.array([hx, HEIGHT * (1 - 0.4) + 10])
        n = int(self.rng.integers(3, 8))
        skid = self.rng.random() < 0.4  # the last frame already shows the final face
        hand_first = self.rng.random() < 0.5
        bends = [
            np.array([d.x, d.y]) + self.rng.normal(0, SIZE * 1.2, 2) for d in final
        ]  # a bounce off the straight line
        for k in range(n):
            paths = []
            for d, bend in zip(final, bends, strict=True):
                path = []
                for s in range(SUBSTEPS):
                    f = (k + 1 - EXPOSURE * (1 - s / (SUBSTEPS - 1))) / (n + 1)
                    g = 1 - (1 - f) ** 1.6  # slowing down
                    xy = _bezier(start, bend, np.array([d.x, d.y]), g)
                    height = abs(math.sin(math.pi * g * 2.0)) * (1 - g)  # two hops, lower each time
                    path.append((xy, height, f))
                last = k == n - 1 and skid
                value = d.value if last else int(self.rng.integers(1, 7))
                spin = float(self.rng.uniform(0, 90)) if not last else d.angle + 25
                paths.append(
                    [
                        DrawnDie(
                            value,
                            float(xy[0]),
                            float(xy[1]),
                            spin + 40 * s / SUBSTEPS,
                            d.style,
                            SIZE * (1 + 0.35 * h),
                        )
                        for s, (xy, h, _) in enumerate(path)
                    ]
                )
            hand = (0.2, hx) if hand_first and k == 0 else None
            self.frame(self.smeared(paths, hand=hand))

    def placed(self, final: list[DrawnDie]) -> None:
        under_palm = self.rng.random() < 0.5
        done: list[DrawnDie] = []
        for d in final:
            tip = 0.02 if under_palm else 0.55  # fingertip y relative to the die: under the palm, at the tips
            start_y = HEIGHT * (1 - 0.1)
            n = int(self.rng.integers(2, 5))
            for k in range(n):
                f = (k + 1) / n
                y = start_y + (d.y - start_y) * f
                reach = 1 - (y + SIZE * tip) / HEIGHT
                angle = d.angle + (1 - f) * float(self.rng.uniform(-10, 10))
                held = DrawnDie(d.value, d.x, y, angle, d.style, SIZE * (1 + 0.15 * (1 - f)))
                self.frame(self.picture([*done, held], (reach, d.x)))
            done.append(d)
            reach = 1 - (d.y + SIZE * 1.4) / HEIGHT  # the fingers let go and draw back
            self.frame(self.picture(done, (max(reach, 0.05), d.x)))
            if self.rng.random() < 0.5:
                self.frame(self.picture(done, (max(reach - 0.2, 0.03), d.x)))

    def slid(self, final: list[DrawnDie]) -> None:
        n = int(self.rng.integers(3, 7))
        direction = self.rng.uniform(-0.6, 0.6) + math.pi / 2  # mostly from the thrower's edge
        distance = float(self.rng.uniform(3, 7)) * SIZE
        push = self.rng.random() < 0.5
        turn = float(self.rng.uniform(-20, 20))
        offset = np.array([math.cos(direction), math.sin(direction)]) * distance
        for k in range(n):
            paths = []
            for d in final:
                path = []
                for s in range(SUBSTEPS):
                    f = (k + 1 - EXPOSURE * (1 - s / (SUBSTEPS - 1))) / (n + 1)
                    g = 1 - (1 - f) ** 2  # friction: slower and slower
                    path.append(
                        DrawnDie(
                            d.value,
                            d.x + offset[0] * (1 - g),
                            d.y + offset[1] * (1 - g),
                            d.angle + turn * (1 - g),
                            d.style,
                            SIZE,
                        )
                    )
                paths.append(path)
            hand = None
            if push and k == 0:
                lead = paths[0][0]
                hand = (max(0.03, 1 - (lead.y + SIZE * 0.9) / HEIGHT), lead.x)
            self.frame(self.smeared(paths, hand=hand))

    # -- one throw ----------------------------------------------------------------------------
    def throw(self, kind: str) -> None:
        n = int(self.rng.integers(1, 6))
        values = [int(v) for v in self.rng.integers(1, 7, n)]
        styles = [STYLES[int(i)] for i in self.rng.integers(0, len(STYLES), n)]
        m = SIZE * 1.5
        final = spread(values, styles, self.rng, (m, m, WIDTH - m, HEIGHT * 0.62), SIZE)
        self.rec.still(self.picture([]), 0.6)
        {"thrown": self.thrown, "placed": self.placed, "slid": self.slid}[kind](final)
        name, t_rest = self.rec.still(self.picture(final), 1.2)
        self.throws.append(
            {
                "kind": kind,
                "frame": name,
                "t_rest": round(t_rest, 3),
                "dice": [
                    {
                        "value": d.value,
                        "colour": READER_COLOUR[d.style],
                        "center": [round(d.x, 1), round(d.y, 1)],
                        "side": SIZE,
                    }
                    for d in final
                ],
            }
        )
        hx = float(np.mean([d.x for d in final]))
        for reach in (0.5, 0.85, 0.5):  # a hand sweeps the dice away
            self.frame(self.picture([], (reach, hx)))


def _bezier(a: np.ndarray, b: np.ndarray, c: np.ndarray, t: float) -> np.ndarray:
    return np.asarray((1 - t) ** 2 * a + 2 * (1 - t) * t * b + t**2 * c, np.float64)


def make(seed: int, out: Path, throws: int = 9, kinds: Sequence[str] = KINDS) -> dict[str, Any]:
    """Make the session: ``throws`` throws of ``kinds`` in turn; returns its truth."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"kinds must be some of {list(KINDS)}, got {list(kinds)}")
    clean(out)
    film = ThrowFilm(out, seed)
    for i in range(throws):
        film.throw(kinds[i % len(kinds)])
    film.rec.still(film.picture([]), 1.0)
    film.rec.close()
    truth = {"seed": seed, "throws": film.throws, "frames": len(film.rec.rows)}
    meta = {
        "width": WIDTH,
        "height": HEIGHT,
        "fps": 10.0,
        "generator": "tools/sessions/make_throws.py",
        "seed": seed,
        "throws": throws,
        "kinds": list(kinds),
    }
    write_session(out, [], meta, truth)
    (out / "script.jsonl").unlink()
    flags = ("" if throws == 9 else f" --throws {throws}") + (
        "" if tuple(kinds) == KINDS else f" --kinds {','.join(kinds)}"
    )
    (out / "README.md").write_text(
        f"# {out.name}: recorded throws with ground truth (generated, not photographed)\n\n"
        f"Made by `python tools/sessions/make_throws.py --seed {seed}{flags}` (seeded, deterministic).\n"
        "Throws of each kind in turn: `thrown` (tumbling, bouncing), `placed` (set down by a hand),\n"
        "`slid` (pushed across with the same face up); each from the empty table to the dice at rest,\n"
        "then a hand clears them.  `truth.json` lists every throw: its kind, the frame and time the\n"
        "dice came to rest, and each die's value, colour, centre and side in pixels.  800x600 JPEG,\n"
        "10 fps in `frames.csv`; identical pictures are stored once.  What the kinds look like and\n"
        "how they are drawn: the generator's docstring.  Checked by tests/vision/test_tumble.py.\n"
    )
    return truth


def main() -> None:
    ap = arguments(__doc__, 22, DEFAULT_OUT)
    ap.add_argument("--throws", type=int, default=9, help="how many throws (kinds in turn)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="the kinds, comma-separated, in turn")
    args = ap.parse_args()
    try:
        truth = make(args.seed, args.out, args.throws, args.kinds.split(","))
    except ValueError as e:
        ap.error(str(e))
    size = sum(f.stat().st_size for f in args.out.iterdir() if f.is_file())
    print(f"{len(truth['throws'])} throws, {truth['frames']} frames, {size / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
