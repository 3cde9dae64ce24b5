"""What ``dicetable run`` needs of a table.toml, checked before it starts: the file's types
(`controller.config`), the game's setup and the files it names (`runnable_problems`), and the table's
perception step built exactly as ``run`` builds it (`perception_problems`).  ``check-config``, ``run``
and ``install-service`` all ask here, so ``check-config`` passes only what ``run`` can play."""

from __future__ import annotations

from controller.config import TableConfig, runnable_problems
from controller.perceive import Perceiver
from controller.table import TableError


def perception_problems(cfg: TableConfig) -> list[tuple[str, str]]:
    """What the perception step refuses when built from ``cfg``: it opens every file it names as
    ``run`` does (palette, learnt dice set and its kind, board and calibration, empty-table picture)."""
    try:
        Perceiver.from_config(cfg)
    except TableError as e:
        message = str(e)
        key = message.split(maxsplit=1)[0].rstrip(":")
        if "." in key and key.split(".")[0] in type(cfg).model_fields:
            return [(key, message[len(key) :].lstrip(": ") or message)]
        return [("(setup)", message)]
    return []


def table_problems(cfg: TableConfig) -> list[tuple[str, str]]:
    """Every problem ``run`` would stop on (empty: it will start)."""
    problems = runnable_problems(cfg)
    return problems or perception_problems(cfg)
