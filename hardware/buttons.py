"""Button panels: debounce and hold-to-confirm as state machines fed timestamped edges.

Each player has a small panel: ``up``, ``down``, ``select`` and ``confirm``
(confirm is optional: without it, holding ``select`` confirms).  The logic
never touches a device: a :class:`ButtonMachine` is fed raw levels with times
(``feed``) and asked what happened by a time (``poll``), so bounce and holds
are tested exactly with an injected clock.  :class:`GpioButtonPanel` wires the
machines to gpiozero ``Button`` devices; :class:`FakeButtonPanel` (shipped,
for demos and tests) takes presses from code.

gpiozero's own ``bounce_time`` is not used: it drops edges inside the window,
which can leave a button stuck in the wrong state; ours waits for the level to
be stable instead.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

log = logging.getLogger(__name__)

BUTTONS = ("up", "down", "select", "confirm")


class Press(StrEnum):
    """What a button did, after debounce."""

    PRESS = "press"  # went down (reported once the level is stable)
    RELEASE = "release"  # went up
    CLICK = "click"  # a short press, reported on release
    HOLD = "hold"  # held down for hold_s, reported once while still held


@dataclass(frozen=True)
class ButtonEvent:
    """One debounced event of one button on one player's panel."""

    player: str
    button: str
    kind: Press
    t: float


class Debouncer:
    """A level is accepted once it has been stable for ``debounce_s`` seconds.

    The accepted edge keeps the time of the *first* raw edge of the bounce
    burst that led to it, which is when the person actually pressed.
    """

    def __init__(self, debounce_s: float = 0.02, level: bool = False) -> None:
        if debounce_s < 0:
            raise ValueError(f"debounce_s must be >= 0 seconds, got {debounce_s!r}")
        self.debounce_s = debounce_s
        self.stable = level
        self._raw = level
        self._last_edge_t: float | None = None
        self._burst_start: float | None = None

    def feed(self, level: bool, t: float) -> list[tuple[bool, float]]:
        """A raw level seen at ``t``; returns accepted (level, t) changes that are now certain."""
        out = self.poll(t)
        if level != self._raw:
            self._raw = level
            self._last_edge_t = t
            if self._burst_start is None:
                self._burst_start = t
        return out

    def poll(self, t: float) -> list[tuple[bool, float]]:
        """Accept the raw level if it has been stable for debounce_s by ``t``."""
        if self._last_edge_t is None or t - self._last_edge_t < self.debounce_s:
            return []
        start = self._burst_start if self._burst_start is not None else self._last_edge_t
        self._last_edge_t = self._burst_start = None
        if self._raw == self.stable:
            return []  # a glitch that came back: nothing happened
        self.stable = self._raw
        return [(self.stable, start)]


class HoldDetector:
    """Turns debounced press/release into click (short) or hold (``hold_s`` long, reported while held)."""

    def __init__(self, hold_s: float = 1.0) -> None:
        if hold_s <= 0:
            raise ValueError(f"hold_s must be > 0 seconds, got {hold_s!r}")
        self.hold_s = hold_s
        self._down_since: float | None = None
        self._held = False

    def change(self, pressed: bool, t: float) -> list[tuple[Press, float]]:
        out = self.poll(t)
        if pressed and self._down_since is None:
            self._down_since, self._held = t, False
            out.append((Press.PRESS, t))
        elif not pressed and self._down_since is not None:
            out.append((Press.RELEASE, t))
            if not self._held:
                out.append((Press.CLICK, t))
            self._down_since, self._held = None, False
        return out

    def poll(self, t: float) -> list[tuple[Press, float]]:
        if self._down_since is not None and not self._held and t - self._down_since >= self.hold_s:
            self._held = True
            return [(Press.HOLD, self._down_since + self.hold_s)]
        return []


class ButtonMachine:
    """Debounce then hold detection for one button."""

    def __init__(self, debounce_s: float = 0.02, hold_s: float = 1.0) -> None:
        self.debouncer = Debouncer(debounce_s)
        self.hold = HoldDetector(hold_s)

    def feed(self, pressed: bool, t: float) -> list[tuple[Press, float]]:
        return self._run(self.debouncer.feed(pressed, t), t)

    def poll(self, t: float) -> list[tuple[Press, float]]:
        return self._run(self.debouncer.poll(t), t)

    def _run(self, changes: list[tuple[bool, float]], t: float) -> list[tuple[Press, float]]:
        out: list[tuple[Press, float]] = []
        for level, t_edge in changes:
            out += self.hold.change(level, t_edge)
        out += self.hold.poll(t)
        return out


@runtime_checkable
class ButtonPanel(Protocol):
    """One player's panel: ``poll(t)`` returns the debounced events up to time ``t``."""

    player: str

    def poll(self, t: float | None = None) -> list[ButtonEvent]: ...

    def close(self) -> None: ...


class _MachinePanel:
    """Raw edges go into a queue (from any thread); ``poll`` runs the machines in order."""

    def __init__(
        self,
        player: str,
        buttons: tuple[str, ...],
        *,
        debounce_s: float = 0.02,
        hold_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        unknown = [b for b in buttons if b not in BUTTONS]
        if unknown:
            raise ValueError(
                f"panel of {player!r}: unknown button(s) {unknown}; expected some of {list(BUTTONS)}"
            )
        self.player = player
        self.buttons = buttons
        self.clock = clock
        self._machines = {b: ButtonMachine(debounce_s, hold_s) for b in buttons}
        self._edges: list[tuple[str, bool, float]] = []
        self._lock = threading.Lock()

    def _edge(self, button: str, pressed: bool, t: float | None = None) -> None:
        with self._lock:
            self._edges.append((button, pressed, self.clock() if t is None else t))

    def poll(self, t: float | None = None) -> list[ButtonEvent]:
        now = self.clock() if t is None else t
        with self._lock:
            edges, self._edges = self._edges, []
        out: list[ButtonEvent] = []
        for button, pressed, te in edges:
            out += [
                ButtonEvent(self.player, button, k, tk) for k, tk in self._machines[button].feed(pressed, te)
            ]
        for button, machine in self._machines.items():
            out += [ButtonEvent(self.player, button, k, tk) for k, tk in machine.poll(now)]
        out.sort(key=lambda e: e.t)
        return out

    def close(self) -> None:
        """Nothing to release for a panel without devices."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(player={self.player!r}, buttons={list(self.buttons)})"


class FakeButtonPanel(_MachinePanel):
    """A panel driven from code (demos, tests, scripted sessions): ``press``/``release`` raw levels."""

    def __init__(self, player: str, buttons: tuple[str, ...] = BUTTONS, **kw: Any) -> None:
        super().__init__(player, buttons, **kw)

    def press(self, button: str, t: float | None = None) -> None:
        self._check(button)
        self._edge(button, True, t)

    def release(self, button: str, t: float | None = None) -> None:
        self._check(button)
        self._edge(button, False, t)

    def _check(self, button: str) -> None:
        if button not in self._machines:
            raise ValueError(
                f"panel of {self.player!r} has no button {button!r}; it has {list(self.buttons)}"
            )


class GpioButtonPanel(_MachinePanel):
    """A panel of gpiozero ``Button`` devices on BCM pins (pressed = pin pulled low).

    ``pins`` maps button names to BCM pin numbers (None = not fitted).  The pin
    factory is gpiozero's current one (set ``Device.pin_factory = MockFactory()``
    in tests, or pass ``pin_factory``).
    """

    def __init__(
        self, player: str, pins: Mapping[str, int | None], *, pin_factory: Any = None, **kw: Any
    ) -> None:
        from gpiozero import Button  # imported here so that logic and tests of logic need no GPIO stack

        fitted = {b: p for b, p in pins.items() if p is not None}
        super().__init__(player, tuple(fitted), **kw)
        if "select" not in fitted:
            raise ValueError(f"panel of {player!r}: a 'select' pin is required, got pins {dict(pins)!r}")
        self._devices: dict[str, Any] = {}
        try:
            for button, pin in fitted.items():
                dev = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                dev.when_pressed = self._callback(button, True)
                dev.when_released = self._callback(button, False)
                self._devices[button] = dev
        except Exception as e:
            self.close()
            raise ValueError(f"panel of {player!r}: cannot use pins {fitted!r}: {e}") from e

    def _callback(self, button: str, pressed: bool) -> Callable[[], None]:
        return lambda: self._edge(button, pressed)

    def close(self) -> None:
        """Every button released, each on its own: a button whose close fails (gpiozero's thread
        that does not stop within its 10 s, ZombieThread, seen on a slow emulated arm64 core under
        load) is logged and the others are closed all the same, so shutting the table down goes on.

        Every button's hold thread is woken to stop first: each polls its hold event every 0.1 s and
        ``close`` joins them one by one, which took ~0.5 s a table of four panels."""
        for dev in self._devices.values():
            _wake_to_stop(getattr(dev, "_hold_thread", None))
        for button, dev in self._devices.items():
            try:
                dev.close()
            except Exception as e:  # closing the rest matters more than this one
                log.warning("panel of %r: button %r did not close: %s", self.player, button, e)
        self._devices = {}


def _wake_to_stop(thread: Any) -> None:
    """Ask a gpiozero hold thread to stop and wake it from its 0.1 s poll, so that joining it (the
    device's ``close``) does not wait out the poll; a device without one is left as it is."""
    stopping, holding = getattr(thread, "stopping", None), getattr(thread, "holding", None)
    if stopping is None or holding is None:
        return
    stopping.set()
    holding.set()  # its wait returns at once, and it sees ``stopping`` before firing anything
