"""Raw button presses for a secret round, worked out from the real menu of ``hardware.secret``.

The presses are played through the real :class:`hardware.secret.SecretRound`
before they go into the script, so a session's presses give exactly the
choices its truth records.
"""

from __future__ import annotations

from typing import Any

from recorder import press_line

from engine import Game
from hardware.buttons import ButtonEvent, Press
from hardware.secret import Menu, RoundStatus, SecretRound, menu_for

PRESS_GAP = 0.35  # seconds between two clicks on a panel
HOLD_S = 1.2  # how long confirm is held to lock a secret choice


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
            line = press_line(t, player, button, hold)
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
