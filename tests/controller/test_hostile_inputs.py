"""Clumsy and hostile inputs at the command line: a config that ``check-config`` passes starts,
a scenario's JSON error names its file, an image's size is refused from its header."""

from __future__ import annotations

import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.imagefile import MAX_PIXELS, ImageError, image_size, read_image

ROOT = Path(__file__).resolve().parents[2]


def dicetable(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], capture_output=True, text=True, timeout=300, cwd=ROOT
    )


# -- check-config validates what run needs ------------------------------------------------------------------


@pytest.mark.parametrize(
    "toml, key, why",
    [
        (
            '[table]\ngame = "dice-hunter"\noptions = {nonsense = "x"}\n',
            "table.options",
            "no option 'nonsense'",
        ),
        ('[table]\ngame = "die-angler"\noptions = {deck = 7}\n', "table.options", "deck"),
        ("players = []\n", "players", "takes 3-4 players"),
        ('[[players]]\nname = "ann"\ncolour = "red"\n', "players", "got 1"),
        ('[camera]\npalette = "/nowhere/palette.json"\n', "camera.palette", "no such file"),
        ('[camera]\nsource = "recorded:/nowhere/session"\n', "camera.source", "no recorded session"),
        ('[board]\nlayout = "nowhere.toml"\ncalibration = "/nowhere/cal.json"\n', "board.layout", "no such"),
    ],
)
def test_check_config_refuses_what_run_would_die_on(toml: str, key: str, why: str, tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(toml + f'[database]\npath = "{tmp_path / "t.sqlite3"}"\n', encoding="utf-8")
    res = dicetable("check-config", str(path))
    assert res.returncode == 1, res.stdout + res.stderr
    assert f"{key}:" in res.stdout and why in res.stdout, res.stdout
    res = dicetable("run", "--config", str(path))
    assert res.returncode == 2 and "Traceback" not in res.stderr and why in res.stderr, res.stderr
    assert not (tmp_path / "t.sqlite3").exists(), "run started a log for a config it cannot play"


def test_check_config_passes_a_config_run_can_play(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    demo = ROOT / "tests" / "fixtures" / "sessions" / "dice-hunter-demo"
    path.write_text(
        '[table]\ngame = "dice-hunter"\noptions = {deck = "virtual"}\n'
        f'[camera]\nsource = "recorded:{demo}"\n',
        encoding="utf-8",
    )
    res = dicetable("check-config", str(path))
    assert res.returncode == 0 and "OK (dice-hunter, 3 players" in res.stdout, res.stdout + res.stderr


def test_replay_names_the_file_on_a_json_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"setup": {"game": "dice-hunter", "players": ["a", "b", "c"]}}\n{"type": "roll",\n')
    res = dicetable("replay", str(bad))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert f"{bad}:2" in res.stderr.replace("\n", ""), res.stderr
    log = tmp_path / "t.sqlite3"
    res = dicetable("replay", str(bad), "--log", str(log))
    assert res.returncode == 2 and str(bad) in res.stderr.replace("\n", ""), res.stderr


# -- images: the size from the header, before decoding -------------------------------------------------------


def png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header says width x height (grey, 8 bit) and whose data is one small row."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("ext", [".png", ".jpg", ".bmp", ".webp", ".tiff", ".pgm"])
def test_image_size_reads_every_format_from_its_header(ext: str) -> None:
    rng = np.random.default_rng(3)
    image = rng.integers(0, 255, (37, 53, 3), np.uint8)
    if ext == ".pgm":
        image = image[:, :, 0]
    ok, buf = cv2.imencode(ext, image)
    assert ok
    found = image_size(buf.tobytes())
    assert found is not None and found[1:] == (53, 37), found


def test_a_huge_image_is_refused_from_its_header_everywhere(tmp_path: Path) -> None:
    big = tmp_path / "huge.png"
    big.write_bytes(png_claiming(20_000, 20_000))
    with pytest.raises(ImageError, match="20000x20000"):
        read_image(big)
    started = time.perf_counter()
    res = dicetable("read", str(big))
    assert "Traceback" not in res.stderr
    assert "20000x20000" in res.stdout + res.stderr and "megapixels" in res.stdout + res.stderr
    assert time.perf_counter() - started < 60
    assert png_claiming(100, 100) and MAX_PIXELS < 20_000 * 20_000


def test_a_recorded_session_skips_a_frame_too_large_to_decode(tmp_path: Path) -> None:
    from hardware.frames import RecordedSource

    frame = np.full((48, 64, 3), 90, np.uint8)
    cv2.imwrite(str(tmp_path / "a.png"), frame)
    (tmp_path / "b.png").write_bytes(png_claiming(30_000, 30_000))
    (tmp_path / "frames.csv").write_text("file,t\na.png,0.0\nb.png,0.1\na.png,0.2\n", encoding="utf-8")
    source = RecordedSource(tmp_path)
    times = []
    while (f := source.read()) is not None:
        times.append(f.t)
    assert times == [0.0, 0.2] and source.skipped == ["b.png"]


def test_garbage_that_looks_like_an_image_is_a_clear_error(tmp_path: Path) -> None:
    for name, data in (
        ("trunc.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF"),
        ("noise.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 30),
        ("empty.bmp", b""),
        ("text.png", b"hello"),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ImageError, match=name):
            read_image(path)


def tiff_naming(*pages: list[tuple[int, int]]) -> bytes:
    """A little-endian grey TIFF whose directories (one per page) name these (tag, value) pairs.

    Each page's pixels are one deflated strip of zeros at most 100x100 wide, so the file stays tiny
    whatever size it claims; a decoder that believes a larger size makes up the rest of the rows.
    """
    pixels = zlib.compress(b"\x00" * (100 * 100))
    out = bytearray(b"II*\x00\x00\x00\x00\x00")
    strip_at = len(out)
    out += pixels
    links: list[int] = [4]  # where each directory's offset is written
    for entries in pages:
        if len(out) % 2:
            out += b"\x00"
        struct.pack_into("<I", out, links[-1], len(out))
        tags = [
            *entries,
            (258, 8),  # bits per sample
            (259, 8),  # deflate
            (262, 1),  # black is zero
            (273, strip_at),
            (277, 1),  # samples per pixel
            (278, 100_000),  # rows per strip: one strip
            (279, len(pixels)),
        ]
        out += struct.pack("<H", len(tags))
        for tag, value in tags:  # in the order given: the repeated size tags stay where they are
            out += struct.pack("<HHII", tag, 4, 1, value)
        links.append(len(out))
        out += b"\x00\x00\x00\x00"
    return bytes(out)


@pytest.mark.parametrize(
    "entries",
    [
        [(256, 12_000), (256, 100), (257, 12_000), (257, 100)],  # libtiff takes the first
        [(256, 100), (256, 12_000), (257, 100), (257, 12_000)],  # a reader that takes the last
    ],
)
def test_a_tiff_that_names_its_size_twice_is_refused(entries: list[tuple[int, int]], tmp_path: Path) -> None:
    path = tmp_path / "twice.tiff"
    path.write_bytes(tiff_naming(entries))
    assert path.stat().st_size < 10_000
    with pytest.raises(ImageError, match=r"twice.tiff: the TIFF names its width twice"):
        read_image(path)


def test_every_page_of_a_tiff_is_checked(tmp_path: Path) -> None:
    small = [(256, 100), (257, 100)]
    path = tmp_path / "pages.tiff"
    path.write_bytes(tiff_naming(small, small))
    assert read_image(path).shape == (100, 100, 3)  # a genuine two-page TIFF is read (its first page)
    path.write_bytes(tiff_naming(small, [(256, 12_000), (257, 12_000)]))
    with pytest.raises(ImageError, match=r"pages.tiff: the TIFF image is 12000x12000 = 144 megapixels"):
        read_image(path)


def test_a_tiff_whose_directory_is_written_last_is_read(tmp_path: Path) -> None:
    """libtiff (OpenCV's own writer) puts the directory after the pixels: beyond the first 64 KB."""
    image = np.random.default_rng(5).integers(0, 255, (600, 800, 3), np.uint8)
    path = tmp_path / "big.tiff"
    assert cv2.imwrite(str(path), image)
    assert path.stat().st_size > 64 * 1024
    assert np.array_equal(read_image(path), image)
