"""A real Mosquitto running the shipped deploy/mosquitto configuration: passwords, ACL, TLS from a test CA.

Only the paths, the port and persistence are rewritten; the ACL and every
other setting are the shipped files'.  The CA and certificates come from the
shipped ``make-certs.sh`` (openssl), the password file from ``mosquitto_passwd``.
"""

from __future__ import annotations

import getpass
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from broker import MOSQUITTO, Broker

from display.broker import BrokerLink
from display.server import free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "mosquitto"
CLIENTS = ("hall", "table-1", "table-2")


def available() -> str | None:
    """Why the secure broker cannot run here, or None."""
    for tool in ("openssl", "mosquitto_passwd"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if not MOSQUITTO.exists():
        return "mosquitto is not installed (apt-get install mosquitto)"
    return None


class SecureBroker(Broker):
    """The shipped configuration on a loopback port; started and stopped as the open one."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        subprocess.run(
            [str(DEPLOY / "make-certs.sh"), str(folder), "127.0.0.1", *CLIENTS],
            check=True,
            capture_output=True,
        )
        self.passwords = {name: f"pw-{name}-{i}" for i, name in enumerate(CLIENTS)}
        pwfile = folder / "passwords"
        for i, (name, pw) in enumerate(self.passwords.items()):
            flags = ["-c"] if i == 0 else []
            subprocess.run(["mosquitto_passwd", *flags, "-b", str(pwfile), name, pw], check=True)
            (folder / f"{name}.password").write_text(pw + "\n", encoding="utf-8")
        shutil.copy(DEPLOY / "acl", folder / "acl")
        conf = (DEPLOY / "dicetable.conf").read_text(encoding="utf-8")
        conf = conf.replace("/etc/mosquitto/dicetable/", f"{folder}/")
        conf = conf.replace("listener 8883 0.0.0.0", f"listener {self.port} 127.0.0.1")
        conf = conf.replace("persistence true", "persistence false")
        assert f"listener {self.port} 127.0.0.1" in conf and str(folder) in conf
        # run as whoever runs the tests (as root, Mosquitto would switch to a user that cannot read tmp)
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(conf + f"\nuser {getpass.getuser()}\n", encoding="utf-8")
        self.log = folder / "mosquitto.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def link(self, name: str, **kw: Any) -> BrokerLink:
        """How client ``name`` connects: its password and certificate, the test CA."""
        f = self.folder
        return BrokerLink(
            "127.0.0.1",
            self.port,
            username=name,
            password=self.passwords.get(name, "wrong"),
            ca_file=str(f / "ca.crt"),
            cert_file=str(f / f"{name}.crt"),
            key_file=str(f / f"{name}.key"),
            keepalive=5,
            **kw,
        )

    def mqtt_section(self, name: str) -> dict[str, Any]:
        """The ``[mqtt]`` section of client ``name``'s configuration file."""
        f = self.folder
        return {
            "host": "127.0.0.1",
            "port": self.port,
            "username": name,
            "password_file": str(f / f"{name}.password"),
            "ca_file": str(f / "ca.crt"),
            "cert_file": str(f / f"{name}.crt"),
            "key_file": str(f / f"{name}.key"),
            "keepalive": 5,
        }


def toml_text(doc: dict[str, Any]) -> str:
    """A TOML file of ``doc``: sections, arrays of tables, inline tables; None values left out."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            pairs = [f"{json.dumps(k)} = {value(x)}" for k, x in v.items() if x is not None]
            return "{" + ", ".join(pairs) + "}"
        raise TypeError(f"cannot write {v!r} as TOML")

    lines: list[str] = []
    for name, section in doc.items():
        if section is None:
            continue
        rows = section if isinstance(section, list) else [section]
        for row in rows:
            lines.append(f"[[{name}]]" if isinstance(section, list) else f"[{name}]")
            lines += [f"{k} = {value(v)}" for k, v in row.items() if v is not None]
            lines.append("")
    return "\n".join(lines)
