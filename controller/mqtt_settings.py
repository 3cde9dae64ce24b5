"""``[mqtt]``: how a table (or the hall) reaches the tournament's broker.

The section of ``table.toml`` (and of the hall's and tournament's files), its
checks, and the ``BrokerLink`` it becomes.  Files (password, CA, certificate,
key) are checked when the configuration is loaded, so ``check-config`` names a
missing one; the password is read only when connecting and never printed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from display.broker import DEFAULT_PREFIX, BrokerLink, check_prefix

CLIENT_ID = r"^[A-Za-z0-9_.-]{1,64}$"


class MqttSection(BaseModel):
    """The broker's address, who this client is, and TLS."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = Field(min_length=1, max_length=253)
    #: default 8883 with TLS (ca_file set), else 1883
    port: int | None = Field(None, ge=1, le=65535)
    username: str | None = Field(None, min_length=1, max_length=64)
    #: a file whose first line is the password (kept out of table.toml, which people share)
    password_file: str | None = None
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    topic_prefix: str = DEFAULT_PREFIX
    #: default "dicetable-table-<table id>"; two clients with one id knock each other off the broker
    client_id: str | None = Field(None, pattern=CLIENT_ID)
    keepalive: int = Field(10, ge=2, le=600)
    #: a table in a tournament: take each round's players and game from the tournament's pairing
    #: (``<prefix>/<table id>/pairing``, controller/pairings.py) and start the game itself; on by
    #: default (a table with a hall follows the hall), ``pairings = false`` keeps table.toml's players
    pairings: bool = True

    @field_validator("topic_prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        return check_prefix(v)

    @field_validator("password_file", "ca_file", "cert_file", "key_file")
    @classmethod
    def _readable(cls, v: str | None) -> str | None:
        if v is not None and not Path(v).expanduser().is_file():
            raise ValueError(f"no such file {v!r} (paths are relative to the working directory)")
        return v

    @model_validator(mode="after")
    def _together(self) -> MqttSection:
        if self.password_file is not None and self.username is None:
            raise ValueError("password_file needs a username (the broker checks the pair)")
        if (self.cert_file is None) != (self.key_file is None):
            raise ValueError("cert_file and key_file go together (the client's certificate and its key)")
        if self.cert_file is not None and self.ca_file is None:
            raise ValueError("a client certificate needs TLS: set ca_file (the CA of the broker certificate)")
        return self

    def link(self, default_client_id: str) -> BrokerLink:
        """The connection settings, with the password read from its file (ValueError naming the file)."""
        password = None
        if self.password_file is not None:
            path = Path(self.password_file).expanduser()
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError) as e:
                raise ValueError(f"mqtt.password_file {str(path)!r}: cannot read it ({e})") from None
            if not lines or not lines[0].strip():
                raise ValueError(f"mqtt.password_file {str(path)!r}: expected the password on its first line")
            password = lines[0].strip()

        def expand(p: str | None) -> str | None:
            return None if p is None else str(Path(p).expanduser())

        return BrokerLink(
            host=self.host,
            port=self.port or (8883 if self.ca_file else 1883),
            username=self.username,
            password=password,
            ca_file=expand(self.ca_file),
            cert_file=expand(self.cert_file),
            key_file=expand(self.key_file),
            prefix=self.topic_prefix,
            client_id=self.client_id or default_client_id,
            keepalive=self.keepalive,
        )


def start_publisher(section: MqttSection, table: Any) -> Any:
    """Connect the table's publisher (in the background) and hook it to every snapshot of ``table``.

    Raises ValueError naming the password file when it cannot be read.
    """
    from display.mqtt import TablePublisher

    publisher = TablePublisher(table.table_id, link=section.link(f"dicetable-table-{table.table_id}"))
    table.listeners.append(publisher.publish)
    publisher.start()
    publisher.publish(table.snapshot())
    return publisher


def load_mqtt_file(path: Path) -> MqttSection:
    """The ``[mqtt]`` section of a TOML file (the hall's own file); ValueError naming file and key."""
    import tomllib

    from pydantic import ValidationError

    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file (expected a TOML file with an [mqtt] section)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"{path}: cannot read it as TOML ({e})") from None
    section = raw.get("mqtt")
    if not isinstance(section, dict):
        raise ValueError(f"{path}: expected an [mqtt] section (host, username, password_file, ...)")
    try:
        return MqttSection.model_validate(section)
    except ValidationError as e:
        problems = "; ".join(
            f"mqtt.{'.'.join(str(x) for x in err['loc']) or '(section)'}: "
            + err["msg"].removeprefix("Value error, ")
            for err in e.errors()
        )
        raise ValueError(f"{path}: {problems}") from None
