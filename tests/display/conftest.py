"""Fixtures of the display tests: a real table (table_rig), a live server, a real Mosquitto broker."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from table_rig import Rig

from controller.table import Table
from display.hub import Hub
from display.server import free_port

MOSQUITTO = Path("/usr/sbin/mosquitto")


@pytest.fixture
def make_rig(tmp_path: Path) -> Iterator[Callable[..., Rig]]:
    """Open real tables (``Rig(tmp_path, ...)``); each is closed when the test ends."""
    rigs: list[Rig] = []

    def make(**kw: Any) -> Rig:
        rigs.append(Rig(tmp_path, **kw))
        return rigs[-1]

    yield make
    for rig in rigs:
        rig.close()


@pytest.fixture
def rig(make_rig: Callable[..., Rig]) -> Rig:
    """Dice Hunter for ann, bob and cid, its tiles from the virtual deck."""
    return make_rig(options={"deck": "virtual"})


@pytest.fixture
def table(rig: Rig) -> Table:
    return rig.table


@pytest.fixture
def hub(table: Table) -> Hub:
    hub = Hub()
    table.listeners.append(hub.notify)
    return hub


class Broker:
    """A Mosquitto broker on a loopback port, which a test may stop and start again."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.conf = workdir / "mosquitto.conf"
        self.conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        self.log = workdir / "mosquitto.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen([str(MOSQUITTO), "-c", str(self.conf)], stdout=out, stderr=out)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not start on port {self.port}: {self.log.read_text()[-500:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    if not MOSQUITTO.exists() and shutil.which("mosquitto") is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    b = Broker(tmp_path)
    b.start()
    try:
        yield b
    finally:
        b.stop()
