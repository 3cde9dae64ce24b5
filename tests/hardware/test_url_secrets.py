"""A camera's password and tokens are never printed (issue 47, item 6): ``hardware.urls.mask_url`` in
every URL shape, and ``check-config``, ``run``, ``hw-check`` and ``record`` as a user runs them."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hardware.urls import mask_url, mask_urls

ROOT = Path(__file__).resolve().parents[2]

SECRETS = ("s3cr@t", "p:w/d", "tok123", "k3y", "hunter2", "sig9", "frag7")


@pytest.mark.parametrize(
    "url, shown",
    [
        ("rtsp://admin:hunter2@192.168.1.9:554/live", "rtsp://admin:***@192.168.1.9:554/live"),
        ("rtsp://admin:hunter2@cam/live", "rtsp://admin:***@cam/live"),
        ("http://admin:hunter2@192.168.1.9/video", "http://admin:***@192.168.1.9/video"),
        ("rtsp://admin:s3cr@t@cam:554/live", "rtsp://admin:***@cam:554/live"),  # an '@' in the password
        ("rtsp://admin:p:w/d@cam/live", "rtsp://admin:***@cam/live"),  # ':' and '/' in the password
        ("rtsp://admin:hunter2@[fe80::1]:554/x", "rtsp://admin:***@[fe80::1]:554/x"),
        ("rtsp://admin:hunter2@[::1]/x", "rtsp://admin:***@[::1]/x"),
        ("http://cam:8080/video?token=tok123", "http://cam:8080/video?token=***"),
        ("http://[::1]:8080/v?key=k3y&channel=2", "http://[::1]:8080/v?key=***&channel=***"),
        ("https://cam/v?user=a&password=hunter2;auth=x", "https://cam/v?user=***&password=***;auth=***"),
        (
            "http://cam/v?X-Amz-Signature=sig9#access_token=frag7",
            "http://cam/v?X-Amz-Signature=***#access_token=***",
        ),
        ("http://cam/v?tok123", "http://cam/v?***"),
        ("https://tok123@cam/v", "https://***@cam/v"),
        ("rtsps://u:hunter2@cam?k3y", "rtsps://u:***@cam?***"),
        ("recorded:/srv/sessions/a", "recorded:/srv/sessions/a"),
        ("v4l2:0", "v4l2:0"),
        ("picam", "picam"),
        ("admin:hunter2@cam", "***@cam"),  # not an address of ours, written like one
    ],
)
def test_mask_url_hides_every_secret_and_keeps_the_camera(url: str, shown: str) -> None:
    assert mask_url(url) == shown
    assert not any(s in mask_url(url) for s in SECRETS if s in url and s not in shown)


def test_mask_urls_masks_addresses_inside_a_message() -> None:
    text = "camera 'rtsp://admin:s3cr@t@cam/x?token=tok123': cannot open (tried rtsp://admin:s3cr@t@cam/x)"
    out = mask_urls(text)
    assert "s3cr" not in out and "tok123" not in out and out.count("admin:***@cam/x") == 2, out


# -- as a user runs the commands --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def dicetable(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


# the shapes name the port as "{port}", filled in by each test: parameters must be the same in every
# pytest-xdist worker (a port chosen at collection differs between workers, and xdist refuses the run)
SHAPES = [
    "rtsp://admin:s3cr@t@127.0.0.1:{port}/live",
    "rtsp://admin:p:w/d@127.0.0.1:{port}/live?token=tok123",
    "http://admin:hunter2@127.0.0.1:{port}/video",
    "http://127.0.0.1:{port}/video?key=k3y&sig=sig9",
    "rtsp://admin:hunter2@[::1]:{port}/live",
]


def closed(shape: str) -> str:
    """A camera that does not answer (a closed port on loopback) in one of the URL shapes with secrets."""
    return shape.replace("{port}", str(free_port()))


def _no_secret(out: str) -> None:
    assert "Traceback" not in out, out
    for secret in SECRETS:
        assert secret not in out, f"{secret!r} shown:\n{out}"


def _config(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(
        f'[camera]\nsource = "{url}"\n[display]\nport = {free_port()}\n'
        f'[database]\npath = "{tmp_path / "t.sqlite3"}"\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("shape", SHAPES)
def test_check_config_and_run_never_show_the_password(shape: str, tmp_path: Path) -> None:
    url = closed(shape)
    cfg = _config(tmp_path, url)
    res = dicetable("check-config", str(cfg))
    assert "127.0.0.1" in res.stdout or "::1" in res.stdout, res.stdout + res.stderr  # the camera is named
    _no_secret(res.stdout + res.stderr)
    res = dicetable("run", "--config", str(cfg), "--no-hold")
    assert res.returncode == 2 and "no stream there" in res.stderr, res.stderr  # nothing listens there
    _no_secret(res.stdout + res.stderr)


def test_a_mistyped_camera_in_the_config_is_refused_without_its_password(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "rstp://admin:s3cr@t@cam/live?token=tok123")
    res = dicetable("check-config", str(cfg))
    assert res.returncode == 1 and "camera.source" in res.stdout, res.stdout
    _no_secret(res.stdout + res.stderr)


@pytest.mark.parametrize("shape", SHAPES[:3])
def test_hw_check_and_record_never_show_the_password(shape: str, tmp_path: Path) -> None:
    url = closed(shape)
    res = dicetable("hw-check", "--fake", "--camera", url, "--out", str(tmp_path / "hw"))
    assert res.returncode == 1 and "PROBLEM: camera" in res.stdout, res.stdout + res.stderr
    _no_secret(res.stdout + res.stderr)
    res = dicetable("record", "--camera", url, "--out", str(tmp_path / "rec"), "--frames", "2")
    assert res.returncode != 0
    _no_secret(res.stdout + res.stderr)
    res = dicetable("record", "--camera", url.replace("://", ":/"), "--out", str(tmp_path / "r2"))
    _no_secret(res.stdout + res.stderr)
