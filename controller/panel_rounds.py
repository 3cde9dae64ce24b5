"""Rounds on the players' button panels: a secret selection for everyone asked, or a choice each.

When the game expects a secret selection, a :class:`hardware.secret.SecretRound` takes every
asked player's choice and reveals them together; when it expects a choice, each asked player with
a panel gets a scrolling list (:mod:`controller.choices`).  :meth:`PanelRounds.drive` moves the
rounds on to a time and returns what the players have settled (a :class:`PanelStep`) for the table
to apply and log; nothing here touches the game or its log.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from controller.choices import choice_menu
from controller.panels import PanelSet
from engine import Input, InputKind


class MenuError(ValueError):
    """The game's secret selection cannot be offered on the panels (the message says why)."""


@dataclass(frozen=True)
class PanelStep:
    """What the panels settled: every asked player's secret selection (``secret``, to be applied
    and logged as one step), or one player's choice."""

    inputs: tuple[Input, ...]
    secret: bool


class PanelRounds:
    """The open rounds on the panels and the secret round's public progress (``progress``)."""

    def __init__(self) -> None:
        #: called when the secret round's public progress changes (the table shows it): the
        #: ``on_change`` of the latest `drive` (a table that swaps itself in whole keeps no stale one)
        self._on_change: Callable[[], None] = lambda: None
        self.secret_round: Any = None  # hardware.secret.SecretRound while a secret selection is open
        self.progress: dict[str, Any] | None = None  # its public status, the snapshot's "secret"
        self.choices: dict[str, tuple[tuple[str, ...], Any]] = {}  # player -> (labels, round)

    def choice_views(self) -> dict[str, Any] | None:
        """Each player's private view of their open choice (the snapshot's "choice"), None without one."""
        return {p: r.private_view(p) for p, (_, r) in list(self.choices.items())} or None

    def drive(
        self,
        game: Any,
        playing: bool,
        panels: PanelSet,
        t: float,
        chosen: Collection[str] = (),
        on_change: Callable[[], None] = lambda: None,
    ) -> PanelStep | None:
        """Move the rounds on to ``t`` for what ``game`` expects (``playing``: the table takes inputs);
        what the players settled, or None.  ``chosen``: players whose secret choice is held (final: not
        asked again); ``on_change``: called when the secret round's public progress changes.  Raises
        MenuError when a selection cannot be offered."""
        from hardware.secret import RoundStatus, SecretRound, menu_for

        self._on_change = on_change

        exp = game.expects()
        now = panels.now(t)
        if not playing or exp.kind is not InputKind.SECRET:
            if self.secret_round is not None:
                self.secret_round.cancel("the game no longer expects a secret selection")
                self.secret_round = None
            if playing and exp.kind is InputKind.CHOICE:
                return self._drive_choices(game, exp, panels, now, chosen)
            self.choices = {}
            for panel in panels.list():  # presses outside a round mean nothing
                panel.poll(now)
            return None
        rnd = self.secret_round
        if rnd is None or rnd.status in (RoundStatus.TIMED_OUT, RoundStatus.CANCELLED):
            try:
                menus = {p: menu_for(game, p) for p in exp.players}
            except ValueError as e:
                raise MenuError(f"cannot offer the secret selection on the panels: {e}") from None
            rnd = self.secret_round = SecretRound(menus, t_start=now, on_change=self._changed)
            self.progress = rnd.public_status()
            self._on_change()
        rnd.drive([p for p in panels.list() if p.player in rnd.players], now)
        if rnd.status is RoundStatus.REVEALED:
            self.secret_round = None
            return PanelStep(tuple(rnd.inputs), secret=True)
        return None

    def _drive_choices(
        self, game: Any, exp: Any, panels: PanelSet, now: float, chosen: Collection[str]
    ) -> PanelStep | None:
        """Open choices on the panels: a scrolling list per player the engine asks (but ``chosen``)."""
        from hardware.secret import RoundStatus, SecretRound

        rounds: dict[str, tuple[tuple[str, ...], Any]] = {}
        for player in exp.players:
            if player in chosen:
                continue
            options = game.choices(player)
            if not options or player not in panels.panels:
                continue
            labels = tuple(label for label, _ in options)
            old = self.choices.get(player)
            if old is not None and old[0] == labels:
                rounds[player] = old
            else:
                rounds[player] = (
                    labels,
                    SecretRound({player: choice_menu(options)}, t_start=now, timeout_s=None),
                )
        self.choices = rounds
        by_player = {p: r for p, (_, r) in rounds.items()}
        for panel in panels.list():
            rnd = by_player.get(panel.player)
            if rnd is None:
                panel.poll(now)  # a player the game does not ask: presses mean nothing
                continue
            rnd.drive([panel], now)
            if rnd.status is RoundStatus.REVEALED:
                self.choices.pop(panel.player, None)
                choice = Input(InputKind.CHOICE, panel.player, dict(rnd.inputs[0].data))
                return PanelStep((choice,), secret=False)  # the game moves on: the next tick sees it
        return None

    def _changed(self, status: dict[str, Any]) -> None:
        self.progress = status
        self._on_change()
