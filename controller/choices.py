"""Open choices on a player's button panel: the whole choice as one list to scroll through.

When the engine expects a choice from a player, :func:`choice_menu` lists the
complete choices the rules offer now (``up``/``down`` scroll, a hold of
``confirm`` takes the highlighted one).  The list is built from
``expects().detail``; a choice the list does not cover (e.g. Die-angler's
rerolls, Nozoku Dice's actions, a Dice Fighter die shift) is entered on the
admin page.  Choices are not secret: the highlighted option may be shown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from engine import Expectation, InputKind
from hardware.secret import Field, Menu

Option = tuple[str, dict[str, Any]]


def _dice_hunter(state: Mapping[str, Any], detail: Mapping[str, Any]) -> list[Option]:
    out: list[Option] = [(f"take {t}", {"take": t}) for t in detail.get("take") or []]
    out += [
        (f"take {s['tile']} from {s['from']}", {"take": s["tile"], "from": s["from"]})
        for s in detail.get("steal") or []
    ]
    if detail.get("chips"):
        out.append((f"chips ({detail['chips']})", {"chips": True}))
    if detail.get("can_keep"):
        dice = [int(d) for d in state.get("dice") or []]
        kept = [int(d) for d in state.get("kept") or []]
        for face, n in sorted(Counter(dice).items()):
            keep = (
                sorted(kept + [face] * (n - kept.count(face))) if face in kept else sorted(kept + [face] * n)
            )
            if 0 < len(keep) <= 4:
                out.append((f"keep {' '.join(map(str, keep))}", {"keep": keep}))
    if not out:
        out.append(("end turn (chips)", {"chips": True}))
    return out


def _dice_fighter(detail: Mapping[str, Any], player: str) -> list[Option]:
    if detail.get("declare") == "attack":
        return [(f"attack {o}", {"attack": o}) for o in (detail.get("options") or {}).get(player, ["normal"])]
    out: list[Option] = []
    if detail.get("window") == "damage_cards":
        cards = detail.get("cards") or {}
        out += [(f"power {c}", {"power": c}) for c in cards.get("power", [])]
        out += [(f"just guard {c}", {"just_guard": c}) for c in cards.get("just_guard", [])]
    return [*out, ("pass", {"pass": True})]


def choice_options(game: str, expected: Expectation, player: str, state: Mapping[str, Any]) -> list[Option]:
    """The complete choices ``player`` may make now from a panel (empty: use the admin page)."""
    if expected.kind is not InputKind.CHOICE or player not in expected.players:
        return []
    detail = expected.detail
    if game == "dice-hunter":
        return _dice_hunter(state, detail)
    if game == "dice-fighter":
        return _dice_fighter(detail, player)
    if game == "die-angler":
        return [("done", {"done": True})]
    return []


def choice_menu(options: list[Option]) -> Menu:
    """A one-field menu over the options; its payload is the chosen option's."""
    return Menu("choice", (Field("choice", tuple(options)),), lambda v: dict(v["choice"]))
