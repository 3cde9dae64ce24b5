"""Generate the recorded Dice Hunter demo session under tests/fixtures/sessions/.

    python tools/sessions/make_dice_hunter_demo.py [--seed 7] [--out DIR]

The session is a folder the recorded frame source plays back:

- ``frames.csv`` (``file,t``) and the JPEG frames: an empty table, a hand
  reaching in, dice rolling (motion-blurred), dice at rest; still periods
  reference the same file several times, as a noiseless camera would;
- ``script.jsonl``: the players' button choices with their times
  (``{"t": 3.2, "source": "button", "input": {...}}``), what a table gets
  from the button panels;
- ``session.json``: the game setup (game, players, options, seed);
- ``truth.json``: ground truth: every roll's true values and the final
  scores and winner the engine gives for them.

The dice values are drawn, never stored where the table reads them: the demo
reads them from the pixels, so a changed frame changes the result.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import random
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from draw import DrawnDie, draw_die, draw_hand, felt, scatter

from engine import Input, InputKind, RuleError, find_game

WIDTH, HEIGHT = 800, 600
STEP = 0.1  # seconds between frames (10 fps)
PLAYERS = ["ann", "bob", "cid"]
STYLES = ["ivory", "ivory", "red", "ivory", "red"]
READER_COLOUR = {"ivory": "white", "red": "red"}  # the palette names the reader reports
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"


class Recorder:
    """Writes frames (deduplicated by content) and the frames.csv timeline."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.rows: list[tuple[str, float]] = []
        self.t = 0.0
        self.count = 0

    def still(self, image: np.ndarray, seconds: float) -> float:
        """Show one image for ``seconds``; returns the time of its first frame."""
        name = self._write(image)
        first = self.t
        for _ in range(max(1, round(seconds / STEP))):
            self.rows.append((name, round(self.t, 3)))
            self.t += STEP
        return first

    def frame(self, image: np.ndarray) -> float:
        return self.still(image, STEP)

    def _write(self, image: np.ndarray) -> str:
        self.count += 1
        name = f"{self.count:05d}.jpg"
        cv2.imwrite(str(self.out / name), image, [cv2.IMWRITE_JPEG_QUALITY, 82])
        return name

    def close(self) -> None:
        with (self.out / "frames.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["file", "t"])
            w.writerows(self.rows)


class Table:
    """What lies on the drawn table, and how to show a throw."""

    def __init__(self, rec: Recorder, rng: np.random.Generator) -> None:
        self.rec = rec
        self.rng = rng
        self.background = felt(WIDTH, HEIGHT, rng)
        self.dice: list[DrawnDie] = []

    def image(self, dice: list[DrawnDie], blur: float = 0.0) -> np.ndarray:
        img = self.background.copy()
        for d in dice:
            draw_die(img, d, blur)
        return img

    def hand(self, dice: list[DrawnDie], reaches: list[float]) -> None:
        x = float(self.rng.uniform(WIDTH * 0.3, WIDTH * 0.7))
        for r in reaches:
            img = self.image(dice)
            draw_hand(img, r, x, self.rng)
            self.rec.frame(img)

    def throw(self, values: list[int], kept: list[DrawnDie]) -> float:
        """Hand in, dice rolling, dice at rest; returns the time the dice came to rest."""
        self.hand(kept, [0.25, 0.45, 0.3])
        final = scatter(
            values, WIDTH, HEIGHT, self.rng, STYLES[len(kept) : len(kept) + len(values)], fixed=kept
        )
        for k in range(4):  # rolling: moving towards the final spots, tumbling faces
            f = (k + 1) / 5
            moving = [
                DrawnDie(
                    int(self.rng.integers(1, 7)),
                    WIDTH / 2 + (d.x - WIDTH / 2) * f,
                    HEIGHT * 0.9 + (d.y - HEIGHT * 0.9) * f,
                    d.angle + 40 * (4 - k),
                    d.style,
                )
                for d in final
            ]
            self.rec.frame(self.image(kept + moving, blur=9 - 2 * k))
        self.dice = kept + final
        return self.rec.still(self.image(self.dice), 1.6)

    def clear(self) -> None:
        self.hand(self.dice, [0.5, 0.7])
        self.dice = []
        self.rec.still(self.image([]), 0.5)


def best_take(game: Any, player: str) -> str | None:
    """The most valuable face-up tile the dice satisfy (tried on the engine, which is atomic)."""
    best: tuple[int, str] | None = None
    for tile in game.state.get("face_up", []):
        before = game.scores()[player]
        probe = copy.deepcopy(game)
        try:
            probe.apply(Input(InputKind.CHOICE, player, {"take": tile}))
        except RuleError:
            continue
        gain = probe.scores()[player] - before
        if probe.result() is not None and player in probe.result().winners:
            return tile  # the reversal tile wins outright
        if best is None or gain > best[0]:
            best = (gain, tile)
    return None if best is None else best[1]


def make(seed: int, out: Path) -> dict[str, Any]:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    dice_rng = random.Random(seed)
    setup = {"game": "dice-hunter", "players": PLAYERS, "options": {"deck": "virtual"}, "seed": seed}
    game = find_game("dice-hunter")(PLAYERS, setup["options"], random.Random(seed), {})
    rec = Recorder(out)
    table = Table(rec, rng)
    script: list[dict[str, Any]] = []
    rolls: list[list[int]] = []
    settled: list[dict[str, Any]] = []  # each roll's still: true dice and where they lie
    rec.still(table.image([]), 1.0)

    def choose(player: str, payload: dict[str, Any], t: float) -> None:
        inp = Input(InputKind.CHOICE, player, payload)
        game.apply(inp)
        script.append({"t": round(t, 3), "source": "button", "input": inp.to_json()})

    while game.expects().kind is not None:
        exp = game.expects()
        if exp.kind is InputKind.REVEAL:
            raise SystemExit("the demo uses the virtual deck: no reveal inputs expected")
        player = exp.players[0]
        late = game.state.get("phase") == "late"
        kept: list[DrawnDie] = []
        for roll_no in range(3):
            n = 5 - len(kept)
            if late:  # the demo ends with the reversal tile: five 1s in the late game
                values = [1] * n
            else:
                values = [dice_rng.randint(1, 6) for _ in range(n)]
            t_rest = table.throw(values, kept)
            shown = sorted(d.value for d in table.dice)
            rolls.append(shown)
            settled.append(
                {
                    "file": rec.rows[-1][0],
                    "t0": round(t_rest, 3),
                    "t1": round(rec.t - STEP, 3),
                    "dice": [[d.value, READER_COLOUR[d.style]] for d in table.dice],
                    "centers": [[round(d.x, 1), round(d.y, 1)] for d in table.dice],
                }
            )
            game.apply(Input(InputKind.ROLL, player, {"dice": shown}))
            t_choice = t_rest + 1.2
            tile = best_take(game, player)
            if tile == "reversal" or (tile is not None and (roll_no == 2 or dice_rng.random() < 0.7)):
                choose(player, {"take": tile}, t_choice)
                break
            if roll_no == 2:
                choose(player, {"chips": True}, t_choice)
                break
            face, _ = Counter(shown).most_common(1)[0]
            keep = [d for d in table.dice if d.value == face]
            choose(player, {"keep": [d.value for d in keep]}, t_choice)
            kept = keep
        table.clear()
    rec.still(table.image([]), 0.5)
    rec.close()
    result = game.result()
    truth = {
        "seed": seed,
        "rolls": rolls,
        "final_scores": game.scores(),
        "winners": list(result.winners) if result else [],
        "frames": len(rec.rows),
        "settled": settled,
    }
    (out / "script.jsonl").write_text("".join(json.dumps(s) + "\n" for s in script))
    (out / "session.json").write_text(
        json.dumps(
            {
                "setup": setup,
                "width": WIDTH,
                "height": HEIGHT,
                "fps": 1 / STEP,
                "generator": "tools/sessions/make_dice_hunter_demo.py",
                "seed": seed,
            },
            indent=2,
        )
        + "\n"
    )
    (out / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    return truth


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    truth = make(args.seed, args.out)
    print(json.dumps({k: truth[k] for k in ("final_scores", "winners", "frames")}))


if __name__ == "__main__":
    main()
