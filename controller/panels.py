"""The players' button panels of one table, and scripted presses for recorded sessions.

Each player with configured pins gets a :class:`hardware.buttons.GpioButtonPanel`
on the configured pin factory (``"mock"``: gpiozero's ``MockFactory``, whose
pins a recorded session drives low and high at the scripted times); a player
without pins on a mock table gets a :class:`hardware.buttons.FakeButtonPanel`.
Either way every press goes through the same debounce and hold machines.

Times: a recorded session stamps edges with its own clock (``drive`` sets it);
a live table stamps them with ``time.monotonic``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from controller.config import TableConfig
from hardware.buttons import BUTTONS, FakeButtonPanel, GpioButtonPanel

log = logging.getLogger("dicetable.panels")

#: how long a scripted press without ``hold`` keeps the button down (a click)
CLICK_S = 0.1


class PanelError(RuntimeError):
    """The button panels cannot be opened; the message names the player and pins."""


@dataclass(frozen=True, order=True)
class Edge:
    """A raw level change of one button, scripted at time ``t``."""

    t: float
    player: str
    button: str
    pressed: bool


def press_edges(t: float, player: str, button: str, hold: float = 0.0) -> list[Edge]:
    """The two edges of one scripted press: down at ``t``, up after ``hold`` (or a click)."""
    if button not in BUTTONS:
        raise ValueError(f"button {button!r}: expected one of {list(BUTTONS)}")
    if hold < 0:
        raise ValueError(f"hold must be >= 0 seconds, got {hold!r}")
    return [Edge(t, player, button, True), Edge(t + (hold if hold > 0 else CLICK_S), player, button, False)]


class PanelSet:
    """Every player's panel, opened from the table config."""

    def __init__(self, cfg: TableConfig, *, scripted: bool = False) -> None:
        self.scripted = scripted
        self._t: float | None = None
        self.factory: Any = None
        self.panels: dict[str, Any] = {}
        self.pins: dict[str, dict[str, int]] = {
            p.name: {b: n for b, n in p.pins.model_dump().items() if n is not None} for p in cfg.players
        }
        if cfg.buttons.pin_factory == "mock":
            from gpiozero.pins.mock import MockFactory

            self.factory = MockFactory()
        elif any(p.pins.select is not None for p in cfg.players):
            self.factory = _real_factory(cfg.buttons.pin_factory)
        try:
            for p in cfg.players:
                pins = p.pins.model_dump()
                if p.pins.select is not None:
                    self.panels[p.name] = GpioButtonPanel(
                        p.name, pins, pin_factory=self.factory, clock=self.clock
                    )
                elif self.factory is not None and cfg.buttons.pin_factory == "mock":
                    self.panels[p.name] = FakeButtonPanel(p.name, clock=self.clock)
                else:
                    log.warning("player %s has no button panel (no 'select' pin configured)", p.name)
        except ValueError as e:
            self.close()
            raise PanelError(f"button panels: {e}") from None

    def clock(self) -> float:
        return self._t if self._t is not None else time.monotonic()

    def now(self, t_frame: float) -> float:
        """The panels' time at a frame: the frame time when scripted, else the monotonic clock."""
        return t_frame if self.scripted else time.monotonic()

    def drive(self, edge: Edge) -> None:
        """Play one scripted edge on the player's panel, stamped with the edge's time."""
        panel = self.panels.get(edge.player)
        if panel is None:
            raise ValueError(
                f"scripted press for {edge.player!r}: no such player's panel ({sorted(self.panels)})"
            )
        self._t = edge.t
        if isinstance(panel, GpioButtonPanel):
            if edge.button not in self.pins[edge.player]:
                raise ValueError(
                    f"scripted press of {edge.button!r} for {edge.player!r}: that panel has only "
                    f"{sorted(self.pins[edge.player])}"
                )
            pin = self.factory.pin(self.pins[edge.player][edge.button])
            if edge.pressed:
                pin.drive_low()
            else:
                pin.drive_high()
        elif edge.pressed:
            panel.press(edge.button, edge.t)
        else:
            panel.release(edge.button, edge.t)

    def drive_all(self, edges: Iterable[Edge]) -> None:
        for e in edges:
            self.drive(e)

    def list(self) -> list[Any]:
        return list(self.panels.values())

    def close(self) -> None:
        for panel in self.panels.values():
            panel.close()
        self.panels = {}


def _real_factory(name: str) -> Any:
    try:
        if name == "native":
            from gpiozero.pins.native import NativeFactory

            return NativeFactory()
        if name == "lgpio":
            from gpiozero.pins.lgpio import LGPIOFactory

            return LGPIOFactory()
        if name == "rpigpio":
            from gpiozero.pins.rpigpio import RPiGPIOFactory

            return RPiGPIOFactory()
        from gpiozero.pins.pigpio import PiGPIOFactory

        return PiGPIOFactory()
    except Exception as e:  # no GPIO on this machine, or the library is missing
        from hardware.pi import install_advice

        package = {"lgpio": "python3-lgpio", "rpigpio": "python3-rpi-lgpio", "pigpio": "python3-pigpio"}
        advice = install_advice(package.get(name, "python3-lgpio"), elsewhere="use pin_factory = 'mock'")
        raise PanelError(f"buttons.pin_factory {name!r} cannot be used here ({e}); {advice}") from None
