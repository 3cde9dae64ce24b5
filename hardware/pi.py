"""Is this a Raspberry Pi, and what to install on one: the advice behind the camera's and the buttons'
errors, so that a Pi owner is told what to install and a laptop owner what to use instead."""

from __future__ import annotations

import sys
from pathlib import Path

MODEL = Path("/proc/device-tree/model")
#: how a Pi's venv sees the GPIO library Raspberry Pi OS ships with apt (picamera2 runs in the system's
#: Python itself: hardware/picam_worker.py)
VENV_HINT = (
    "the venv must see the system's packages: ./dev.sh makes .venv with --system-site-packages on a Pi "
    "(delete .venv and run ./dev.sh demo again if it was made before)"
)


def pi_model(model_file: Path = MODEL) -> str | None:
    """The board's model ("Raspberry Pi 5 Model B Rev 1.0"), or None when this is not a Raspberry Pi."""
    try:
        text = model_file.read_bytes().decode("utf-8", "replace").strip("\x00 \n")
    except OSError:
        return None
    return text if "Raspberry Pi" in text else None


def sees_system_packages() -> bool:
    """Whether this Python (a venv's) sees the packages apt installed (--system-site-packages)."""
    cfg = Path(sys.prefix) / "pyvenv.cfg"
    if sys.prefix == sys.base_prefix or not cfg.is_file():
        return True  # not a venv: the system's Python sees them
    return "include-system-site-packages = true" in cfg.read_text(encoding="utf-8", errors="replace")


def install_advice(
    apt_package: str, *, elsewhere: str, model_file: Path = MODEL, venv_hint: bool = True
) -> str:
    """What to do when ``apt_package``'s module does not import: on a Pi how to get it, else what to use.
    ``venv_hint``: the module is imported in this Python (lgpio), so a venv must see the system's
    packages; picamera2 runs in the system's Python itself (hardware/picam_worker.py), so not for it."""
    model = pi_model(model_file)
    if model is None:
        return f"this machine is not a Raspberry Pi ({model_file} names none): {elsewhere}"
    steps = f"on this {model}: sudo apt install {apt_package}"
    if venv_hint and not sees_system_packages():
        steps += f"; {VENV_HINT}"
    return steps
