"""A 3x5 pixel font for the LED matrix: digits, capital letters and a few signs, and scrolling text."""

from __future__ import annotations

import numpy as np

GLYPH_W, GLYPH_H = 3, 5

# Each glyph: five rows of three pixels, '#' lit.
_GLYPHS: dict[str, str] = {
    "0": "### #.# #.# #.# ###",
    "1": ".#. ##. .#. .#. ###",
    "2": "### ..# ### #.. ###",
    "3": "### ..# .## ..# ###",
    "4": "#.# #.# ### ..# ..#",
    "5": "### #.. ### ..# ###",
    "6": "### #.. ### #.# ###",
    "7": "### ..# .#. .#. .#.",
    "8": "### #.# ### #.# ###",
    "9": "### #.# ### ..# ###",
    "A": ".#. #.# ### #.# #.#",
    "B": "##. #.# ##. #.# ##.",
    "C": ".## #.. #.. #.. .##",
    "D": "##. #.# #.# #.# ##.",
    "E": "### #.. ##. #.. ###",
    "F": "### #.. ##. #.. #..",
    "G": ".## #.. #.# #.# .##",
    "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###",
    "J": "..# ..# ..# #.# .#.",
    "K": "#.# #.# ##. #.# #.#",
    "L": "#.. #.. #.. #.. ###",
    "M": "#.# ### ### #.# #.#",
    "N": "##. #.# #.# #.# #.#",
    "O": ".#. #.# #.# #.# .#.",
    "P": "##. #.# ##. #.. #..",
    "Q": ".#. #.# #.# ##. .##",
    "R": "##. #.# ##. #.# #.#",
    "S": ".## #.. .#. ..# ##.",
    "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###",
    "V": "#.# #.# #.# #.# .#.",
    "W": "#.# #.# ### ### #.#",
    "X": "#.# #.# .#. #.# #.#",
    "Y": "#.# #.# .#. .#. .#.",
    "Z": "### ..# .#. #.. ###",
    " ": "... ... ... ... ...",
    "?": "##. ..# .#. ... .#.",
    "!": ".#. .#. .#. ... .#.",
    "-": "... ... ### ... ...",
    "+": "... .#. ### .#. ...",
    ":": "... .#. ... .#. ...",
    ".": "... ... ... ... .#.",
    "/": "..# ..# .#. #.. #..",
}


def glyph(ch: str) -> np.ndarray:
    """The (5, 3) bool bitmap of one character (lower case is drawn as upper case; unknown: '?')."""
    rows = _GLYPHS.get(ch.upper(), _GLYPHS["?"]).split()
    return np.array([[c == "#" for c in row] for row in rows], dtype=bool)


def text_bitmap(text: str, spacing: int = 1) -> np.ndarray:
    """The (5, width) bool bitmap of a line of text."""
    if not text:
        return np.zeros((GLYPH_H, 0), dtype=bool)
    parts: list[np.ndarray] = []
    for i, ch in enumerate(text):
        if i:
            parts.append(np.zeros((GLYPH_H, spacing), dtype=bool))
        parts.append(glyph(ch))
    return np.concatenate(parts, axis=1)


def scroll_windows(text: str, width: int, step: int = 1) -> list[np.ndarray]:
    """Bitmaps of ``width`` columns that scroll ``text`` in from the right and out to the left."""
    bitmap = text_bitmap(text)
    pad = np.zeros((GLYPH_H, width), dtype=bool)
    strip = np.concatenate([pad, bitmap, pad], axis=1)
    return [strip[:, x : x + width] for x in range(0, strip.shape[1] - width + 1, step)]
