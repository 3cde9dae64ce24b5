"""Push latency of the table display: from a referee's correction to receipt in the page.

One process serves a real ``controller.table.Table`` (SQLite event log in a
temporary folder, uvicorn on loopback) and makes corrections on it (pause,
start, ...); each is committed to the log, then the table's snapshot goes to
``hub.notify``, which pushes it over WebSocket.  Other processes hold N
WebSocket clients (the ``websockets`` package) and stamp each message as it
arrives.  Both use CLOCK_MONOTONIC, which is shared by all processes on
Linux, so latency = receipt - the correction's call.

    nice -n 10 .venv/bin/python -m benchmarks.display --clients 100 --events 200 \
        --out benchmarks/results/display.md
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.harness import ROOT, add_smoke, markdown_table, run_header

#: --smoke: clients, events, seconds between events, client processes
SMOKE = (2, 3, 0.01, 1)


async def _clients(url: str, n: int, expect: int, timeout: float) -> None:
    """Client process: n connections; print READY, then one JSON line of (client, seq, t_ns)."""
    from websockets.asyncio.client import connect

    conns = [await connect(url, max_size=None, ping_interval=None) for _ in range(n)]
    for c in conns:
        await c.recv()  # the snapshot every page gets on connect
    print("READY", flush=True)
    got: list[tuple[int, int, int]] = []

    async def listen(i: int, c: object) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                text = await asyncio.wait_for(c.recv(), deadline - time.monotonic())  # type: ignore[attr-defined]
            except TimeoutError:
                return
            t = time.monotonic_ns()
            at = text.rindex('"seq":') + 6  # the snapshot's own seq is its last one: cheaper than parsing
            seq = int(text[at : at + 12].split(",", 1)[0].rstrip("}"))
            got.append((i, seq, t))
            if seq >= expect:
                return

    await asyncio.gather(*(listen(i, c) for i, c in enumerate(conns)))
    for c in conns:
        await c.close()
    print(json.dumps(got), flush=True)


def _serve_and_measure(n_clients: int, n_events: int, gap: float, procs: int) -> dict[str, object]:
    from controller.config import TableConfig
    from controller.eventlog import EventLog
    from controller.table import Table

    with (
        tempfile.TemporaryDirectory(prefix="dicetable-bench-") as folder,
        EventLog(Path(folder) / "bench.sqlite3") as events,
    ):
        table = Table(TableConfig(), events, reader=lambda image: [], resume=False)
        try:
            got, appended = _measure(table, n_clients, n_events, gap, procs)
        finally:
            table.panels.close()
    lat_ms = sorted((t - appended[seq]) / 1e6 for _, seq, t in got if seq in appended)
    q = statistics.quantiles(lat_ms, n=100, method="inclusive")
    return {
        "clients": n_clients,
        "procs": procs,
        "events": n_events,
        "gap_ms": gap * 1000,
        "deliveries": len(lat_ms),
        "expected": n_clients * n_events,
        "p50": q[49],
        "p95": q[94],
        "p99": q[98],
        "max": lat_ms[-1],
        "mean": statistics.fmean(lat_ms),
    }


def _measure(
    table: Any, n_clients: int, n_events: int, gap: float, procs: int
) -> tuple[list[tuple[int, int, int]], dict[int, int]]:
    """Serve the table to the client processes, correct it n_events times; (receipts, seq -> call time)."""
    from display.app import create_app
    from display.hub import Hub
    from display.server import ConnectionLimits, ServerThread

    hub = Hub()
    table.listeners.append(hub.notify)
    # every client here is on 127.0.0.1: one address holds all the pages (a hall's are many devices)
    limits = ConnectionLimits(per_client=n_clients + 16)
    server = ServerThread(create_app(table, hub), limits=limits).start()
    url = f"ws://127.0.0.1:{server.port}/ws"
    last = table.snapshot()["seq"] + n_events
    shares = [n_clients // procs + (1 if i < n_clients % procs else 0) for i in range(procs)]
    children = [
        subprocess.Popen(
            [sys.executable, "-m", "benchmarks.display", "--client-mode", url, str(k), str(last)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for k in shares
        if k
    ]
    for proc in children:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if line != "READY":
            raise SystemExit(f"client process failed to connect: {line!r}")
    appended: dict[int, int] = {}
    time.sleep(0.5)
    for i in range(n_events):
        t0 = time.monotonic_ns()
        reply = table.correct({"action": "pause" if i % 2 == 0 else "start"}, "bench")  # commit -> notify
        appended[reply["seq"]] = t0
        time.sleep(gap)
    got = []
    for proc in children:
        out, _ = proc.communicate(timeout=120)
        got += json.loads(out.strip().splitlines()[-1])
    server.stop()
    return got, appended


HEADER = """# Display push latency

From a correction on a real table (`Table.correct`: the event committed to its
SQLite log, then its snapshot -> `hub.notify`) in the server process to receipt
by each WebSocket client, over loopback.  The clients live in
separate processes (`websockets` asyncio client); both sides read CLOCK_MONOTONIC.
A client that falls behind is sent only the newest snapshot (a page needs only
the latest state), so deliveries below the expected count mean coalescing, not loss.
Target: p95 within 100 ms at 100 clients.
"""


def _markdown(r: dict[str, object]) -> str:
    within = "yes" if float(r["p95"]) <= 100 else "NO"  # type: ignore[arg-type]
    row = [r["clients"], f"{r['deliveries']} / {r['expected']}"]
    row += [f"{float(r[k]):.1f}" for k in ("p50", "p95", "p99", "max", "mean")]  # type: ignore[arg-type]
    table = markdown_table(
        ["clients", "deliveries", "p50 ms", "p95 ms", "p99 ms", "max ms", "mean ms", "p95 <= 100 ms"],
        [[*row, within]],
    )
    return (
        f"\n## {r['clients']} clients, one event every {float(r['gap_ms']):.0f} ms\n\n"  # type: ignore[arg-type]
        + run_header()
        + f"{r['clients']} clients over {r['procs']} processes, {r['events']} events.\n\n"
        + "\n".join(table)
        + "\n"
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--client-mode":
        url, n, expect = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        asyncio.run(_clients(url, n, expect, timeout=60))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--events", type=int, default=200)
    ap.add_argument("--gap", type=float, default=0.05, help="seconds between appends")
    ap.add_argument("--procs", type=int, default=4, help="client processes the clients are spread over")
    ap.add_argument("--out", type=Path, help="append the markdown result here")
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.clients, args.events, args.gap, args.procs = SMOKE
    if args.clients < 1 or args.events < 2:
        ap.error("--clients must be >= 1 and --events >= 2")
    r = _serve_and_measure(args.clients, args.events, args.gap, max(1, args.procs))
    text = _markdown(r)
    print(text)
    if args.out:
        old = args.out.read_text(encoding="utf-8") if args.out.exists() else HEADER
        args.out.write_text(old + text, encoding="utf-8")


if __name__ == "__main__":
    main()
