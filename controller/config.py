"""The table's one configuration file, ``table.toml``, validated with pydantic.

A file must name its camera (``[camera] source``, a recording too: the checks of
``controller.setup_check`` refuse a file without one); every other value has a default that
runs on any machine: gpiozero's mock pin factory, an emulated LED matrix, SQLite in the user
data directory and the display on 127.0.0.1.  (``CameraSection``'s own default, the shipped
recording, serves configs built in code, never a file.)
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from controller.mqtt_settings import MqttSection
from display.names import Lang
from engine import GAME_ALIASES, GAMES, game_name
from hardware.urls import mask_url, mask_urls

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
DEMO_SESSION = PACKAGE_ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"

#: die colours a player can be given (Die-angler's five, Nozoku Dice's four, white, black)
COLOURS = ("red", "blue", "green", "purple", "yellow", "orange", "white", "black")
GPIO_PINS = range(0, 28)  # BCM numbering on a Raspberry Pi 40-pin header


def data_dir() -> Path:
    """Where the table keeps its database: $DICETABLE_DATA_DIR or the user data directory."""
    env = os.environ.get("DICETABLE_DATA_DIR")
    return Path(env) if env else Path(platformdirs.user_data_dir("dicetable"))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ButtonPins(_Strict):
    """BCM pin numbers of one player's button panel."""

    up: int | None = None
    down: int | None = None
    select: int | None = None
    confirm: int | None = None

    @field_validator("up", "down", "select", "confirm")
    @classmethod
    def _gpio(cls, v: int | None) -> int | None:
        if v is not None and v not in GPIO_PINS:
            raise ValueError(f"a BCM GPIO pin number 0-27, got {v}")
        return v


class Player(_Strict):
    name: str = Field(min_length=1, max_length=32)
    colour: str
    pins: ButtonPins = ButtonPins()

    @field_validator("colour")
    @classmethod
    def _colour(cls, v: str) -> str:
        if v not in COLOURS:
            raise ValueError(f"one of {', '.join(COLOURS)}, got {v!r}")
        return v


class TableSection(_Strict):
    id: str = Field("table-1", pattern=r"^[A-Za-z0-9_-]{1,40}$")
    game: str = "dice-hunter"
    options: dict[str, Any] = {}
    data: dict[str, str] = {}  # the game's data files by key (like a scenario's setup "data")
    seed: int = 0
    confidence_threshold: float = Field(0.8, ge=0.0, le=1.0)
    #: the kinds of dice the game uses, any of d6, d10, d10p, d20 (the camera never looks for
    #: others); default: the game's own (controller.perceive.game_kinds)
    kinds: list[str] | None = None
    #: the table's learnt set of its own dice (`dicetable learn-dice confirm --config`): a JSON file,
    #: relative to the table's data dir (DICETABLE_DATA_DIR, else the user data dir); none by default
    dice_set: str | None = None
    #: the table's roster of its dice (controller.roster): a JSON file relative to the data dir;
    #: default ``<id>.roster.json`` there, beside the table's log
    roster: str | None = None

    @field_validator("game")
    @classmethod
    def _game(cls, v: str) -> str:
        try:
            return game_name(v)  # a table name, or a Japanese name stored as the table name
        except ValueError:
            raise ValueError(
                f"one of {', '.join(sorted(GAMES))} (or {', '.join(GAME_ALIASES)}), got {v!r}"
            ) from None

    @field_validator("kinds")
    @classmethod
    def _kinds(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return v
        from vision.numbered.labels import parse_kinds

        return list(parse_kinds(v))


class CameraSection(_Strict):
    source: str = f"recorded:{DEMO_SESSION}"
    #: the dice colours measured at this table (`dicetable calibrate colours ... --out palette.json`);
    #: default: the reader's typical plastic colours
    palette: str | None = None
    #: the full-resolution still read when a throw settles (hardware.stills, issue 43): "WxH" or
    #: "max" (the camera's largest: Camera Module 3 4608x2592, HQ 4056x3040)
    still: str = "max"
    #: the video frame the motion gate watches: "WxH" (the picamera2 lores stream; a USB camera's
    #: frames shrunk to it)
    video: str = "1280x960"

    @field_validator("still")
    @classmethod
    def _still(cls, v: str) -> str:
        from hardware.stills import parse_size

        parse_size(v)
        return v

    @field_validator("video")
    @classmethod
    def _video(cls, v: str) -> str:
        from hardware.stills import parse_size

        parse_size(v, allow_max=False)
        return v

    @model_validator(mode="after")
    def _still_not_smaller(self) -> CameraSection:
        from hardware.stills import check_sizes, parse_size

        video = parse_size(self.video, "camera.video", allow_max=False)
        assert isinstance(video, tuple)
        check_sizes(parse_size(self.still, "camera.still"), video)
        return self

    def sizes(self) -> tuple[tuple[int, int] | str, tuple[int, int]]:
        """(still, video) as `hardware.stills.open_with_stills` takes them."""
        from hardware.stills import parse_size

        video = parse_size(self.video, "camera.video", allow_max=False)
        assert isinstance(video, tuple)
        return parse_size(self.still, "camera.still"), video

    @field_validator("source")
    @classmethod
    def _source(cls, v: str) -> str:
        kinds = ("recorded:", "v4l2:", "usb:", "http://", "https://", "rtsp://", "rtsps://")
        if not (v.startswith(kinds) or v == "picam"):
            raise ValueError(
                "'recorded:DIR', 'v4l2:N', 'usb:N', 'picam' or a network camera "
                f"('http://HOST:PORT/PATH' MJPEG, 'rtsp://HOST:PORT/PATH'), got {mask_url(v)!r}"
            )
        return v


class LedSection(_Strict):
    url: str = "emu://"
    baud: int = Field(115200, gt=0)
    protocol: Literal["adalight", "tpm2"] = "adalight"
    width: int = Field(16, ge=1, le=128)
    height: int = Field(16, ge=1, le=128)
    wiring: Literal["row-major", "serpentine"] = "serpentine"
    origin: Literal["top-left", "top-right", "bottom-left", "bottom-right"] = "top-left"


class BoardSection(_Strict):
    layout: str | None = None
    calibration: str | None = None
    #: how the reader's quads become top faces: "body" (by geometry from each box, the default),
    #: "image" (searched in the frame: ~50 ms a die) or "none" (the quads are exact top faces)
    fit: Literal["body", "image", "none"] = "body"


class VisionSection(_Strict):
    """Where a die can be (vision.where; pip d6 readers): each step on or off, and what it needs.

    A step with nothing to work from stays off: the empty table until the motion gate has seen it
    (or ``empty_table_frame`` gives one), the die size without a range or a board, the play area
    without a polygon or a board."""

    #: dice only where the settled frame differs from the empty table the camera saw before
    empty_table: bool = True
    #: an empty-table frame captured by `dicetable calibrate empty`; the table learns it again from a
    #: still board with no die on it and keeps that beside it (NAME.learnt.png; controller.empty_learn)
    empty_table_frame: str | None = None
    #: with the empty table: die-sized pieces of what changed since it (more than a shadow) are read
    #: too, touching dice split (vision.empty_diff); its solid change is the stacks-by-sides cue's
    #: input, and the board look is left out (the empty table shows what its print would)
    empty_finds: bool = True
    #: a box far from a die's size there is not a die (with a board: the dice set's sizes, [dice],
    #: projected through the board's pose)
    die_size: bool = True
    #: the range of a die's box in pixels, its top, sides and shadow as the detector boxes it (a table
    #: without a board; `dicetable read --explain` prints the boxes)
    die_size_px: tuple[float, float] | None = None
    #: dice are looked for only inside the play area
    play_area: bool = True
    #: a tray drawn as a polygon of [x, y] pixels (for games without a board)
    play_area_px: list[tuple[float, float]] | None = None
    #: with a board and no polygon: its outline grown by this margin (dice off the board are real)
    play_area_margin_mm: float = Field(150.0, ge=0)
    #: with a board and its pose: where the frame differs from the board's print, a die-sized spot no
    #: detection covers is read too (a white die on the white paper, a red die on a red zone)
    board_look: bool = True
    #: with the board look: a die showing the sides of a die under it is placed one level up from
    #: one frame (calibration.raised), the die under it asked for when the table has not seen it
    stacks_by_sides: bool = True
    #: a throw whose dice did not tumble (set down by a hand, slid with the same face up) is flagged
    #: to the referee, logged and shown; never refused (vision.tumble)
    tumble_check: StrictBool = True
    #: with a board and a calibration: each die seen obliquely is read by its top face, cut as if
    #: seen from straight above (vision.oblique), not by the side faces turned to the camera
    rectify_oblique: bool = True
    #: numbered dice (d10, d10p, d20): the OCR head (PP-OCRv6's recogniser) reads each one's numeral
    #: beside the classifier: the same value is sure when either is (at a table of more than one kind,
    #: when the classifier is), another value is asked with both as candidates, the head's first
    #: (vision.numbered.ocr.second_opinion; about 45 ms a die of 100 px or more on one core).  On by
    #: default (issue 29); false reads with the classifier alone
    ocr_second_opinion: StrictBool = True
    #: which OCR head reads the numerals: "full" (24 crops a die, about 43 ms on one core) or "fast"
    #: (6 int8 crops, about 8.5 ms, for a slow computer; reads fewer values right, none surely wrong on
    #: the real held-out sets: benchmarks/RESULTS.md, "the OCR head's cost")
    ocr_head: Literal["full", "fast"] = "full"
    #: pip d6 from a camera looking at the table at an angle with no board calibration: the camera's
    #: tilt is estimated from the dice of each frame and each die read by its top face warped square
    #: (vision.oblique, issue 35); a die whose top face is in doubt is asked.  About 30x the pip
    #: reader's time; with a calibration its view is used instead.  Off: straight down assumed
    estimate_tilt: StrictBool = False
    #: a camera that looks at the table at an angle, stated (issue 44): degrees off straight down.  A
    #: d20 is then cut on its top face for `learn-dice` and `read` alike (vision.oblique.resting_top:
    #: at 45 degrees a d20's side faces face the camera more squarely than its top face).  Unset:
    #: the dice are cut as from straight above
    camera_tilt_deg: float | None = Field(None, ge=0.0, le=75.0)
    #: with ``camera_tilt_deg``: the direction, from the frame's centre, of the point straight below
    #: the camera, in degrees (0: right, 90: down, the camera tilted forward looking away from it;
    #: 180: left; 270: up)
    camera_nadir_deg: float = Field(90.0, ge=0.0, lt=360.0)
    #: with ``camera_tilt_deg``: the lens's focal length over the frame's longer side (a Pi Camera
    #: Module 3 0.98, the default; a 60 degree wide lens about 0.87; a zoom more)
    camera_focal: float = Field(0.98, ge=0.3, le=10.0)
    #: with no ``camera_tilt_deg`` stated: `learn-dice see --config` learns the camera's view from the
    #: teaching rolls (the dice's sizes across the frame and the OCR head's evidence,
    #: controller.learn_view), `confirm --config` keeps it with the table's roster, and a d20 is cut by
    #: it as by a stated view.  A stated ``camera_tilt_deg`` (0: straight down) always wins
    learn_camera_view: StrictBool = False

    def camera_view(self) -> Any:
        """The camera's stated view (`vision.oblique.Tilt`), or None when ``camera_tilt_deg`` is unset."""
        if self.camera_tilt_deg is None:
            return None
        from vision.oblique import Tilt

        return Tilt(self.camera_tilt_deg, self.camera_nadir_deg, self.camera_focal)

    @field_validator("die_size_px")
    @classmethod
    def _size_range(cls, v: tuple[float, float] | None) -> tuple[float, float] | None:
        if v is not None and not 0 < v[0] <= v[1]:
            raise ValueError("[low, high] pixels with 0 < low <= high")
        return v

    @field_validator("play_area_px")
    @classmethod
    def _polygon(cls, v: list[tuple[float, float]] | None) -> list[tuple[float, float]] | None:
        if v is not None and len(v) < 3:
            raise ValueError("a polygon of 3 or more [x, y] pixel points")
        return v


class DiceSection(_Strict):
    """The dice set: the edge (mm) of every die size in play, e.g. ``sizes_mm = [16]`` or
    ``[14, 16, 19]`` (each die's size is then told from the frame).  Default: the board file's
    deprecated ``[die] size_mm``, else 16."""

    sizes_mm: list[float] | None = None

    @field_validator("sizes_mm")
    @classmethod
    def _sizes(cls, v: list[float] | None) -> list[float] | None:
        from calibration.diceset import check_sizes

        return None if v is None else list(check_sizes(v, "sizes_mm"))


class DatabaseSection(_Strict):
    path: str | None = None  # default: <user data dir>/<table id>.sqlite3


class DisplaySection(_Strict):
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    admin_token: str | None = None
    #: the names the display answers to besides its host, localhost and this machine's name
    #: (a request with another Host header is refused: DNS rebinding); IP addresses are always taken
    allowed_hosts: list[str] = []
    #: the reverse proxies (addresses) whose X-Forwarded-For names the client; none by default, so a
    #: client cannot claim another address to dodge the limit on wrong tokens
    trusted_proxies: list[str] = []
    #: the language of the table's pages when their URL names none (``?lang=`` overrides it):
    #: their sentences from display/lang/<language>.json, cards and tiles by their names in it
    language: Lang = "en"

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, v: list[str]) -> list[str]:
        import ipaddress

        for proxy in v:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(
                    f"{proxy!r} is not an IP address or network (e.g. 127.0.0.1 or 10.0.0.0/8)"
                ) from None
        return v

    def hosts(self) -> list[str]:
        """Every name a request's Host header may carry."""
        from display.guard import host_names

        return host_names(self.host, self.allowed_hosts)


class ButtonsSection(_Strict):
    pin_factory: Literal["mock", "native", "lgpio", "rpigpio", "pigpio"] = "mock"


class TableConfig(_Strict):
    table: TableSection = TableSection()
    players: list[Player] = [
        Player(name="ann", colour="red"),
        Player(name="bob", colour="blue"),
        Player(name="cid", colour="green"),
    ]
    camera: CameraSection = CameraSection()
    leds: LedSection = LedSection()
    board: BoardSection = BoardSection()
    dice: DiceSection = DiceSection()
    database: DatabaseSection = DatabaseSection()
    display: DisplaySection = DisplaySection()
    buttons: ButtonsSection = ButtonsSection()
    mqtt: MqttSection | None = None  # publish to the hall's broker (controller/mqtt_settings.py)
    vision: VisionSection = VisionSection()

    @model_validator(mode="after")
    def _players_differ(self) -> TableConfig:
        names = [p.name for p in self.players]
        if len(set(names)) != len(names):
            raise ValueError(f"player names must differ, got {names}")
        pins = [pin for p in self.players for pin in p.pins.model_dump().values() if pin is not None]
        dup = sorted({p for p in pins if pins.count(p) > 1})
        if dup:
            raise ValueError(f"each GPIO pin may serve one button only; used twice: {dup}")
        from display.admin import is_loopback_host, weak_token_reason

        if not is_loopback_host(self.display.host):
            if not self.display.admin_token:
                raise ValueError(
                    f"display.host {self.display.host!r} is not loopback: set display.admin_token "
                    "(admin is only served without a token on loopback)"
                )
            weak = weak_token_reason(self.display.admin_token)
            if weak:
                raise ValueError(
                    f"display.admin_token is too weak to serve admin on {self.display.host!r} ({weak}); "
                    "make one with: python -c 'import secrets; print(secrets.token_urlsafe(24))'"
                )
        return self

    @property
    def dice_set_path(self) -> Path | None:
        """Where the table keeps its learnt set of dice (``table.dice_set``), None without one."""
        if not self.table.dice_set:
            return None
        return data_dir() / Path(self.table.dice_set).expanduser()

    @property
    def roster_path(self) -> Path:
        """Where the table keeps its roster of dice (``table.roster``, else ``<id>.roster.json``)."""
        return data_dir() / Path(self.table.roster or f"{self.table.id}.roster.json").expanduser()

    def database_path(self) -> Path:
        if self.database.path:
            return Path(self.database.path).expanduser()
        return data_dir() / f"{self.table.id}.sqlite3"


class ConfigError(ValueError):
    """A table.toml that cannot be used; ``problems`` lists (key, message) pairs."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [f"{source}: {len(problems)} problem(s)"] + [f"  {k}: {m}" for k, m in problems]
        super().__init__("\n".join(lines))


def _problems(err: ValidationError) -> list[tuple[str, str]]:
    out = []
    for e in err.errors():
        key = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key (not a setting of this section)"
        elif (
            "input" in e
            and e["type"] != "missing"
            and not isinstance(e["input"], dict)
            and "got " not in msg  # the validator's own message names what it got
        ):
            got = e["input"]
            got = mask_url(got) if key.startswith("camera") and isinstance(got, str) else got
            msg = mask_urls(f"{msg} (got {got!r})")  # a camera's password is never shown
        out.append((key, msg))
    return out


def parse_config(raw: dict[str, Any], source: str = "table.toml") -> TableConfig:
    try:
        return TableConfig.model_validate(raw)
    except ValidationError as e:
        raise ConfigError(source, _problems(e)) from None


def camera_named(cfg: TableConfig) -> bool:
    """The file names its camera (``[camera] source``): a table never falls back to a recording."""
    return "camera" in cfg.model_fields_set and "source" in cfg.camera.model_fields_set


def runnable_problems(cfg: TableConfig) -> list[tuple[str, str]]:
    """What ``dicetable run`` would fail on that the file's types cannot say: the game's options and
    player count (through the engine itself), and the files the config names.  Empty: it will start."""
    from controller.scenario import Setup, board_data, new_game
    from engine import DataError, RuleError

    problems: list[tuple[str, str]] = []
    data = board_data(cfg.table.game, cfg.board.layout)
    data.update(cfg.table.data)
    setup = Setup(
        cfg.table.game, tuple(p.name for p in cfg.players), dict(cfg.table.options), cfg.table.seed, data
    )
    try:
        new_game(setup)
    except RuleError as e:
        key = "players" if "players" in e.why else "table.options"
        problems.append((key, f"{cfg.table.game} refuses this setup: {e.why}"))
    except (DataError, FileNotFoundError, ValueError, TypeError, KeyError) as e:
        problems.append(("table.data" if data else "table.options", f"{cfg.table.game} cannot start: {e}"))
    source = cfg.camera.source
    if source.startswith("recorded:") and not Path(source.split(":", 1)[1]).expanduser().is_dir():
        problems.append(("camera.source", f"no recorded session folder at {source.split(':', 1)[1]!r}"))
    for key, value in (
        ("camera.palette", cfg.camera.palette),
        ("board.calibration", cfg.board.calibration),
    ):
        if value is not None and not Path(value).expanduser().is_file():
            problems.append((key, f"no such file: {value!r}"))
    if cfg.board.layout is not None:
        from calibration.board import BOARDS_DIR, resolve_board_path

        path = resolve_board_path(cfg.board.layout)
        if not path.is_file() and not (BOARDS_DIR / Path(cfg.board.layout).name).is_file():
            problems.append(("board.layout", f"no such board layout: {cfg.board.layout!r}"))
    if bool(cfg.board.layout) != bool(cfg.board.calibration):
        problems.append(("board", "layout and calibration go together (got only one)"))
    db = cfg.database_path()
    if db.exists() and not db.is_file():
        problems.append(("database.path", f"{str(db)!r} is not a file"))
    return problems


def _cut_short(text: str) -> str | None:
    """Why a table.toml looks cut short (a copy or write that stopped), or None.

    A file cut at a line's end is valid TOML that silently falls back to defaults (a table that
    plays the demo's recording into the default database); every editor ends a file with a line
    break, so a last line without one, or a file with no setting at all, is refused."""
    if not text.strip():
        return "the file is empty (expected at least [table] and [camera]); was it cut short?"
    if not any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines()):
        return "the file holds only comments, no setting; was it cut short?"
    if not text.endswith("\n"):
        last = text.rsplit("\n", 1)[-1]
        return (
            f"the file does not end with a line break: it looks cut short after {last[-40:]!r}; "
            "if it is complete, end it with a line break"
        )
    return None


def _read_raw(path: Path) -> dict[str, Any]:
    """The TOML of a table.toml, refused as a whole when it cannot be read or looks cut short."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        raw = tomllib.loads(text)
    except FileNotFoundError:
        raise ConfigError(str(path), [("(file)", "no such file")]) from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(str(path), [("(file)", f"cannot read: {e}")]) from None
    except tomllib.TOMLDecodeError as e:
        cut = " (its last line has no line break: was it cut short?)" if not text.endswith("\n") else ""
        raise ConfigError(str(path), [("(file)", f"not valid TOML: {e}{cut}")]) from None
    cut_short = _cut_short(text)
    if cut_short:
        raise ConfigError(str(path), [("(file)", cut_short)])
    return raw


def load_config(path: Path | None) -> TableConfig:
    """Load and validate a table.toml; ``None`` gives the embedded defaults."""
    if path is None:
        return TableConfig()
    return parse_config(_read_raw(path), str(path))


def _drop(raw: Any, loc: tuple[Any, ...]) -> bool:
    """Remove the value at ``loc`` from ``raw`` (its default takes its place); False if not there."""
    *parents, last = loc
    node = raw
    for part in parents:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
    try:
        del node[last]
    except (KeyError, IndexError, TypeError):
        return False
    return True


def load_config_leniently(path: Path | None) -> tuple[TableConfig | None, list[tuple[str, str]], set[str]]:
    """A table.toml's every type problem, and the config with each wrong value left at its default so
    that what else the file names can be checked in the same pass: (config, problems, the sections
    holding a wrong value).  The config is None when the file cannot be read at all."""
    if path is None:
        return TableConfig(), [], set()
    try:
        raw = _read_raw(path)
    except ConfigError as e:
        return None, e.problems, set()
    import copy

    try:
        return TableConfig.model_validate(raw), [], set()
    except ValidationError as e:
        problems = _problems(e)
        first = e
    from pydantic import TypeAdapter

    # the file as a whole (two players of one name, one pin twice, the admin token): its sections
    bad = {"players", "display"} if any(not err["loc"] for err in first.errors()) else set()
    rest = copy.deepcopy(raw)
    for _ in range(8):  # each round leaves out the values found wrong (a list's items may nest)
        fields: dict[str, Any] = {}
        wrong: list[tuple[Any, ...]] = []
        for name, info in TableConfig.model_fields.items():
            if name in rest:
                try:
                    fields[name] = TypeAdapter(info.annotation or Any).validate_python(rest[name])
                except ValidationError as e:
                    wrong += [(name, *err["loc"]) for err in e.errors()]
        if not wrong:
            return TableConfig.model_construct(**fields), problems, bad
        for loc in wrong:
            bad.add(str(loc[0]))
            if not _drop(rest, loc):
                rest.pop(loc[0], None)
    return None, problems, bad
