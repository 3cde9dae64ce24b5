"""Generate the recorded DICETAR WARS demo session under tests/fixtures/sessions/.

    .venv/bin/python tools/sessions/make_dicetar_wars_demo.py [--seed 11] [--out DIR]

A complete game (two halves) for ann (red) and bob (blue), five d6 each, seen
by a fixed Pi Camera 3 over the example board (``boards/dicetar-wars.example.toml``),
rendered by the calibration renderer (``training.render.synthetic``): exact ground
truth, markers on the board for the pose.  The first half has a die stacked
on another, dice straddling zone borders, a die off the board and the rethrow
that lands it on the board; the second half another stack, a straddler and a
red die knocked off that the rethrow leaves off again (bob's half doubled).

Per throw: the board before, a hand reaching in from the bottom edge, the
dice tumbling in (motion-blurred, in the air), then the dice at rest for two
seconds.  Dice of earlier throws stay where they lie; between the halves a
hand clears the board.  Still periods reference one JPEG several times.

Folder contents (the recorded-session format of ``dicetable demo``):
``frames.csv`` (``file,t``), the JPEGs, ``script.jsonl`` (no button input:
every DICETAR WARS input is a throw the camera reads), ``session.json``,
``camera.json`` (the rendering camera's intrinsics) and ``truth.json``: every
throw's true dice with their geometry (what the engine was given), the
settled frame that shows it, and the final scores and winner the engine
gives for them.  Positions are laid out by hand (below); values and yaws come
from the seed.  Every die is checked clear of its deciding lines by 1 mm
(``calibration.geometry.is_borderline``), so the truth is unambiguous.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recorder import Recorder, clean, result_truth, run, session_meta, write_session  # noqa: E402
from studio import CubeStudio, Filming, H, Studio, W, board_mm  # noqa: E402

from calibration.board import BoardLayout  # noqa: E402
from calibration.geometry import classify, is_borderline  # noqa: E402
from controller.scenario import Setup, new_game  # noqa: E402
from engine import Input  # noqa: E402
from training.render.synthetic import Cube, Light, rotation_for_top  # noqa: E402

JPEG_QUALITY = 80
DIE_MM = 16.0
REST_S = 2.0
PLAYERS = ["ann", "bob"]
COLOURS = {"ann": "red", "bob": "blue"}
BOARD_FILE = "dicetar-wars.example.toml"
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "sessions" / "dicetar-wars-demo"
LIGHT_TOWARDS = np.array([0.35, 0.25, -0.9])


# --- dice -------------------------------------------------------------------------------


@dataclass
class Placed:
    """One die as it lies: the cube drawn and what the table says of it."""

    cube: Cube
    rests_on: int | None = None  # index into the table list


def flat(value: int, colour: str, x: float, y: float, yaw: float, level: int = 0) -> Cube:
    centre = np.array([x, y, -(level + 0.5) * DIE_MM])
    return Cube(value, colour, DIE_MM, rotation_for_top(value, yaw), centre, {"level": level})


def truth_dice(table: Sequence[Placed], board: BoardLayout, studio: Studio) -> list[dict[str, Any]]:
    """Each die as the engine takes it: zones from its own footprint, field status from its stack's bottom."""
    placements = [classify(p.cube.footprint(), board) for p in table]
    out = []
    for i, p in enumerate(table):
        c = p.cube
        pl = placements[i]
        root = i
        while table[root].rests_on is not None:
            root = int(table[root].rests_on)  # type: ignore[arg-type]
        top = c.top_value()
        d: dict[str, Any] = {
            "kind": "d6",
            "value": top,
            "colour": c.colour,
            "zones": list(pl.zones),
            "min_multiplier": pl.min_multiplier,
            "field_status": placements[root].field_status,
            "stack_level": int(c.extra["level"]),  # type: ignore[call-overload]
        }
        if p.rests_on is not None:
            d["rests_on"] = p.rests_on
        d["center_mm"] = board_mm(c.centre)
        d["top_quad_px"] = studio.quad_px(c.face_corners(top))
        out.append(d)
    return out


ENGINE_KEYS = (
    "kind",
    "value",
    "colour",
    "zones",
    "min_multiplier",
    "field_status",
    "stack_level",
    "rests_on",
)


def engine_die(d: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in ENGINE_KEYS if k in d}


# The game, laid out by hand: (x, y) mm on the board, or ("on", index) for a die stacked on
# die ``index`` of the table (offset 4 mm).  Comments give the intended zones.
HALF_1 = {
    "first": [(135, 125), (185, 175), (210, 75), (85, 225), (32, 205)],
    # x6 | x6 | across x3/x4 | x4 | on the board, no zone
    "second": [("on", 0), (285, 125), (447, 135), (235, 200), (335, 225)],
    # stacked on red x6 | x8 | off the board (right) | across x8/x3 | the L (x4)
    "rethrow": [(335, 75)],  # the off die lands in x4
}
HALF_2 = {
    "first": [(135, 175), (235, 125), (185, 75), (110, 225), (335, 125)],
    # x8 | x6 | x3 | across x4/x3 | x3
    "second": [(285, 175), ("on", 1), (85, 125), (205, 322), (185, 225)],
    # x6 | stacked on blue x6 | x4 | off the board (bottom) | x4
    "rethrow": [(-22, 95)],  # lands off the board again (left): bob's half doubled
}


class Session:
    def __init__(self, seed: int, out: Path) -> None:
        self.seed = seed
        self.out = out
        light = Light(LIGHT_TOWARDS / np.linalg.norm(LIGHT_TOWARDS))
        self.studio = CubeStudio(BOARD_FILE, (222.0, 168.0, -560.0), (210.0, 150.0), 1.5, seed, light=light)
        self.board = self.studio.board
        self.rec = Recorder(out, quality=JPEG_QUALITY)
        self.rng = np.random.default_rng(seed)
        self.film = Filming(self.studio, self.rec, self.rng)
        self.values = random.Random(seed)
        self.table: list[Placed] = []
        self.throws: list[dict[str, Any]] = []
        options = {"colours": COLOURS}
        self.setup = {
            "game": "dicetar-wars",
            "players": PLAYERS,
            "options": options,
            "seed": seed,
            "data": {"board": BOARD_FILE},
        }
        self.game = new_game(Setup.from_json(self.setup), base=out)
        self.last_still, _ = self.rec.still(self.studio.still([]), 1.0)

    def cubes(self) -> list[Cube]:
        return [p.cube for p in self.table]

    def _die(self, colour: str, spot: Any) -> Placed:
        """A die at a hand-laid spot with a seeded value and a yaw that keeps it clear of lines."""
        value = self.values.randint(1, 6)
        for _ in range(200):
            yaw = float(self.rng.uniform(0, 90))
            if spot[0] == "on":
                base = self.table[int(spot[1])].cube
                ang = float(self.rng.uniform(0, 2 * np.pi))
                xy = base.centre[:2] + 0.4 * DIE_MM * np.array([np.cos(ang), np.sin(ang)])
                level = int(base.extra["level"]) + 1  # type: ignore[call-overload]
                cube, rests_on = flat(value, colour, xy[0], xy[1], yaw, level), int(spot[1])
            else:
                cube, rests_on = flat(value, colour, spot[0], spot[1], yaw), None
            if not self.studio.in_view(cube.vertices()):
                raise SystemExit(f"die at {spot} is out of the camera's view")
            if is_borderline(cube.footprint(), self.board, 1.5):
                continue
            if any(
                int(p.cube.extra["level"]) == int(cube.extra["level"])  # type: ignore[call-overload]
                and np.linalg.norm(p.cube.centre[:2] - cube.centre[:2]) < DIE_MM * 1.6
                for p in self.table
            ):
                raise SystemExit(f"die at {spot} lands on another die")
            return Placed(cube, rests_on)
        raise SystemExit(f"no clear yaw for the die at {spot}")

    def _fly(
        self,
        new: list[Placed],
        fractions: tuple[float, ...],
        blur: tuple[int, int],
        height: Callable[[float, int], float],
    ) -> None:
        """``new`` in the air, tumbling, ``height(f, j)`` the z of die j's centre (up is -z)."""

        def tumbling(j: int, f: float, ground: np.ndarray) -> Cube:
            c = new[j].cube
            tumble = rotation_for_top(int(self.rng.integers(1, 7)), float(self.rng.uniform(0, 360)))
            return Cube(c.value, c.colour, DIE_MM, tumble, np.array([*ground, height(f, j)]), {"level": 0})

        self.film.fly(self.cubes(), [p.cube.centre for p in new], fractions, blur, tumbling)

    def throw(self, player: str, spots: Sequence[Any]) -> None:
        new = [self._die(COLOURS[player], s) for s in spots]
        self.rec.show(self.last_still, 0.5)  # the board before
        self.film.hand(self.cubes(), [0.2, 0.4])
        # in flight: rising from the bottom edge, tumbling, coming down
        self._fly(new, (0.35, 0.65, 0.9), (25, 7), lambda f, j: -(30.0 * (1 - f) + 10.0) - DIE_MM / 2 - j)
        self.table += new
        self._settle(player)

    def _settle(self, player: str) -> None:
        self.last_still, t = self.rec.still(self.studio.still(self.cubes()), REST_S)
        dice = truth_dice(self.table, self.board, self.studio)
        exp = self.game.expects()
        inp = Input.from_json({"type": "throw", "player": player, "dice": [engine_die(d) for d in dice]})
        self.game.apply(inp)
        self.throws.append(
            {
                "player": player,
                "step": exp.detail["step"],
                "half": exp.detail["half"],
                "frame": self.last_still,
                "t_rest": round(t, 3),
                "dice": dice,
            }
        )

    def _rethrow(self, player: str, dice: Sequence[tuple[str, Any]]) -> None:
        new = [self._die(colour, spot) for colour, spot in dice]
        self._fly(new, (0.4, 0.8), (21, 8), lambda f, j: -30.0)
        self.table += new
        self._settle(player)

    def clear(self) -> None:
        self.film.hand(self.cubes(), [0.45, 0.75, 0.5])
        self.table = []
        self.last_still, _ = self.rec.still(self.studio.still([]), 1.0)

    def half(self, first: str, second: str, plan: dict[str, list[Any]]) -> None:
        self.throw(first, plan["first"])
        self.throw(second, plan["second"])
        exp = self.game.expects()
        if exp.kind is None or exp.detail.get("step") != "rethrow":
            raise SystemExit(f"expected a rethrow after the second throw, engine expects {exp}")
        off = [i for i, d in enumerate(self.throws[-1]["dice"]) if d["field_status"] == "off"]
        if len(off) != len(plan["rethrow"]):
            raise SystemExit(f"plan rethrows {len(plan['rethrow'])} dice but {len(off)} are off the board")
        x = self.film.hand(self.cubes(), [0.5, 0.8])  # the first player gathers the dice off the board ...
        gone = [self.table[i].cube.colour for i in off]
        if any(p.rests_on is not None and p.rests_on > min(off) for p in self.table):
            raise SystemExit("gathering would renumber a stack's base: lay off-board dice after stack bases")
        self.table = [p for i, p in enumerate(self.table) if i not in off]
        self.film.hand(self.cubes(), [0.6, 0.4], x)  # ... and throws them at once: the hand never leaves
        self._rethrow(first, list(zip(gone, plan["rethrow"], strict=True)))

    def finish(self) -> dict[str, Any]:
        self.film.wrap_up(self.last_still, self.game)
        halves = self.game.state_json()["halves"]
        truth = result_truth(self.seed, self.game, len(self.rec.rows), halves=halves, throws=self.throws)
        extra = {"colours": COLOURS, "board": BOARD_FILE, "calibration": "camera.json"}
        meta = session_meta(self.setup, (W, H), Path(__file__).name, self.seed, **extra)
        write_session(self.out, [], meta, truth)
        return truth


def make(seed: int, out: Path) -> dict[str, Any]:
    clean(out)
    s = Session(seed, out)
    s.half("ann", "bob", HALF_1)
    s.clear()
    s.half("bob", "ann", HALF_2)
    return s.finish()


if __name__ == "__main__":
    run(make, __doc__, 11, DEFAULT_OUT)
