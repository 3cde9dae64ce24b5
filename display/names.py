"""Names in one language per page: English by default, Japanese with ``?lang=ja``.

A game's data names its cards and tiles (``Game.names()``: id -> name), some in both languages as
"English (日本語)" ("Sardine (イワシ)"); a page shows one of the two, never both, and never an id
("iwashi").  A name given in one language only is shown as it is.  The game's own title is the
table name's English title, or its Japanese name (``engine.GAME_ALIASES``) on a Japanese page.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from engine import GAME_ALIASES

Lang = Literal["en", "ja"]
LANGS: tuple[Lang, ...] = ("en", "ja")

GAME_TITLES = {
    "die-angler": "Die-angler",
    "dice-hunter": "Dice Hunter",
    "nozoku-dice": "Nozoku Dice",
    "dicetar-wars": "DICETAR WARS",
    "dice-fighter": "Dice Fighter",
}
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff60]")
#: "English (日本語)": the last bracketed part holds Japanese and the rest none
_BOTH = re.compile(r"(.*?\S)\s*[(（]([^()（）]+)[)）]")


def has_japanese(text: str) -> bool:
    return bool(_JAPANESE.search(text))


def in_language(name: str, lang: Lang) -> str:
    """``name`` in ``lang`` when it is given in both ("Sardine (イワシ)": "Sardine" or "イワシ")."""
    m = _BOTH.fullmatch(name.strip())
    if m and has_japanese(m[2]) and not has_japanese(m[1]):
        return m[1] if lang == "en" else m[2].strip()
    return name


def game_title(game: str, lang: Lang) -> str:
    if lang == "ja":
        ja = next(
            (alias for alias, name in GAME_ALIASES.items() if name == game and has_japanese(alias)), None
        )
        if ja:
            return ja
    return GAME_TITLES.get(game, game)


def backend_names(backend: Any, lang: Lang) -> dict[str, str]:
    """The table's game's names (``Game.names()``) in ``lang``; empty for a backend without a game."""
    names = getattr(getattr(backend, "game", None), "names", None)
    raw = names() if callable(names) else {}
    return {str(k): in_language(str(v), lang) for k, v in raw.items()} if isinstance(raw, Mapping) else {}
