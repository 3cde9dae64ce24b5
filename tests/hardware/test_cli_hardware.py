"""`dicetable record` and `dicetable hw-check --fake`, run as a user would."""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
from typer.testing import CliRunner

from controller.cli import app
from hardware.frames import open_source

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "tests" / "fixtures" / "motion" / "rethrow"
runner = CliRunner()


def test_record_copies_a_source_into_a_playable_session(tmp_path: Path) -> None:
    out = tmp_path / "rec"
    res = runner.invoke(
        app, ["record", "--out", str(out), "--camera", f"recorded:{SESSION}", "--frames", "10"]
    )
    assert res.exit_code == 0, res.output
    assert "recorded 10 frames" in res.output
    rows = list(csv.reader((out / "frames.csv").open()))
    assert rows[0] == ["file", "t"] and len(rows) == 11
    frames = list(open_source(f"recorded:{out}"))
    assert len(frames) == 10 and frames[0].image_bgr.shape == (240, 320, 3)


def test_record_refuses_bad_input_without_a_traceback(tmp_path: Path) -> None:
    res = runner.invoke(app, ["record", "--out", str(tmp_path / "a"), "--camera", "webcam"])
    assert res.exit_code == 2 and "camera spec 'webcam'" in res.output and "Traceback" not in res.output
    runner.invoke(
        app, ["record", "--out", str(tmp_path / "b"), "--camera", f"recorded:{SESSION}", "--frames", "2"]
    )
    res = runner.invoke(app, ["record", "--out", str(tmp_path / "b"), "--camera", f"recorded:{SESSION}"])
    assert res.exit_code == 2 and "already holds a recorded session" in res.output


def test_hw_check_fake_runs_without_a_person(tmp_path: Path) -> None:
    res = runner.invoke(app, ["hw-check", "--fake", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "ann: press UP" in res.output and "ok: cid confirm" in res.output
    assert "corners and direction right" in res.output
    leds = cv2.imread(str(tmp_path / "leds.png"))
    assert leds is not None and leds[8, 8].tolist() == [0, 0, 255]  # top-left LED is red (BGR)
    assert cv2.imread(str(tmp_path / "snapshot.png")) is not None


def test_hw_check_fake_finds_the_board_markers(tmp_path: Path) -> None:
    board = ROOT / "boards" / "dicetar-wars.example.toml"
    res = runner.invoke(app, ["hw-check", "--fake", "--board", str(board), "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    from calibration.board import load_board

    ids = sorted(m.id for m in load_board(board).markers)
    assert f"board markers found: {ids}\n" in res.output  # all of them, none missing


def test_hw_check_reports_missing_pins_and_fails(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text('[leds]\nurl = "emu://cli-test"\nbaud = 2000000\n')
    res = runner.invoke(
        app,
        [
            "hw-check",
            "--config",
            str(cfg),
            "--camera",
            f"recorded:{SESSION}",
            "--out",
            str(tmp_path / "o"),
            "--timeout",
            "0.2",
        ],
        input="y\n",
    )
    assert res.exit_code == 1, res.output
    assert "PROBLEM: ann: no button pins configured" in res.output
    assert "ok: camera recorded:" in res.output


def test_hw_check_names_a_swapped_wire_on_real_gpiozero_buttons() -> None:
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    from controller.hwcheck import CheckReport, check_buttons
    from hardware.buttons import GpioButtonPanel

    old, Device.pin_factory = Device.pin_factory, MockFactory()
    try:
        now = [0.0]
        pins = {"ann": {"up": 5, "down": 6, "select": 13, "confirm": None}}
        panel = GpioButtonPanel("ann", pins["ann"], clock=lambda: now[0])
        wrong = {"up": 6, "down": 5, "select": 13}  # up and down wired the wrong way round

        def person(message: str) -> None:
            button = message.split("press ")[1].split()[0].lower()
            pin = Device.pin_factory.pin(wrong[button])
            pin.drive_low()
            now[0] += 0.1
            pin.drive_high()

        def sleep(s: float) -> None:
            now[0] += s

        report = CheckReport()
        check_buttons([panel], pins, person, lambda: now[0], sleep, report, timeout_s=1.0)
        panel.close()
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = old
    assert report.ok == ["ann select (BCM 13): pressed"]
    assert report.problems == [
        "ann up (BCM 5): got DOWN instead: are the wires of up and down swapped?",
        "ann down (BCM 6): got UP instead: are the wires of down and up swapped?",
    ]


def test_led_patterns_are_rendered_through_the_emulated_wire(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["led-patterns", "--out", str(tmp_path), "--protocol", "tpm2", "--width", "8", "--height", "8"]
    )
    assert res.exit_code == 0, res.output
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert "confirmed.png" in pngs and "question.png" in pngs and len(pngs) == 9
    question = cv2.imread(str(tmp_path / "question.png"))
    assert question.shape == (128, 128, 3)
    res = runner.invoke(app, ["led-patterns", "--out", str(tmp_path), "--protocol", "dmx"])
    assert res.exit_code == 2 and "protocol must be one of" in res.output


def test_hw_check_fake_asks_for_the_configured_pins_and_sums_up(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(
        '[[players]]\nname = "ann"\ncolour = "red"\npins = { up = 5, down = 6, select = 13, confirm = 19 }\n'
        '[[players]]\nname = "bob"\ncolour = "blue"\n'
        "pins = { up = 20, down = 21, select = 16, confirm = 12 }\n"
        '[camera]\nsource = "v4l2:0"\n',
        encoding="utf-8",
    )
    res = runner.invoke(app, ["hw-check", "--fake", "--config", str(cfg), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "ann: press UP (BCM 5)" in res.output and "bob: press CONFIRM (BCM 12)" in res.output
    assert "BCM 100" not in res.output
    assert res.output.strip().splitlines()[-1].startswith("hw-check: ") and "all passed" in res.output


def test_hw_check_sums_up_when_the_camera_fails(tmp_path: Path) -> None:
    res = runner.invoke(
        app,
        ["hw-check", "--fake", "--camera", "recorded:/no/such/folder", "--out", str(tmp_path / "o")],
    )
    assert res.exit_code == 1, res.output
    assert "ok: ann up" in res.output and "PROBLEM: camera 'recorded:/no/such/folder'" in res.output
    last = res.output.strip().splitlines()[-1]
    assert last.startswith("hw-check: ") and "1 failed" in last, last
