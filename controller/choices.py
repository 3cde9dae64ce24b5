"""Open choices on a player's button panel: the whole choice as one list to scroll through.

When the engine expects a choice from a player, :func:`choice_menu` lists the
complete choices the rules offer now (``engine.Game.choices``, like
python-chess's ``legal_moves``; ``up``/``down`` scroll, a hold of ``confirm``
takes the highlighted one).  A choice the list does not cover (e.g.
Die-angler's rerolls, Nozoku Dice's actions, a Dice Fighter die shift) is
entered on the admin page.  The highlighted option is shown unless the
expectation is secret (controller.hidden).
"""

from __future__ import annotations

from engine import Choice
from hardware.secret import Field, Menu


def choice_menu(options: list[Choice]) -> Menu:
    """A one-field menu over the options; its payload is the chosen option's."""
    return Menu("choice", (Field("choice", tuple(options)),), lambda v: dict(v["choice"]))
