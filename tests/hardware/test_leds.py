"""The LED matrix: golden bytes, wiring, a fake receiver over a pty and emu://, unplug and replug."""

from __future__ import annotations

import logging
import os
import uuid

import cv2
import numpy as np
import pytest

from hardware import patterns
from hardware.leds import LedMatrix, open_matrix
from hardware.ledwire import FrameDecoder, LedError, Wiring, encode_adalight, encode_tpm2, max_frame_rate
from hardware.protocol_emu import receiver

IMG_2x2 = np.array([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]], np.uint8)


def emu_url() -> str:
    return f"emu://{uuid.uuid4().hex[:8]}"


def test_adalight_golden_bytes() -> None:
    strip = Wiring(2, 2, "row-major").to_strip(IMG_2x2)
    assert encode_adalight(strip) == bytes.fromhex("416461 00 03 56 010203 040506 070809 0a0b0c")
    big = np.zeros((300, 3), np.uint8)
    assert encode_adalight(big)[:6] == b"Ada\x01\x2b" + bytes([0x01 ^ 0x2B ^ 0x55])  # 299 = 0x012b


def test_tpm2_golden_bytes() -> None:
    strip = Wiring(2, 2, "serpentine").to_strip(IMG_2x2)
    assert encode_tpm2(strip) == bytes.fromhex("c9da 000c 010203 040506 0a0b0c 070809 36")


@pytest.mark.parametrize(
    ("layout", "origin", "expected"),
    [
        ("row-major", "top-left", [[0, 1, 2], [3, 4, 5]]),
        ("serpentine", "top-left", [[0, 1, 2], [5, 4, 3]]),
        ("serpentine", "bottom-left", [[5, 4, 3], [0, 1, 2]]),
        ("serpentine", "top-right", [[2, 1, 0], [3, 4, 5]]),
        ("row-major", "bottom-right", [[5, 4, 3], [2, 1, 0]]),
    ],
)
def test_wiring_maps_pixels_to_strip_positions(layout: str, origin: str, expected: list) -> None:
    w = Wiring(3, 2, layout, origin)
    assert w.index_map().tolist() == expected
    img = np.random.default_rng(0).integers(0, 255, (2, 3, 3), dtype=np.uint8)
    assert np.array_equal(w.to_image(w.to_strip(img)), img)


@pytest.mark.parametrize(
    ("kw", "needle"),
    [
        ({"width": 0}, "width must be"),
        ({"wiring": "zigzag"}, "wiring must be one of"),
        ({"origin": "middle"}, "origin must be one of"),
        ({"protocol": "dmx"}, "protocol must be one of"),
        ({"baud": 0}, "baud must be"),
    ],
)
def test_bad_led_settings_are_named(kw: dict, needle: str) -> None:
    with pytest.raises(LedError, match=needle):
        open_matrix(emu_url(), **{"width": 4, "height": 4, **kw})


def test_a_frame_of_the_wrong_shape_is_refused() -> None:
    m = open_matrix(emu_url(), 4, 4)
    with pytest.raises(LedError, match=r"shape \(4, 4, 3\)"):
        m.show(np.zeros((4, 5, 3), np.uint8))


def test_decoder_skips_garbage_between_frames_with_a_log(caplog: pytest.LogCaptureFixture) -> None:
    strip = Wiring(2, 2).to_strip(IMG_2x2)
    stream = b"\x00noise" + encode_adalight(strip) + b"A\xff" + encode_tpm2(strip) + b"Ada\x00\x03\x00"
    dec = FrameDecoder("test receiver")
    with caplog.at_level(logging.WARNING):
        frames = []
        for i in range(0, len(stream), 5):  # arrives in small pieces
            frames += dec.feed(stream[i : i + 5])
    assert len(frames) == 2 and all(np.array_equal(f, strip) for f in frames)
    assert dec.garbage >= 9
    assert "ignored" in caplog.text and "bad checksum" in caplog.text


def test_frames_through_a_real_serial_port_pty_arrive_intact() -> None:
    master, slave = os.openpty()
    try:
        m = LedMatrix(os.ttyname(slave), 4, 2, protocol="tpm2", wiring="serpentine")
        img = np.random.default_rng(3).integers(0, 255, (2, 4, 3), dtype=np.uint8)
        assert m.show(img)
        dec = FrameDecoder("pty")
        got: list[np.ndarray] = []
        while not got:
            got += dec.feed(os.read(master, 1024))
        assert np.array_equal(Wiring(4, 2, "serpentine").to_image(got[0]), img)
        m.close()
    finally:
        os.close(master)
        os.close(slave)


class Clock:
    def __init__(self) -> None:
        self.t = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.t += s


def test_frames_are_paced_to_what_the_baud_rate_carries() -> None:
    clock = Clock()
    m = open_matrix(emu_url(), 16, 16, baud=115200, clock=clock, sleep=clock.sleep)
    assert m.fps == pytest.approx(115200 / (774 * 10))  # 'Ada' + 3 header bytes + 768 RGB bytes
    frame = patterns.number(16, 16, 7)
    for _ in range(5):
        assert m.show(frame)
    assert clock.slept == pytest.approx([774 * 10 / 115200] * 4)
    assert not m.show(frame, wait=False)  # line busy: dropped, not queued
    assert m.dropped == 1


def test_an_unplugged_matrix_is_survived_and_reconnected(caplog: pytest.LogCaptureFixture) -> None:
    url = emu_url()
    clock = Clock()
    m = open_matrix(url, 8, 8, clock=clock, sleep=clock.sleep, backoff=(1.0, 2.0))
    rec = receiver(url)
    frame = patterns.turn(8, 8, "red", 1)
    assert m.show(frame) and rec.frames == 1
    rec.unplug()
    with caplog.at_level(logging.WARNING):
        results = []
        for _ in range(5):  # the game keeps sending while the cable is out
            results.append(m.show(frame))
            clock.t += 0.3
        rec.replug()
        clock.t += 2.0
        assert m.show(patterns.question(8, 8))
    assert results == [False] * 5 and m.connected and rec.frames == 2
    assert np.array_equal(rec.last_image(), patterns.question(8, 8))
    assert "lost" in caplog.text and "reconnected" in caplog.text


def test_a_matrix_absent_at_start_is_picked_up_when_plugged_in() -> None:
    url = emu_url()
    rec = receiver(url)
    rec.unplug()
    clock = Clock()
    m = open_matrix(url, 4, 4, clock=clock, sleep=clock.sleep, backoff=(0.5,))
    assert not m.connected and not m.show(patterns.blank(4, 4))
    rec.replug()
    clock.t += 1.0
    assert m.show(patterns.blank(4, 4)) and rec.frames == 1


def test_bytes_from_the_device_are_ignored_with_a_log(caplog: pytest.LogCaptureFixture) -> None:
    url = emu_url()
    m = open_matrix(url, 4, 4)
    receiver(url).send(b"Ada\n\xff\xfe garbage")
    with caplog.at_level(logging.INFO):
        assert m.show(patterns.blank(4, 4))
    assert m.ignored_bytes == 14 and "ignored 14 byte(s) sent by the device" in caplog.text


def test_emulated_matrix_renders_its_last_frame_to_png(tmp_path) -> None:  # type: ignore[no-untyped-def]
    clock = Clock()
    m = open_matrix(
        emu_url(),
        16,
        16,
        protocol="tpm2",
        wiring="serpentine",
        origin="bottom-right",
        clock=clock,
        sleep=clock.sleep,
    )
    frames = patterns.scrolling_text(16, 16, "HI 42")
    assert m.play(frames) == len(frames)
    mid = frames[len(frames) // 2]
    assert np.array_equal(m.emulator.last_image(), frames[-1])
    m.show(mid)
    png = m.emulator.save_png(tmp_path / "leds.png", scale=8)
    image = cv2.imread(str(png))
    assert image.shape == (128, 128, 3)
    lit = np.argwhere(mid.any(axis=2))[0]
    y, x = lit * 8 + 4
    assert image[y, x].any()  # a lit LED is drawn where it is on the matrix


def test_the_secret_pattern_shows_who_confirmed_never_what() -> None:
    a = patterns.confirmed(16, 16, ["red", "blue"], [True, False])
    b = patterns.confirmed(16, 16, ["red", "blue"], [True, True])
    assert not np.array_equal(a, b)
    snap = {
        "players": [{"name": "ann", "colour": "red"}, {"name": "bob", "colour": "blue"}],
        "state": {"expects": {"kind": "secret", "players": ["ann", "bob"]}},
        "secret": {"status": "selecting", "confirmed": ["ann"], "waiting": ["bob"]},  # the table's progress
    }
    assert np.array_equal(patterns.for_snapshot(snap, 16, 16), a)


def test_patterns_fit_the_matrix_and_say_different_things() -> None:
    shots = {
        "turn": patterns.turn(16, 16, "green", 2),
        "order": patterns.roll_order(16, 16, [["red"], ["blue", "green"]]),
        "reveal": patterns.reveal(16, 16, ["red", "blue"])[-1],
        "damage": patterns.damage(16, 16, 30)[-1],
        "ko": patterns.ko(16, 16, "blue")[0],
        "winner": patterns.winner(16, 16, ["yellow"])[1],
        "question": patterns.question(16, 16),
    }
    for name, img in shots.items():
        assert img.shape == (16, 16, 3) and img.dtype == np.uint8 and img.any(), name
    flat = [img.tobytes() for img in shots.values()]
    assert len(set(flat)) == len(flat)
    with pytest.raises(ValueError, match="unknown LED colour"):
        patterns.turn(16, 16, "mauve")


def test_computed_frame_rate_at_115200_for_16x16() -> None:
    assert max_frame_rate("adalight", 256, 115200) == pytest.approx(14.884, abs=0.001)
    assert max_frame_rate("tpm2", 256, 115200) == pytest.approx(14.903, abs=0.001)
