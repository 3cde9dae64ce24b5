"""Fuzzing every boundary where outside bytes enter: config files, scenario lines, HTTP bodies and query
strings, serial input from the LED port, image files.

Each surface may refuse its input only with its own clear error (``ConfigError``, ``ScenarioError``,
a 4xx answer, ``ImageError``); anything else (a 500, a traceback, a crash) fails the test.  In CI each
surface gets ``DICETABLE_FUZZ_EXAMPLES`` examples (default 200, derandomised so every run is the same);
``benchmarks/fuzz.py`` runs 2,000 per surface with fresh randomness and reports the totals.
"""

from __future__ import annotations

import json
import os
import string
import struct
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from controller.config import ConfigError, load_config, parse_config, runnable_problems
from controller.eventlog import EventLog
from controller.scenario import ScenarioError, run_scenario
from controller.table import Table
from display.app import create_app
from display.hub import Hub
from engine import GAMES
from hardware.imagefile import MAX_PIXELS, ImageError, decode
from hardware.ledwire import FrameDecoder

EXAMPLES = int(os.environ.get("DICETABLE_FUZZ_EXAMPLES", "200"))
#: how many inputs each surface was given in this process (benchmarks/fuzz.py reports them)
SEEN: Counter[str] = Counter()

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize="DICETABLE_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

WORK = Path(tempfile.mkdtemp(prefix="dicetable-fuzz-"))
PLAYERS = ["ann", "bob", "cid", "dee", "", "x" * 50, "ann\x00", "🎲"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.sampled_from(PLAYERS),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=25,
)


# -- config files -----------------------------------------------------------------------------------------

SECTIONS = {
    "table": ["id", "game", "options", "data", "seed", "confidence_threshold"],
    "camera": ["source", "palette"],
    "leds": ["url", "baud", "protocol", "width", "height", "wiring", "origin"],
    "board": ["layout", "calibration", "fit"],
    "database": ["path"],
    "display": ["host", "port", "admin_token", "allowed_hosts"],
    "buttons": ["pin_factory"],
}
toml_scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(
        [*GAMES, "recorded:/nowhere", "usb:0", "emu://", "0.0.0.0", "change-me", str(WORK / "t.sqlite3")]
    ),
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: (
        st.lists(toml_scalars, max_size=4)
        | st.dictionaries(st.text(string.ascii_letters, max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"


@st.composite
def config_texts(draw: Any) -> str:
    if draw(st.integers(0, 9)) == 0:  # plain garbage now and then
        return draw(st.text(max_size=200))
    lines = []
    for section in draw(st.lists(st.sampled_from([*SECTIONS, "nonsense"]), max_size=5, unique=True)):
        lines.append(f"[{section}]")
        keys = [*SECTIONS.get(section, ["x"]), "typo"]
        for key in draw(st.lists(st.sampled_from(keys), max_size=4, unique=True)):
            lines.append(f"{key} = {_toml(draw(toml_values))}")
    for _ in range(draw(st.integers(0, 3))):
        player = {
            "name": draw(st.sampled_from(PLAYERS)),
            "colour": draw(st.sampled_from(["red", "blue", "pink"])),
        }
        if draw(st.booleans()):
            player["pins"] = draw(
                st.dictionaries(st.sampled_from(["up", "down", "select", "confirm"]), st.integers(-3, 40))
            )
        lines += ["[[players]]", *(f"{k} = {_toml(v)}" for k, v in player.items())]
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=config_texts())
def test_fuzz_config_files(text: str) -> None:
    SEEN["config"] += 1
    path = WORK / "table.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        cfg = load_config(path)
    except ConfigError as e:
        assert e.problems and all(isinstance(k, str) and isinstance(m, str) for k, m in e.problems)
        return
    problems = runnable_problems(cfg)
    assert all(isinstance(k, str) and m for k, m in problems)


# -- scenario lines ---------------------------------------------------------------------------------------

KINDS = ["roll", "throw", "choice", "secret", "reveal", "start", "nonsense"]


@st.composite
def scenario_lines(draw: Any) -> list[str]:
    game = draw(st.sampled_from(sorted(GAMES)))
    players = draw(st.lists(st.sampled_from(PLAYERS[:4]), min_size=1, max_size=4, unique=True))
    setup: dict[str, Any] = {"game": game, "players": players, "seed": draw(st.integers(0, 5))}
    if draw(st.booleans()):
        setup["options"] = draw(
            st.dictionaries(st.sampled_from(["deck", "colours", "rounds", "x"]), json_values, max_size=2)
        )
    lines = [json.dumps({"setup": setup})]
    for _ in range(draw(st.integers(0, 12))):
        roll = draw(st.integers(0, 5))
        if roll == 0:
            lines.append(draw(st.text(max_size=40)))  # not JSON at all
        elif roll == 1:
            lines.append(json.dumps(draw(json_values)))
        else:
            obj = {"type": draw(st.sampled_from(KINDS)), "player": draw(st.sampled_from([*players, None]))}
            obj.update(
                draw(
                    st.dictionaries(
                        st.sampled_from(
                            ["dice", "keep", "take", "tile", "card", "d6", "choice", "expect_error", "expect"]
                        ),
                        json_values,
                        max_size=3,
                    )
                )
            )
            if draw(st.booleans()):
                obj["dice"] = draw(
                    st.lists(
                        st.integers(-1, 8)
                        | st.fixed_dictionaries(
                            {"kind": st.sampled_from(["d6", "d10", "d20", "x"]), "value": st.integers(-1, 21)}
                        ),
                        max_size=7,
                    )
                )
            lines.append(json.dumps(obj))
    return lines


@FUZZ
@given(lines=scenario_lines())
def test_fuzz_scenario_lines(lines: list[str]) -> None:
    SEEN["scenario"] += 1
    try:
        run_scenario(lines, "fuzz.jsonl")
    except ScenarioError as e:
        assert str(e).startswith("fuzz.jsonl")


# -- HTTP bodies and query strings --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client() -> Any:
    cfg = parse_config(
        {
            "table": {"game": "dice-hunter", "options": {"deck": "virtual"}},
            "players": [
                {"name": n, "colour": c} for n, c in (("ann", "red"), ("bob", "blue"), ("cid", "green"))
            ],
        }
    )
    table = Table(cfg, EventLog(WORK / f"http-{os.getpid()}.sqlite3"))
    yield TestClient(create_app(table, Hub(), admin_token="k3Yq-8vTn-Wp2z-Lm4R"), client=("127.0.0.1", 4000))
    table.log.close()


ACTIONS = ["confirm", "set_value", "set_thrower", "hidden", "undo", "start", "pause", "end", "input", "x"]
command = st.fixed_dictionaries(
    {"action": st.sampled_from(ACTIONS)},
    optional={
        "reading": json_values,
        "value": json_values,
        "thrower": json_values,
        "input": json_values,
        "extra": json_values,
    },
)
bodies = st.one_of(
    st.fixed_dictionaries({"who": json_values, "command": command}).map(json.dumps),
    st.fixed_dictionaries({"who": st.just("ref"), "command": command}).map(json.dumps),
    json_values.map(json.dumps),
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
)
queries = st.dictionaries(
    st.sampled_from(["offset", "limit", "x"]),
    st.one_of(st.integers(-(2**80), 2**80).map(str), st.text(max_size=12)),
    max_size=3,
)


@FUZZ
@given(body=bodies, header=st.booleans(), query=queries)
@example(body="Infinity", header=True, query={})  # found by the fuzzer: was a 500
@example(body="0\x000\x80", header=False, query={})  # found by the fuzzer: not UTF-8, a bare 400
def test_fuzz_http_bodies_and_queries(
    client: TestClient, body: str, header: bool, query: dict[str, str]
) -> None:
    SEEN["http"] += 1
    headers = {"Content-Type": "application/json"}
    if header:
        headers["X-Admin-Token"] = "k3Yq-8vTn-Wp2z-Lm4R"
    for path in ("/api/admin/correct", "/api/admin/login"):
        reply = client.post(path, content=body.encode("utf-8", "surrogatepass"), headers=headers)
        assert reply.status_code < 500, (path, body, reply.text)
        if reply.status_code >= 400:
            assert reply.json()["error"]
    reply = client.get("/api/events", params=query)
    assert reply.status_code < 500, (query, reply.text)
    assert client.get("/api/state").status_code == 200


# -- serial input (what a receiver reads off the LED wire) ------------------------------------------------


@FUZZ
@given(
    chunks=st.lists(st.binary(max_size=300) | st.sampled_from([b"Ada", b"\xc9\xda", b"\x36"]), max_size=12)
)
def test_fuzz_serial_input(chunks: list[bytes]) -> None:
    SEEN["serial"] += 1
    decoder = FrameDecoder("fuzz")
    for chunk in chunks:
        for strip in decoder.feed(chunk):
            assert isinstance(strip, np.ndarray) and strip.ndim == 2 and strip.shape[1] == 3


# -- image files ------------------------------------------------------------------------------------------

_rng = np.random.default_rng(5)
SEEDS = [
    cv2.imencode(ext, _rng.integers(0, 255, (24, 32, 3), np.uint8))[1].tobytes()
    for ext in (".png", ".jpg", ".bmp", ".webp", ".tiff", ".ppm")
]


@st.composite
def image_files(draw: Any) -> bytes:
    if draw(st.integers(0, 4)) == 0:
        return draw(st.binary(max_size=400))
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, max(0, min(len(data) - 1, 80))))  # mostly the header
        if draw(st.booleans()):
            data[at] = draw(st.integers(0, 255))
        else:
            data[at : at + 4] = draw(st.binary(min_size=4, max_size=4))
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return bytes(data)


#: found by the fuzzer: a BMP 1,048,608 pixels wide and 24 high (25 MP) made OpenCV raise cv2.error
WIDE_BMP = (
    b"BM"
    + struct.pack("<IHHI", 2358, 0, 0, 54)
    + struct.pack("<IiiHHIIiiII", 40, 1_048_608, 24, 1, 24, 0, 0, 0, 0, 0, 0)
    + bytes(2304)
)


@FUZZ
@given(data=image_files())
@example(data=WIDE_BMP)
def test_fuzz_image_files(data: bytes) -> None:
    SEEN["image"] += 1
    try:
        image = decode(data, "fuzz.img")
    except ImageError as e:
        assert str(e).startswith("fuzz.img")
        return
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[0] * image.shape[1] <= MAX_PIXELS
