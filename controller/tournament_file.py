"""The tournament file (TOML): players, format, rounds and the game of each, tables, the hall's broker.

[tournament]
name = "Kyoto Dice Open"
format = "swiss"              # or "round-robin"
confirm = "organiser"         # or "table": a table's final result counts as soon as it arrives
tables = ["table-1", "table-2"]

[[players]]
name = "ann"                  # as the players are named at the tables

[[rounds]]
game = "dice-fighter"
tables = ["table-1"]          # optional: this round's tables (default: [tournament] tables)
seats = 2                     # optional: players a table (default 2, or 4 for Dice Hunter, a 3-4 player
                              # game); tables of 3+ are pods, Swiss only (controller/pairing.py)

[mqtt]                        # how the hall reaches the broker (controller/mqtt_settings.py)
host = "hall.local"
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from controller.mqtt_settings import MqttSection
from controller.pairing import pod_sizes
from engine import GAME_ALIASES, GAMES, find_game, game_name

TABLE_ID = r"^[A-Za-z0-9_-]{1,40}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TournamentSection(_Strict):
    name: str = Field(min_length=1, max_length=80)
    format: Literal["swiss", "round-robin"] = "swiss"
    confirm: Literal["organiser", "table"] = "organiser"
    tables: list[str] = []

    @field_validator("tables")
    @classmethod
    def _ids(cls, v: list[str]) -> list[str]:
        import re

        bad = [t for t in v if not re.match(TABLE_ID, t)]
        if bad or len(set(v)) != len(v):
            raise ValueError(f"distinct table ids of letters, digits, '-' or '_', got {v}")
        return v


class TournamentPlayer(_Strict):
    name: str = Field(min_length=1, max_length=32)


def seat_range(game: str) -> tuple[int, int]:
    """(fewest, most) players a table of ``game`` seats in a tournament (never one: that is solo)."""
    cls = find_game(game)
    return max(2, cls.min_players), cls.max_players


class RoundSection(_Strict):
    game: str
    tables: list[str] | None = None
    seats: int | None = None

    @property
    def table_size(self) -> int:
        """Players a table this round: ``seats``, or 2 when the game allows it, else up to 4."""
        if self.seats is not None:
            return self.seats
        fewest, most = seat_range(self.game)
        return 2 if fewest <= 2 else min(4, most)

    @field_validator("game")
    @classmethod
    def _game(cls, v: str) -> str:
        try:
            return game_name(v)  # a table name, or a Japanese name stored as the table name
        except ValueError:
            raise ValueError(
                f"one of {', '.join(sorted(GAMES))} (or {', '.join(GAME_ALIASES)}), got {v!r}"
            ) from None


class TournamentFile(_Strict):
    tournament: TournamentSection
    players: list[TournamentPlayer] = Field(min_length=2)
    rounds: list[RoundSection] = Field(min_length=1)
    mqtt: MqttSection | None = None

    @model_validator(mode="after")
    def _fits(self) -> TournamentFile:
        names = [p.name for p in self.players]
        if len(set(names)) != len(names):
            raise ValueError(f"player names must differ, got {names}")
        if self.tournament.format == "round-robin" and len(self.rounds) > len(names) - 1 + len(names) % 2:
            n = len(names) - 1 + len(names) % 2
            raise ValueError(
                f"a round robin of {len(names)} players has {n} rounds, the file lists {len(self.rounds)}"
            )
        for i, r in enumerate(self.rounds, start=1):
            fewest, most = seat_range(r.game)
            seats = r.table_size
            if not fewest <= seats <= most:
                raise ValueError(f"round {i}: {r.game} seats {fewest}-{most} players a table, not {seats}")
            if seats > 2 and self.tournament.format == "round-robin":
                raise ValueError(
                    f"round {i}: a round robin seats two players a table, not {seats}; "
                    'use format = "swiss" for tables of three or more'
                )
            if len(names) < fewest:
                raise ValueError(
                    f"round {i}: {r.game} needs at least {fewest} players, the file lists {len(names)}"
                )
            matches = len(pod_sizes(len(names), seats, min(fewest, seats))[0])
            tables = r.tables if r.tables is not None else self.tournament.tables
            if len(tables) < matches:
                raise ValueError(
                    f"round {i}: {matches} matches need {matches} tables, got {len(tables)} ({tables}); "
                    "list them in [tournament] tables or the round's tables"
                )
        return self

    def round_tables(self, no: int) -> list[str]:
        r = self.rounds[no - 1]
        return list(r.tables if r.tables is not None else self.tournament.tables)

    @property
    def player_names(self) -> list[str]:
        return [p.name for p in self.players]


def load_tournament(path: Path) -> TournamentFile:
    """Load and check a tournament file; ValueError naming the file, each key and what was expected."""
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file (expected a tournament TOML file)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"{path}: cannot read it as TOML ({e})") from None
    try:
        return TournamentFile.model_validate(raw)
    except ValidationError as e:
        lines = []
        for err in e.errors():
            key = ".".join(str(x) for x in err["loc"]) or "(file)"
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                msg = "unknown key"
            lines.append(f"  {key}: {msg}")
        raise ValueError(f"{path}: {len(lines)} problem(s)\n" + "\n".join(lines)) from None
