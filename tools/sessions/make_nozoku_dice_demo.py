"""Generate the recorded Nozoku Dice demo session under tests/fixtures/sessions/nozoku-dice-demo/.

    python tools/sessions/make_nozoku_dice_demo.py [--seed 5] [--out DIR]
    python tools/sessions/make_nozoku_dice_demo.py --players ann,bob --seed 3   # -> .../multi/

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

With ``--players ann,bob`` (2-4 players) it makes a multiplayer session in the
``multi/`` subfolder instead: each player throws their own two dice in turn,
the start player rerolls, and the card choices are secret: raw button presses
(``{"source": "button", "player", "press", "hold"}``) worked out from the real
``hardware.secret`` menu, each player picking a card from their hand at random.
"""

from __future__ import annotations

import copy
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from draw import DrawnDie, grouped_by_face, mat, spread
from presses import secret_round
from recorder import (
    Recorder,
    arguments,
    choice_line,
    clean,
    report,
    result_truth,
    session_meta,
    write_readme,
    write_session,
)
from stage import Stage

from controller.scenario import Setup, new_game
from engine import Game, Input, InputKind, RuleError

WIDTH, HEIGHT = 800, 600
PALETTE = ("red", "blue", "green", "yellow")
SIZE = 46.0
#: the sorted centre fills the upper part of the view, clear of its edges; throws land anywhere free
SORTED_AREA = (40.0, 45.0, WIDTH - 40.0, HEIGHT * 0.76)
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sessions" / "nozoku-dice-demo"


def centre_of(game: Game) -> Counter[tuple[int, str]]:
    return Counter((int(d["value"]), str(d["colour"])) for d in game.state["centre"])


def candidates(game: Game, player: str) -> list[dict[str, Any]]:
    """Every choice payload worth trying for what the game expects now (a Reroll of a held die: only skip)."""
    detail = game.expects().detail
    held = game.state["held"][player]
    if "play" in detail:
        return [{"card": c} for c in sorted(game.state["hand"][player])]
    if "take" in detail:
        return [{"take": {"value": v, "colour": c}} for v, c in sorted(centre_of(game))]
    action = detail["action"]
    out: list[dict[str, Any]] = []
    n = len(held)
    if action in ("flip", "up", "down", "set_to_4"):
        out = [{"action": action, "die": i} for i in range(n)]
    elif action == "exchange":
        own = sorted({v for v, c in centre_of(game) if c == game.state["colours"][player]})
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


def best_choice(game: Game, player: str, rng: random.Random) -> dict[str, Any]:
    """The legal choice giving the most magic now (tried on copies of the engine); ties: the first."""
    if "play" in game.expects().detail and game.state["phase"] == "prophecy":
        return {"card": rng.choice(sorted(game.state["hand"][player]))}
    best: tuple[int, dict[str, Any]] | None = None
    for payload in candidates(game, player):
        probe = copy.deepcopy(game)
        try:
            probe.apply(Input(InputKind.CHOICE, player, payload))
        except RuleError:
            continue
        gain = probe.scores()[player]
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

    def match(self, want: Counter[tuple[int, str]], settle: bool = True) -> None:
        """Take away dice the engine no longer has in the centre, put in the ones it gained, sort.

        ``settle=False`` when the game now waits for a throw: the table must not come to rest
        before that throw (the table would read a tidied centre as the throw), so the change is
        made under the hand of the throw that follows.
        """
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
        gained = [(v, c) for (v, c), n in (want - have).items() for _ in range(n)]
        if not settle:
            m = SIZE * 1.2
            area = (m, m, WIDTH - m, HEIGHT - m)
            st.dice = keep + spread([v for v, _ in gained], [c for _, c in gained], st.rng, area, SIZE, keep)
            return
        st.hand(st.dice, [0.45])
        st.dice = keep + [DrawnDie(v, 0.0, 0.0, 0.0, c, SIZE) for v, c in gained]
        self.sort()


def make(seed: int, out: Path, players: list[str]) -> dict[str, Any]:
    clean(out)
    rng = np.random.default_rng(seed)
    dice_rng = random.Random(seed)
    colours = dict(zip(players, PALETTE, strict=False))
    options: dict[str, Any] = {"colours": colours}
    if len(players) <= 2:  # solo: two kept colours; two players: the third colour
        options["extra_colours"] = list(PALETTE[len(players) : 3])
    setup = Setup.from_json({"game": "nozoku-dice", "players": players, "options": options, "seed": seed})
    game = new_game(setup)
    rec = Recorder(out, dedup=True)
    stage = Stage(rec, rng, mat(WIDTH, HEIGHT, rng), SIZE)
    stage.waiting_for = lambda: game.expects().kind
    centre = Centre(stage)
    script: list[dict[str, Any]] = []
    inputs: list[dict[str, Any]] = []
    rolls: list[dict[str, Any]] = []

    def apply(inp: Input) -> None:
        game.apply(inp)
        inputs.append(inp.to_json())

    def throw_and_read(player: str, values: list[int], styles: list[str]) -> float:
        """Throw; the engine gets the camera's view: every die on the table (the whole centre)."""
        kind = game.expects().detail["roll"]
        t_rest = stage.throw(values, styles)
        reading = [{"value": d.value, "colour": d.style} for d in stage.dice]
        apply(Input(InputKind.ROLL, player, {"dice": reading}))
        rolls.append(
            {
                "t": round(t_rest, 3),
                "file": stage.settled[-1]["file"],
                "roll": kind,
                "player": player,
                "thrown": sorted([v, c] for v, c in zip(values, styles, strict=True)),
                "dice": stage.settled[-1]["dice"],
            }
        )
        return t_rest

    stage.rest(1.0)
    # setup: each player's two own dice to their area, the rest into the centre
    for p in players:
        throw_and_read(p, [dice_rng.randint(1, 6) for _ in range(2)], [colours[p]] * 2)
        stage.clear()
    in_centre = game.expects().detail["colours"]
    styles = [c for c in sorted(in_centre) for _ in range(in_centre[c])]
    t_last = throw_and_read(players[0], [dice_rng.randint(1, 6) for _ in styles], styles)
    if game.expects().kind is not InputKind.ROLL:  # multiplayer: the reroll follows at once
        centre.sort()
    while game.expects().kind is not None:
        exp = game.expects()
        if exp.kind is InputKind.SECRET:
            hands = {p: game.private_json(p)["hand"] for p in exp.players}  # type: ignore[attr-defined]
            choices = {p: {"card": dice_rng.choice(hands[p])} for p in exp.players}
            t0 = max(rec.t, t_last + 1.2)
            stage.rest(t0 - rec.t + 0.05, check=False)
            t_done = secret_round(game, choices, t0, script)
            stage.rest(t_done - rec.t + 0.6, check=False)
            for p in exp.players:
                apply(Input(InputKind.SECRET, p, choices[p]))
            centre.match(centre_of(game), settle=game.expects().kind is not InputKind.ROLL)
        elif exp.kind is InputKind.CHOICE:
            player = exp.players[0]
            t = max(rec.t + 0.3, t_last + 1.2)
            payload = best_choice(game, player, dice_rng)
            inp = Input(InputKind.CHOICE, player, payload)
            apply(inp)
            script.append(choice_line(t, inp))
            stage.rest(t - rec.t + 0.7, check=False)
            centre.match(centre_of(game), settle=game.expects().kind is not InputKind.ROLL)
        elif exp.kind is InputKind.ROLL and exp.detail.get("roll") == "reroll":
            faces = set(exp.detail["faces"])
            picked = [d for d in stage.dice if d.value in faces]
            stage.dice = [d for d in stage.dice if d.value not in faces]
            t_last = throw_and_read(
                exp.players[0], [dice_rng.randint(1, 6) for _ in picked], [d.style for d in picked]
            )
            centre.match(centre_of(game), settle=game.expects().kind is not InputKind.ROLL)
        else:
            raise SystemExit(f"the demo does not script {exp.describe()}; try another seed")
    stage.rest(1.0, check=False)
    rec.close()
    truth = result_truth(
        seed,
        game,
        len(rec.rows),
        held=game.state["held"],
        rolls=rolls,
        settled=stage.settled,
        inputs=inputs,
    )
    if len(players) == 1:
        truth.update({k: game.state[k] for k in ("rating", "hidden_wizard", "removed")})
    meta = session_meta(setup.to_json(), (WIDTH, HEIGHT), Path(__file__).name, seed, colours=colours)
    write_session(out, script, meta, truth)
    solo = len(players) == 1
    write_readme(
        out,
        f"python tools/sessions/make_nozoku_dice_demo.py --seed {seed}"
        + ("" if solo else f" --players {','.join(players)}"),
        "A complete solo Nozoku Dice game (red against the hidden wizard, 20 dice of 3 colours)."
        if solo
        else f"A complete {len(players)}-player Nozoku Dice game; secret card choices are raw presses.",
    )
    return truth


def main() -> None:
    ap = arguments(__doc__, 5, None, "default: the demo folder, or its multi/")
    ap.add_argument("--players", default="ann", help="comma-separated, 1-4 (default: the solo game)")
    args = ap.parse_args()
    players = args.players.split(",")
    out = args.out or (DEFAULT_OUT if len(players) == 1 else DEFAULT_OUT / "multi")
    report(make(args.seed, out, players), out)


if __name__ == "__main__":
    main()
