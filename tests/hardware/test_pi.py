"""On a Raspberry Pi the camera's and the buttons' errors say what to install; elsewhere, what to use."""

from __future__ import annotations

from pathlib import Path

from hardware.pi import install_advice, pi_model


def test_a_pi_is_told_what_to_install_and_a_laptop_what_to_use(tmp_path: Path) -> None:
    pi = tmp_path / "model"
    pi.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    assert pi_model(pi) == "Raspberry Pi 5 Model B Rev 1.0"
    advice = install_advice("python3-lgpio", elsewhere="use pin_factory = 'mock'", model_file=pi)
    assert "on this Raspberry Pi 5 Model B Rev 1.0: sudo apt install python3-lgpio" in advice
    assert "not a Raspberry Pi" not in advice and "'mock'" not in advice

    laptop = tmp_path / "none"
    assert pi_model(laptop) is None
    advice = install_advice("python3-lgpio", elsewhere="use pin_factory = 'mock'", model_file=laptop)
    assert "not a Raspberry Pi" in advice and "use pin_factory = 'mock'" in advice

    other = tmp_path / "other"
    other.write_text("Pine64 RockPro64\n")
    assert pi_model(other) is None


def test_hw_check_off_a_pi_names_the_pin_factory_and_the_way_out(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from controller.cli import app

    cfg = tmp_path / "table.toml"
    cfg.write_text(
        '[buttons]\npin_factory = "lgpio"\n[[players]]\nname = "ann"\ncolour = "red"\npins = { up = 5 }\n'
        '[camera]\nsource = "v4l2:0"\n',
        encoding="utf-8",
    )
    res = CliRunner().invoke(app, ["hw-check", "--config", str(cfg), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "Traceback" not in res.output
    if pi_model() is None:  # this machine: the advice for a machine that is not a Pi
        assert "not a Raspberry Pi" in res.output and "'mock'" in res.output, res.output
