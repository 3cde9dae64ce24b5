"""Running the display: uvicorn in a thread (tests, benchmark) and the CLI's player list."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn
from fastapi import FastAPI

#: uvicorn's sans-I/O websockets protocol: the quickest fan-out of the ones uvicorn ships
#: (see benchmarks/results/display.md)
WS_IMPL = "websockets-sansio"
#: pages send nothing over the WebSocket: a message larger than this closes it (uvicorn's default: 16 MB)
WS_MAX_SIZE = 64 * 1024


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class ServerThread:
    """A uvicorn server on ``host:port`` in a daemon thread; ``with`` starts and stops it."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.host = host
        self.port = port or free_port(host)
        config = uvicorn.Config(
            app,
            host=self.host,
            port=self.port,
            log_level="warning",
            lifespan="off",
            ws=WS_IMPL,
            ws_max_size=WS_MAX_SIZE,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True, name=f"uvicorn:{self.port}")

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the display server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def parse_players(text: str) -> list[tuple[str, str]]:
    """``ann:red,bob:blue`` -> [("ann", "red"), ("bob", "blue")]."""
    out = []
    for item in text.split(","):
        name, _, colour = item.strip().partition(":")
        if not name:
            raise ValueError(f"players {text!r}: expected NAME:COLOUR,NAME:COLOUR (e.g. ann:red,bob:blue)")
        out.append((name, colour or "white"))
    return out
