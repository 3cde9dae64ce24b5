"""Generate the recorded Die-angler demo session under tests/fixtures/sessions/die-angler-demo/.

    python tools/sessions/make_die_angler_demo.py [--seed 11] [--out DIR]

A complete three-player game (ann red, bob blue, cid green, on a beige play
mat) with the virtual deck (the engine turns the fish cards, so no reveal is
entered) and d6 only:
each bout the players pick how many d6 to take on their button panels (raw
``up``/``down`` clicks and a held ``confirm``, worked out from the real menu of
``hardware.secret``), then the groups throw their own-coloured dice in order
(fewest dice first; players called together throw at once, so a frame may
show two colours and the table keeps each player's colour).

Files, as in the Dice Hunter session (see ``make_dice_hunter_demo.py``):
``frames.csv`` + JPEG frames (identical pictures are stored once and
referenced again), ``script.jsonl`` (raw secret button presses, ordered by
``t``), ``session.json`` (setup and colours) and ``truth.json``: every throw's
true dice with the still frame that shows them (``settled``), the engine
inputs in order (``inputs``), the final scores and winners.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mat_session import MatSession
from presses import secret_round
from recorder import run

from controller.scenario import Setup
from engine import Input, InputKind

PLAYERS = ["ann", "bob", "cid"]
COLOURS = {"ann": "red", "bob": "blue", "cid": "green"}
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sessions" / "die-angler-demo"


def d6_choice(target: int, rng: random.Random) -> int:
    """How many d6 a player takes for a fish of ``target``: about enough, sometimes more, or a pass."""
    if rng.random() < 0.1:
        return 0
    need = max(1, min(5, round(target / 3.5)))
    return min(5, need + rng.choice((0, 0, 1, 1, 2)))


def throw(s: MatSession, group: list[str]) -> None:
    """The players called together throw their selected d6 at once, each in their colour."""
    selections = s.game.state["selections"]
    values = {p: [s.dice_rng.randint(1, 6) for _ in range(selections[p]["d6"])] for p in group}
    styles = [COLOURS[p] for p in group for _ in values[p]]
    t_rest = s.stage.throw([v for p in group for v in values[p]], styles)
    for p in group:
        s.apply(Input(InputKind.ROLL, p, {"dice": sorted(values[p])}))
        roll = {"t": round(t_rest, 3), "file": s.stage.settled[-1]["file"], "player": p, "colour": COLOURS[p]}
        s.rolls.append({**roll, "dice": sorted(values[p])})
    s.stage.clear()


def make(seed: int, out: Path) -> dict[str, Any]:
    options = {"deck": "virtual", "colours": COLOURS}
    setup = Setup.from_json({"game": "die-angler", "players": PLAYERS, "options": options, "seed": seed})
    s = MatSession(out, setup)
    game, stage = s.game, s.stage
    stage.rest(1.0)
    while game.expects().kind is not None:
        exp = game.expects()
        if exp.kind is InputKind.SECRET:
            target = int(game.state["card"]["target"])
            choices = {p: {"d6": d6_choice(target, s.dice_rng), "specials": {}} for p in exp.players}
            t0 = s.rec.t
            t_done = secret_round(game, choices, t0, s.script)
            stage.rest(t_done - t0 + 0.6)
            for p in exp.players:
                s.apply(Input(InputKind.SECRET, p, choices[p]))
        elif exp.kind is InputKind.ROLL:
            throw(s, list(exp.players))
        else:
            raise SystemExit(f"the demo does not script {exp.describe()}; try another seed")
    stage.rest(1.0)
    truth = s.truth()
    what = (
        "A complete three-player Die-angler game, virtual deck, d6 only; secret selections are\n"
        "raw button presses."
    )
    s.write(truth, COLOURS, Path(__file__).name, what)
    return truth


if __name__ == "__main__":
    run(make, __doc__, 11, DEFAULT_OUT)
