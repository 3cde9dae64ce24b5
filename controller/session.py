"""A recorded session's table: the config a session folder implies (see tests/fixtures/sessions/README.md).

``session.json`` gives the setup, and optionally each player's dice colour, the
board layout and the camera calibration (a file in the session folder).  Every
player gets a button panel on gpiozero's mock pins, so scripted presses run
through the same GPIO callbacks, debounce and hold machines as a real panel.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.config import (
    COLOURS,
    BoardSection,
    ButtonPins,
    ConfigError,
    Player,
    TableConfig,
    parse_config,
)

#: BCM pins of the mock panels: player i uses FIRST_PIN + 4i .. + 3 (up, down, select, confirm)
FIRST_PIN = 2


class SessionError(ValueError):
    """A session folder that cannot be played; the message names the file and field."""


def mock_pins(i: int) -> ButtonPins:
    base = FIRST_PIN + 4 * i
    if base + 3 > 27:
        raise SessionError(f"player {i + 1}: no mock GPIO pins left for a panel (at most 6 players)")
    return ButtonPins(up=base, down=base + 1, select=base + 2, confirm=base + 3)


def read_session(folder: Path) -> dict[str, Any]:
    path = folder / "session.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SessionError(f"{folder}: not a recorded session (no session.json)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SessionError(f"{path}: unreadable ({e})") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("setup"), dict):
        raise SessionError(f"{path}: expected an object with 'setup': {{game, players, ...}}")
    return meta


def session_config(folder: Path, meta: dict[str, Any] | None = None, table_id: str = "demo") -> TableConfig:
    """The table config that plays the session in ``folder``."""
    meta = meta if meta is not None else read_session(folder)
    src = str(folder / "session.json")
    setup = meta["setup"]
    players = setup.get("players")
    if not isinstance(players, list) or not players:
        raise SessionError(f"{src}: setup.players must be a list of names, got {players!r}")
    colours = meta.get("colours") or (setup.get("options") or {}).get("colours") or {}
    if not isinstance(colours, dict):
        raise SessionError(f"{src}: colours must map players to colours, got {colours!r}")
    board = BoardSection()
    if meta.get("board") or meta.get("calibration"):
        if not (meta.get("board") and meta.get("calibration")):
            raise SessionError(f"{src}: 'board' and 'calibration' go together (got only one)")
        board = BoardSection(layout=str(meta["board"]), calibration=str(folder / str(meta["calibration"])))
    table: dict[str, Any] = {
        "id": table_id,
        "game": setup.get("game"),
        "options": setup.get("options", {}),
        "seed": setup.get("seed", 0),
    }
    if _config_takes_data():  # the game's own data files (e.g. a session's card file)
        table["data"] = _data_files(folder, setup)
    raw = {
        "table": table,
        "players": [
            {
                "name": name,
                "colour": colours.get(name, COLOURS[i % len(COLOURS)]),
                "pins": mock_pins(i).model_dump(),
            }
            for i, name in enumerate(players)
        ],
        "board": board.model_dump(),
        "camera": {"source": f"recorded:{folder}"},
    }
    try:
        return parse_config(raw, src)
    except ConfigError as e:
        raise SessionError(str(e)) from None


def _config_takes_data() -> bool:
    from controller.config import TableSection

    return "data" in TableSection.model_fields


def _data_files(folder: Path, setup: dict[str, Any]) -> dict[str, str]:
    """The setup's data files, found in the session folder first (else by name among the examples)."""
    data = setup.get("data") or {}
    if not isinstance(data, dict):
        raise SessionError(f"{folder / 'session.json'}: setup.data must map keys to file names, got {data!r}")
    return {k: str(folder / v) if (folder / str(v)).is_file() else str(v) for k, v in data.items()}


__all__ = ["Player", "SessionError", "mock_pins", "read_session", "session_config"]
