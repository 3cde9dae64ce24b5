"""JSON-lines scenarios: a setup line, then inputs and expectations.

A scenario is how tests describe a game and how ``dicetable replay`` checks
one.  The format (documented with every game's inputs in
``engine/SCENARIOS.md``)::

    {"setup": {"game": "dice-hunter", "players": ["ann", "bob", "cid"],
               "options": {"deck": "virtual"}, "seed": 7}}
    {"type": "roll", "player": "ann", "dice": [3, 3, 3, 5, 6]}
    {"type": "choice", "player": "bob", "take": "3-trio", "expect_error": "not satisfied"}
    {"expect": {"scores": {"ann": 300}}}

Blank lines and lines starting with ``#`` or ``//`` are ignored.  An input
line may carry ``"expect_error": "text"``: the input must be refused with a
message containing that text, and the state must not change.
"""

from __future__ import annotations

import json
import random
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import GAME_ALIASES, DataError, Game, Input, Outcome, RuleError, find_game

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
DATA_DIRS = (PACKAGE_ROOT / "decks", PACKAGE_ROOT / "boards")


class ScenarioError(ValueError):
    """A scenario line that is malformed, refused, or whose expectation failed."""

    def __init__(self, source: str, line_no: int, line: str, why: str) -> None:
        super().__init__(f"{source}:{line_no}: {why}\n  line: {line.strip()[:300]}")
        self.line_no = line_no
        self.why = why


@dataclass(frozen=True)
class Setup:
    """The first line of a scenario or event log: which game, who, and with what."""

    game: str
    players: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    data: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def for_table(cls, cfg: Any) -> Setup:
        """The setup of the game a table.toml (a `controller.config.TableConfig`: config imports this
        module) describes (DICETAR WARS scores by the zones of the same
        board the camera places the dice on)."""
        data = board_data(cfg.table.game, cfg.board.layout)
        data.update(getattr(cfg.table, "data", None) or {})
        return cls(
            cfg.table.game, tuple(p.name for p in cfg.players), dict(cfg.table.options), cfg.table.seed, data
        )

    @classmethod
    def from_json(cls, raw: Any) -> Setup:
        if not isinstance(raw, Mapping):
            raise ValueError(f"setup must be an object, got {raw!r}")
        missing = [k for k in ("game", "players") if k not in raw]
        if missing:
            raise ValueError(f"setup lacks {missing} (expected game and players)")
        players = raw["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
            raise ValueError(f"setup players must be a list of names, got {players!r}")
        seed = raw.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"setup seed must be an integer, got {seed!r}")
        options = raw.get("options", {})
        data = raw.get("data", {})
        if not isinstance(options, Mapping) or not isinstance(data, Mapping):
            raise ValueError("setup options and data must be objects")
        game = str(raw["game"])
        return cls(GAME_ALIASES.get(game, game), tuple(players), dict(options), seed, dict(data))

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": list(self.players),
            "options": dict(self.options),
            "seed": self.seed,
            "data": dict(self.data),
        }


def resolve_data_file(name: str, base: Path | None = None) -> Path:
    """Find a data file: as given, next to the scenario, or among the shipped examples."""
    candidates = [Path(name)]
    if base is not None:
        candidates.append(base / name)
    candidates += [d / name for d in DATA_DIRS]
    for c in candidates:
        if c.is_file():
            return c
    raise FileNotFoundError(
        f"data file {name!r} not found (looked in {', '.join(str(c.parent) for c in candidates)})"
    )


def load_data_file(path: Path) -> Mapping[str, Any]:
    """Read a TOML or JSON data file; errors name the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(str(path), "-", "-", f"cannot read: {e}") from None
    try:
        raw = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
        raise DataError(str(path), "-", "-", f"not valid {path.suffix[1:].upper()}: {e}") from None
    if not isinstance(raw, dict):
        raise DataError(str(path), "-", "-", "expected a table/object at the top level")
    return raw


def board_data(game: str, layout: str | None) -> dict[str, Any]:
    """The table's board layout as the game's ``board`` data file, for a game that scores by the
    zones of its board (one whose ``data_files`` names a board: DICETAR WARS), so that it scores by
    the same board the camera places the dice on; else nothing."""
    try:
        takes_board = "board" in find_game(game).data_files
    except ValueError:  # an unknown game: the setup says so where it is checked
        return {}
    return {"board": layout} if takes_board and layout else {}


def new_game(setup: Setup, base: Path | None = None) -> Game:
    """Build a game from its setup, loading and validating its data files."""
    cls = find_game(setup.game)
    files = {**cls.data_files, **setup.data}
    data: dict[str, Any] = {}
    for key, name in files.items():
        path = resolve_data_file(name, base)
        data[key] = cls.parse_data(key, load_data_file(path), str(path))
    return cls(list(setup.players), dict(setup.options), random.Random(setup.seed), data)


def subset_mismatch(expected: Any, actual: Any, path: str = "") -> str | None:
    """Where ``expected`` is not contained in ``actual`` (dicts: subset; else equal)."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"{path or 'state'}: expected an object, got {actual!r}"
        for k, v in expected.items():
            if k not in actual:
                return f"{path}.{k}: missing (expected {v!r})"
            why = subset_mismatch(v, actual[k], f"{path}.{k}")
            if why:
                return why
        return None
    if expected != actual:
        return f"{path or 'state'}: expected {expected!r}, got {actual!r}"
    return None


def parse_lines(lines: Iterable[str], source: str = "scenario") -> Iterator[tuple[int, str, Any]]:
    """Yield (line number, text, parsed JSON) for every meaningful line; errors name ``source``."""
    for no, text in enumerate(lines, start=1):
        stripped = text.strip()
        if not stripped or stripped.startswith(("#", "//")):
            continue
        try:
            yield no, text, json.loads(stripped)
        except json.JSONDecodeError as e:
            raise ScenarioError(source, no, text, f"not valid JSON: {e.msg}") from None


@dataclass
class Replay:
    """The outcome of running a scenario: the game and every outcome, in order."""

    game: Game
    outcomes: list[Outcome]
    inputs: int


def run_scenario(lines: Iterable[str], source: str = "scenario", base: Path | None = None) -> Replay:
    """Run a scenario; raise ScenarioError naming the line on the first failure."""
    game: Game | None = None
    outcomes: list[Outcome] = []
    count = 0
    for no, text, obj in parse_lines(lines, source):
        if not isinstance(obj, dict):
            raise ScenarioError(source, no, text, "each line must be a JSON object")
        if game is None:
            if "setup" not in obj:
                raise ScenarioError(source, no, text, 'the first line must be {"setup": {...}}')
            try:
                game = new_game(Setup.from_json(obj["setup"]), base)
            except (ValueError, FileNotFoundError) as e:
                raise ScenarioError(source, no, text, f"bad setup: {e}") from None
            continue
        if "expect" in obj:
            why = subset_mismatch(obj["expect"], game.state)
            if why:
                raise ScenarioError(source, no, text, f"expectation failed: {why}")
            continue
        expect_error = obj.pop("expect_error", None)
        try:
            inp = Input.from_json(obj)
        except ValueError as e:
            raise ScenarioError(source, no, text, f"bad input: {e}") from None
        if expect_error is not None:
            before = json.dumps(game.state, sort_keys=True)
            try:
                game.apply(inp)
            except RuleError as e:
                if str(expect_error) not in str(e):
                    raise ScenarioError(
                        source, no, text, f"refused, but not for {expect_error!r}: {e}"
                    ) from None
                if json.dumps(game.state, sort_keys=True) != before:
                    raise ScenarioError(source, no, text, "a refused input changed the state") from None
                continue
            raise ScenarioError(source, no, text, f"expected a refusal mentioning {expect_error!r}")
        try:
            outcomes.extend(game.apply(inp))
        except RuleError as e:
            raise ScenarioError(source, no, text, f"illegal input: {e}") from None
        count += 1
    if game is None:
        raise ScenarioError(source, 0, "", "empty scenario: no setup line")
    return Replay(game, outcomes, count)


def run_scenario_file(path: Path) -> Replay:
    """Run a scenario file, resolving data files relative to it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(str(path), 0, "", f"cannot read: {e}") from None
    return run_scenario(text.splitlines(), str(path), path.parent)
