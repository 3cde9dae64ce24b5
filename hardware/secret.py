"""Secret selection on the button panels: each player chooses privately, all are revealed at once.

A :class:`SecretRound` holds one :class:`Menu` cursor per player.  ``up``/``down``
change the current field, a click on ``select`` moves to the next field, and a
*hold* of ``confirm`` (or of ``select`` on a panel without a confirm button)
locks the player's choice.  When every player has confirmed, the round is
revealed and :attr:`SecretRound.inputs` holds one engine ``Input`` of kind
``SECRET`` per player.  A timeout or a cancel ends the round with nothing
revealed and every choice forgotten.

Before the reveal nothing about a choice leaves this module: the public status
names only who has confirmed, log lines say the same, ``repr``/``str`` hide
the cursors, and button presses do not change the public status at all (so
not even the number of presses can be counted from outside).  A player's own
device may show that player's cursor through :meth:`SecretRound.private_view`.

Each game says what a player chooses (``engine.Game.secret_fields``: e.g.
Die-angler's d6 count and a mode per special die, Dice Fighter's fighter card,
Nozoku Dice's card from the hand) and builds the payload from the chosen values
(``Game.secret_payload``); :func:`menu_for` turns that into the panel's menu.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.core import Input, InputKind
from hardware.buttons import ButtonEvent, Press

log = logging.getLogger(__name__)

Value = Any


@dataclass(frozen=True)
class Field:
    """One thing a player chooses: a name and its options as (label, value) pairs."""

    name: str
    options: tuple[tuple[str, Value], ...]

    def __post_init__(self) -> None:
        if not self.options:
            raise ValueError(f"secret field {self.name!r} needs at least one option")


@dataclass(frozen=True)
class Menu:
    """The fields of one player's secret choice and how the chosen values become the engine payload."""

    game: str
    fields: tuple[Field, ...]
    build: Callable[[Mapping[str, Value]], dict[str, Any]]


def menu_for(game: Any, player: str) -> Menu:
    """The menu for ``player`` in a running engine game that expects a secret selection: the fields
    and options are the game's own answer (``Game.secret_fields``), the payload its ``secret_payload``."""
    exp = game.expects()
    if exp.kind is not InputKind.SECRET:
        raise ValueError(f"{game.name} does not expect a secret selection now (expects {exp.describe()})")
    fields = tuple(Field(f.name, tuple(f.options)) for f in game.secret_fields(player))
    return Menu(game.name, fields, game.secret_payload)


class _Cursor:
    """One player's private position in the menu.  Its repr never shows the choice."""

    __slots__ = ("confirmed", "field", "index", "menu")

    def __init__(self, menu: Menu) -> None:
        self.menu = menu
        self.field = 0
        self.index = [0] * len(menu.fields)
        self.confirmed = False

    def values(self) -> dict[str, Value]:
        return {f.name: f.options[i][1] for f, i in zip(self.menu.fields, self.index, strict=True)}

    def __repr__(self) -> str:
        return f"<secret cursor, {'confirmed' if self.confirmed else 'choosing'}>"


class RoundStatus(StrEnum):
    SELECTING = "selecting"
    REVEALED = "revealed"
    TIMED_OUT = "timed_out"
    CANCELLED = "cancelled"


class SecretRound:
    """Simultaneous secret selection of several players (see the module doc)."""

    def __init__(
        self,
        menus: Mapping[str, Menu],
        *,
        t_start: float,
        timeout_s: float | None = 120.0,
        confirm_buttons: Mapping[str, str] | None = None,
        on_change: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        if not menus:
            raise ValueError("a secret round needs at least one player")
        if timeout_s is not None and timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0 seconds or None, got {timeout_s!r}")
        self.players = tuple(menus)
        self._cursors = {p: _Cursor(m) for p, m in menus.items()}
        self._confirm = {p: (confirm_buttons or {}).get(p, "confirm") for p in self.players}
        self.t_start = t_start
        self.timeout_s = timeout_s
        self.status = RoundStatus.SELECTING
        self.reason = ""
        self.inputs: list[Input] = []
        self._on_change = on_change
        log.info("secret selection started for %s", ", ".join(self.players))

    # -- public: safe to show, log and send anywhere ---------------------------------------------
    @property
    def confirmed(self) -> list[str]:
        return [p for p in self.players if self._cursors[p].confirmed]

    @property
    def waiting(self) -> list[str]:
        return [p for p in self.players if not self._cursors[p].confirmed]

    def public_status(self) -> dict[str, Any]:
        """Who has confirmed, and after the reveal what everyone chose."""
        out: dict[str, Any] = {
            "status": self.status.value,
            "confirmed": self.confirmed,
            "waiting": self.waiting,
        }
        if self.status is RoundStatus.REVEALED:
            out["revealed"] = {i.player: dict(i.data) for i in self.inputs}
        if self.reason:
            out["reason"] = self.reason
        return out

    def __repr__(self) -> str:
        return f"SecretRound(status={self.status.value}, confirmed={self.confirmed}, waiting={self.waiting})"

    __str__ = __repr__

    # -- private: only for the player's own device ----------------------------------------------
    def private_view(self, player: str) -> dict[str, Any]:
        """What ``player``'s own panel may show: the current field and the highlighted option."""
        cur = self._cursor(player)
        field = cur.menu.fields[cur.field]
        return {
            "field": field.name,
            "option": field.options[cur.index[cur.field]][0],
            "confirmed": cur.confirmed,
        }

    # -- driving ------------------------------------------------------------------------------
    def handle(self, event: ButtonEvent) -> None:
        """Apply one debounced button event of a player's panel."""
        self.poll(event.t)
        if self.status is not RoundStatus.SELECTING:
            return
        cur = self._cursor(event.player)
        if cur.confirmed:
            return  # a confirmed choice is final
        if event.kind is Press.HOLD and event.button == self._confirm[event.player]:
            self._confirm_player(event.player, event.t)
        elif event.kind is Press.CLICK and event.button in ("up", "down"):
            n = len(cur.menu.fields[cur.field].options)
            step = 1 if event.button == "up" else -1
            cur.index[cur.field] = (cur.index[cur.field] + step) % n
        elif event.kind is Press.CLICK and event.button == "select":
            cur.field = (cur.field + 1) % len(cur.menu.fields)

    def poll(self, t: float) -> None:
        """Let time pass: end the round when the timeout is reached."""
        if (
            self.status is RoundStatus.SELECTING
            and self.timeout_s is not None
            and t - self.t_start >= self.timeout_s
        ):
            self._end(
                RoundStatus.TIMED_OUT,
                f"timed out after {self.timeout_s:g} s waiting for {', '.join(self.waiting)}",
            )

    def cancel(self, reason: str = "cancelled") -> None:
        """Abandon the round: nothing is revealed and every choice is forgotten."""
        if self.status is RoundStatus.SELECTING:
            self._end(RoundStatus.CANCELLED, reason)

    def _confirm_player(self, player: str, t: float) -> None:
        self._cursors[player].confirmed = True
        log.info("secret selection: %s confirmed (%d of %d)", player, len(self.confirmed), len(self.players))
        if not self.waiting:
            self.inputs = [
                Input(InputKind.SECRET, p, self._cursors[p].menu.build(self._cursors[p].values()))
                for p in self.players
            ]
            self.status = RoundStatus.REVEALED
            log.info("secret selection revealed at t=%.2f", t)
        self._changed()

    def _end(self, status: RoundStatus, reason: str) -> None:
        self.status, self.reason = status, reason
        for p in self.players:  # forget every choice; who had confirmed stays public
            fresh = _Cursor(self._cursors[p].menu)
            fresh.confirmed = self._cursors[p].confirmed
            self._cursors[p] = fresh
        log.info("secret selection %s: %s", status.value, reason)
        self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change(self.public_status())

    def drive(self, panels: Sequence[Any], t: float) -> None:
        """Poll each player's :class:`~hardware.buttons.ButtonPanel` up to ``t`` and apply its events.

        A panel without a ``confirm`` button confirms by holding ``select``.
        """
        for panel in panels:
            buttons = getattr(panel, "buttons", None)
            if buttons is not None and "confirm" not in buttons and panel.player in self._confirm:
                self._confirm[panel.player] = "select"
        events = sorted((e for panel in panels for e in panel.poll(t)), key=lambda e: e.t)
        for e in events:
            if e.player in self._cursors:
                self.handle(e)
        self.poll(t)

    def _cursor(self, player: str) -> _Cursor:
        if player not in self._cursors:
            raise ValueError(
                f"player {player!r} is not in this secret selection; players: {list(self.players)}"
            )
        return self._cursors[player]
