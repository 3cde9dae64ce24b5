"""The tournament hall over MQTT: each table publishes a summary, the hall subscribes.

Topic scheme (documented in docs/mqtt.md)::

    dicetable/v1/tables/<table_id>/state    retained JSON summary (see ``summarise``)
    dicetable/v1/tables/<table_id>/status   retained JSON {"table", "status": "online"|"offline", "t"};
                                            "offline" is also the connection's last will
    dicetable/v1/tables/<table_id>/result   retained JSON: the final scores of the last finished game

The prefix ``dicetable/v1/tables`` is configurable (``BrokerLink.prefix``);
credentials and TLS come with the ``BrokerLink`` (display/broker.py).  The hall
checks every message (display/hall_checks.py) before it keeps it, forgets
tables that have been offline for ``expire_s`` and keeps at most ``max_tables``.

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
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import paho.mqtt.client as mqtt

from display.broker import DEFAULT_PREFIX, BrokerLink, new_client
from display.hall_checks import check_result, check_status, check_summary, parse

log = logging.getLogger(__name__)

PREFIX = DEFAULT_PREFIX
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


def state_topic(table_id: str, prefix: str = PREFIX) -> str:
    return f"{prefix}/{table_id}/state"


def status_topic(table_id: str, prefix: str = PREFIX) -> str:
    return f"{prefix}/{table_id}/status"


def result_topic(table_id: str, prefix: str = PREFIX) -> str:
    return f"{prefix}/{table_id}/result"


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
        # what it waits for as data, so that the hall says it in its page's language
        "waits": _waits(snapshot, state),
        "current_player": state.get("current_player"),
        "round": state.get("round"),
        "winners": list(result.get("winners", [])) if isinstance(result, Mapping) else [],
        "seq": snapshot.get("seq"),
        "updated": _now_iso(),
    }


def _waits(snapshot: Mapping[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
    """``{"kind", "players"}``: the input the game expects (``question``: a person is asked first)."""
    expects = state.get("expects") or {}
    kind = "question" if snapshot.get("question") else expects.get("kind")
    return {"kind": kind, "players": [str(p) for p in expects.get("players") or []]}


def _same(result: Mapping[str, Any]) -> dict[str, Any]:
    """What tells one game's result from another's (not when it was published)."""
    return {k: v for k, v in result.items() if k != "finished"}


def result_of(summary: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``result`` message of a finished game's summary (None while it is not over)."""
    if summary.get("status") != "over":
        return None
    return {
        "table": summary["table"],
        "game": summary["game"],
        "players": summary["players"],
        "scores": summary["scores"],
        "winners": summary["winners"],
        "seq": summary["seq"],
        "finished": summary["updated"],
    }


class TablePublisher:
    """Publishes one table's summary (retained), its online/offline status and each final result."""

    def __init__(
        self,
        table_id: str,
        host: str = "127.0.0.1",
        port: int = 1883,
        keepalive: int = 10,
        *,
        link: BrokerLink | None = None,
    ) -> None:
        self.table_id = check_table_id(table_id)
        self.link = link or BrokerLink(host, port, keepalive=keepalive)
        self.host, self.port, self.keepalive = self.link.host, self.link.port, self.link.keepalive
        self.prefix = self.link.prefix
        self._latest: dict[str, Any] | None = None
        self._result: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._announced = threading.Event()  # set once a connection has re-sent the retained messages
        #: called with the client after each (re)connect: e.g. a tournament table subscribes to its pairing
        self.on_connected: list[Callable[[mqtt.Client], None]] = []
        self.client = new_client(self.link, f"dicetable-table-{table_id}")
        offline = json.dumps({"table": table_id, "status": "offline"})
        self.client.will_set(status_topic(table_id, self.prefix), offline, qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.suppress_exceptions = True  # a message callback's error must not end the network thread

    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()

    def stop(self, wait_s: float = 0.0) -> None:
        """Say offline, then disconnect cleanly.

        ``wait_s``: how long to wait for a connection first (if none is up yet), so that a short
        run's retained summary and result reach the broker before the table says goodbye.
        """
        self._announced.wait(timeout=wait_s)
        if self.client.is_connected():
            info = self.client.publish(
                status_topic(self.table_id, self.prefix),
                json.dumps({"table": self.table_id, "status": "offline", "t": _now_iso()}),
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
            result = result_of(summary)
            # another game's result, even one of as many events (a tournament table plays game after game)
            new_result = result is not None and (self._result is None or _same(self._result) != _same(result))
            if new_result:
                self._result = result
        if self.client.is_connected():
            self.client.publish(
                state_topic(self.table_id, self.prefix), json.dumps(summary), qos=1, retain=True
            )
            if new_result:
                self.client.publish(
                    result_topic(self.table_id, self.prefix), json.dumps(result), qos=1, retain=True
                )

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any
    ) -> None:
        if reason_code.is_failure:
            log.warning("broker %s refused table %s: %s", self.link.describe(), self.table_id, reason_code)
            return
        client.publish(
            status_topic(self.table_id, self.prefix),
            json.dumps({"table": self.table_id, "status": "online", "t": _now_iso()}),
            qos=1,
            retain=True,
        )
        with self._lock:
            latest, result = self._latest, self._result
        if latest is not None:
            client.publish(state_topic(self.table_id, self.prefix), json.dumps(latest), qos=1, retain=True)
        if result is not None:
            client.publish(result_topic(self.table_id, self.prefix), json.dumps(result), qos=1, retain=True)
        for hook in list(self.on_connected):
            try:
                hook(client)
            except Exception:  # a broken hook must not stop the publisher
                log.exception("table %s: connect hook failed", self.table_id)
        self._announced.set()


class Hall:
    """Subscribes to every table's topics and keeps the hall's checked picture of them.

    Only messages that pass ``display.hall_checks`` are kept.  A table that has
    been offline for ``expire_s`` is forgotten (and a retained ``offline`` older
    than that is not shown at all); at most ``max_tables`` are kept, the longest
    offline making room first, so a flood of table ids cannot grow the hall.

    Every change bumps a version and stamps the entry (``v``), so a page is sent
    only what changed since the version it has (``changes``), not the whole hall
    for every message: with 100 tables a second and 256 entries that is the
    difference between ~1 KB and ~60 KB serialised, sent and parsed per message.
    ``on_update(version)`` is called on the MQTT thread after each change: it
    must only wake someone (``Hub.notify`` of a tiny message), never do work.
    """

    MAX_PAYLOAD = 16_384
    MAX_GONE = 1024  # removed ids remembered for pages that are behind; older removals mean a full resend
    MAX_REFUSALS = 50  # refused messages remembered (with their reason) for the page and the API

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 1883,
        on_change: Callable[[dict[str, Any]], None] | None = None,
        keepalive: int = 10,
        *,
        link: BrokerLink | None = None,
        on_result: Callable[[str, dict[str, Any]], None] | None = None,
        expire_s: float = 600.0,
        max_tables: int = 256,
        clock: Callable[[], float] = time.time,
        on_update: Callable[[int], None] | None = None,
        on_connect: Callable[[], object] | None = None,
    ) -> None:
        self.link = link or BrokerLink(host, port, keepalive=keepalive)
        self.host, self.port, self.keepalive = self.link.host, self.link.port, self.link.keepalive
        self.prefix = self.link.prefix
        self.on_change, self.on_result, self.on_update = on_change, on_result, on_update
        #: called on the MQTT thread after each (re)connect: e.g. a tournament re-sends its pairings
        self.on_connect = on_connect
        self.expire_s, self.max_tables, self.clock = expire_s, max_tables, clock
        self._tables: dict[str, dict[str, Any]] = {}
        self._version = 0
        self._gone: OrderedDict[str, int] = OrderedDict()  # removed table -> the version that removed it
        self._gone_floor = 0  # removals at or below this version are forgotten
        self._lock = threading.Lock()
        self._dirty = threading.Event()
        self._stopping = False
        self._notifier: threading.Thread | None = None
        self.connected = False
        self.refused = 0  # messages refused by the checks (each one logged with its reason)
        self.refusals: deque[dict[str, str]] = deque(maxlen=self.MAX_REFUSALS)  # the latest, with why
        self.last_refused: dict[str, str] | None = None
        self.client = new_client(self.link, f"dicetable-hall-{id(self):x}")
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.suppress_exceptions = True  # behind _on_message's own last resort: the thread lives

    def start(self) -> None:
        self._notifier = threading.Thread(target=self._notify_loop, name="hall-notify", daemon=True)
        self._notifier.start()
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self._stopping = True
        self._dirty.set()
        if self._notifier is not None:
            self._notifier.join(timeout=5)

    def _notify_loop(self) -> None:
        """Hand ``on_change`` the newest snapshot whenever something changed.

        One snapshot per wake-up, not one per message: with 100 tables a second the
        messages that arrive while a snapshot is built and pushed are all in the next one,
        so the MQTT thread never waits for the page and latency stays one snapshot deep.
        Also expires tables while no message arrives (every ``expire_s / 4``, at most 30 s).
        """
        while True:
            if not self._dirty.wait(timeout=min(30.0, max(0.05, self.expire_s / 4))):
                with self._lock:
                    before = self._version
                    self._expire()
                    expired = self._version != before
                if expired:
                    self._changed()
                continue
            self._dirty.clear()
            if self._stopping:
                return
            if self.on_change is not None:
                try:
                    self.on_change(self.snapshot())
                except Exception:  # a broken listener must not stop the hall
                    log.exception("hall listener failed")

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            self._expire()
            tables = [dict(v, table=k) for k, v in sorted(self._tables.items())]
            refused, last_refused = self.refused, self.last_refused
        return {
            "broker": f"{self.host}:{self.port}",
            "tls": self.link.tls,
            "connected": self.connected,
            "refused": refused,
            "last_refused": last_refused,
            "tables": tables,
        }

    def changes(self, since: int = 0) -> dict[str, Any]:
        """What changed after version ``since``: the changed entries and the removed table ids.

        ``full`` is true (and ``tables`` holds every table) for ``since`` 0, or when the
        page is so far behind that some removal it missed is no longer remembered.
        Apply ``gone`` first, then ``tables``; then the page is at ``version``.
        """
        with self._lock:
            self._expire()
            version = self._version
            full = since <= 0 or since < self._gone_floor or since > version
            changed = [dict(v, table=k) for k, v in self._tables.items() if full or v["v"] > since]
            gone = [] if full else [k for k, v in self._gone.items() if v > since]
            refused, last_refused = self.refused, self.last_refused
        changed.sort(key=lambda t: t["table"])
        return {
            "version": version,
            "full": full,
            "broker": f"{self.host}:{self.port}",
            "tls": self.link.tls,
            "connected": self.connected,
            "refused": refused,
            "last_refused": last_refused,
            "tables": changed,
            "gone": gone,
        }

    def _changed(self) -> None:
        if self.on_change is not None:
            self._dirty.set()  # the notifier thread builds and hands out the snapshot
        if self.on_update is not None:
            try:
                self.on_update(self._version)
            except Exception:  # a broken listener must not stop the hall
                log.exception("hall update listener failed")

    def _bump(self) -> int:
        """The next version (lock held)."""
        self._version += 1
        return self._version

    def _remove(self, table_id: str) -> None:
        """Forget a table and remember that it went, for pages that are behind (lock held)."""
        if self._tables.pop(table_id, None) is None:
            return
        self._gone[table_id] = self._bump()
        self._gone.move_to_end(table_id)
        while len(self._gone) > self.MAX_GONE:
            _, old = self._gone.popitem(last=False)
            self._gone_floor = max(self._gone_floor, old)

    def _expire(self) -> None:
        """Forget tables offline for longer than ``expire_s`` (call with the lock held)."""
        cutoff = self.clock() - self.expire_s
        for table_id in [k for k, v in self._tables.items() if not v["online"] and v["seen"] < cutoff]:
            self._remove(table_id)

    def _room_for_one(self) -> bool:
        """Make room for a new table: expire, then drop the longest-offline one (lock held)."""
        self._expire()
        if len(self._tables) < self.max_tables:
            return True
        offline = [(v["seen"], k) for k, v in self._tables.items() if not v["online"]]
        if not offline:
            return False
        self._remove(min(offline)[1])
        return True

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any
    ) -> None:
        if reason_code.is_failure:
            log.warning("broker %s refused the hall: %s", self.link.describe(), reason_code)
            return
        client.subscribe([(f"{self.prefix}/+/{kind}", 1) for kind in ("state", "status", "result")])
        with self._lock:
            self.connected = True
            self._bump()
        self._changed()
        if self.on_connect is not None:
            try:
                self.on_connect()
            except Exception:  # a broken listener must not stop the hall
                log.exception("hall connect listener failed")

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any
    ) -> None:
        with self._lock:
            self.connected = False
            self._bump()
        self._changed()

    def _refuse(self, topic: str, why: str) -> None:
        """Count, log and remember a refused message: it changes nothing else."""
        entry = {"topic": topic[:200], "why": why[:300], "at": _now_iso()}
        with self._lock:
            self.refused += 1
            self.refusals.append(entry)
            self.last_refused = entry
            self._bump()
        log.warning("refused message on %s: %s", entry["topic"], entry["why"])
        self._changed()

    def _parse(self, msg: mqtt.MQTTMessage) -> tuple[str, str, dict[str, Any]] | None:
        """(table id, kind, checked payload), or None for a message that is refused (and logged)."""
        head, _, rest = msg.topic.rpartition("/")
        prefix, _, table_id = head.rpartition("/")
        if prefix != self.prefix or rest not in CHECKS:
            return None
        try:
            check_table_id(table_id)
            return table_id, rest, CHECKS[rest](table_id, parse(msg.payload, self.MAX_PAYLOAD))
        except ValueError as e:  # BadMessage, or a table id that is not one
            self._refuse(msg.topic, str(e))
            return None

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """Every message, whatever it holds: an error here would end paho's network thread (and the hall)."""
        try:
            self._take(msg)
        except Exception as e:  # the last resort: the checks should have refused it already
            log.exception("hall failed on a message on %s", msg.topic)
            self._refuse(msg.topic, f"the hall could not take it ({type(e).__name__}: {str(e)[:120]})")

    def _take(self, msg: mqtt.MQTTMessage) -> None:
        parsed = self._parse(msg)
        if parsed is None:
            return
        table_id, kind, checked = parsed
        now = self.clock()
        long_gone = _age(checked.get("t"), now) > self.expire_s
        if kind == "status" and checked["status"] == "offline" and long_gone:
            with self._lock:  # a retained goodbye from long ago: not in this hall
                known = table_id in self._tables
                self._remove(table_id)
            if known:
                self._changed()
            return
        with self._lock:
            if table_id not in self._tables:
                if not self._room_for_one():
                    log.warning(
                        "hall is full (%d tables online): ignored table %s", self.max_tables, table_id
                    )
                    return
                self._tables[table_id] = {"online": False, "summary": None, "result": None}
                self._gone.pop(table_id, None)  # back again: its entry below supersedes the removal
            entry = self._tables[table_id]
            if kind == "status":
                entry["online"] = checked["status"] == "online"
            else:
                entry[kind if kind == "result" else "summary"] = checked
            entry["seen"] = round(now, 3)
            entry["v"] = self._bump()
        self._changed()
        if kind == "result" and self.on_result is not None:
            try:
                self.on_result(table_id, checked)
            except Exception:  # a broken listener must not stop the hall
                log.exception("hall result listener failed on table %s's result", table_id)


CHECKS = {"state": check_summary, "status": check_status, "result": check_result}


def _age(t: str | None, now: float) -> float:
    """Seconds since the ISO time ``t`` (0 when unknown)."""
    if t is None:
        return 0.0
    try:
        return now - datetime.fromisoformat(t).timestamp()
    except ValueError:
        return 0.0
