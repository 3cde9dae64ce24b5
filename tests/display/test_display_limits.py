"""Hostile requests against the display of a real table: bounded bodies, read only after the admin
check, remote admin with the token, limited guesses, a session cookie that is not the token, a
Host allow-list, no framing, bounded query parameters."""

from __future__ import annotations

import contextlib
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.config import ConfigError, parse_config
from controller.eventlog import EventLog
from controller.live import table_app
from controller.table import Table, TableError
from display.app import MAX_BODY, create_app
from display.hub import Hub
from display.server import ServerThread

TOKEN = "k3Yq-8vTn-Wp2z-Lm4R"
REMOTE = ("192.0.2.7", 40000)  # TEST-NET-1: an address that is not this machine
LOCAL = ("127.0.0.1", 40000)
CORRECT = {"who": "ref", "command": {"action": "pause"}}


@pytest.fixture
def real_table(tmp_path: Path) -> Any:
    cfg = parse_config(
        {
            "table": {"game": "dice-hunter", "options": {"deck": "virtual"}, "seed": 3},
            "players": [
                {"name": "ann", "colour": "red"},
                {"name": "bob", "colour": "blue"},
                {"name": "cid", "colour": "green"},
            ],
        }
    )
    table = Table(cfg, EventLog(tmp_path / "t.sqlite3"))
    yield table
    table.log.close()


def run_app(table: Table, token: str | None = TOKEN, host: str = "0.0.0.0") -> Any:
    """The app ``dicetable run`` serves, with this table's names as the allowed hosts."""
    app, _ = table_app(table, host, token, ["table.local", "localhost", "127.0.0.1", "testserver"])
    return app


# -- remote admin, as the README promises ---------------------------------------------------------------


def test_run_serves_admin_to_a_remote_client_with_the_token(real_table: Table) -> None:
    remote = TestClient(run_app(real_table), client=REMOTE)
    assert remote.post("/api/admin/correct", json=CORRECT).status_code == 401
    reply = remote.post("/api/admin/correct", json=CORRECT, headers={"X-Admin-Token": TOKEN})
    assert reply.status_code == 200, reply.text
    assert remote.get("/api/state").json()["status"] == "paused"


def test_without_a_token_run_serves_admin_to_this_machine_only(real_table: Table) -> None:
    app = run_app(real_table, token=None, host="127.0.0.1")
    assert TestClient(app, client=REMOTE).post("/api/admin/correct", json=CORRECT).status_code == 403
    assert TestClient(app, client=LOCAL).post("/api/admin/correct", json=CORRECT).status_code == 200


@pytest.mark.parametrize(
    "token", [" ", "change-me", "CHANGE-ME-please", "short-token", "aaaaaaaaaaaaaaaaaaaa"]
)
def test_a_weak_token_is_refused_on_a_public_host(token: str, real_table: Table) -> None:
    with pytest.raises(ConfigError, match="admin_token"):
        parse_config({"display": {"host": "0.0.0.0", "admin_token": token}})
    with pytest.raises(TableError, match="too weak"):
        table_app(real_table, "0.0.0.0", token)
    parse_config({"display": {"host": "127.0.0.1", "admin_token": token}})  # loopback: any token will do
    parse_config({"display": {"host": "0.0.0.0", "admin_token": TOKEN}})


# -- guesses, sessions --------------------------------------------------------------------------------------


def test_wrong_tokens_are_limited_per_client_and_the_right_one_then_waits(real_table: Table) -> None:
    app = run_app(real_table)
    guesser = TestClient(app, client=REMOTE)
    answers = [guesser.post("/api/admin/login", json={"token": f"guess-{i}"}).status_code for i in range(8)]
    assert answers[:5] == [401] * 5 and set(answers[5:]) == {429}
    refused = guesser.post("/api/admin/login", json={"token": TOKEN})
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    headed = guesser.post("/api/admin/correct", json=CORRECT, headers={"X-Admin-Token": "guess"})
    assert headed.status_code == 429, "the header is another way to guess: limited too"
    other = TestClient(app, client=("192.0.2.8", 40000))
    assert other.post("/api/admin/login", json={"token": TOKEN}).status_code == 200


def test_header_guesses_count_and_the_limit_is_fast_to_reach(real_table: Table) -> None:
    guesser = TestClient(run_app(real_table), client=REMOTE)
    started = time.monotonic()
    codes = [
        guesser.post("/api/admin/correct", json=CORRECT, headers={"X-Admin-Token": f"g{i}"}).status_code
        for i in range(40)
    ]
    assert codes.count(401) == 5 and codes.count(429) == 35
    assert time.monotonic() - started < 30


def test_the_session_cookie_is_not_the_token(real_table: Table) -> None:
    client = TestClient(run_app(real_table), client=REMOTE)
    reply = client.post("/api/admin/login", json={"token": TOKEN})
    assert reply.status_code == 200
    cookie = reply.cookies.get("dicetable_admin")
    assert cookie and TOKEN not in cookie and len(cookie) >= 32
    assert "httponly" in reply.headers["set-cookie"].lower()
    assert client.post("/api/admin/correct", json=CORRECT).status_code == 200  # the session works
    forged = TestClient(run_app(real_table), client=REMOTE, cookies={"dicetable_admin": TOKEN})
    assert forged.post("/api/admin/correct", json=CORRECT).status_code == 401


# -- Host, framing, query parameters ---------------------------------------------------------------------


def test_a_foreign_host_header_is_refused(real_table: Table) -> None:
    client = TestClient(run_app(real_table), client=LOCAL)
    assert client.get("/api/state", headers={"Host": "attacker.example"}).status_code == 421
    assert (
        client.post("/api/admin/correct", json=CORRECT, headers={"Host": "attacker.example:8000"}).status_code
        == 421
    )
    assert real_table.status == "playing"
    for host in ("localhost:8000", "127.0.0.1:8000", "table.local", "[::1]:8000", "10.1.2.3"):
        assert client.get("/api/state", headers={"Host": host}).status_code == 200, host
    from starlette.websockets import WebSocketDisconnect

    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect("/ws", headers={"Host": "attacker.example"}),
    ):
        pass


def test_no_answer_may_be_framed(real_table: Table) -> None:
    client = TestClient(run_app(real_table), client=REMOTE)
    for reply in (
        client.get("/"),
        client.get("/admin"),
        client.get("/api/state"),
        client.post("/api/admin/correct", json=CORRECT),
    ):
        assert reply.headers["content-security-policy"] == "frame-ancestors 'none'", reply.request.url
        assert reply.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize(
    "query",
    [
        "offset=9223372036854775808",
        "offset=99999999999999999999999999",
        "offset=-1",
        "limit=0",
        "limit=9223372036854775808",
        "offset=1e3",
        "offset=%00",
    ],
)
def test_query_parameters_out_of_range_are_a_clear_4xx(query: str, real_table: Table) -> None:
    reply = TestClient(run_app(real_table)).get(f"/api/events?{query}")
    assert reply.status_code == 422, reply.text
    assert "offset" in reply.json()["error"] or "limit" in reply.json()["error"]


def test_the_largest_offset_allowed_answers_an_empty_page(real_table: Table) -> None:
    reply = TestClient(run_app(real_table)).get("/api/events?offset=1000000000")
    assert reply.status_code == 200 and reply.json()["events"] == []


# -- bodies: bounded while read, and never read before the admin check ------------------------------------


def _raw(url_port: int, head: bytes, body: bytes, timeout: float = 5.0) -> bytes:
    """Send a request's head and part of its body; return what the server answers meanwhile."""
    with socket.create_connection(("127.0.0.1", url_port), timeout=timeout) as sock:
        sock.sendall(head)
        with contextlib.suppress(OSError):  # the server may answer and close before the body is all sent
            sock.sendall(body)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except TimeoutError:
            pass
        return data


@pytest.fixture
def served(real_table: Table) -> Any:
    app = create_app(real_table, Hub(), admin_token=TOKEN)
    with ServerThread(app) as server:
        yield server


def test_a_huge_body_without_the_token_is_refused_before_it_is_read(served: ServerThread) -> None:
    head = (
        b"POST /api/admin/correct HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 200000000\r\n\r\n"
    )
    answer = _raw(served.port, head, b"x" * 200_000)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]


def test_a_huge_body_with_the_token_is_413_while_read(served: ServerThread) -> None:
    head = (
        b"POST /api/admin/correct HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"X-Admin-Token: " + TOKEN.encode() + b"\r\nContent-Length: 200000000\r\n\r\n"
    )
    assert _raw(served.port, head, b"x" * 200_000).startswith(b"HTTP/1.1 413")
    # no length given: counted while it streams in
    head = (
        b"POST /api/admin/correct HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"X-Admin-Token: " + TOKEN.encode() + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"%x\r\n" % 16384 + b"y" * 16384 + b"\r\n"
    assert _raw(served.port, head, chunk * (MAX_BODY // 16384 + 4)).startswith(b"HTTP/1.1 413")


def test_a_normal_correction_still_goes_through(served: ServerThread, real_table: Table) -> None:
    import httpx

    reply = httpx.post(served.url + "/api/admin/correct", json=CORRECT, headers={"X-Admin-Token": TOKEN})
    assert reply.status_code == 200 and real_table.status == "paused"
    assert httpx.post(served.url + "/api/admin/correct", content=b"{" * (MAX_BODY + 1)).status_code == 401
