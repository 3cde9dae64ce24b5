"""The display tests' table: a real ``controller.table.Table`` whose camera the test controls.

Everything from the reader on is the real table: its SQLite event log (in the
test's temp dir), its questions, corrections, undo, button panels and secret
rounds.  Only what the reader sees is the test's: ``settle`` lays dice on a
felt frame and the reader returns them as read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from controller.config import TableConfig, parse_config
from controller.eventlog import EventLog
from controller.script import Scripted
from controller.session import mock_pins
from controller.table import Table
from hardware.frames import synthetic_table

HUNTERS = (("ann", "red"), ("bob", "blue"), ("cid", "green"))
ANGLERS = (("ann", "red"), ("bob", "blue"))
FRAME = synthetic_table(640, 360)
DIE_PX = 40  # the side of a die's top face in the test frame


def d6(value: int, colour: str = "red", confidence: float = 0.99, **more: Any) -> dict[str, Any]:
    """One die as the reader reports it; without a ``quad`` it is laid in the next free place."""
    return {"kind": "d6", "value": value, "colour": colour, "confidence": confidence, **more}


def _laid(i: int) -> dict[str, Any]:
    """The i-th place on the test frame: a row of dice, ten to a row."""
    x, y = 40 + 60 * (i % 10), 60 + 80 * (i // 10)
    h = DIE_PX / 2
    return {"center": [x, y], "quad": [[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]]}


class Rig:
    """One real table, its camera and its clock (seconds since the table opened)."""

    def __init__(
        self,
        folder: Path,
        game: str = "dice-hunter",
        players: Sequence[tuple[str, str]] = HUNTERS,
        options: Mapping[str, Any] | None = None,
        table_id: str = "t1",
        seed: int = 0,
        cfg: TableConfig | None = None,
    ) -> None:
        """A table of ``game`` for ``players``; or, given ``cfg``, the table it configures."""
        raw = {
            "table": {"id": table_id, "game": game, "options": dict(options or {}), "seed": seed},
            # mock GPIO pins: scripted presses go through the real panel machinery
            "players": [
                {"name": n, "colour": c, "pins": mock_pins(i).model_dump()}
                for i, (n, c) in enumerate(players)
            ],
        }
        self.seen: list[dict[str, Any]] = []
        self.t = 0.0
        cfg = cfg or parse_config(raw)
        self.table = Table(cfg, EventLog(folder / f"{cfg.table.id}.sqlite3"), reader=self._read, resume=False)
        self.table.panels.scripted = True  # the panels keep the rig's clock, not the machine's

    def _read(self, image: np.ndarray) -> list[dict[str, Any]]:
        return [dict(r) for r in self.seen]

    def settle(self, dice: Sequence[Mapping[str, Any]], frame: np.ndarray = FRAME) -> None:
        """A throw comes to rest in ``frame`` and the camera reads ``dice`` from it."""
        self.seen = [{**_laid(i), **d} for i, d in enumerate(dice)]
        self.t += 1.0
        self.table.on_settled(frame, self.t, self.t)

    def play(self, raw: Mapping[str, Any]) -> None:
        """An input given straight to the table (a scenario line): not through the camera or a panel."""
        from engine import Input

        self.t += 0.1
        self.table.apply(Input.from_json(dict(raw)), "scenario", self.t)

    def press(self, player: str, *buttons: str) -> None:
        """Click each button on the player's panel in turn; ``confirm`` is held (that locks a choice)."""
        presses = []
        for button in buttons:
            self.t += 0.3
            hold = 1.2 if button == "confirm" else 0.0
            presses.append(Scripted(self.t, "button", player=player, press=button, hold=hold))
        self.table.pending = presses
        self.run(1.5)

    def run(self, seconds: float) -> None:
        """Let the table's time pass (the panels and the secret round are driven as in the live loop)."""
        end = self.t + seconds
        while self.t < end:
            self.t += 0.05
            self.table.tick(self.t)

    def close(self) -> None:
        self.table.panels.close()
        self.table.log.close()
