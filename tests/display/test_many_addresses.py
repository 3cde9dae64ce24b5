"""Slow connections from many addresses (issue 47, item 4): at a 1,024 open-file limit, 34 client
addresses x 32 slow connections left a bystander 0 of 9 GETs.  The caps are sized for the limit,
an address's share shrinks as more connect, a newcomer takes the place of a slow connection of the
address holding the most, and this machine keeps reserved slots; 127.0.0.2 .. 127.0.0.40 all reach
loopback on Linux, so many source addresses are real ones here."""

from __future__ import annotations

import resource
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from display.server import ConnectionBook, ConnectionLimits, client_key, free_port, is_local
from tests.display.test_server_guards import _slow, cli_server


def _bystander(port: int, source: str, n: int = 9) -> int:
    """How many of ``n`` GETs of the table's state from ``source`` are answered (each a new connection)."""
    ok = 0
    for _ in range(n):
        transport = httpx.HTTPTransport(local_address=source)
        try:
            with httpx.Client(transport=transport, timeout=10) as client:
                reply = client.get(f"http://127.0.0.1:{port}/api/state", headers={"Connection": "close"})
                ok += reply.status_code == 200
        except httpx.TransportError:
            pass
    return ok


@pytest.fixture(autouse=True)
def _enough_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


@pytest.mark.slow
@pytest.mark.parametrize("addresses", [34, 39])
def test_slow_connections_from_many_addresses_leave_a_bystander_served(addresses: int) -> None:
    port = free_port()
    with cli_server(["serve-fake", "--every", "0"], port, prlimit_nofile=1024):
        held: list[socket.socket] = []
        try:
            for i in range(addresses):
                held += _slow(f"127.0.0.{2 + i}", port, 32)
            served = _bystander(port, "127.0.0.50")
            local = _bystander(port, "127.0.0.1")
        finally:
            for s in held:
                s.close()
    assert served == 9, f"a bystander got {served} of 9 GETs past {addresses} x 32 slow connections"
    assert local == 9, f"this machine got {local} of 9 GETs"


# -- the book itself -------------------------------------------------------------------------------


class _Transport:
    def __init__(self) -> None:
        self.closed = False

    def is_closing(self) -> bool:
        return self.closed

    def abort(self) -> None:
        self.closed = True


class _Proto:
    def __init__(self, since: float | None) -> None:
        self.since = since

    def waiting_since(self) -> float | None:
        return self.since


def _fill(book: ConnectionBook, client: str, n: int, since: float | None = 1.0) -> list[Any]:
    got = []
    for _ in range(n):
        t = _Transport()
        if book.admit(client, t, _Proto(since)):  # type: ignore[arg-type]
            got.append(t)
    return got


def test_a_share_shrinks_as_addresses_connect_and_a_newcomer_takes_a_slow_ones_place() -> None:
    book = ConnectionBook(ConnectionLimits(per_client=32, total=100, reserved=10))
    assert book.share("10.0.0.1") == 32
    held = {f"10.0.0.{i}": _fill(book, f"10.0.0.{i}", 40) for i in range(1, 10)}
    assert len(held["10.0.0.1"]) == 32  # the per-client cap
    assert book._count == 90  # every slot open to others taken, never more
    assert book.share("10.0.0.99") == 9  # 90 open slots among 10 addresses
    live = {c: sum(not t.closed for t in ts) for c, ts in held.items()}
    biggest = max(live.values())
    assert biggest <= 32 and min(live.values()) >= 4  # a later address took slots of the earlier ones
    before = book.evicted
    assert _fill(book, "10.0.0.99", 1) and book.evicted == before + 1
    after = {c: sum(not t.closed for t in ts) for c, ts in held.items()}
    (lost,) = [c for c in held if after[c] < live[c]]
    assert live[lost] == biggest  # the connection closed was one of the biggest holder's


def test_a_busy_connection_is_never_closed_for_a_newcomer() -> None:
    book = ConnectionBook(ConnectionLimits(per_client=8, total=20, reserved=4))
    _fill(book, "10.0.0.1", 8, since=None)  # answering requests, or WebSockets
    _fill(book, "10.0.0.2", 8, since=None)
    assert not _fill(book, "10.0.0.3", 1) and book.evicted == 0 and book.refused == 1


def test_this_machine_keeps_its_reserved_slots() -> None:
    book = ConnectionBook(ConnectionLimits(per_client=8, total=20, reserved=4))
    _fill(book, "10.0.0.1", 8, since=None)
    _fill(book, "10.0.0.2", 8, since=None)
    assert not _fill(book, "10.0.0.3", 1)
    assert len(_fill(book, "127.0.0.1", 4)) == 4 and len(_fill(book, "::1", 1)) == 0  # 20 in all


def test_an_ipv6_client_is_counted_by_its_64() -> None:
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:bbbb::7") == "2001:db8:1:2::/64"
    assert client_key("::ffff:10.0.0.1") == "10.0.0.1" and client_key("::1") == "::1"
    assert is_local("127.0.0.1") and is_local("::1") and is_local("::ffff:127.0.0.1")
    assert not is_local("10.0.0.1") and not is_local("127.0.0.9")  # any 127.x reaches loopback: not ours
    book = ConnectionBook(ConnectionLimits(per_client=4, total=100))
    assert len(_fill(book, "2001:db8:1:2::1", 3)) + len(_fill(book, "2001:db8:1:2::2", 3)) == 4


def test_the_limits_follow_the_open_file_limit() -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    book = ConnectionBook(ConnectionLimits())
    if soft != resource.RLIM_INFINITY:
        assert book.total <= soft - 128 or book.total == 16
    assert 4 <= book.reserved < book.total


def test_the_service_unit_raises_the_open_file_limit_above_what_the_caps_assume(tmp_path: Path) -> None:
    from controller.service import unit_text

    text = unit_text(tmp_path / "table.toml", table_id="t1", game="dice-hunter", data_dir=tmp_path, user="pi")
    (limit,) = [int(line.split("=", 1)[1]) for line in text.splitlines() if line.startswith("LimitNOFILE=")]
    assert limit >= 4096 + 128  # every connection the caps allow, and the table's own files beside
