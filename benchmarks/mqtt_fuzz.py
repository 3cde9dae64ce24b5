"""Fuzz the hall and the tournament over a real Mosquitto: malformed, hostile and forged MQTT messages,
many of them retained, then a hall restart, then a genuine result that must count.

All on loopback.  A Mosquitto on a free port (anonymous, no persistence, no queue limit so nothing
is dropped), two halls wired as the commands wire them: ``dicetable hall`` (a ``Hall`` waking a
``Hub``) and ``dicetable tournament`` (a ``Hall`` handing results to a ``Tournament`` in SQLite
through a ``TournamentView``, ``confirm = "table"`` so a forgery would count at once).  One
paho client sends ``--count`` messages (seeded), each one of:

* structural: a genuine state, status or result with one field, at any depth, replaced by a hostile
  JSON value (a 400-digit number, NaN, an array nested up to 8,000 deep, a list or object where a
  name, colour, status, game or winner belongs, a long or unprintable string, a surrogate, ...);
* raw: bytes that are not UTF-8, not JSON, cut short, a 5,000-digit number, over 16 KiB, empty;
* forged results for the tournament's own table (``t1``): the lower score winning, the wrong
  players or game, dated 2099, dated a minute into the round but sent before it started.

Structural and raw messages go to random table ids and to ``t1``'s state and status topics; ``t1``'s
result topic gets only forgeries and raw bytes (a random mutation may well be a result the rules
allow, which no check can tell from a genuine one).  A share of every kind is retained.  Then both
halls are stopped and started again (the broker re-delivers every retained message), and the genuine
result is published: the tournament must take it and the hall must show it.

    nice -n 10 .venv/bin/python -m benchmarks.mqtt_fuzz [--count 10000] [--seed 31] [--out FILE]

Bounded: ``--count`` messages and ``--timeout`` seconds for each wait.  Reports per kind how many were
sent and retained, what the halls did with them (refused by the checks, refused by the last-resort
catch, which should be none, or taken), what the tournament refused, and whether the genuine result
counted.  Exits 1 when a hall stopped, a message was taken by the last resort, a forgery counted, or
the genuine result did not.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from benchmarks.harness import add_smoke, markdown_table, run_header, write
from controller.tournament import Tournament
from controller.tournament_file import TournamentFile
from display.hall_app import wake_hub
from display.hub import Hub
from display.mqtt import Hall
from display.tournament_app import TournamentView

PREFIX = "dicetable/v1/tables"
PLAYERS = [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}]
GAME = "dicetar-wars"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    """A loopback broker that keeps every queued message (max_queued_messages 0: no limit)."""

    def __init__(self, folder: Path) -> None:
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.port = free_port()
        conf = folder / "mosquitto.conf"
        conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
            "max_queued_messages 0\nmax_inflight_messages 100\n",
            encoding="utf-8",
        )
        self.log = folder / "mosquitto.log"
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen([exe, "-c", str(conf)], stdout=out, stderr=out)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not start: {self.log.read_text()[-400:]}")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


# ---------------------------------------------------------------- the messages


def now_iso(delta: float = 0.0) -> str:
    return (datetime.now(UTC) + timedelta(seconds=delta)).isoformat(timespec="seconds")


def genuine(kind: str, table: str) -> dict[str, Any]:
    if kind == "status":
        return {"table": table, "status": "online", "t": now_iso()}
    base = {"table": table, "game": GAME, "players": PLAYERS, "scores": {"ann": 12, "bob": 31}, "seq": 40}
    if kind == "state":
        playing = {"status": "playing", "waiting_for": "throw from ann", "current_player": "ann"}
        return {**base, **playing, "round": None, "winners": [], "updated": now_iso()}
    return {**base, "winners": ["bob"], "finished": now_iso()}


def hostile_value(rnd: random.Random) -> Any:
    """A JSON value that a careless check trips over (returned as a marker for the raw ones)."""
    deep = rnd.choice([10, 100, 1000, 8000])
    pool: list[Any] = [
        ("RAW", "1" + "0" * 400),
        ("RAW", "-1" + "0" * 400),
        ("RAW", "1e400"),
        ("RAW", "NaN"),
        ("RAW", "-Infinity"),
        ("RAW", "[" * deep + "]" * deep),
        ("RAW", '{"a":' * min(deep, 2000) + "1" + "}" * min(deep, 2000)),
        [],
        {},
        ["red"],
        {"red": 1},
        [["ann"]],
        [{"name": "ann"}],
        None,
        True,
        0,
        -1,
        2**63,
        1.5,
        "",
        "x" * 5000,
        "\u0000\u0007",
        "\ud800",
        "<script>alert(1)</script>",
        "0001-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59-14:00",
        "2099-01-01T00:00:00+00:00",
        "ann",
        "over",
        "offline",
    ]
    return rnd.choice(pool)


def encode(value: Any) -> str:
    """JSON text of a value whose leaves may be ("RAW", text) markers, spliced in verbatim."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "RAW":
        return str(value[1])
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(str(k))}:{encode(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(encode(v) for v in value) + "]"
    return json.dumps(value)


def mutate(doc: Any, rnd: random.Random) -> Any:
    """``doc`` with one place (a field, an item, or the whole) replaced by a hostile value."""
    if isinstance(doc, dict) and doc and rnd.random() < 0.85:
        key = rnd.choice(list(doc))
        return {**doc, key: mutate(doc[key], rnd)}
    if isinstance(doc, list) and doc and rnd.random() < 0.7:
        i = rnd.randrange(len(doc))
        return [*doc[:i], mutate(doc[i], rnd), *doc[i + 1 :]]
    if rnd.random() < 0.1 and isinstance(doc, dict):  # an extra, or a key that is not a name
        return {**doc, rnd.choice(["zz", "", "\u0000", "x" * 300]): hostile_value(rnd)}
    return hostile_value(rnd)


def raw_bytes(rnd: random.Random, kind: str, table: str) -> bytes:
    text = json.dumps(genuine(kind, table))
    choice = rnd.randrange(7)
    if choice == 0:
        return bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 200)))
    if choice == 1:
        return text[: rnd.randrange(len(text))].encode()
    if choice == 2:
        return b"\xff\xfe" + text.encode()
    if choice == 3:
        return text.replace('"seq": 40', '"seq": 1' + "0" * 5000).encode()
    if choice == 4:
        return (text[:-1] + ', "pad": "' + "p" * 17_000 + '"}').encode()
    if choice == 5:
        return rnd.choice([b"[]", b"12", b'"x"', b"null", b"true", b"{}"])
    return b""


def forgery(rnd: random.Random, before_round: bool) -> tuple[str, dict[str, Any]]:
    """A well-formed result for t1 that must not count (its name, the result)."""
    r = genuine("result", "t1")
    if before_round:
        return "published before the round", {**r, "finished": now_iso(60), "seq": rnd.randrange(10**6)}
    name = rnd.choice(["lower score wins", "wrong players", "wrong game", "dated 2099", "two winners"])
    if name == "lower score wins":
        r["winners"] = ["ann"]
    elif name == "wrong players":
        r["players"] = [PLAYERS[0], {"name": "eve", "colour": "green"}]
        r["scores"] = {"ann": 12, "eve": 31}
        r["winners"] = ["eve"]
    elif name == "wrong game":
        r["game"] = "dice-fighter"
        r["winners"] = ["bob"]
    elif name == "dated 2099":
        r["finished"] = "2099-01-01T00:00:00+00:00"
    else:
        r["winners"] = ["ann", "bob"]
    r["seq"] = rnd.randrange(10**6)
    return name, r


# ---------------------------------------------------------------- the run


class Halls:
    """The two halls, wired as `dicetable hall` and `dicetable tournament` wire them."""

    def __init__(self, port: int, tournament: Tournament) -> None:
        self.plain = Hall("127.0.0.1", port, keepalive=5, on_update=wake_hub(Hub()))
        self.hall = Hall("127.0.0.1", port, keepalive=5)
        self.view = TournamentView(tournament, self.hall, Hub())
        self.hall.on_change, self.hall.on_result = self.view.changed, self.view.on_result
        for h in (self.plain, self.hall):
            h.start()

    def both(self) -> tuple[Hall, Hall]:
        return self.plain, self.hall

    def alive(self) -> bool:
        return all(
            h.connected and h.client._thread is not None and h.client._thread.is_alive() for h in self.both()
        )

    def stop(self) -> None:
        for h in self.both():
            h.stop()


REASONS = [
    ("its players are", "the wrong players"),
    ("it is a result of", "another game"),
    ("in the future", "from the future"),
    ("it was published at", "published before the round started"),
    ("before round", "finished before the round started"),
    ("cannot give it", "winners the game's rules cannot give"),
    ("already has a result", "a second result for the match"),
]


class Refusals(logging.Handler):
    """Counts the tournament's refusals as they happen (its table keeps only the latest 100 a table)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if text.startswith("refused the result of table"):
            self.seen[reason(text.split(": ", 1)[-1])] += 1


def reason(why: str) -> str:
    """A refusal's reason in a few words (the full text is in the tournament's refused_results)."""
    return next((short for words, short in REASONS if words in why), why[:50])


def wait_until(check: Callable[[], Any], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())


def last_resort(h: Hall) -> int:
    return sum("could not take it" in r["why"] for r in h.refusals)


def run(count: int, seed: int, timeout: float, folder: Path) -> tuple[list[list[object]], dict[str, Any]]:
    rnd = random.Random(seed)
    broker = Mosquitto(folder)
    spec = TournamentFile.model_validate(
        {
            "tournament": {"name": "Fuzz Open", "tables": ["t1"], "confirm": "table"},
            "players": [{"name": "ann"}, {"name": "bob"}],
            "rounds": [{"game": GAME}],
        }
    )
    tournament = Tournament(spec, folder / "tournament.sqlite3")
    refusals = Refusals()
    logging.getLogger("controller.tournament").addHandler(refusals)
    halls = Halls(broker.port, tournament)
    sender = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="fuzzer")
    sender.max_queued_messages_set(0)
    sender.connect("127.0.0.1", broker.port)
    sender.loop_start()
    sent: Counter[str] = Counter()
    retained: Counter[str] = Counter()
    stats: dict[str, Any] = {"last_resort": 0, "hall_restarts": 1}
    lock = threading.Lock()
    try:
        if not wait_until(lambda: all(h.connected for h in halls.both()), timeout):
            raise RuntimeError("the halls did not connect")
        started = time.perf_counter()

        def send(what: str, topic: str, payload: bytes, retain: bool) -> None:
            info = sender.publish(topic, payload, qos=1, retain=retain)
            with lock:
                sent[what] += 1
                retained[what] += retain and bool(payload)  # an empty retained publish deletes
            if sent.total() % 200 == 0:
                info.wait_for_publish(timeout)  # keep the client's queue short

        before = max(1, count // 50)  # forgeries sent while no round has started
        early = [forgery(rnd, before_round=True)[1] for _ in range(before)]
        for r in early:
            send("forged result, before round 1", f"{PREFIX}/t1/result", json.dumps(r).encode(), True)
        wait_until(lambda: halls.hall.snapshot()["tables"] != [], timeout)
        time.sleep(0.5)  # let the tournament see them before the round starts
        tournament.start_next_round()
        for r in early:  # the same, sent again in the round (a replay; dated a minute into it)
            send(
                "forged result, before round 1, sent again",
                f"{PREFIX}/t1/result",
                json.dumps(r).encode(),
                False,
            )
        for i in range(count - 2 * before):
            kind = rnd.choice(["state", "status", "result"])
            table = "t1" if rnd.random() < 0.3 else f"x{rnd.randrange(400)}"
            topic = f"{PREFIX}/{table}/{kind}"
            retain = rnd.random() < 0.3
            roll = rnd.random()
            if table == "t1" and kind == "result" and roll < 0.6:
                name, r = forgery(rnd, before_round=False)
                send(f"forged result: {name}", topic, json.dumps(r).encode(), retain)
            elif roll < 0.8 and not (table == "t1" and kind == "result"):
                send(
                    f"one field hostile ({kind})",
                    topic,
                    encode(mutate(genuine(kind, table), rnd)).encode(),
                    retain,
                )
            else:
                send(f"raw bytes ({kind})", topic, raw_bytes(rnd, kind, table), retain)
            if i % 2000 == 1999 and not halls.alive():
                break
        done = sender.publish(
            f"{PREFIX}/zz-end/status", json.dumps({"table": "zz-end", "status": "online"}), qos=1
        )
        done.wait_for_publish(timeout)
        for h in halls.both():  # the marker comes last: every message before it has reached the hall
            wait_until(lambda h=h: any(t["table"] == "zz-end" for t in h.snapshot()["tables"]), timeout)
        stats["seconds"] = time.perf_counter() - started
        stats["alive_after_fuzz"] = halls.alive()
        stats["refused_live"] = [h.refused for h in halls.both()]
        stats["last_resort"] += sum(last_resort(h) for h in halls.both())
        stats["status_after_fuzz"] = tournament.matches(1)[0]["status"]

        halls.stop()  # a restart: every retained message is given again
        halls = Halls(broker.port, tournament)
        kept = sum(retained.values())
        wait_until(
            lambda: all(h.refused + len(h.snapshot()["tables"]) >= kept * 0.5 for h in halls.both()), timeout
        )
        time.sleep(1.0)
        stats["alive_after_restart"] = halls.alive()
        stats["refused_retained"] = [h.refused for h in halls.both()]
        stats["last_resort"] += sum(last_resort(h) for h in halls.both())
        stats["status_after_restart"] = tournament.matches(1)[0]["status"]

        real = genuine("result", "t1")
        sender.publish(f"{PREFIX}/t1/result", json.dumps(real), qos=1, retain=True).wait_for_publish(timeout)
        taken = wait_until(lambda: tournament.matches(1)[0]["status"] == "confirmed", timeout)
        shown = wait_until(
            lambda: any(
                t["table"] == "t1"
                and (t.get("result") or {}).get("seq") == real["seq"]
                and (t.get("result") or {}).get("finished") == real["finished"]
                for t in halls.plain.snapshot()["tables"]
            ),
            timeout,
        )
        match = tournament.matches(1)[0]
        stats["genuine_taken"] = (
            taken and match["scores"] == real["scores"] and match["winners"] == real["winners"]
        )
        stats["genuine_shown"] = shown
        stats["tournament_refused"] = refusals.seen
        stats["tournament_refused_total"] = refusals.seen.total()
    finally:
        halls.stop()
        sender.loop_stop()
        sender.disconnect()
        tournament.close()
        broker.stop()
    rows: list[list[object]] = [[what, f"{sent[what]:,}", f"{retained[what]:,}"] for what in sorted(sent)]
    rows.append(["**all**", f"**{sent.total():,}**", f"**{retained.total():,}**"])
    return rows, stats


def report(rows: list[list[object]], stats: dict[str, Any]) -> tuple[str, bool]:
    """The report in Markdown, and whether the hall and the tournament came through."""
    ok = bool(
        stats["alive_after_fuzz"]
        and stats["alive_after_restart"]
        and stats["last_resort"] == 0
        and stats["status_after_fuzz"] == "playing"
        and stats["status_after_restart"] == "playing"
        and stats["genuine_taken"]
        and stats["genuine_shown"]
    )

    def pair(a: Any, b: Any) -> str:
        return f"{a:,} / {b:,}" if isinstance(a, int) and not isinstance(a, bool) else f"{a} / {b}"

    checks = [
        ["seconds to send and deliver to both halls", f"{stats['seconds']:.1f}"],
        [
            "refused live by the checks (`dicetable hall` / the tournament's hall)",
            pair(*stats["refused_live"]),
        ],
        ["refused by the last-resort catch instead of a check", stats["last_resort"]],
        [
            "network threads alive after the fuzz / after a restart",
            pair(stats["alive_after_fuzz"], stats["alive_after_restart"]),
        ],
        ["refused after the restart (the retained ones given again)", pair(*stats["refused_retained"])],
        [
            "the tournament's match after the fuzz / the restart",
            pair(stats["status_after_fuzz"], stats["status_after_restart"]),
        ],
        [
            "results the tournament refused with why (each distinct one once)",
            f"{stats['tournament_refused_total']:,}",
        ],
        [
            "the genuine result counted / shown by the hall",
            pair(stats["genuine_taken"], stats["genuine_shown"]),
        ],
        [
            "**verdict**",
            "**no crash, no forgery counted, the genuine result counted**" if ok else "**FAILED**",
        ],
    ]
    why = sorted(stats["tournament_refused"].items(), key=lambda kv: -kv[1])
    lines = ["# MQTT fuzz: the hall and the tournament", "", run_header(), ""]
    lines += markdown_table(["message", "sent", "retained"], rows)
    lines += ["", *markdown_table(["check", "result"], checks), ""]
    lines += ["Why the tournament refused results:", "", *markdown_table(["reason", "results"], why)]
    return "\n".join(lines) + "\n", ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10_000, help="messages to send (default 10,000)")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds for each wait")
    ap.add_argument("--out", type=Path, default=None, help="also write the report here")
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.count = 300
    with tempfile.TemporaryDirectory(prefix="dicetable-mqtt-fuzz-") as folder:
        rows, stats = run(args.count, args.seed, args.timeout, Path(folder))
    text, ok = report(rows, stats)
    write(text, args.out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
