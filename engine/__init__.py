"""The rules engine: five games as pure, deterministic state machines.

``find_game(name)`` returns a game class by its table name.  The engine imports
nothing else of the project.
"""

from __future__ import annotations

import importlib

from engine.core import (
    Choice,
    ChoiceField,
    DataError,
    Die,
    DieKind,
    Expectation,
    FieldStatus,
    Game,
    Input,
    InputKind,
    Outcome,
    Result,
    RuleError,
    Side,
)

#: table name -> (module, class); modules are imported on first use.
GAMES: dict[str, tuple[str, str]] = {
    "die-angler": ("engine.die_angler", "DieAngler"),
    "dice-hunter": ("engine.dice_hunter", "DiceHunter"),
    "nozoku-dice": ("engine.nozoku_dice", "NozokuDice"),
    "dicetar-wars": ("engine.dicetar_wars", "DicetarWars"),
    "dice-fighter": ("engine.dice_fighter", "DiceFighter"),
}


def find_game(name: str) -> type[Game]:
    """The game class for a table name such as ``"dice-hunter"``."""
    try:
        module, cls = GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; expected one of {sorted(GAMES)}") from None
    game: type[Game] = getattr(importlib.import_module(module), cls)
    return game


__all__ = [
    "GAMES",
    "Choice",
    "ChoiceField",
    "DataError",
    "Die",
    "DieKind",
    "Expectation",
    "FieldStatus",
    "Game",
    "Input",
    "InputKind",
    "Outcome",
    "Result",
    "RuleError",
    "Side",
    "find_game",
]
