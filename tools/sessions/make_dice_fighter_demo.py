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

import argparse
import json
import random
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from draw import draw_hand  # noqa: E402
from make_dicetar_wars_demo import STEP, H, Recorder, W  # noqa: E402

from calibration.board import load_board  # noqa: E402
from calibration.camera import pi_camera3_calibration, save_calibration  # noqa: E402
from calibration.geometry import classify, is_borderline  # noqa: E402
from calibration.printing import render_board_image  # noqa: E402
from controller.scenario import Setup, new_game  # noqa: E402
from engine import Input, InputKind  # noqa: E402
from hardware.secret import menu_for  # noqa: E402
from tools.render_numbered.draw import Light, Look, board_background, render_dice  # noqa: E402
from tools.render_numbered.solids import Die  # noqa: E402
from training.synthetic import look_at, project  # noqa: E402

PX_PER_MM = 3.0
DIE_MM = 20.0  # percentile d10: diameter of the ring of its ten faces
REST_S = 2.0
PLAYERS = ["ann", "bob"]
SIDES = {"ann": "a", "bob": "b"}
BOARD_FILE = "dice-fighter.example.toml"
CARDS_FILE = "demo-cards.toml"
POWER_SLOTS = {"ann": ["power-first-1", "power-first-2"], "bob": ["power-second-1", "power-second-2"]}
BODIES = {"red": (40, 40, 200), "blue": (170, 80, 25), "green": (60, 150, 40)}
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


class Studio:
    """A fixed camera and light over the mat; renders numbered dice on it."""

    def __init__(self, seed: int) -> None:
        self.board = load_board(ROOT / "boards" / BOARD_FILE)
        self.cal = pi_camera3_calibration(W, H)
        self.k = self.cal.camera_matrix
        self.r, self.t = look_at((284.0, 198.0, -575.0), (280.0, 191.0, 0.0), -1.0)
        self.texture = render_board_image(self.board, PX_PER_MM)
        d = np.array([-0.3, 0.35, -0.89])
        self.light = Light(d / np.linalg.norm(d), 0.5, 0.6, 1.0)
        self.seed = seed
        self.noise = np.random.default_rng([seed, 1])

    def px(self, points: np.ndarray) -> np.ndarray:
        return project(np.asarray(points, np.float64), self.r, self.t, self.k)

    def render(self, dice: Sequence[Die]) -> np.ndarray:
        grain = np.random.default_rng([self.seed, 0])  # the same table in every frame
        frame = board_background(H, W, self.r, self.t, self.k, self.texture, PX_PER_MM, (70, 95, 120), grain)
        render_dice(frame, list(dice), self.r, self.t, self.k, self.light)
        return frame * self.light.gain

    def finish(self, frame: np.ndarray) -> np.ndarray:
        noisy = frame + self.noise.normal(0, 1.2, frame.shape).astype(np.float32)
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def still(self, dice: Sequence[Die]) -> np.ndarray:
        return self.finish(self.render(dice))

    def motion(self, flying: Sequence[Die], blur_px: int) -> np.ndarray:
        """Dice in flight over the empty mat, smeared along their flight (up the frame)."""
        empty = self.render([])
        full = self.render(flying)
        moving = (np.abs(full - empty).max(axis=2) > 8).astype(np.float32)
        k = max(3, blur_px | 1)
        kernel = np.zeros((k, k), np.float32)
        kernel[:, k // 2] = 1.0 / k
        smear = cv2.filter2D(full, -1, kernel)
        alpha = np.clip(cv2.filter2D(moving, -1, kernel) * 1.5, 0, 1)[..., None]
        return self.finish(empty * (1 - alpha) + smear * alpha)

    def ground(self, u: float, v: float) -> np.ndarray:
        ray = np.linalg.solve(self.k, np.array([u, v, 1.0])) @ self.r
        c = -self.r.T @ self.t
        return np.asarray((c - c[2] / ray[2] * ray)[:2], np.float64)


def look(colour: str, seed: int) -> Look:
    return Look(
        BODIES[colour], (245, 245, 245), None, 3.0, cv2.FONT_HERSHEY_SIMPLEX, 0.12, 0.95, "underline", seed
    )


class Session:
    def __init__(self, seed: int, out: Path) -> None:
        self.seed, self.out = seed, out
        self.studio = Studio(seed)
        self.rec = Recorder(out)
        self.rng = np.random.default_rng(seed)
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
        t0 = self.rec.show(self.last, 0.5) + 0.5
        inputs = []
        end = t0
        for n, player in enumerate(players):
            who, fighter = self.picks.pop(0)
            if who != player:
                raise SystemExit(f"the engine asks {player} to pick, the plan has {who}")
            options = [v for _, v in menu_for(self.game, player).fields[0].options]
            t = t0 + 0.3 * n
            for _ in range(options.index(fighter)):
                self.script.append(
                    {"t": round(t, 3), "source": "button", "player": player, "press": "up", "hold": 0.0}
                )
                t += 0.4
            self.script.append(
                {"t": round(t, 3), "source": "button", "player": player, "press": "confirm", "hold": 1.5}
            )
            end = max(end, t + 1.5)
            inputs.append(Input(InputKind.SECRET, player, {"fighter": fighter}))
        for inp in inputs:
            self.game.apply(inp)
        self.rec.show(self.last, end - self.rec.t + 0.6)

    def card_turn(self, player: str, cards: Sequence[str], t: float) -> None:
        payload: dict[str, Any] = {"power": cards[0]} if cards else {"pass": True}
        inp = Input(InputKind.CHOICE, player, payload)
        self.game.apply(inp)
        self.script.append({"t": round(t, 3), "source": "button", "input": inp.to_json()})

    # --- frames ------------------------------------------------------------------------
    def _hand(self, reaches: Sequence[float], dice: Sequence[Die]) -> None:
        x = float(self.rng.uniform(W * 0.3, W * 0.7))
        for reach in reaches:
            img = self.studio.still(dice)
            draw_hand(img, reach, x, self.rng)
            self.rec.show(self.rec.write(img), STEP)

    def _die(self, colour: str, value: int, xy: tuple[float, float]) -> Die:
        for _ in range(200):
            d = Die.placed(
                "d10p", value, colour, DIE_MM, xy, float(self.rng.uniform(0, 360)),
                {"look": look(colour, int(self.rng.integers(1 << 30)))},
            )  # fmt: skip
            px = self.studio.px(d.vertices())
            if not (np.all(px > 20) and np.all(px[:, 0] < W - 20) and np.all(px[:, 1] < H - 20)):
                raise SystemExit(f"die at {xy} is out of the camera's view")
            if not is_borderline(d.footprint(), self.studio.board, 2.0):
                return d
        raise SystemExit(f"no clear yaw for the die at {xy}")

    def throw(self) -> None:
        plan = self.plans.pop(0)
        if self.dice:  # both players pick up their dice
            self.rec.show(self.last, 0.3)
            self._hand([0.5, 0.75], self.dice)
            self.dice = []
            self.rec.show(self.empty, 0.5)
        dice = [self._die(c, v, xy) for c, v, xy, _ in plan]
        self._hand([0.2, 0.4], [])
        for k, f in enumerate((0.35, 0.65, 0.9)):
            flying = []
            for d in dice:
                start = np.array([W * 0.5, H * 1.1])
                tgt = self.studio.px(d.centre[None, :])[0]
                g = self.studio.ground(*(start + (tgt - start) * f))
                flying.append(
                    Die.placed(
                        "d10p", int(self.rng.integers(10)) * 10, d.colour, DIE_MM, (float(g[0]), float(g[1])),
                        float(self.rng.uniform(0, 360)), d.look, base_z=-(30.0 * (1 - f) + 8.0),
                    )
                )  # fmt: skip
            self.rec.show(self.rec.write(self.studio.motion(flying, 25 - 7 * k)), STEP)
        self.dice = dice
        self.last = self.rec.write(self.studio.still(dice))
        t_rest = self.rec.show(self.last, REST_S)
        truth = []
        for (colour, value, _, thrower), d in zip(plan, dice, strict=True):
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
                self.script.append(
                    {
                        "t": round(t_rest + 0.6, 3),
                        "source": "admin",
                        "correction": {
                            "action": "set_thrower",
                            "die": {
                                "colour": colour,
                                "center_mm": [round(float(c), 1) for c in d.centre[:2]],
                            },
                            "thrower": thrower,
                        },
                        "who": "ref",
                    }
                )
            elif thrower is not None:
                raise SystemExit(f"the {colour} {value:02d} was planned to ring out but lies on {p}")
            entry["center_mm"] = [round(float(c), 2) for c in d.centre[:2]]
            top = d.top_face()
            entry["top_quad_px"] = [
                [round(float(x), 2), round(float(y), 2)] for x, y in self.studio.px(d.face_points(top))
            ]
            truth.append(entry)
        engine_dice = [
            {k: v for k, v in e.items() if k not in ("center_mm", "top_quad_px", "zones")} for e in truth
        ]
        self.game.apply(Input.from_json({"type": "throw", "dice": engine_dice}))
        self.throws.append(
            {"frame": self.last, "t_rest": t_rest, "round": len(self.throws) + 1, "dice": truth}
        )
        t = t_rest + 1.5
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
        self.rec.show(self.last, 1.0)
        self.rec.close()
        result = self.game.result()
        if result is None:
            raise SystemExit("the demo game did not finish")
        save_calibration(self.studio.cal, self.out / "camera.json")
        state = self.game.state_json()
        truth = {
            "seed": self.seed,
            "final_scores": self.game.scores(),
            "winners": list(result.winners),
            "reason": result.reason,
            "kod_fighters": {p: state["players"][p]["kod_fighters"] for p in PLAYERS},
            "throws": self.throws,
            "frames": len(self.rec.rows),
        }
        self.script.sort(key=lambda s: s["t"])
        (self.out / "script.jsonl").write_text("".join(json.dumps(s) + "\n" for s in self.script))
        session = {
            "setup": self.setup,
            "colours": {},  # Dice Fighter: every player throws red, blue and green; ownership is by side
            "dice_colours": ["red", "blue", "green"],
            "board": BOARD_FILE,
            "calibration": "camera.json",
            "width": W,
            "height": H,
            "fps": 1 / STEP,
            "generator": "tools/sessions/make_dice_fighter_demo.py",
            "seed": self.seed,
        }
        (self.out / "session.json").write_text(json.dumps(session, indent=2) + "\n")
        (self.out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
        return truth


def make(seed: int, out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():  # a fresh session; the folder's README (written by hand) stays
        if old.name != "README.md":
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    random.seed(seed)
    s = Session(seed, out)
    s.run()
    return s.finish()


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    truth = make(args.seed, args.out)
    size = sum(f.stat().st_size for f in args.out.iterdir())
    keys = ("final_scores", "winners", "reason", "frames")
    print(json.dumps({k: truth[k] for k in keys}), f"{size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
