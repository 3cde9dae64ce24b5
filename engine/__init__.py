"""The rules engine: five games as pure, deterministic state machines.

``find_game(name)`` returns a game class by its table name (or its Japanese name,
see ``GAME_ALIASES``).  The engine imports nothing else of the project.
"""

from __future__ import annotations

import importlib
import unicodedata

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


#: the games' Japanese names (their rule documents' titles) -> table name; accepted wherever a game is named
GAME_ALIASES: dict[str, str] = {
    "ダイ公望": "die-angler",
    "ダイスハンター": "dice-hunter",
    "ノゾクダイス": "nozoku-dice",
    "ダイスファイター": "dice-fighter",
}


def game_name(name: str) -> str:
    """The table name of a game named by its table name or its Japanese name (``"ダイスハンター"``)."""
    plain = unicodedata.normalize("NFKC", name) if isinstance(name, str) else ""
    if plain in GAMES:
        return plain
    if plain in GAME_ALIASES:
        return GAME_ALIASES[plain]
    raise ValueError(f"unknown game {name!r}; expected one of {sorted(GAMES)} (or {', '.join(GAME_ALIASES)})")


def find_game(name: str) -> type[Game]:
    """The game class for a table name such as ``"dice-hunter"`` (or ``"ダイスハンター"``)."""
    module, cls = GAMES[game_name(name)]
    game: type[Game] = getattr(importlib.import_module(module), cls)
    return game


__all__ = [
    "GAMES",
    "GAME_ALIASES",
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
    "game_name",
]
