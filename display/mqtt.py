"""The tournament hall over MQTT: each table publishes a summary, the hall subscribes.

Topic scheme (documented in docs/mqtt.md)::

    dicetable/v1/tables/<table_id>/state    retained JSON summary (see ``summarise``)
    dicetable/v1/tables/<table_id>/status   retained JSON {"table", "status": "online"|"offline", "t"};
                                            "offline" is also the connection's last will

Only public facts go out: game, players, scores, status, what the table waits
for, the winners.  Never the engine state itself and never a secret selection.
paho-mqtt's network thread reconnects with exponential backoff (1 s .. 30 s);
on every (re)connect the publisher re-sends its retained messages and the hall
re-subscribes, so both survive a broker restart.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

log = logging.getLogger(__name__)

PREFIX = "dicetable/v1/tables"
TABLE_ID_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def parse_broker(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``HOST``, port 1883) -> (host, port); a clear error otherwise."""
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = text, "1883"
    if not host:
        raise ValueError(f"broker {text!r}: expected HOST:PORT, e.g. 127.0.0.1:1883")
    try:
        port = int(port_text)
    except ValueError:
        why = f"port {port_text!r} is not a number (expected HOST:PORT)"
        raise ValueError(f"broker {text!r}: {why}") from None
    if not 0 < port < 65536:
        raise ValueError(f"broker {text!r}: port {port} is out of range 1..65535")
    return host, port


def check_table_id(table_id: str) -> str:
    """Table ids become topic levels: letters, digits, '-', '_' and '.' only."""
    if not table_id or not set(table_id) <= TABLE_ID_CHARS or len(table_id) > 64:
        raise ValueError(f"table id {table_id!r}: expected 1-64 letters, digits, '-', '_' or '.'")
    return table_id


def state_topic(table_id: str) -> str:
    return f"{PREFIX}/{table_id}/state"


def status_topic(table_id: str) -> str:
    return f"{PREFIX}/{table_id}/status"


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def summarise(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """The public summary a table publishes: picked field by field, never the whole state."""
    state = snapshot.get("state") or {}
    result = state.get("result") or None
    scores = state.get("scores") or {}
    return {
        "table": snapshot.get("table"),
        "game": snapshot.get("game"),
        "players": [{"name": p.get("name"), "colour": p.get("colour")} for p in snapshot.get("players", [])],
        "scores": {str(k): v for k, v in scores.items() if isinstance(v, int | float)},
        "status": snapshot.get("status"),
        "waiting_for": snapshot.get("waiting_for"),
        "current_player": state.get("current_player"),
        "round": state.get("round"),
        "winners": list(result.get("winners", [])) if isinstance(result, Mapping) else [],
        "seq": snapshot.get("seq"),
        "updated": _now_iso(),
    }


def _client(client_id: str) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id)
    client.reconnect_delay_set(min_delay=1, max_delay=30)
    return client


class TablePublisher:
    """Publishes one table's summary (retained) and its online/offline status."""

    def __init__(self, table_id: str, host: str, port: int, keepalive: int = 10) -> None:
        self.table_id = check_table_id(table_id)
        self.host, self.port, self.keepalive = host, port, keepalive
        self._latest: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self.client = _client(f"dicetable-table-{table_id}")
        offline = json.dumps({"table": table_id, "status": "offline"})
        self.client.will_set(status_topic(table_id), offline, qos=1, retain=True)
        self.client.on_connect = self._on_connect

    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        """Say offline, then disconnect cleanly."""
        if self.client.is_connected():
            info = self.client.publish(
                status_topic(self.table_id),
                json.dumps({"table": self.table_id, "status": "offline"}),
                qos=1,
                retain=True,
            )
            # if the connection went away meanwhile, the will says it instead
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout=2)
        self.client.disconnect()
        self.client.loop_stop()

    def publish(self, snapshot: Mapping[str, Any]) -> None:
        """A hub listener: publish the new summary (kept for re-sending after a reconnect)."""
        summary = summarise(snapshot)
        with self._lock:
            self._latest = summary
        if self.client.is_connected():
            self.client.publish(state_topic(self.table_id), json.dumps(summary), qos=1, retain=True)

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any
    ) -> None:
        if reason_code.is_failure:
            log.warning("broker %s:%s refused table %s: %s", self.host, self.port, self.table_id, reason_code)
            return
        client.publish(
            status_topic(self.table_id),
            json.dumps({"table": self.table_id, "status": "online", "t": _now_iso()}),
            qos=1,
            retain=True,
        )
        with self._lock:
            latest = self._latest
        if latest is not None:
            client.publish(state_topic(self.table_id), json.dumps(latest), qos=1, retain=True)


class Hall:
    """Subscribes to every table's topics and keeps the hall's picture of them."""

    def __init__(
        self,
        host: str,
        port: int,
        on_change: Callable[[dict[str, Any]], None] | None = None,
        keepalive: int = 10,
    ) -> None:
        self.host, self.port, self.keepalive = host, port, keepalive
        self.on_change = on_change
        self._tables: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self.connected = False
        self.client = _client(f"dicetable-hall-{id(self):x}")
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            tables = [dict(v, table=k) for k, v in sorted(self._tables.items())]
        return {"broker": f"{self.host}:{self.port}", "connected": self.connected, "tables": tables}

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.snapshot())

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any
    ) -> None:
        if reason_code.is_failure:
            log.warning("broker %s:%s refused the hall: %s", self.host, self.port, reason_code)
            return
        client.subscribe([(f"{PREFIX}/+/state", 1), (f"{PREFIX}/+/status", 1)])
        self.connected = True
        self._changed()

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any
    ) -> None:
        self.connected = False
        self._changed()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        parts = msg.topic.split("/")
        if len(parts) != 5 or parts[4] not in ("state", "status"):
            return
        table_id, kind = parts[3], parts[4]
        try:
            payload = json.loads(msg.payload.decode("utf-8"))
            if not isinstance(payload, dict):
                raise ValueError("expected a JSON object")
        except (UnicodeDecodeError, ValueError) as e:
            log.warning("ignored message on %s: not a JSON object (%s)", msg.topic, e)
            return
        with self._lock:
            entry = self._tables.setdefault(table_id, {"online": False, "summary": None})
            if kind == "status":
                entry["online"] = payload.get("status") == "online"
            else:
                entry["summary"] = payload
            entry["seen"] = round(time.time(), 3)
        self._changed()
