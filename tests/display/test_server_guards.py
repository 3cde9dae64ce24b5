"""The guards every server shares (issue 31, items 4 and 7), on the servers as the CLI starts them:
Host allow-list, CSRF-safe organiser POSTs, bodies refused before they are read, wrong tokens
limited per client (never the right token from another client, never a forwarded address),
and slow or surplus connections that cannot make a server unreachable."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from controller.config import parse_config
from controller.eventlog import EventLog
from controller.live import serve_display
from controller.table import Table
from controller.tournament import Tournament
from controller.tournament_file import TournamentFile
from display.app import create_app
from display.hub import Hub
from display.mqtt import Hall
from display.server import ConnectionLimits, ServerThread, free_port
from display.tournament_app import TournamentView, create_tournament_app

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "k3Yq-8vTn-Wp2z-Lm4R"
FOREIGN = "rebind.evil.example"
TOURNAMENT_TOML = (
    '[tournament]\nname = "Open"\ntables = ["t1", "t2"]\n'
    + "".join(f'[[players]]\nname = "{p}"\n' for p in ("ann", "bob", "cid", "dan"))
    + '[[rounds]]\ngame = "die-angler"\n[mqtt]\nhost = "127.0.0.1"\nport = 1\n'
)


def wait_for_port(port: int, proc: subprocess.Popen[str], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited: {proc.communicate()[1][-2000:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


@contextlib.contextmanager
def cli_server(args: list[str], port: int, prlimit_nofile: int | None = None) -> Iterator[str]:
    """``python -m controller ARGS --port PORT`` (this worktree's code) until the block ends."""
    cmd = [sys.executable, "-m", "controller", *args, "--port", str(port)]
    if prlimit_nofile is not None:
        cmd = ["prlimit", f"--nofile={prlimit_nofile}", *cmd]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def stats_log(path: Path) -> Path:
    from controller.scenario import Setup

    log = EventLog(path)
    log.start_game(Setup("nozoku-dice", ("ann", "bob", "cid"), {}, 0))
    log.close()
    return path


def server_args(kind: str, tmp: Path) -> list[str]:
    if kind == "serve-fake":
        return ["serve-fake", "--every", "0"]
    if kind == "hall":
        return ["hall", "--broker", "127.0.0.1:1"]
    if kind == "tournament":
        (tmp / "open.toml").write_text(TOURNAMENT_TOML, encoding="utf-8")
        return ["tournament", str(tmp / "open.toml"), "--db", str(tmp / "open.sqlite3")]
    return ["stats", str(stats_log(tmp / "t.sqlite3")), "--serve"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["serve-fake", "hall", "tournament", "stats"])
def test_every_server_refuses_a_foreign_host(kind: str, tmp_path: Path) -> None:
    port = free_port()
    with cli_server(server_args(kind, tmp_path), port) as url:
        page = "/stats" if kind == "stats" else "/"
        foreign = httpx.get(url + page, headers={"Host": FOREIGN})
        assert foreign.status_code == 421, (kind, foreign.status_code, foreign.text[:200])
        assert FOREIGN in foreign.json()["error"]
        assert httpx.get(url + page, headers={"Host": f"localhost:{port}"}).status_code == 200
        if kind == "tournament":  # an organiser POST naming another host changes nothing
            post = httpx.post(url + "/api/next-round", json={}, headers={"Host": FOREIGN})
            assert post.status_code == 421
            assert httpx.get(url + "/api/tournament").json()["round"] == 0


# -- the tournament page: CSRF, bodies, guesses ----------------------------------------------------------


@pytest.fixture
def tournament(tmp_path: Path) -> Iterator[Tournament]:
    import tomllib

    spec = TournamentFile.model_validate(tomllib.loads(TOURNAMENT_TOML))
    t = Tournament(spec, tmp_path / "t.sqlite3")
    yield t
    t.close()


def tournament_app(t: Tournament, token: str | None = None) -> Any:
    return create_tournament_app(
        TournamentView(t, Hall(), Hub()), token, allowed_hosts=["localhost", "testserver"]
    )


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example", "Content-Type": "text/plain"},  # a form or a no-cors fetch
        {"Origin": "http://evil.example", "Content-Type": "application/json"},
        {"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"},
        {"Sec-Fetch-Site": "same-site", "Content-Type": "application/json"},  # the hall page on another port
        {"Origin": "null", "Content-Type": "application/json"},  # a sandboxed frame
        {"Content-Type": "text/plain"},  # an old browser that sends no Origin: a simple request
        {"Content-Type": "application/x-www-form-urlencoded"},
        {},
    ],
)
def test_a_page_on_another_origin_cannot_start_a_round(
    headers: dict[str, str], tournament: Tournament
) -> None:
    client = TestClient(tournament_app(tournament), client=("127.0.0.1", 40000))  # no token: loopback
    reply = client.post("/api/next-round", content=b"{}", headers=headers)
    assert reply.status_code in (403, 415), reply.text
    assert reply.json()["error"]
    assert tournament.state()["round"] == 0
    own_page = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert client.post("/api/next-round", json={}, headers=own_page).status_code == 200
    assert tournament.state()["round"] == 1


def test_organiser_token_guesses_are_limited_but_never_the_right_token_elsewhere(
    tournament: Tournament,
) -> None:
    app = tournament_app(tournament, TOKEN)
    guesser = TestClient(app, client=("192.0.2.7", 40000))
    codes = [
        guesser.post("/api/next-round", json={}, headers={"X-Admin-Token": f"guess-{i}"}).status_code
        for i in range(12)
    ]
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}
    assert tournament.state()["round"] == 0
    organiser = TestClient(app, client=("192.0.2.8", 40000))
    assert organiser.post("/api/next-round", json={}, headers={"X-Admin-Token": TOKEN}).status_code == 200


def test_guessers_at_many_addresses_never_lock_out_the_referee(tmp_path: Path) -> None:
    table = Table(
        parse_config({"table": {"game": "dice-hunter", "options": {"deck": "virtual"}}}),
        EventLog(tmp_path / "t.sqlite3"),
    )
    try:
        app = create_app(table, Hub(), admin_token=TOKEN)
        for n in range(6):  # 30 wrong tokens from 6 addresses locked everyone out for a minute
            guesser = TestClient(app, client=(f"192.0.2.{10 + n}", 40000))
            for i in range(5):
                assert guesser.post("/api/admin/login", json={"token": f"g{n}-{i}"}).status_code == 401
        referee = TestClient(app, client=("198.51.100.4", 40000))
        assert referee.post("/api/admin/login", json={"token": TOKEN}).status_code == 200
    finally:
        table.log.close()


def _raw(port: int, head: bytes, body: bytes, timeout: float = 5.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head)
        with contextlib.suppress(OSError):
            sock.sendall(body)
        data = b""
        with contextlib.suppress(TimeoutError, ConnectionResetError):
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        return data


@pytest.mark.parametrize("token", [None, TOKEN])
def test_a_huge_organiser_body_is_refused_before_it_is_read(
    token: str | None, tournament: Tournament
) -> None:
    with ServerThread(tournament_app(tournament, token)) as server:
        head = (
            b"POST /api/result HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            + (b"X-Admin-Token: " + TOKEN.encode() + b"\r\n" if token else b"")
            + b"Content-Length: 200000000\r\n\r\n"
        )
        answer = _raw(server.port, head, b"x" * 100_000)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        wrong = (
            head.replace(TOKEN.encode(), b"guess") if token else head.replace(b"localhost", b"evil.example")
        )
        assert _raw(server.port, wrong, b"x" * 100_000)[:12] in (b"HTTP/1.1 401", b"HTTP/1.1 421")


# -- forwarded addresses and slow connections --------------------------------------------------------------


def test_a_forwarded_address_is_not_believed(tmp_path: Path) -> None:
    table = Table(
        parse_config({"table": {"game": "dice-hunter", "options": {"deck": "virtual"}}}),
        EventLog(tmp_path / "t.sqlite3"),
    )
    port = free_port()
    try:
        with serve_display(table, "127.0.0.1", port, TOKEN):
            url = f"http://127.0.0.1:{port}/api/admin/login"
            codes = [
                httpx.post(
                    url, json={"token": f"g{i}"}, headers={"X-Forwarded-For": f"203.0.113.{i}"}
                ).status_code
                for i in range(8)
            ]
            assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}, codes
    finally:
        table.close()
        table.log.close()


def _slow(source: str, port: int, n: int) -> list[socket.socket]:
    """``n`` connections from ``source`` that each send half a request head and wait."""
    held = []
    for _ in range(n):
        sock = socket.socket()
        sock.settimeout(5)
        sock.bind((source, 0))
        try:
            sock.connect(("127.0.0.1", port))
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        except OSError:
            sock.close()
            continue
        held.append(sock)
    return held


def _closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(0.2)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


@pytest.mark.slow
def test_slow_connections_under_the_open_file_limit_leave_the_display_reachable(tmp_path: Path) -> None:
    port = free_port()
    with cli_server(["serve-fake", "--every", "0"], port, prlimit_nofile=256) as url:
        held = _slow("127.0.0.2", port, 400)  # more than the server has file descriptors
        try:
            reply = httpx.get(url + "/api/state", timeout=10)
            assert reply.status_code == 200
            time.sleep(0.5)
            dropped = sum(_closed_by_server(s) for s in held)
            assert dropped >= 400 - 32, f"only {dropped} of 400 surplus connections were closed"
        finally:
            for s in held:
                s.close()


def test_a_request_head_that_trickles_in_is_cut_off(tmp_path: Path) -> None:
    table = Table(
        parse_config({"table": {"game": "dice-hunter", "options": {"deck": "virtual"}}}),
        EventLog(tmp_path / "t.sqlite3"),
    )
    limits = ConnectionLimits(per_client=4, head_timeout=0.5)
    try:
        with ServerThread(create_app(table, Hub()), limits=limits) as server:
            held = _slow("127.0.0.1", server.port, 4)
            with pytest.raises(httpx.TransportError):  # a fifth connection of that client: closed at once
                httpx.get(server.url + "/api/state", timeout=5)
            time.sleep(1.5)
            assert all(_closed_by_server(s) for s in held)
            assert httpx.get(server.url + "/api/state", timeout=5).status_code == 200
            for s in held:
                s.close()
    finally:
        table.log.close()
