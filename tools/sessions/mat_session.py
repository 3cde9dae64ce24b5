"""A game recorded on the drawn play mat: the engine, what it was given, and the files it ends in.

The Die-angler and Nozoku Dice sessions are made this way: coloured d6 on a
beige canvas mat (green dice on green felt hide from any eye), every distinct
picture stored once, the engine's inputs and every settled frame kept for
``truth.json``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
from recorder import Recorder, choice_line, clean, result_truth, session_meta, write_readme, write_session
from stage import Stage

from controller.scenario import Setup, new_game
from engine import Input
from training.render.tabletop import mat

WIDTH, HEIGHT = 800, 600


class MatSession:
    """The engine, the drawn table and the logs of one session, made from ``setup`` (and its seed)."""

    def __init__(self, out: Path, setup: Setup, size: float = 52.0) -> None:
        clean(out)
        self.out = out
        self.setup = setup
        self.rng = np.random.default_rng(setup.seed)
        #: the dice values and the players' choices, apart from the drawing's randomness
        self.dice_rng = random.Random(setup.seed)
        self.game = new_game(setup)
        self.rec = Recorder(out, dedup=True)
        self.stage = Stage(self.rec, self.rng, mat(WIDTH, HEIGHT, self.rng), size)
        self.stage.waiting_for = lambda: self.game.expects().kind
        self.script: list[dict[str, Any]] = []
        self.inputs: list[dict[str, Any]] = []
        self.rolls: list[dict[str, Any]] = []

    def apply(self, inp: Input) -> None:
        self.game.apply(inp)
        self.inputs.append(inp.to_json())

    def choose(self, inp: Input, t: float) -> None:
        """A choice made on a panel at ``t``."""
        self.apply(inp)
        self.script.append(choice_line(t, inp))

    def truth(self) -> dict[str, Any]:
        """Closes the timeline; the result, every throw and settled frame, the inputs in order."""
        self.rec.close()
        return result_truth(
            self.setup.seed,
            self.game,
            len(self.rec.rows),
            held=self.game.state["held"],
            rolls=self.rolls,
            settled=self.stage.settled,
            inputs=self.inputs,
        )

    def write(
        self, truth: dict[str, Any], colours: dict[str, str], generator: str, what: str, flags: str = ""
    ) -> None:
        """The session's files, as ``python tools/sessions/<generator> --seed N <flags>`` makes them."""
        seed = self.setup.seed
        meta = session_meta(self.setup.to_json(), (WIDTH, HEIGHT), generator, seed, colours=colours)
        write_session(self.out, self.script, meta, truth)
        write_readme(self.out, f"python tools/sessions/{generator} --seed {seed}{flags}", what)
