"""A page's sentences in one language: one catalogue file per language, ``display/lang/<lang>.json``.

A catalogue is a flat JSON object, key -> sentence, with ``{name}`` where a value goes
(``"waiting.from": "{kind} from {players}"``).  The pages get their language's catalogue inlined
(``page``: a ``<script type="application/json" id="catalogue">`` the page's scripts read, and the
``<html lang>`` that picks the CJK font), and every sentence they show comes from it (``t(key)`` in
``common.js``); the event log's sentences in a language other than English come from its ``event.*``
keys (``display.describe``).  Replace or edit a file to change what the pages say; a key it lacks
falls back to the English catalogue's.

The language of a page: ``?lang=`` when it names one of ``LANGS``, else the table's
``[display] language`` (``table.toml``), else English.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from html import escape
from pathlib import Path

from display.names import LANGS, Lang

LANG_DIR = Path(__file__).resolve().parent / "lang"
STATIC = Path(__file__).resolve().parent / "static"
_FIELD = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=8)
def catalogue(lang: Lang) -> Mapping[str, str]:
    """``lang``'s sentences by key, the English ones under any key it lacks."""
    own = _load(LANG_DIR / f"{lang}.json")
    if lang == "en":
        return own
    return {**_load(LANG_DIR / "en.json"), **own}


def _load(path: Path) -> dict[str, str]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"the display's catalogue {path} cannot be read: {e}") from None
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
    ):
        raise ValueError(f"the display's catalogue {path} must be one JSON object of key -> text")
    return raw


def fill(template: str, fields: Mapping[str, object]) -> str:
    """``template`` with each ``{name}`` replaced by ``fields[name]`` (one it lacks stays as written)."""
    return _FIELD.sub(lambda m: str(fields[m[1]]) if m[1] in fields else m[0], template)


def text(lang: Lang, key: str, **fields: object) -> str:
    """The sentence ``key`` in ``lang``, filled in; the key itself if no catalogue has it."""
    return fill(catalogue(lang).get(key, key), fields)


def page_lang(asked: str | None, default: Lang) -> Lang:
    """The page's language: ``?lang=`` when it is one of ``LANGS``, else the table's default."""
    return next((lang for lang in LANGS if lang == asked), default)


def page(name: str, lang: Lang = "en") -> str:
    """The static page ``name`` in ``lang``: its ``<html lang>`` set and its catalogue inlined
    before its first script, escaped so that no sentence can close the script element."""
    html = (STATIC / name).read_text(encoding="utf-8")
    data = json.dumps(dict(catalogue(lang)), ensure_ascii=False).replace("<", "\\u003c")
    block = f'<script type="application/json" id="catalogue">{data}</script>\n'
    html = html.replace('<html lang="en">', f'<html lang="{escape(lang)}">', 1)
    at = html.find("<script")
    return html[:at] + block + html[at:] if at >= 0 else html + block


def said(lang: Lang, sentence: Mapping[str, object]) -> str:
    """A sentence a table names by its catalogue key, ``{"key": ..., field: value, ...}``, in ``lang``:
    a field that is itself such a dict is said first, a list is joined by ``list.sep`` (its dicts said),
    a ``colour`` is named in ``lang``, a time ``t`` has two decimals.  ``common.js``'s ``said`` does
    the same on the pages (controller/teach.py's sentences)."""
    words = catalogue(lang)

    def value(name: str, v: object) -> str:
        if isinstance(v, Mapping):
            return said(lang, v)
        if isinstance(v, list):
            return words["list.sep"].join(value("", x) for x in v)
        if name == "colour" and isinstance(v, str):
            return words.get(f"colour.{v}", v)
        if name == "t" and isinstance(v, (int, float)):
            return f"{v:.2f}"
        return "" if v is None else str(v)

    fields = {k: value(k, v) for k, v in sentence.items() if k != "key"}
    key = str(sentence.get("key"))
    return fill(words.get(key, key), fields)
