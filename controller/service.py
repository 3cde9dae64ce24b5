"""A systemd unit that runs a table at boot (``dicetable install-service``).

The unit runs ``python -m controller run --config TABLE.toml --no-hold`` with this Python (so the
venv's packages, and on a Pi the system's picamera2 when the venv sees them), restarts it when it
fails, keeps the table's data where the config's user has it, and raises the open-file limit above
the 1,024 a service gets by default (the display serves many connections). Groups that give a Pi's
buttons, camera and serial port to a plain user are added when this machine has them.
"""

from __future__ import annotations

import getpass
import grp
import os
import pwd
import sys
from dataclasses import dataclass
from pathlib import Path

#: what a table's user needs on a Raspberry Pi: GPIO buttons, the camera, the LED matrix's serial port
DEVICE_GROUPS = ("gpio", "video", "dialout")
OPEN_FILES = 8192


def unit_name(table_id: str) -> str:
    """The unit's file name (a table id is letters, digits, '-' and '_': see controller.config)."""
    return f"dicetable-{table_id}.service"


def service_user() -> str:
    """Who runs the table: the user who called sudo, else this one."""
    return os.environ.get("SUDO_USER") or getpass.getuser()


@dataclass(frozen=True)
class Account:
    """The person the table runs as: the unit's ``User=``, its ``HOME`` and the table's data dir are
    all theirs (under sudo: who called sudo, not root)."""

    name: str
    home: Path
    data_dir: Path


def service_account(user: str | None = None) -> Account:
    """``user`` (``--user``), else who called sudo, else this user; ValueError when there is no such
    user here.  Their data dir is ``$DICETABLE_DATA_DIR`` when it is this same user's, else the
    user data directory under their own home (never root's under sudo)."""
    name = user or service_user()
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        raise ValueError(
            f"user {name!r}: no such user on this machine (expected --user NAME of one)"
        ) from None
    home = Path(entry.pw_dir)
    own = os.environ.get("DICETABLE_DATA_DIR") if entry.pw_uid == os.getuid() else None
    return Account(entry.pw_name, home, Path(own) if own else home / ".local" / "share" / "dicetable")


def existing_groups(names: tuple[str, ...] = DEVICE_GROUPS) -> list[str]:
    found = []
    for name in names:
        try:
            grp.getgrnam(name)
        except KeyError:
            continue
        found.append(name)
    return found


def unit_text(
    config: Path,
    *,
    table_id: str,
    game: str,
    data_dir: Path,
    user: str,
    home: Path | None = None,
    python: str = sys.executable,
) -> str:
    """The unit file's text for the table configured at ``config`` (an absolute path)."""
    groups = existing_groups()
    lines = [
        "# written by `dicetable install-service`; edit table.toml, not this file",
        "[Unit]",
        f"Description=dicetable table {table_id} ({game})",
        "After=network-online.target",
        "Wants=network-online.target",
        "StartLimitIntervalSec=300",
        "StartLimitBurst=10",
        "",
        "[Service]",
        "Type=simple",
        f"User={user}",
        *([f"SupplementaryGroups={' '.join(groups)}"] if groups else []),
        f"WorkingDirectory={config.parent}",
        *([f'Environment="HOME={home}"'] if home is not None else []),
        f'Environment="DICETABLE_DATA_DIR={data_dir}"',
        "Environment=PYTHONUNBUFFERED=1",
        f'ExecStart="{python}" -m controller run --config "{config}" --no-hold',
        "Restart=on-failure",
        "RestartSec=3",
        f"LimitNOFILE={OPEN_FILES}",
        # Ctrl-C's signal: the table finishes its write and closes the log cleanly
        "KillSignal=SIGINT",
        "TimeoutStopSec=20",
        "",
        "[Install]",
        "WantedBy=multi-user.target",
        "",
    ]
    return "\n".join(lines)
