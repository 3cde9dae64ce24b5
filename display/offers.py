"""What the referee may enter now, as buttons made from the engine's own answers (issue 34 item 2).

The admin page gives the game an input (a player's choice, a card or tile turned up, the start of
the next game) by one of these offers, never by typing engine JSON: ``Game.choices(player)`` for a
choice, ``Game.reveals()`` for a reveal.  A secret selection, or a choice the game keeps hidden until
everyone has chosen, is never offered here (the players' button panels give it), and a roll or a
throw is read from the camera.
"""

from __future__ import annotations

from typing import Any

from display.i18n import text
from display.names import Lang, backend_names, in_language
from engine import InputKind


def _label(label: str, names: dict[str, str], lang: Lang) -> str:
    """An engine's label ("take 3-trio") with its ids named ("take 3 Trio"), in one language."""
    return in_language(" ".join(names.get(word, word) for word in label.split()), lang)


def offers(backend: Any, lang: Lang = "en") -> dict[str, Any]:
    """``{"expects", "players", "offers": [{"player", "label", "choice", "input"}], "why"}``."""
    game = getattr(backend, "game", None)
    if game is None:
        return {
            "expects": None,
            "players": [],
            "offers": [],
            "why": text(lang, "offers.why.unknown"),
        }
    exp = game.expects()
    kind = exp.kind
    head: dict[str, Any] = {"expects": None if kind is None else kind.value, "players": list(exp.players)}
    if kind is None:
        return {**head, "offers": [], "why": text(lang, "offers.why.over")}
    if exp.secret:
        return {**head, "offers": [], "why": text(lang, "offers.why.secret")}
    names = backend_names(backend, lang)
    items: list[dict[str, Any]] = []
    if kind is InputKind.CHOICE:
        for player in exp.players:
            for label, payload in game.choices(player):
                items.append(
                    {
                        "player": player,
                        "choice": label,
                        "label": _label(label, names, lang),
                        "input": {"type": kind.value, "player": player, **payload},
                    }
                )
    elif kind is InputKind.REVEAL:
        for label, payload in game.reveals():
            items.append(
                {
                    "player": None,
                    "choice": label,
                    "label": _label(label, names, lang),
                    "input": {"type": kind.value, **payload},
                }
            )
    elif kind is InputKind.START:
        items.append(
            {
                "player": None,
                "choice": "start",
                "label": text(lang, "offers.start"),
                "input": {"type": kind.value},
            }
        )
    why = ""
    if not items:
        why = {
            InputKind.ROLL: text(lang, "offers.why.roll"),
            InputKind.THROW: text(lang, "offers.why.throw"),
        }.get(kind) or text(lang, "offers.why.no_list", kind=text(lang, f"input.{kind.value}"))
    return {**head, "offers": items, "why": why}
