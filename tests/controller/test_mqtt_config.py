"""`[mqtt]` in table.toml: accepted, checked where it enters, and turned into a connection."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import ConfigError, parse_config

ROOT = Path(__file__).resolve().parents[2]


def mqtt_config(**mqtt: object) -> dict[str, object]:
    return {"table": {"id": "table-3"}, "mqtt": {"host": "hall.local", **mqtt}}


def test_the_mqtt_section_becomes_a_connection(tmp_path: Path) -> None:
    pw = tmp_path / "pw"
    pw.write_text("s3cret\n", encoding="utf-8")
    ca = tmp_path / "ca.crt"
    ca.write_text("x", encoding="utf-8")
    cfg = parse_config(mqtt_config(username="table-3", password_file=str(pw), ca_file=str(ca)))
    assert cfg.mqtt is not None
    link = cfg.mqtt.link("dicetable-table-table-3")
    assert (link.host, link.port, link.username, link.password) == ("hall.local", 8883, "table-3", "s3cret")
    assert link.client_id == "dicetable-table-table-3" and link.prefix == "dicetable/v1/tables"
    assert "s3cret" not in link.describe()
    assert parse_config({}).mqtt is None  # no section: the table publishes nothing


@pytest.mark.parametrize(
    "mqtt, key, says",
    [
        ({"password_file": "/nonexistent/pw", "username": "t"}, "mqtt.password_file", "no such file"),
        ({"password_file": __file__}, "mqtt", "needs a username"),
        ({"ca_file": __file__, "cert_file": __file__}, "mqtt", "go together"),
        ({"topic_prefix": "dicetable/#"}, "mqtt.topic_prefix", "without '+', '#'"),
        ({"client_id": "a b"}, "mqtt.client_id", "should match"),
        ({"port": 0}, "mqtt.port", "greater than or equal to 1"),
        ({"hots": "x"}, "mqtt.hots", "unknown key"),
    ],
)
def test_a_bad_mqtt_section_is_refused_naming_the_key(mqtt: dict[str, object], key: str, says: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(mqtt_config(**mqtt))
    assert any(k == key and says in m for k, m in e.value.problems), e.value.problems


def test_check_config_accepts_a_table_that_publishes(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    demo = ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"
    path.write_text(
        f'[table]\nid = "table-3"\n[camera]\nsource = "recorded:{demo}"\n'
        '[mqtt]\nhost = "127.0.0.1"\nport = 1883\n',
        encoding="utf-8",
    )
    out = subprocess.run(
        [sys.executable, "-m", "controller", "check-config", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "OK" in out.stdout
