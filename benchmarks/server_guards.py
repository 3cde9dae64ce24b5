"""The guards every server shares (issue 31 items 4 and 7), probed on loopback as the CLI starts them.

    nice -n 10 .venv/bin/python -m benchmarks.server_guards [--root PATH] [--guesses 500] [--slow 1100]

``--root`` is the checkout whose code is served (default: this one), so one script measures
before and after (``mkdir /tmp/old && git archive 2e9e72d | tar -x -C /tmp/old``, then
``--root /tmp/old``).
Every probe is bounded in count and time; nothing is kept.

* the tournament page (``dicetable tournament``, organiser token set): ``--guesses`` wrong tokens
  from 127.0.0.1 on one connection (how many were compared, how many refused as 429, guesses a
  second); the right token with a foreign Host; then the right token from 127.0.0.3 (401 or 429:
  refused; 200, or 409 once a round is on, mean the token was taken);
* the tournament page without a token (the default): a cross-origin POST (``Origin`` of another
  site, ``text/plain``: what a page on another site can send) and whether round 1 started; a
  200 MB body to ``/api/result`` (the answer, and the server's peak resident memory);
* the table display (``dicetable serve-fake``, admin token set): 8 wrong tokens from 127.0.0.1
  each naming another ``X-Forwarded-For``; 30 wrong tokens from six addresses, then the right
  token from a seventh; under ``prlimit --nofile=1024`` (a Pi service's limit), ``--slow``
  connections from 127.0.0.2 that each send half a request head: is the display reachable from
  127.0.0.1 (5 s timeout), how many of them the server closed within 2 s, and whether 127.0.0.2
  itself is served after the head timeout (12 s).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from benchmarks.harness import ROOT, add_smoke, markdown_table, run_header, write

TOKEN = "k3Yq-8vTn-Wp2z-Lm4R"
TOURNAMENT = (
    '[tournament]\nname = "Open"\ntables = ["t1", "t2"]\n'
    + "".join(f'[[players]]\nname = "{p}"\n' for p in ("ann", "bob", "cid", "dan"))
    + '[[rounds]]\ngame = "die-angler"\n[mqtt]\nhost = "127.0.0.1"\nport = 1\n'
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def server(root: Path, args: list[str], nofile: int | None = None) -> Iterator[tuple[str, int]]:
    """``python -m controller ARGS`` from ``root`` on a free port; yields (url, pid)."""
    port = free_port()
    cmd = [sys.executable, "-m", "controller", *args, "--port", str(port)]
    if nofile is not None:
        cmd = ["prlimit", f"--nofile={nofile}", *cmd]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise RuntimeError(f"{' '.join(args)} exited: {err[-1000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{' '.join(args)} did not listen on {port}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def from_address(address: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10)


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def tournament_probes(root: Path, folder: Path, guesses: int, body_mb: int) -> list[tuple[str, str]]:
    (folder / "open.toml").write_text(TOURNAMENT, encoding="utf-8")
    base = ["tournament", str(folder / "open.toml")]
    rows: list[tuple[str, str]] = []
    with server(root, [*base, "--db", str(folder / "a.sqlite3"), "--admin-token", TOKEN]) as (url, _):
        codes: dict[int, int] = {}
        with httpx.Client(timeout=10) as c:
            started = time.perf_counter()
            for i in range(guesses):
                r = c.post(url + "/api/next-round", json={}, headers={"X-Admin-Token": f"guess-{i}"})
                codes[r.status_code] = codes.get(r.status_code, 0) + 1
            rate = guesses / (time.perf_counter() - started)
        shown = ", ".join(f"{n}× {code}" for code, n in sorted(codes.items()))
        rows.append(
            (f"tournament: {guesses} wrong organiser tokens from one client", f"{shown}; {rate:.0f} a second")
        )
        r = httpx.post(
            url + "/api/next-round", json={}, headers={"X-Admin-Token": TOKEN, "Host": "rebind.evil.example"}
        )
        rows.append(("tournament: the right token with Host rebind.evil.example", str(r.status_code)))
        with from_address("127.0.0.3") as other:
            r = other.post(url + "/api/next-round", json={}, headers={"X-Admin-Token": TOKEN})
        rows.append(("tournament: then the right token from another client", str(r.status_code)))
    with server(root, [*base, "--db", str(folder / "b.sqlite3")]) as (url, pid):
        r = httpx.post(
            url + "/api/next-round",
            content=b"{}",
            headers={"Origin": "http://evil.example", "Content-Type": "text/plain"},
        )
        started = httpx.get(url + "/api/tournament").json()["round"] == 1
        rows.append(
            (
                "tournament, no token: a cross-origin text/plain POST",
                f"{r.status_code}; round 1 started: {started}",
            )
        )
        idle = peak_rss_mb(pid)
        answer = post_body(url, "/api/result", body_mb << 20)
        rows.append(
            (
                f"tournament, no token: a {body_mb} MB body to /api/result",
                f"{answer}; peak RSS {peak_rss_mb(pid):.0f} MB (before it {idle:.0f} MB)",
            )
        )
    return rows


def post_body(url: str, path: str, size: int) -> str:
    host, port = url.removeprefix("http://").split(":")
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    chunk, sent = b"x" * (1 << 20), 0
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        try:
            sock.sendall(head)
            while sent < size:
                sock.sendall(chunk[: min(len(chunk), size - sent)])
                sent += min(len(chunk), size - sent)
        except OSError:
            pass
        try:
            status = sock.recv(200).split(b"\r\n", 1)[0].decode(errors="replace")
        except OSError as e:
            status = f"({type(e).__name__})"
    return f"{status or '(closed)'} after {sent / 1e6:.0f} MB sent"


def slow_connections(port: int, n: int) -> list[socket.socket]:
    held = []
    for _ in range(n):
        sock = socket.socket()
        sock.settimeout(2)
        try:
            sock.bind(("127.0.0.2", 0))
            sock.connect(("127.0.0.1", port))
            sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        except OSError:
            sock.close()
            continue
        held.append(sock)
    return held


def closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(0.05)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def timed_get(client: httpx.Client, url: str) -> str:
    started = time.perf_counter()
    try:
        r = client.get(url, timeout=5)
        return f"{r.status_code} in {1000 * (time.perf_counter() - started):.0f} ms"
    except httpx.HTTPError as e:
        return f"no answer ({type(e).__name__}) after {time.perf_counter() - started:.1f} s"


def display_probes(root: Path, slow: int, nofile: int, wait_head: bool) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    with server(root, ["serve-fake", "--every", "0", "--admin-token", TOKEN]) as (url, _):
        login = url + "/api/admin/login"
        codes = [
            httpx.post(
                login, json={"token": f"x{i}"}, headers={"X-Forwarded-For": f"203.0.113.{i}"}
            ).status_code
            for i in range(8)
        ]
        rows.append(
            (
                "display: 8 wrong tokens from 127.0.0.1, each naming another X-Forwarded-For",
                " ".join(map(str, codes)),
            )
        )
        for n in range(6):
            with from_address(f"127.0.0.{10 + n}") as c:
                for i in range(5):
                    c.post(login, json={"token": f"g{n}-{i}"})
        with from_address("127.0.0.20") as c:
            r = c.post(login, json={"token": TOKEN})
        rows.append(
            ("display: 30 wrong tokens from 6 addresses, then the right one from a 7th", str(r.status_code))
        )
    with server(root, ["serve-fake", "--every", "0"], nofile=nofile) as (url, _):
        port = int(url.rsplit(":", 1)[1])
        started = time.perf_counter()
        held = slow_connections(port, slow)
        opened = time.perf_counter() - started
        try:
            with httpx.Client() as c:
                rows.append(
                    (
                        f"display under `prlimit --nofile={nofile}`: {len(held)} slow connections from "
                        f"127.0.0.2 (opened in {opened:.1f} s), then GET /api/state from 127.0.0.1",
                        timed_get(c, url + "/api/state"),
                    )
                )
            time.sleep(2)
            closed = sum(closed_by_server(s) for s in held)
            rows.append(
                (
                    "display: of those slow connections, closed by the server within 2 s",
                    f"{closed} of {len(held)}",
                )
            )
            if wait_head:
                time.sleep(10)
                closed = sum(closed_by_server(s) for s in held)
                with from_address("127.0.0.2") as c:
                    after = timed_get(c, url + "/api/state")
                rows.append(
                    (
                        "display: 12 s later: slow connections closed; GET /api/state from 127.0.0.2 itself",
                        f"{closed} of {len(held)}; {after}",
                    )
                )
        finally:
            for s in held:
                s.close()
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose code is served")
    ap.add_argument("--guesses", type=int, default=500, help="wrong organiser tokens from one client")
    ap.add_argument("--slow", type=int, default=1100, help="slow connections from one client")
    ap.add_argument("--nofile", type=int, default=1024, help="the served display's open-file limit")
    ap.add_argument("--body-mb", type=int, default=200, help="the size of the large body")
    ap.add_argument("--out", type=Path, default=None, help="also write the report here")
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.smoke:
        args.guesses, args.slow, args.nofile, args.body_mb = 20, 60, 256, 8
    with tempfile.TemporaryDirectory(prefix="dicetable-guards-") as folder:
        rows = tournament_probes(args.root.resolve(), Path(folder), args.guesses, args.body_mb)
        rows += display_probes(args.root.resolve(), args.slow, args.nofile, wait_head=not args.smoke)
    served = subprocess.run(
        ["git", "-C", str(args.root), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    lines = [
        "# The guards every server shares, probed on loopback",
        "",
        run_header(argv),
        f"Served code: `{args.root}` at `{served or 'unknown'}`.",
        "",
        *markdown_table(["probe", "answer"], rows),
        "",
    ]
    write("\n".join(lines), args.out)


if __name__ == "__main__":
    main()
