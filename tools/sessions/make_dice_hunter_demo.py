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

import copy
import random
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from recorder import STEP, Recorder, choice_line, clean, run, session_meta, write_session
from stage import Stage

from engine import Input, InputKind, RuleError, find_game
from training.render.tabletop import DrawnDie, felt, scatter

WIDTH, HEIGHT = 800, 600
PLAYERS = ["ann", "bob", "cid"]
STYLES = ["ivory", "ivory", "red", "ivory", "red"]
READER_COLOUR = {"ivory": "white", "red": "red"}  # the palette names the reader reports
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"


def throw(stage: Stage, values: list[int], kept: list[DrawnDie]) -> float:
    """The dice not kept are picked up, then hand in, dice rolling, dice at rest; returns when they rest."""
    stage.dice = kept
    stage.hand(kept, [0.25, 0.45, 0.3])
    styles = STYLES[len(kept) : len(kept) + len(values)]
    final = scatter(values, WIDTH, HEIGHT, stage.rng, styles, fixed=kept)
    stage.roll(kept, final, frames=4, spin=40, blur_step=2)
    stage.dice = kept + final
    return stage.rest(1.6, check=False)


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


def settled_entry(stage: Stage, t_rest: float) -> dict[str, Any]:
    """The still the dice came to rest in: true dice in the reader's colour names, and where they lie."""
    return {
        "file": stage.rec.rows[-1][0],
        "t0": round(t_rest, 3),
        "t1": round(stage.rec.t - STEP, 3),
        "dice": [[d.value, READER_COLOUR[d.style]] for d in stage.dice],
        "centers": [[round(d.x, 1), round(d.y, 1)] for d in stage.dice],
    }


@dataclass
class Hunt:
    """The game being recorded, and what the script and the truth keep of it."""

    game: Any
    stage: Stage
    dice_rng: random.Random
    script: list[dict[str, Any]] = field(default_factory=list)
    rolls: list[list[int]] = field(default_factory=list)
    settled: list[dict[str, Any]] = field(
        default_factory=list
    )  # each roll's still: true dice, where they lie

    def choose(self, player: str, payload: dict[str, Any], t: float) -> None:
        inp = Input(InputKind.CHOICE, player, payload)
        self.game.apply(inp)
        self.script.append(choice_line(t, inp))

    def turn(self, player: str) -> None:
        """Up to three rolls: take a tile, keep the most common face and roll the rest, or take chips."""
        late = self.game.state.get("phase") == "late"
        kept: list[DrawnDie] = []
        for roll_no in range(3):
            n = 5 - len(kept)
            # the demo ends with the reversal tile: five 1s in the late game
            values = [1] * n if late else [self.dice_rng.randint(1, 6) for _ in range(n)]
            t_rest = throw(self.stage, values, kept)
            shown = sorted(d.value for d in self.stage.dice)
            self.rolls.append(shown)
            self.settled.append(settled_entry(self.stage, t_rest))
            self.game.apply(Input(InputKind.ROLL, player, {"dice": shown}))
            t_choice = t_rest + 1.2
            tile = best_take(self.game, player)
            if tile == "reversal" or (tile is not None and (roll_no == 2 or self.dice_rng.random() < 0.7)):
                self.choose(player, {"take": tile}, t_choice)
                break
            if roll_no == 2:
                self.choose(player, {"chips": True}, t_choice)
                break
            face, _ = Counter(shown).most_common(1)[0]
            kept = [d for d in self.stage.dice if d.value == face]
            self.choose(player, {"keep": [d.value for d in kept]}, t_choice)
        self.stage.clear(reaches=(0.5, 0.7))


def make(seed: int, out: Path) -> dict[str, Any]:
    clean(out)
    rng = np.random.default_rng(seed)
    setup = {"game": "dice-hunter", "players": PLAYERS, "options": {"deck": "virtual"}, "seed": seed}
    game = find_game("dice-hunter")(PLAYERS, setup["options"], random.Random(seed), {})
    rec = Recorder(out)
    hunt = Hunt(game, Stage(rec, rng, felt(WIDTH, HEIGHT, rng)), random.Random(seed))
    hunt.stage.rest(1.0)
    while (exp := game.expects()).kind is not None:
        if exp.kind is InputKind.REVEAL:
            raise SystemExit("the demo uses the virtual deck: no reveal inputs expected")
        hunt.turn(exp.players[0])
    hunt.stage.rest(0.5)
    rec.close()
    result = game.result()
    truth = {
        "seed": seed,
        "rolls": hunt.rolls,
        "final_scores": game.scores(),
        "winners": list(result.winners) if result else [],
        "frames": len(rec.rows),
        "settled": hunt.settled,
    }
    meta = session_meta(setup, (WIDTH, HEIGHT), Path(__file__).name, seed)
    write_session(out, hunt.script, meta, truth, truth_indent=2)
    return truth


if __name__ == "__main__":
    run(make, __doc__, 7, DEFAULT_OUT)
