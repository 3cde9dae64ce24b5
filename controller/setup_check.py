"""What ``dicetable run`` needs of a table.toml, checked before it starts, all in one pass
(`check_table`): the file's types (`controller.config`), a camera it names (a table never plays a
recording it was not told to), the game's setup and the files it names (`runnable_problems`), what
the game itself needs of the table (`game_problems`: a board for a game that places its dice on one,
a colour of their own for players whose dice the game tells apart by colour), the table's perception
step built exactly as ``run`` builds it (`perception_problems`), and this machine's devices
(`device_problems`: the camera gives a frame, the pin factory loads, the event log's folder can be
written).  ``check-config``, ``run`` and ``install-service`` all call `check_table`, so
``check-config`` passes only what ``run`` can play and refuses everything ``run`` refuses.

What a game needs is asked of the engine (``board_colours``, ``dice_colours``), never decided by
the game's name."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from controller.config import (
    COLOURS,
    ConfigError,
    TableConfig,
    camera_named,
    load_config_leniently,
    runnable_problems,
)
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


#: two colours the game's dice come in whose palette references lie nearer than this (`vision.palette
#: .chroma_distance`) are close (issue 44 item 5): chosen on the labelled byler_d6 train photos
#: (`benchmarks/colours_real.py --pairs`, the two colours alone in play with white and black): blue and
#: purple, 26.7 apart, have 7.5 % of their real dice named the other or asked between the two; the
#: next pairs, white and black (33.8) and red and orange (34.3), none; the pairs farther apart whose
#: dice are confused hold white or black, which every table has in play anyway (what is not a die)
CLOSE_COLOURS = 30.0


def close_colour_notes(cfg: TableConfig) -> list[tuple[str, str]]:
    """What ``check-config`` and ``run`` say (printed, never refused) of two colours the game's dice
    come in that lie close for the camera, when the table names colours by a palette: each pair of
    them nearer than ``CLOSE_COLOURS`` in the table's measured palette (``camera.palette``), else,
    unless its roster has a learnt look of every colour (`controller.roster.learnt_palette`: the
    table names its dice by those), in the colours the table knows by name.  A die between
    the two is asked about, never guessed; a roster of the table's dice (``learn-dice colour``) or
    colours further apart ask less."""
    import itertools

    import numpy as np

    from controller.perceive import load_palette
    from controller.roster import RosterError, learnt_palette, load_roster
    from vision.palette import Palette, chroma_distance

    try:
        game = new_game(Setup.for_table(cfg))
    except (ValueError, OSError, TypeError, KeyError):  # runnable_problems says why
        return []
    if cfg.camera.palette:  # a measured palette: the table names by it (perception_problems: a bad file)
        try:
            palette = load_palette(cfg.camera.palette)
        except TableError:
            return []
    else:
        try:
            if learnt_palette(load_roster(cfg.roster_path)) is not None:
                return []  # the table names its dice by their learnt looks
        except RosterError:  # a refused roster: the table's roster says so
            pass
        palette = Palette.known(COLOURS)
    colours = {p.name: p.colour for p in cfg.players}
    order = list(dict.fromkeys(colours.values()))  # the players' order, then any other colour
    in_play = sorted(
        game.dice_colours(colours) or (), key=lambda c: (order.index(c) if c in order else len(order), c)
    )
    owners = {c: [n for n, pc in colours.items() if pc == c] for c in in_play}
    notes = []
    for a, b in itertools.combinations(in_play, 2):
        if a not in palette.lab or b not in palette.lab:
            continue
        d = chroma_distance(np.asarray(palette.lab[a]), np.asarray(palette.lab[b]), palette.chroma)
        if d >= CLOSE_COLOURS:
            continue

        def who(c: str) -> str:
            return f"{' and '.join(owners[c])}'s {c}" if owners[c] else c

        where = "camera.palette" if cfg.camera.palette else "players"
        notes.append(
            (
                where,
                f"{who(a)} and {who(b)} are close colours for the camera ({d:.1f} apart, under "
                f"{CLOSE_COLOURS:g}): a die between the two is asked about, not guessed; to ask less, "
                "teach the table its dice (dicetable learn-dice colour) or give the players colours "
                "further apart",
            )
        )
    return notes


#: the problems of the game's setup (the engine's word), unsure when the file's table or players are wrong
_SETUP_KEYS = ("players", "table.options", "table.data")
CAMERA_KINDS = (
    "'picam', 'v4l2:N', 'usb:N', 'http://HOST:PORT/PATH', 'rtsp://HOST:PORT/PATH' or 'recorded:DIR'"
)


def camera_problems(cfg: TableConfig) -> list[tuple[str, str]]:
    """A file that names no camera is refused, whatever its game: a recording is named too."""
    if camera_named(cfg):
        return []
    return [
        (
            "camera.source",
            f"missing: expected a [camera] section naming the table's camera: source = {CAMERA_KINDS} "
            "(a recording is named too: the table never falls back to one; 'dicetable demo' plays the "
            "shipped recording)",
        )
    ]


def table_problems(cfg: TableConfig, wrong: set[str] | frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """Every problem ``run`` would stop on that the file itself shows (empty: it will start unless a
    device fails).  ``wrong``: the sections holding a value of a wrong type (left at its default):
    what depends on them is not judged, it would be judged on a default the file did not say."""
    unsure_game = bool(wrong & {"table", "players", "board"})
    problems = [(k, m) for k, m in runnable_problems(cfg) if not (unsure_game and k in _SETUP_KEYS)]
    if "camera" not in wrong:
        problems += camera_problems(cfg)
    if not unsure_game:
        problems += game_problems(cfg)
    if not wrong & {"table", "camera", "board", "dice", "vision"}:
        said = {k for k, _ in problems}
        # a file already named missing is not named again in the perception step's words
        if not said & {"camera.palette", "board", "board.layout", "board.calibration"}:
            problems += [(k, m) for k, m in perception_problems(cfg) if k not in said]
    return problems


def camera_frame_problem(spec: str) -> tuple[list[tuple[str, str]], str]:
    """Open the camera ``spec`` names and read one frame: ([] and what it gave) or the problem."""
    from hardware.frames import FrameSourceError, open_source
    from hardware.urls import mask_url, mask_urls

    key = "camera.source"
    try:
        source = open_source(spec)
        try:
            frame = source.read()
        finally:
            source.close()
    except (ValueError, OSError, FrameSourceError) as e:
        message = mask_urls(str(e))  # the source's own sentences name the camera (its password masked)
        return [
            (key, message if message.startswith("camera ") else f"camera {mask_url(spec)!r}: {message}")
        ], ""
    if frame is None:
        return [(key, f"camera {source.name!r}: opened, but it gave no frame")], ""
    h, w = frame.image_bgr.shape[:2]
    return [], f"read one {w}x{h} frame"


def pin_factory_problems(cfg: TableConfig) -> list[tuple[str, str]]:
    """The buttons' pin factory loads on this machine (``mock`` always does)."""
    from controller.panels import PanelError, _real_factory

    name = cfg.buttons.pin_factory
    if name == "mock":
        return []
    try:
        factory = _real_factory(name)
    except PanelError as e:
        return [("buttons.pin_factory", str(e).removeprefix("buttons.pin_factory "))]
    close = getattr(factory, "close", None)
    if close is not None:
        close()
    return []


def database_problems(cfg: TableConfig) -> list[tuple[str, str]]:
    """The event log is one the table can write where the config puts it, as ``run`` opens it: an
    existing one writable and sound (opened read-only here: nothing is written), a new one's folder
    writable (made when missing)."""
    from controller.eventlog import EventLog, LogError, _unwritable

    db = cfg.database_path()
    if db.exists():
        if not db.is_file():
            return []  # runnable_problems says so
        why = _unwritable(db, existed=True)
        if why is None:
            try:
                EventLog(db, read_only=True).close()
            except LogError as e:  # damaged, or not an event log
                why = str(e)
        return [] if why is None else [("database.path", why)]
    folder = db.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if folder.is_dir() and os.access(folder, os.W_OK | os.X_OK):
        return []
    return [
        (
            "database.path",
            f"{db}: a new event log cannot be written here ({folder} is read-only or not writable); "
            "a table writes its log: choose a writable path for it",
        )
    ]


def display_problems(cfg: TableConfig) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The display's address is one of this machine's (run refuses to start otherwise): (problems,
    notes).  A port in use now is a note, not a problem: it may be this very table, running."""
    import errno
    import socket

    host, port = cfg.display.host, cfg.display.port
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as e:
        return [("display.host", f"{host!r}: no such name or address here ({e})")], []
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                why = "something serves there now (this table, running?); run will not start beside it"
                return [], [("display.port", f"{port} on {host}: {why}")]
            return [
                (
                    "display.host",
                    f"cannot serve on {host!r} ({e.strerror}): expected an address of this machine, "
                    "127.0.0.1 or 0.0.0.0",
                )
            ], []
    return [], []


@dataclass
class TableCheck:
    """What ``run`` will use of a table.toml, and every problem it would stop on."""

    source: str  # the file, or "the embedded config"
    cfg: TableConfig | None
    problems: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)
    uses: list[tuple[str, str]] = field(default_factory=list)

    def error(self) -> ConfigError:
        return ConfigError(self.source, self.problems)


def _uses(cfg: TableConfig, spec: str, camera_said: str) -> list[tuple[str, str]]:
    from hardware.urls import mask_url

    players = ", ".join(f"{p.name} ({p.colour})" for p in cfg.players)
    board = f"{cfg.board.layout}, calibration {cfg.board.calibration}" if cfg.board.layout else "none"
    return [
        ("game", f"{cfg.table.game}, table {cfg.table.id}, {len(cfg.players)} players: {players}"),
        ("camera", f"{mask_url(spec)} ({camera_said})"),
        ("board", board),
        ("buttons", f"pin factory {cfg.buttons.pin_factory}"),
        ("leds", cfg.leds.url),
        ("event log", str(cfg.database_path())),
        ("display", f"http://{cfg.display.host}:{cfg.display.port}"),
        *([("mqtt", f"{cfg.mqtt.host}:{cfg.mqtt.port}")] if cfg.mqtt is not None else []),
    ]


def check_table(path: Path | None, *, camera: str | None = None, offline: bool = False) -> TableCheck:
    """Everything ``run`` checks before it starts, every problem at once: the file's types and, with
    each wrong value left at its default, everything else the file names (`table_problems`); unless
    ``offline`` (a config written for another machine), this machine's devices: the camera opened for
    one frame, the pin factory loaded, the event log's folder writable, the display's address this
    machine's.  ``camera``: ``run --camera``, used instead of the file's."""
    from controller.camera_view import view_notes
    from controller.die_sizes import size_notes
    from controller.empty_learn import stored_notes

    source = str(path) if path is not None else "the embedded config"
    cfg, problems, wrong = load_config_leniently(path)
    check = TableCheck(source, cfg, list(problems))
    if cfg is None:
        return check
    found = table_problems(cfg, wrong)
    if camera:  # run --camera: the file's camera is not used
        found = [(k, m) for k, m in found if not k.startswith("camera.source")]
    check.problems += found
    spec = camera or cfg.camera.source
    camera_said = "not opened: --offline"
    if not offline:
        said = any(k.startswith("camera.source") for k, _ in check.problems)
        if camera or not (said or "camera" in wrong):
            frame_problems, camera_said = camera_frame_problem(spec)
            if camera:
                frame_problems = [("--camera", m) for _, m in frame_problems]
            check.problems += frame_problems
        if "buttons" not in wrong:
            check.problems += pin_factory_problems(cfg)
        if "database" not in wrong and "table" not in wrong:
            check.problems += database_problems(cfg)
        if "display" not in wrong:
            display, busy = display_problems(cfg)
            check.problems += display
            check.notes += busy
    if not wrong:
        check.notes = (
            stored_notes(cfg)
            + close_colour_notes(cfg)
            + size_notes(cfg, spec)
            + view_notes(cfg)
            + check.notes
        )
    if not check.problems:
        check.uses = _uses(cfg, spec, camera_said)
    return check
