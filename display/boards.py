"""The board picture the display draws: outline and scoring zones in millimetres.

Read from a board layout TOML (``boards/*.toml``; the shipped example for the
game unless the controller hands over the table's own).  Only what is drawn is
kept: the outline, the zones (name, multiplier, polygon) and the centre line.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

BOARDS = Path(__file__).resolve().parent.parent / "boards"


def _polygon(raw: Any, least: int = 3) -> list[list[float]] | None:
    if not isinstance(raw, list) or len(raw) < least:
        return None
    try:
        return [[float(p[0]), float(p[1])] for p in raw]
    except (TypeError, ValueError, IndexError):
        return None


def board_picture(layout: Mapping[str, Any]) -> dict[str, Any]:
    """The drawable part of a parsed board layout; malformed entries are left out."""
    outline = _polygon((layout.get("outline") or {}).get("polygon"))
    zones = []
    for z in layout.get("zones") or []:
        if isinstance(z, Mapping) and (poly := _polygon(z.get("polygon"))) is not None:
            zones.append({"name": str(z.get("name", "")), "multiplier": z.get("multiplier"), "polygon": poly})
    line = layout.get("centre_line")
    centre_line = None
    if isinstance(line, Mapping) and "a" in line and "b" in line:
        try:
            centre_line = [
                [float(line["a"][0]), float(line["a"][1])],
                [float(line["b"][0]), float(line["b"][1])],
            ]
        except (TypeError, ValueError, IndexError):
            centre_line = None
    return {"name": layout.get("name"), "outline": outline, "zones": zones, "centre_line": centre_line}


def shipped_board(game: str) -> dict[str, Any] | None:
    """The shipped example board of a game, or None when the game has none."""
    path = BOARDS / f"{game}.example.toml"
    if not path.is_file():
        return None
    try:
        return board_picture(tomllib.loads(path.read_text(encoding="utf-8")))
    except (OSError, tomllib.TOMLDecodeError):
        return None
