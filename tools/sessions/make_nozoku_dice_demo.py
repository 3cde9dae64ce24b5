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

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mat_session import HEIGHT, WIDTH, MatSession
from presses import secret_round
from recorder import arguments, report
from stage import Stage

from controller.scenario import Setup
from engine import Game, Input, InputKind, RuleError
from training.render.tabletop import DrawnDie, grouped_by_face, spread

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


def throw_and_read(s: MatSession, player: str, values: list[int], styles: list[str]) -> float:
    """Throw; the engine gets the camera's view: every die on the table (the whole centre)."""
    kind = s.game.expects().detail["roll"]
    t_rest = s.stage.throw(values, styles)
    reading = [{"value": d.value, "colour": d.style} for d in s.stage.dice]
    s.apply(Input(InputKind.ROLL, player, {"dice": reading}))
    seen = s.stage.settled[-1]
    thrown = sorted([v, c] for v, c in zip(values, styles, strict=True))
    roll = {"t": round(t_rest, 3), "file": seen["file"], "roll": kind, "player": player}
    s.rolls.append({**roll, "thrown": thrown, "dice": seen["dice"]})
    return t_rest


def deal(s: MatSession, players: list[str], colours: dict[str, str], centre: Centre) -> float:
    """Each player's two own dice to their area, the rest into the centre; returns when they rest."""
    for p in players:
        throw_and_read(s, p, [s.dice_rng.randint(1, 6) for _ in range(2)], [colours[p]] * 2)
        s.stage.clear()
    in_centre = s.game.expects().detail["colours"]
    styles = [c for c in sorted(in_centre) for _ in range(in_centre[c])]
    t_last = throw_and_read(s, players[0], [s.dice_rng.randint(1, 6) for _ in styles], styles)
    if s.game.expects().kind is not InputKind.ROLL:  # multiplayer: the reroll follows at once
        centre.sort()
    return t_last


def secret_cards(s: MatSession, players: list[str], t_last: float) -> None:
    """Each player picks a card from their hand at random, by raw presses."""
    hands = {p: s.game.private_json(p)["hand"] for p in players}  # type: ignore[attr-defined]
    choices = {p: {"card": s.dice_rng.choice(hands[p])} for p in players}
    t0 = max(s.rec.t, t_last + 1.2)
    s.stage.rest(t0 - s.rec.t + 0.05, check=False)
    t_done = secret_round(s.game, choices, t0, s.script)
    s.stage.rest(t_done - s.rec.t + 0.6, check=False)
    for p in players:
        s.apply(Input(InputKind.SECRET, p, choices[p]))


def open_choice(s: MatSession, player: str, t_last: float) -> None:
    t = max(s.rec.t + 0.3, t_last + 1.2)
    s.choose(Input(InputKind.CHOICE, player, best_choice(s.game, player, s.dice_rng)), t)
    s.stage.rest(t - s.rec.t + 0.7, check=False)


def reroll(s: MatSession, player: str, faces: set[int]) -> float:
    """The start player picks up every centre die showing ``faces`` and throws them back."""
    picked = [d for d in s.stage.dice if d.value in faces]
    s.stage.dice = [d for d in s.stage.dice if d.value not in faces]
    values = [s.dice_rng.randint(1, 6) for _ in picked]
    return throw_and_read(s, player, values, [d.style for d in picked])


def make(seed: int, out: Path, players: list[str]) -> dict[str, Any]:
    colours = dict(zip(players, PALETTE, strict=False))
    options: dict[str, Any] = {"colours": colours}
    if len(players) <= 2:  # solo: two kept colours; two players: the third colour
        options["extra_colours"] = list(PALETTE[len(players) : 3])
    setup = Setup.from_json({"game": "nozoku-dice", "players": players, "options": options, "seed": seed})
    s = MatSession(out, setup, SIZE)
    centre = Centre(s.stage)
    s.stage.rest(1.0)
    t_last = deal(s, players, colours, centre)
    while (exp := s.game.expects()).kind is not None:
        if exp.kind is InputKind.SECRET:
            secret_cards(s, list(exp.players), t_last)
        elif exp.kind is InputKind.CHOICE:
            open_choice(s, exp.players[0], t_last)
        elif exp.kind is InputKind.ROLL and exp.detail.get("roll") == "reroll":
            t_last = reroll(s, exp.players[0], set(exp.detail["faces"]))
        else:
            raise SystemExit(f"the demo does not script {exp.describe()}; try another seed")
        centre.match(centre_of(s.game), settle=s.game.expects().kind is not InputKind.ROLL)
    s.stage.rest(1.0, check=False)
    truth = s.truth()
    solo = len(players) == 1
    if solo:
        truth.update({k: s.game.state[k] for k in ("rating", "hidden_wizard", "removed")})
    what = (
        "A complete solo Nozoku Dice game (red against the hidden wizard, 20 dice of 3 colours)."
        if solo
        else f"A complete {len(players)}-player Nozoku Dice game; secret card choices are raw presses."
    )
    s.write(truth, colours, Path(__file__).name, what, "" if solo else f" --players {','.join(players)}")
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
