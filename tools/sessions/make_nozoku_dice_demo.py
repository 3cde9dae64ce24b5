"""Generate the recorded Nozoku Dice demo session under tests/fixtures/sessions/nozoku-dice-demo/.

    python tools/sessions/make_nozoku_dice_demo.py [--seed 5] [--out DIR]

A complete solo game (ann plays red against the hidden wizard; blue and green
keep six dice each, yellow stays in the box).  The camera watches the centre
of the table; the player's held dice (手元) lie in front of the player, out of
view, so every settled frame shows exactly what the table must read:

1. ann throws her two red dice (roll / hand), then takes them to her area;
2. she throws the other 18 dice into the centre (roll / centre) and sorts
   them into six columns by face (1 on the left), colours together;
3. each round: the prophecy card (a button choice), then she picks up every
   centre die of the most common face(s) and throws them back in one motion
   (roll / reroll: the settled frame shows the whole centre, which the engine
   accepts as the reading), the hidden wizard's dice are set aside, the
   prophecy's main action, a card from the hand takes its dice out of the
   centre, its actions; when the hand is empty she takes one centre die.
   After every change the centre is sorted again.

Choices (all open in the solo game, so ``{"source": "button", "input": ...}``
lines) are made greedily by trying them on the engine.  Actions on held dice
are chosen to raise her magic; a Reroll of a held die is always skipped, so
every die the table reads lies in the centre.  ``truth.json`` holds every
settled frame's true dice (``settled``), the engine inputs in order
(``inputs``), the final scores and winners.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from draw import DrawnDie, grouped_by_face
from make_die_angler_demo import HEIGHT, STEP, WIDTH, Recorder, Stage

from controller.scenario import Setup, new_game
from engine import Game, Input, InputKind, RuleError

PLAYER = "ann"
COLOURS = {"ann": "red"}
EXTRA_COLOURS = ["blue", "green"]
SIZE = 46.0
#: the sorted centre fills the upper part of the view; throws land anywhere free
SORTED_AREA = (20.0, 16.0, WIDTH - 20.0, HEIGHT * 0.74)
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sessions" / "nozoku-dice-demo"


def centre_of(game: Game) -> Counter[tuple[int, str]]:
    return Counter((int(d["value"]), str(d["colour"])) for d in game.state["centre"])


def candidates(game: Game) -> list[dict[str, Any]]:
    """Every choice payload worth trying for what the game expects now (a Reroll of a held die: only skip)."""
    detail = game.expects().detail
    held = game.state["held"][PLAYER]
    if "play" in detail:
        return [{"card": c} for c in sorted(game.state["hand"][PLAYER])]
    if "take" in detail:
        return [{"take": {"value": v, "colour": c}} for v, c in sorted(centre_of(game))]
    action = detail["action"]
    out: list[dict[str, Any]] = []
    n = len(held)
    if action in ("flip", "up", "down", "set_to_4"):
        out = [{"action": action, "die": i} for i in range(n)]
    elif action == "exchange":
        own = sorted({v for v, c in centre_of(game) if c == COLOURS[PLAYER]})
        out = [{"action": action, "die": i, "centre_value": v} for i in range(n) for v in own]
    elif action == "distribute":
        out = [
            {"action": action, "die": i, "raise": {str(j): k}}
            for i in range(n)
            for j in range(n)
            if j != i
            for k in range(1, 6)
        ]
    return [*out, {"action": "skip"}]


def best_choice(game: Game, rng: random.Random) -> dict[str, Any]:
    """The legal choice giving the most magic now (tried on copies of the engine); ties: the first."""
    if "play" in game.expects().detail and game.state["phase"] == "prophecy":
        return {"card": rng.choice(sorted(game.state["hand"][PLAYER]))}
    best: tuple[int, dict[str, Any]] | None = None
    for payload in candidates(game):
        probe = copy.deepcopy(game)
        try:
            probe.apply(Input(InputKind.CHOICE, PLAYER, payload))
        except RuleError:
            continue
        gain = probe.scores()[PLAYER]
        if best is None or gain > best[0]:
            best = (gain, payload)
    if best is None:
        raise RuntimeError(f"no legal choice for {game.expects().describe()}")
    return best[1]


class Centre:
    """The drawn centre of the table, kept equal to the engine's centre."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage

    def sort(self, rest_s: float = 1.0) -> None:
        """A hand tidies the centre into columns by face."""
        st = self.stage
        st.hand(st.dice, [0.5])
        st.dice = grouped_by_face([(d.value, d.style) for d in st.dice], st.rng, SORTED_AREA, SIZE)
        st.rest(rest_s)

    def match(self, want: Counter[tuple[int, str]]) -> None:
        """Take away dice the engine no longer has in the centre, put in the ones it gained, sort."""
        st = self.stage
        have = Counter((d.value, d.style) for d in st.dice)
        if have == want:
            return
        extra = have - want
        keep: list[DrawnDie] = []
        for d in st.dice:
            if extra[(d.value, d.style)] > 0:
                extra[(d.value, d.style)] -= 1
            else:
                keep.append(d)
        added = [DrawnDie(v, 0.0, 0.0, 0.0, c, SIZE) for (v, c), n in (want - have).items() for _ in range(n)]
        st.hand(st.dice, [0.45])
        st.dice = keep + added
        self.sort()


def make(seed: int, out: Path) -> dict[str, Any]:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    dice_rng = random.Random(seed)
    setup = Setup.from_json(
        {
            "game": "nozoku-dice",
            "players": [PLAYER],
            "options": {"colours": COLOURS, "extra_colours": EXTRA_COLOURS},
            "seed": seed,
        }
    )
    game = new_game(setup)
    rec = Recorder(out)
    stage = Stage(rec, rng, SIZE)
    centre = Centre(stage)
    script: list[dict[str, Any]] = []
    inputs: list[dict[str, Any]] = []
    rolls: list[dict[str, Any]] = []

    def apply(inp: Input) -> None:
        game.apply(inp)
        inputs.append(inp.to_json())

    def throw_and_read(values: list[int], colours: list[str]) -> float:
        """Throw; the engine gets the camera's view: every die on the table (the whole centre)."""
        kind = game.expects().detail["roll"]
        t_rest = stage.throw(values, colours)
        reading = [{"value": d.value, "colour": d.style} for d in stage.dice]
        apply(Input(InputKind.ROLL, PLAYER, {"dice": reading}))
        rolls.append(
            {
                "t": round(t_rest, 3),
                "file": stage.settled[-1]["file"],
                "roll": kind,
                "thrown": sorted([v, c] for v, c in zip(values, colours, strict=True)),
                "dice": stage.settled[-1]["dice"],
            }
        )
        return t_rest

    stage.rest(1.0)
    # setup: two own dice to the player's area, the rest into the centre
    own = COLOURS[PLAYER]
    throw_and_read([dice_rng.randint(1, 6) for _ in range(2)], [own, own])
    stage.clear()
    in_centre = game.expects().detail["colours"]
    colours = [c for c in sorted(in_centre) for _ in range(in_centre[c])]
    t_last = throw_and_read([dice_rng.randint(1, 6) for _ in colours], colours)
    centre.sort()
    while game.expects().kind is not None:
        exp = game.expects()
        if exp.kind is InputKind.CHOICE:
            t = max(rec.t + 0.3, t_last + 1.2)
            payload = best_choice(game, dice_rng)
            inp = Input(InputKind.CHOICE, PLAYER, payload)
            apply(inp)
            script.append({"t": round(t, 3), "source": "button", "input": inp.to_json()})
            stage.rest(t - rec.t + 0.7, check=False)
            centre.match(centre_of(game))
        elif exp.kind is InputKind.ROLL and exp.detail.get("roll") == "reroll":
            faces = set(exp.detail["faces"])
            picked = [d for d in stage.dice if d.value in faces]
            stage.dice = [d for d in stage.dice if d.value not in faces]
            t_last = throw_and_read([dice_rng.randint(1, 6) for _ in picked], [d.style for d in picked])
            centre.match(centre_of(game))
        else:
            raise SystemExit(f"the demo does not script {exp.describe()}; try another seed")
    stage.rest(1.0, check=False)
    rec.close()
    result = game.result()
    truth = {
        "seed": seed,
        "final_scores": game.scores(),
        "winners": list(result.winners) if result else [],
        "rating": game.state["rating"],
        "hidden_wizard": game.state["hidden_wizard"],
        "removed": game.state["removed"],
        "rolls": rolls,
        "settled": stage.settled,
        "inputs": inputs,
        "frames": len(rec.rows),
    }
    (out / "script.jsonl").write_text("".join(json.dumps(s) + "\n" for s in script))
    meta = {
        "setup": setup.to_json(),
        "colours": dict(COLOURS),
        "width": WIDTH,
        "height": HEIGHT,
        "fps": 1 / STEP,
        "generator": "tools/sessions/make_nozoku_dice_demo.py",
        "seed": seed,
    }
    (out / "session.json").write_text(json.dumps(meta, indent=2) + "\n")
    (out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return truth


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    truth = make(args.seed, args.out)
    print(json.dumps({k: truth[k] for k in ("final_scores", "winners", "frames")}))


if __name__ == "__main__":
    main()
