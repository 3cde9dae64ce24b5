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

import argparse
import csv
import hashlib
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from draw import DrawnDie, draw_die, draw_hand, mat, spread

from controller.scenario import Setup, new_game
from engine import Game, Input, InputKind
from hardware.buttons import ButtonEvent, Press
from hardware.secret import Menu, RoundStatus, SecretRound, menu_for

WIDTH, HEIGHT = 800, 600
STEP = 0.1  # seconds between frames (10 fps)
PRESS_GAP = 0.35  # seconds between two clicks on a panel
HOLD_S = 1.2  # how long confirm is held to lock a secret choice
PLAYERS = ["ann", "bob", "cid"]
COLOURS = {"ann": "red", "bob": "blue", "cid": "green"}
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sessions" / "die-angler-demo"


class Recorder:
    """Writes frames (each distinct picture once) and the frames.csv timeline."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.rows: list[tuple[str, float]] = []
        self.t = 0.0
        self._names: dict[str, str] = {}

    def still(self, image: np.ndarray, seconds: float) -> tuple[str, float]:
        """Show one image for ``seconds``; returns its file name and the time of its first frame."""
        name = self._write(image)
        first = self.t
        for _ in range(max(1, round(seconds / STEP))):
            self.rows.append((name, round(self.t, 3)))
            self.t += STEP
        return name, first

    def frame(self, image: np.ndarray) -> None:
        self.still(image, STEP)

    def _write(self, image: np.ndarray) -> str:
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 82])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        key = hashlib.sha1(jpeg.tobytes()).hexdigest()
        if key not in self._names:
            name = f"{len(self._names) + 1:05d}.jpg"
            (self.out / name).write_bytes(jpeg.tobytes())
            self._names[key] = name
        return self._names[key]

    def close(self) -> None:
        with (self.out / "frames.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["file", "t"])
            w.writerows(self.rows)


class Stage:
    """The drawn table: what lies on it, hands, throws, and the settled frames to check."""

    def __init__(self, rec: Recorder, rng: np.random.Generator, size: float = 52.0) -> None:
        self.rec = rec
        self.rng = rng
        self.size = size
        # a beige canvas mat rather than green felt: green dice on green cloth hide from any eye
        self.background = mat(WIDTH, HEIGHT, rng)
        self.dice: list[DrawnDie] = []
        self.settled: list[dict[str, Any]] = []
        #: what the engine waits for while the table shows a frame (set by the generator)
        self.waiting_for: Callable[[], str | None] = lambda: None
        self._empty = self.background.copy()

    def image(self, dice: list[DrawnDie], blur: float = 0.0) -> np.ndarray:
        if not dice and blur == 0.0:
            return self._empty.copy()
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

    def rest(self, seconds: float, check: bool = True, throw: bool = False) -> float:
        """Hold the table still; a still table with dice is a settled frame the reader must get right.

        ``throw``: the dice just came to rest after a throw, so the engine scores this frame.
        """
        name, t = self.rec.still(self.image(self.dice), seconds)
        if check and self.dice:
            ordered = sorted(self.dice, key=lambda d: (d.value, d.style))
            dice = [[d.value, d.style] for d in ordered]
            entry = {
                "file": name,
                "t": round(t, 3),
                "seconds": seconds,
                "throw": throw,
                # where each die lies, and when: what the recorded referee looks at
                "t0": round(t, 3),
                "t1": round(t + seconds - 0.1, 3),
                "centers": [[round(d.x, 1), round(d.y, 1)] for d in ordered],
            }
            self.settled.append({**entry, "engine_expects": self.waiting_for(), "dice": dice})
        return t

    def throw(
        self,
        values: list[int],
        styles: list[str],
        area: tuple[float, float, float, float] | None = None,
        rest_s: float = 1.6,
    ) -> float:
        """Hand in, dice rolling towards their spots, dice at rest; returns when they came to rest."""
        kept = list(self.dice)
        self.hand(kept, [0.3, 0.45])
        m = self.size * 1.2
        final = spread(values, styles, self.rng, area or (m, m, WIDTH - m, HEIGHT - m), self.size, kept)
        for k in range(3):  # rolling: moving towards the final spots, tumbling faces
            f = (k + 1) / 4
            moving = [
                DrawnDie(
                    int(self.rng.integers(1, 7)),
                    WIDTH / 2 + (d.x - WIDTH / 2) * f,
                    HEIGHT * 0.9 + (d.y - HEIGHT * 0.9) * f,
                    d.angle + 45 * (3 - k),
                    d.style,
                    d.size,
                )
                for d in final
            ]
            self.rec.frame(self.image(kept + moving, blur=9 - 3 * k))
        self.dice = kept + final
        return self.rest(rest_s, throw=True)

    def take(self, leaving: list[DrawnDie], rest_s: float = 0.5, check: bool = True) -> None:
        """A hand picks up ``leaving`` from the table."""
        self.hand(self.dice, [0.55])
        gone = {id(d) for d in leaving}
        self.dice = [d for d in self.dice if id(d) not in gone]
        self.rest(rest_s, check)

    def clear(self) -> None:
        self.take(list(self.dice), rest_s=0.5)


def clean(out: Path) -> None:
    """An empty session folder; sub-folders (another session) are left alone."""
    out.mkdir(parents=True, exist_ok=True)
    for f in out.iterdir():
        if f.is_file():
            f.unlink()


def write_readme(out: Path, command: str, what: str) -> None:
    (out / "README.md").write_text(
        f"# {out.name}: a recorded demo session (generated, not photographed)\n\n"
        f"Made by `{command}` (tools/sessions/; seeded, deterministic).\n"
        f"{what}\n\n"
        "Frames are drawn top-down d6 dice on a play mat (tools/sessions/draw.py), 800x600 JPEG,\n"
        "10 fps in `frames.csv`; identical pictures are stored once. `script.jsonl` holds the button\n"
        "presses and choices with their times, `session.json` the game setup and colours,\n"
        "`truth.json` the true dice of every settled frame, the engine inputs, scores and winners.\n"
        "Checked by tests/sessions/test_session_fixtures_s1.py.\n"
    )


def presses_for(menu: Menu, wanted: dict[str, Any]) -> list[tuple[str, float]]:
    """(button, hold seconds) for one player: fewest clicks to ``wanted`` in each field, then confirm."""
    out: list[tuple[str, float]] = []
    for i, fld in enumerate(menu.fields):
        values = [v for _, v in fld.options]
        target = values.index(wanted.get(fld.name))
        n = len(values)
        if target:
            ups, downs = target, n - target
            out += [("up", 0.0)] * ups if ups <= downs else [("down", 0.0)] * downs
        if i + 1 < len(menu.fields) and any(
            [v for _, v in f.options].index(wanted.get(f.name)) for f in menu.fields[i + 1 :]
        ):
            out.append(("select", 0.0))
    out.append(("confirm", HOLD_S))
    return out


def secret_round(
    game: Game, choices: dict[str, dict[str, Any]], t0: float, script: list[dict[str, Any]]
) -> float:
    """Press each player's buttons for ``choices``; the real SecretRound checks they give exactly these.

    Returns the time the last confirm hold completes.  The engine gets the
    round's revealed inputs, as the table would.
    """
    menus = {p: menu_for(game, p) for p in choices}
    rnd = SecretRound(menus, t_start=t0, timeout_s=None)
    events: list[tuple[float, ButtonEvent, dict[str, Any]]] = []
    for k, (player, wanted) in enumerate(choices.items()):
        t = t0 + 0.4 + 0.2 * k
        for button, hold in presses_for(menus[player], wanted):
            line = {"t": round(t, 3), "source": "button", "player": player, "press": button, "hold": hold}
            kind = Press.HOLD if hold else Press.CLICK
            events.append((t + hold, ButtonEvent(player, button, kind, t + hold), line))
            t += hold + PRESS_GAP
    events.sort(key=lambda e: e[0])
    for _, ev, line in events:
        rnd.handle(ev)
        script.append(line)
    if rnd.status is not RoundStatus.REVEALED:
        raise RuntimeError(f"secret round not revealed after the presses: {rnd.public_status()}")
    for inp in rnd.inputs:
        want = choices[str(inp.player)]
        if dict(inp.data) != want:
            raise RuntimeError(f"presses for {inp.player} gave {dict(inp.data)}, wanted {want}")
    return max(e[0] for e in events)


def d6_choice(target: int, rng: random.Random) -> int:
    """How many d6 a player takes for a fish of ``target``: about enough, sometimes more, or a pass."""
    if rng.random() < 0.1:
        return 0
    need = max(1, min(5, round(target / 3.5)))
    return min(5, need + rng.choice((0, 0, 1, 1, 2)))


def make(seed: int, out: Path) -> dict[str, Any]:
    clean(out)
    rng = np.random.default_rng(seed)
    dice_rng = random.Random(seed)
    setup = Setup.from_json(
        {
            "game": "die-angler",
            "players": PLAYERS,
            "options": {"deck": "virtual", "colours": COLOURS},
            "seed": seed,
        }
    )
    game = new_game(setup)
    rec = Recorder(out)
    stage = Stage(rec, rng)
    stage.waiting_for = lambda: game.expects().kind
    script: list[dict[str, Any]] = []
    inputs: list[dict[str, Any]] = []
    rolls: list[dict[str, Any]] = []

    def apply(inp: Input) -> None:
        game.apply(inp)
        inputs.append(inp.to_json())

    stage.rest(1.0)
    while game.expects().kind is not None:
        exp = game.expects()
        if exp.kind is InputKind.SECRET:
            target = int(game.state["card"]["target"])
            choices = {p: {"d6": d6_choice(target, dice_rng), "specials": {}} for p in exp.players}
            t0 = rec.t
            t_done = secret_round(game, choices, t0, script)
            stage.rest(t_done - t0 + 0.6)
            for p in exp.players:
                apply(Input(InputKind.SECRET, p, choices[p]))
        elif exp.kind is InputKind.ROLL:
            group = list(exp.players)
            values = {
                p: [dice_rng.randint(1, 6) for _ in range(game.state["selections"][p]["d6"])] for p in group
            }
            styles = [COLOURS[p] for p in group for _ in values[p]]
            t_rest = stage.throw([v for p in group for v in values[p]], styles)
            for p in group:
                apply(Input(InputKind.ROLL, p, {"dice": sorted(values[p])}))
                rolls.append(
                    {
                        "t": round(t_rest, 3),
                        "file": stage.settled[-1]["file"],
                        "player": p,
                        "colour": COLOURS[p],
                        "dice": sorted(values[p]),
                    }
                )
            stage.clear()
        else:
            raise SystemExit(f"the demo does not script {exp.describe()}; try another seed")
    stage.rest(1.0)
    rec.close()
    result = game.result()
    truth = {
        "seed": seed,
        "final_scores": game.scores(),
        "winners": list(result.winners) if result else [],
        "held": game.state["held"],
        "rolls": rolls,
        "settled": stage.settled,
        "inputs": inputs,
        "frames": len(rec.rows),
    }
    script.sort(key=lambda s: s["t"])
    (out / "script.jsonl").write_text("".join(json.dumps(s) + "\n" for s in script))
    meta = {
        "setup": setup.to_json(),
        "colours": COLOURS,
        "width": WIDTH,
        "height": HEIGHT,
        "fps": 1 / STEP,
        "generator": "tools/sessions/make_die_angler_demo.py",
        "seed": seed,
    }
    (out / "session.json").write_text(json.dumps(meta, indent=2) + "\n")
    (out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    write_readme(
        out,
        f"python tools/sessions/make_die_angler_demo.py --seed {seed}",
        "A complete three-player Die-angler game, virtual deck, d6 only; secret selections are\n"
        "raw button presses.",
    )
    return truth


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    truth = make(args.seed, args.out)
    print(json.dumps({k: truth[k] for k in ("final_scores", "winners", "frames")}))


if __name__ == "__main__":
    main()
