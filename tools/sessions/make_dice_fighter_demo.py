"""Generate the recorded Dice Fighter demo session under tests/fixtures/sessions/.

    .venv/bin/python tools/sessions/make_dice_fighter_demo.py [--seed 5] [--out DIR]

A complete short game for ann (side a, the left half) and bob (side b) on the
example mat (``boards/dice-fighter.example.toml``), six percentile d10s
(``00``-``90``: two red, two blue, two green) thrown by both at once, seen by
a fixed Pi Camera 3.  The dice are drawn by the numbered-dice renderer
(``tools/render_numbered``) over the calibration renderer's board and camera,
with exact truth.

The game uses its own small card file, ``demo-cards.toml`` in the session
folder (setup ``data.cards``): every fighter has HP 20 and no special, each
player starts with one Guard power card (damage taken -10) laid on their first
power-card slot (option ``power_slots`` names the mat's slots), so it ends
after four throws: ann KOs bob's level-3 and level-2 fighters (end flag at 5
levels) while bob KOs ann's level 3.  On the way: dice on both sides of the
centre line, a die resting on bob's laid power card (his), two ring-outs (the
referee says who threw each one, on the admin page), both Guards used from
the button panels, and the fighter picks made secretly with raw button
presses (``up`` clicks through the player's menu as ``hardware.secret``
builds it, then ``confirm`` held 1.5 s).

Folder contents: see ``make_dicetar_wars_demo.py``; here ``script.jsonl``
holds the presses, the referee's answers
(``{"source": "admin", "correction": {"action": "set_thrower", "die": {"colour", "center_mm"},
"thrower"}, "who": "ref"}``)
and the damage-card choices, and ``truth.json`` every throw's true dice.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recorder import Recorder, choice_line, clean, press_line, result_truth, run, session_meta, write_session  # noqa: E402
from studio import Filming, H, NumberedStudio, W, board_mm  # noqa: E402

from calibration.geometry import classify, is_borderline  # noqa: E402
from controller.scenario import Setup, new_game  # noqa: E402
from engine import Input, InputKind  # noqa: E402
from engine.dice_fighter import COLOURS  # noqa: E402
from hardware.secret import menu_for  # noqa: E402
from training.render.numbered.draw import Light, Look  # noqa: E402
from training.render.numbered.solids import Die  # noqa: E402

DIE_MM = 20.0  # percentile d10: diameter of the ring of its ten faces
REST_S = 2.0
PLAYERS = ["ann", "bob"]
SIDES = {"ann": "a", "bob": "b"}
BOARD_FILE = "dice-fighter.example.toml"
CARDS_FILE = "demo-cards.toml"
POWER_SLOTS = {"ann": ["power-first-1", "power-first-2"], "bob": ["power-second-1", "power-second-2"]}
BODIES = {"red": (40, 40, 200), "blue": (170, 80, 25), "green": (60, 150, 40)}
LIGHT_TOWARDS = np.array([-0.3, 0.35, -0.89])
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "sessions" / "dice-fighter-demo"

#: Fighter picks, in the order the engine asks for them.
PICKS = [("ann", "lv3-ronin"), ("bob", "lv3-titan"), ("bob", "lv2-scout"), ("ann", "lv2-monk")]
#: Each throw: (colour, value, (x, y) mm, thrower if it rings out).  Two dice of each colour.
THROWS: list[list[tuple[str, int, tuple[float, float], str | None]]] = [
    [  # ann 70 against bob 50: 20, Guard -10; ann's green rings out (10 to ann)
        ("red", 70, (150, 120), None),
        ("blue", 20, (205, 255), None),
        ("green", 50, (215, 358), "ann"),
        ("red", 30, (360, 110), None),
        ("blue", 50, (425, 270), None),
        ("green", 10, (521, 112), None),  # on bob's Guard card: bob's
    ],
    [  # ann 90 against bob 60: 30, KO of bob's level 3
        ("red", 90, (195, 130), None),
        ("green", 40, (130, 285), None),
        ("red", 60, (350, 200), None),
        ("blue", 20, (440, 100), None),
        ("blue", 30, (400, 295), None),
        ("green", 0, (455, 205), None),
    ],
    [  # bob 80 against ann 30: 50, Guard -10: KO of ann's level 3; bob's green rings out
        ("red", 10, (120, 100), None),
        ("blue", 30, (230, 290), None),
        ("green", 20, (170, 205), None),
        ("red", 80, (335, 150), None),
        ("blue", 50, (450, 250), None),
        ("green", 70, (345, 360), "bob"),
    ],
    [  # ann 90 against bob 40: KO of bob's level 2: 5 levels, end flag
        ("red", 90, (160, 150), None),
        ("blue", 70, (240, 260), None),
        ("green", 60, (110, 300), None),
        ("red", 20, (330, 100), None),
        ("blue", 10, (420, 195), None),
        ("green", 40, (380, 300), None),
    ],
]

CARDS = """\
# EXAMPLE card set for the recorded Dice Fighter demo session (made by
# tools/sessions/make_dice_fighter_demo.py): not the printed game.  Every fighter
# has HP 20 so that the demo ends in four throws; no specials and no support
# icons (every round is a normal attack); each player starts with one Guard.
example = true
"""


def _cards_toml() -> str:
    fighters = [
        ("lv3-ronin", 3),
        ("lv3-titan", 3),
        ("lv2-monk", 2),
        ("lv2-scout", 2),
        ("lv1-kit", 1),
        ("lv1-pup", 1),
    ]
    out = CARDS
    for fid, level in fighters:
        out += f'\n[[fighter]]\nid = "{fid}"\nname = "{fid[4:].title()}"\nlevel = {level}\nhp = 20\n'
    for owner in PLAYERS:
        out += (
            f'\n[[power]]\nid = "guard-{owner}"\nname = "Guard"\ninitial = true\n'
            'timing = "receive_damage"\neffect = "damage_reduce"\namount = 10\n'
        )
    return out


def look(colour: str, seed: int) -> Look:
    return Look(
        BODIES[colour], (245, 245, 245), None, 3.0, cv2.FONT_HERSHEY_SIMPLEX, 0.12, 0.95, "underline", seed
    )


class Session:
    def __init__(self, seed: int, out: Path) -> None:
        self.seed, self.out = seed, out
        light = Light(LIGHT_TOWARDS / np.linalg.norm(LIGHT_TOWARDS), 0.5, 0.6, 1.0)
        self.studio = NumberedStudio(
            BOARD_FILE, (284.0, 198.0, -575.0), (280.0, 191.0), -1.0, seed, light=light
        )
        self.rec = Recorder(out, quality=80)
        self.rng = np.random.default_rng(seed)
        self.film = Filming(self.studio, self.rec, self.rng)
        (out / CARDS_FILE).write_text(_cards_toml())
        self.setup = {
            "game": "dice-fighter",
            "players": PLAYERS,
            "options": {"power_slots": POWER_SLOTS},
            "seed": seed,
            "data": {"cards": CARDS_FILE},
        }
        self.game = new_game(Setup.from_json(self.setup), base=out)
        self.script: list[dict[str, Any]] = []
        self.throws: list[dict[str, Any]] = []
        self.dice: list[Die] = []
        self.empty = self.rec.write(self.studio.still([]))
        self.last = self.empty
        self.picks = list(PICKS)
        self.plans = list(THROWS)

    # --- inputs ----------------------------------------------------------------------
    def pick(self, players: Sequence[str]) -> None:
        """Secret fighter picks on the panels: ``up`` clicks to the card, then ``confirm`` held."""
        t0 = round(self.rec.show(self.last, 0.5), 3) + 0.5
        inputs = []
        end = t0
        for n, player in enumerate(players):
            who, fighter = self.picks.pop(0)
            if who != player:
                raise SystemExit(f"the engine asks {player} to pick, the plan has {who}")
            options = [v for _, v in menu_for(self.game, player).fields[0].options]
            t = t0 + 0.3 * n
            for _ in range(options.index(fighter)):
                self.script.append(press_line(t, player, "up", 0.0))
                t += 0.4
            self.script.append(press_line(t, player, "confirm", 1.5))
            end = max(end, t + 1.5)
            inputs.append(Input(InputKind.SECRET, player, {"fighter": fighter}))
        for inp in inputs:
            self.game.apply(inp)
        self.rec.show(self.last, end - self.rec.t + 0.6)

    def card_turn(self, player: str, cards: Sequence[str], t: float) -> None:
        payload: dict[str, Any] = {"power": cards[0]} if cards else {"pass": True}
        inp = Input(InputKind.CHOICE, player, payload)
        self.game.apply(inp)
        self.script.append(choice_line(t, inp))

    # --- frames ------------------------------------------------------------------------
    def _die(self, colour: str, value: int, xy: tuple[float, float]) -> Die:
        for _ in range(200):
            d = Die.placed(
                "d10p", value, colour, DIE_MM, xy, float(self.rng.uniform(0, 360)),
                {"look": look(colour, int(self.rng.integers(1 << 30)))},
            )  # fmt: skip
            if not self.studio.in_view(d.vertices()):
                raise SystemExit(f"die at {xy} is out of the camera's view")
            if not is_borderline(d.footprint(), self.studio.board, 2.0):
                return d
        raise SystemExit(f"no clear yaw for the die at {xy}")

    def _tumbling(self, dice: list[Die]) -> Callable[[int, float, np.ndarray], Die]:
        """Die j of ``dice`` in the air over a board point, showing a random face."""

        def tumbling(j: int, f: float, ground: np.ndarray) -> Die:
            d, xy = dice[j], (float(ground[0]), float(ground[1]))
            value = int(self.rng.integers(10)) * 10
            yaw = float(self.rng.uniform(0, 360))
            return Die.placed(
                "d10p", value, d.colour, DIE_MM, xy, yaw, d.look, base_z=-(30.0 * (1 - f) + 8.0)
            )

        return tumbling

    def throw(self) -> None:
        plan = self.plans.pop(0)
        if self.dice:  # both players pick up their dice
            self.rec.show(self.last, 0.3)
            self.film.hand(self.dice, [0.5, 0.75])
            self.dice = []
            self.rec.show(self.empty, 0.5)
        dice = [self._die(c, v, xy) for c, v, xy, _ in plan]
        self.film.hand([], [0.2, 0.4])
        self.film.fly([], [d.centre for d in dice], (0.35, 0.65, 0.9), (25, 7), self._tumbling(dice))
        self.dice = dice
        self.last, t = self.rec.still(self.studio.still(dice), REST_S)
        t_rest = round(t, 3)
        truth = [
            self._truth(d, c, v, thrower, t_rest) for (c, v, _, thrower), d in zip(plan, dice, strict=True)
        ]
        engine_dice = [
            {k: v for k, v in e.items() if k not in ("center_mm", "top_quad_px", "zones")} for e in truth
        ]
        self.game.apply(Input.from_json({"type": "throw", "dice": engine_dice}))
        self.throws.append(
            {"frame": self.last, "t_rest": t_rest, "round": len(self.throws) + 1, "dice": truth}
        )
        self._damage_cards(t_rest + 1.5)

    def _truth(self, d: Die, colour: str, value: int, thrower: str | None, t_rest: float) -> dict[str, Any]:
        """What the table must say of die ``d``; who threw a ring-out, the referee says on the admin page."""
        p = classify(d.footprint(), self.studio.board)
        entry: dict[str, Any] = {
            "kind": "d10p",
            "value": value,
            "colour": colour,
            "side": p.side,
            "field_status": p.field_status,
            "zones": [],
        }
        if p.card_slot is not None:
            entry["card_slot"] = p.card_slot
        if p.field_status == "off":
            if thrower is None:
                raise SystemExit(f"the {colour} {value:02d} rings out: the plan must say who threw it")
            entry["thrower"] = thrower
            die = {"colour": colour, "center_mm": [round(float(c), 1) for c in d.centre[:2]]}
            self.script.append(
                {
                    "t": round(t_rest + 0.6, 3),
                    "source": "admin",
                    "correction": {"action": "set_thrower", "die": die, "thrower": thrower},
                    "who": "ref",
                }
            )
        elif thrower is not None:
            raise SystemExit(f"the {colour} {value:02d} was planned to ring out but lies on {p}")
        entry["center_mm"] = board_mm(d.centre)
        entry["top_quad_px"] = self.studio.quad_px(d.face_points(d.top_face()))
        return entry

    def _damage_cards(self, t: float) -> None:
        """The players' power-card choices after a throw, from ``t`` on, 1.5 s apart."""
        while (
            self.game.expects().kind is InputKind.CHOICE and self.game.state_json()["phase"] == "damage_cards"
        ):
            exp = self.game.expects()
            cards = list(exp.detail.get("cards", {}).get("power", []))
            self.card_turn(exp.players[0], cards, t)
            t += 1.5
        if t > self.rec.t:
            self.rec.show(self.last, t - self.rec.t + 0.5)

    def run(self) -> None:
        self.rec.show(self.empty, 1.0)
        while (exp := self.game.expects()).kind is not None:
            phase = self.game.state_json()["phase"]
            if exp.kind is InputKind.SECRET:
                self.pick(exp.players)
            elif exp.kind is InputKind.THROW and phase == "throw":
                self.throw()
            else:
                raise SystemExit(f"the demo plan does not cover {exp} in phase {phase}")

    def finish(self) -> dict[str, Any]:
        self.film.wrap_up(self.last, self.game)
        state = self.game.state_json()
        truth = result_truth(
            self.seed,
            self.game,
            len(self.rec.rows),
            reason=self.game.result().reason,  # type: ignore[union-attr]
            kod_fighters={p: state["players"][p]["kod_fighters"] for p in PLAYERS},
            throws=self.throws,
        )
        extra = {
            "colours": {},  # Dice Fighter: every player throws red, blue and green; ownership is by side
            "dice_colours": list(COLOURS),
            "board": BOARD_FILE,
            "calibration": "camera.json",
        }
        meta = session_meta(self.setup, (W, H), Path(__file__).name, self.seed, **extra)
        write_session(self.out, self.script, meta, truth)
        return truth


def make(seed: int, out: Path) -> dict[str, Any]:
    clean(out)
    random.seed(seed)
    s = Session(seed, out)
    s.run()
    return s.finish()


if __name__ == "__main__":
    run(make, __doc__, 5, DEFAULT_OUT)
