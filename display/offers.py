"""What the referee may enter now, as buttons made from the engine's own answers (issue 34 item 2).

The admin page gives the game an input (a player's choice, a card or tile turned up, the start of
the next game) by one of these offers, never by typing engine JSON: ``Game.choices(player)`` for a
choice, ``Game.reveals()`` for a reveal; a whole roll or throw by a form made from
``Game.entry_dice`` (each die's value among its kind's faces, its colour among those in play, where
it lies when the game places dice).  A secret selection, or a choice the game keeps hidden until
everyone has chosen, is never offered here (the players' button panels give it); a roll or a throw
is read from the camera, and typed only when the camera cannot.
"""

from __future__ import annotations

from typing import Any

from display.describe import zone_label
from display.i18n import text
from display.names import Lang, backend_names, in_language
from engine import InputKind


def _label(label: str, names: dict[str, str], lang: Lang) -> str:
    """An engine's label ("take 3-trio") with its ids named ("take 3 Trio"), in one language."""
    return in_language(" ".join(names.get(word, word) for word in label.split()), lang)


def offers(backend: Any, lang: Lang = "en") -> dict[str, Any]:
    """``{"expects", "players", "offers": [{"player", "label", "choice", "input"}], "forms", "why"}``;
    ``forms``: for a roll or throw, what the referee may type, die by die (``_entry_forms``)."""
    game = getattr(backend, "game", None)
    if game is None:
        return {
            "expects": None,
            "players": [],
            "offers": [],
            "forms": [],
            "why": text(lang, "offers.why.unknown"),
        }
    exp = game.expects()
    kind = exp.kind
    head: dict[str, Any] = {"expects": None if kind is None else kind.value, "players": list(exp.players)}
    if kind is None:
        return {**head, "offers": [], "forms": [], "why": text(lang, "offers.why.over")}
    if exp.secret:
        return {**head, "offers": [], "forms": [], "why": text(lang, "offers.why.secret")}
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
    forms = _entry_forms(backend, game, exp, lang) if kind in (InputKind.ROLL, InputKind.THROW) else []
    why = ""
    if not items:  # a roll or throw: the camera reads it (and ``forms`` type it when it cannot)
        why = {
            InputKind.ROLL: text(lang, "offers.why.roll"),
            InputKind.THROW: text(lang, "offers.why.throw"),
        }.get(kind) or text(lang, "offers.why.no_list", kind=text(lang, f"input.{kind.value}"))
    return {**head, "offers": items, "forms": forms, "why": why}


def _entry_forms(backend: Any, game: Any, exp: Any, lang: Lang) -> list[dict[str, Any]]:
    """A roll or throw the referee types in, one form per player who may give it: each die's fields
    from ``Game.entry_dice`` (the kinds, their faces, the colours in play, the board's zones or the
    sides of the centre line); never a box for engine JSON."""
    snap = backend.snapshot()
    colours = {str(p["name"]): str(p["colour"]) for p in snap.get("players", [])}
    own = (snap.get("state") or {}).get("colours")
    if isinstance(own, dict):  # the game's own colours over the table's (controller.perceive.player_colours)
        colours.update({str(k): str(v) for k, v in own.items()})
    forms = []
    for player in exp.players or (None,):
        entries = game.entry_dice(player, colours)
        if entries:
            zones = sorted({z for e in entries for z in e.zones})  # named as people name them
            forms.append(
                {
                    "type": exp.kind.value,
                    "player": player,
                    "dice": [e.to_json() for e in entries],
                    "zone_names": {z: zone_label(z, lang) for z in zones},
                }
            )
    return forms
