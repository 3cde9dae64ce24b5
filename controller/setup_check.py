"""What ``dicetable run`` needs of a table.toml, checked before it starts: the file's types
(`controller.config`), the game's setup and the files it names (`runnable_problems`), what the game
itself needs of the table (`game_problems`: a board for a game that places its dice on one, a colour
of their own for players whose dice the game tells apart by colour) and the table's perception step
built exactly as ``run`` builds it (`perception_problems`).  ``check-config``, ``run`` and
``install-service`` all ask here, so ``check-config`` passes only what ``run`` can play.

What a game needs is asked of the engine (``board_colours``, ``dice_colours``), never decided by
the game's name."""

from __future__ import annotations

from collections.abc import Sequence

from controller.config import COLOURS, TableConfig, runnable_problems
from controller.perceive import Perceiver
from controller.scenario import Setup, new_game
from controller.table import TableError
from engine import Game


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


def kinds_line(cfg: TableConfig) -> str:
    """What ``check-config`` says of the kinds of dice the table reads (issue 43): ``table.kinds``, or
    every kind of the game's when it names none (`controller.perceive.game_kinds`)."""
    from controller.perceive import game_kinds

    try:
        own = game_kinds(cfg.table.game)
    except (KeyError, ValueError):  # no such game: runnable_problems says so
        own = ()
    kinds = tuple(cfg.table.kinds) if cfg.table.kinds else own
    if cfg.table.kinds:
        left = [k for k in own if k not in kinds]
        why = "table.kinds" + (
            f"; a die of the game's {', '.join(left)} is asked about, never scored" if left else ""
        )
    else:
        why = "the game's kinds; name fewer in table.kinds"
    return f"reads {', '.join(kinds)} dice ({why})"


def tells_players_apart_by_colour(game: Game, players: Sequence[str]) -> bool:
    """The game's dice are the players' colours (each player's dice are known by their colour): asked
    of ``dice_colours`` with two different sets of distinct colours, which it must follow."""
    n = len(players)
    if not 2 <= n <= len(COLOURS):
        return False
    probes = [
        {p: COLOURS[i] for i, p in enumerate(players)},
        {p: COLOURS[-1 - i] for i, p in enumerate(players)},
    ]
    return all(game.dice_colours(probe) == frozenset(probe.values()) for probe in probes)


def _example_boards(game: str) -> list[str]:
    from calibration.board import BOARDS_DIR

    return sorted(p.name for p in BOARDS_DIR.glob(f"{game}.*toml"))


def game_problems(cfg: TableConfig) -> list[tuple[str, str]]:
    """What the game asks of the table that the file does not give (empty when the game cannot be
    built: ``runnable_problems`` says why)."""
    try:
        game = new_game(Setup.for_table(cfg))
    except (ValueError, OSError, TypeError, KeyError):  # runnable_problems says why
        return []
    name = cfg.table.game
    colours = {p.name: p.colour for p in cfg.players}
    problems: list[tuple[str, str]] = []
    if game.board_colours(colours) is not None and not (cfg.board.layout or cfg.board.calibration):
        examples = _example_boards(name)
        example = f" (shipped: {', '.join(repr(e) for e in examples)})" if examples else ""
        problems.append(
            (
                "board",
                f"missing: {name} scores each die by where it lies on its board, so the camera must place "
                f"the dice on it; expected a [board] section with layout = the board's layout file{example} "
                "and calibration = the camera's calibration file (dicetable calibrate camera ...)",
            )
        )
    if tells_players_apart_by_colour(game, [p.name for p in cfg.players]):
        for i, p in enumerate(cfg.players):
            first = next(q for q in cfg.players if q.colour == p.colour)
            if first is not p:
                free = [c for c in COLOURS if c not in colours.values()]
                problems.append(
                    (
                        f"players[{i}].colour",
                        f"{p.colour!r} is also {first.name}'s colour: {name} tells the players' dice apart "
                        f"by their colour; expected a colour no other player has (free: {', '.join(free)})",
                    )
                )
    return problems


def table_problems(cfg: TableConfig) -> list[tuple[str, str]]:
    """Every problem ``run`` would stop on (empty: it will start)."""
    problems = runnable_problems(cfg)
    problems = problems or game_problems(cfg)
    return problems or perception_problems(cfg)
