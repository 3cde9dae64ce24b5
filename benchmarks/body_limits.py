"""Memory of a served display under 4 concurrent 200 MB request bodies, without and with the body limit.

    nice -n 10 .venv/bin/python -m benchmarks.body_limits [--clients 4] [--mb 200]

For each mode a fresh display of a real table is served on loopback in a child process (uvicorn, as
``dicetable run`` serves it, admin with a token); 4 clients each POST a 200 MB body to
``/api/admin/correct`` without the token, all at once.  The child's resident memory is sampled every
20 ms (and its peak, VmHWM, read at the end).  "off" is the display without its guard middleware (the
body read whole before the token is checked, as before issue 23); "on" is the shipped display (the
token checked before the body, and the body counted while it is read), once without the token (401
before the body) and once with it (413 from Content-Length, or while counting).
Loopback only; nothing is kept.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.harness import ROOT, add_smoke, markdown_table, run_header

SMOKE = (1, 2)  # --smoke: one client, a 2 MB body
TOKEN = "k3Yq-8vTn-Wp2z-Lm4R"


def serve(limit: str, port: int) -> None:
    """The child: a real table's display on 127.0.0.1:port."""
    import uvicorn

    from controller.config import parse_config
    from controller.eventlog import EventLog
    from controller.table import Table
    from display.app import Guard, create_app
    from display.hub import Hub

    cfg = parse_config({"table": {"game": "dice-hunter", "options": {"deck": "virtual"}}})
    table = Table(cfg, EventLog(Path(tempfile.mkdtemp()) / "t.sqlite3"))
    app = create_app(table, Hub(), admin_token=TOKEN)
    if limit == "off":  # the display as it was: no guard, the body read whole before the token check
        app.user_middleware = [m for m in app.user_middleware if m.cls is not Guard]
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _rss_kb(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _post(port: int, size: int, out: list[str], token: bool) -> None:
    auth = b"X-Admin-Token: " + TOKEN.encode() + b"\r\n" if token else b""
    head = (
        b"POST /api/admin/correct HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + auth
        + b"Content-Length: %d\r\n\r\n" % size
    )
    chunk = b"x" * (1 << 20)
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        try:
            sock.sendall(head)
            while sent < size:
                sock.sendall(chunk[: min(len(chunk), size - sent)])
                sent += min(len(chunk), size - sent)
        except OSError:
            pass  # the server answered and closed before the whole body was sent
        try:
            answer = sock.recv(200).split(b"\r\n", 1)[0].decode(errors="replace")
        except OSError as e:
            answer = f"({type(e).__name__})"
    out.append(f"{answer or '(closed)'} after {sent / 1e6:.0f} MB sent")


def measure(limit: str, clients: int, mb: int, token: bool = False) -> dict[str, object]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    child = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.body_limits", "--serve", limit, "--port", str(port)], cwd=ROOT
    )
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(0.5)
        idle = _rss_kb(child.pid)
        answers: list[str] = []
        threads = [
            threading.Thread(target=_post, args=(port, mb * 10**6, answers, token)) for _ in range(clients)
        ]
        peak, started = idle, time.perf_counter()
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            peak = max(peak, _rss_kb(child.pid))
            time.sleep(0.02)
        seconds = time.perf_counter() - started
        hwm = _rss_kb(child.pid, "VmHWM")
        return {
            "limit": limit,
            "token": token,
            "idle_mb": round(idle / 1024),
            "peak_sampled_mb": round(peak / 1024),
            "peak_hwm_mb": round(hwm / 1024),
            "seconds": round(seconds, 1),
            "answers": sorted(answers),
        }
    finally:
        child.terminate()
        child.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--serve", choices=["on", "off"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    add_smoke(parser)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port)
        return 0
    if args.smoke:
        args.clients, args.mb = SMOKE
    runs = []
    for limit, token in (("off", False), ("on", False), ("on", True)):
        runs.append(measure(limit, args.clients, args.mb, token))
        print(json.dumps(runs[-1]), flush=True)
    print("\n" + run_header() + f"{args.clients} clients, {args.mb} MB each.\n")
    head = ["guard", "token", "idle MB", "peak MB (sampled)", "peak MB (VmHWM)", "seconds", "answers"]
    keys = ("idle_mb", "peak_sampled_mb", "peak_hwm_mb", "seconds")
    rows = [
        [r["limit"], "yes" if r["token"] else "no", *(r[k] for k in keys), "; ".join(r["answers"])]  # type: ignore[arg-type]
        for r in runs
    ]
    print("\n".join(markdown_table(head, rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
