"""`dicetable learn-dice` reads its frames through the table's perception step (issue 29 item 4,
issue 28 item 1): the table's where-steps apply, only what differs from the empty table is a die (a
keyboard or another die lying there all along is never a face), and `confirm` refuses a set lacking
faces or of a kind the table's game does not use, naming what is missing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
from typer.testing import CliRunner

from controller.cli import app
from tests.real_photos import real_photos
from training.numbered.real import TABLE_SCALE, TABLE_STILL, default_root, load_lurig

REAL = default_root()
needs_real = real_photos("d20_lurig/labels.csv")
#: where the die being taught lies, and where a die that was on the table all along lies (pixels)
TAUGHT, LYING = (1728, 1296), (700, 700)


def _small(path: Path) -> np.ndarray:
    img = cv2.imread(str(path))
    return cv2.resize(img, None, fx=TABLE_SCALE, fy=TABLE_SCALE, interpolation=cv2.INTER_AREA)


def _put(frame: np.ndarray, patch: np.ndarray, at: tuple[int, int]) -> None:
    h, w = patch.shape[:2]
    y0, x0 = at[1] - h // 2, at[0] - w // 2
    frame[y0 : y0 + h, x0 : x0 + w] = patch


def _scene(tmp_path: Path) -> tuple[list[Path], Path]:
    """Four frames of a d20 of d20_top (faces 9, 11, 20, 15) at the table's scale on a grey table
    where another d20 (of d20_wood) lies all along, and the empty table: that grey with that die."""
    lurig = load_lurig(REAL)
    taught = [next(x for x in lurig if x.group == "d20_top" and x.face == f) for f in (9, 11, 20, 15)]
    lying = _small(next(x for x in lurig if x.group == "d20_wood" and x.face == 18).path)
    table = np.full((TABLE_STILL[1], TABLE_STILL[0], 3), 128, np.uint8)
    _put(table, lying, LYING)
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), table)
    frames = []
    for i, x in enumerate(taught):
        frame = table.copy()
        _put(frame, _small(x.path), TAUGHT)
        frames.append(tmp_path / f"frame{i}.png")
        cv2.imwrite(str(frames[-1]), frame)
    return frames, empty


def _see(frames: list[Path], session: Path, *extra: str) -> list[tuple[float, float]]:
    args = ["learn-dice", "see", *map(str, frames), "--set", "red", "--kind", "d20"]
    run = CliRunner().invoke(app, [*args, "--session", str(session), *extra])
    assert run.exit_code == 0, run.output
    return [tuple(s["centre"]) for s in json.loads((session / "seen.json").read_text())["seen"]]


def _near(c: tuple[float, float], at: tuple[int, int]) -> bool:
    return math.dist(c, at) < 150


@needs_real
def test_see_learns_only_what_differs_from_the_empty_table(tmp_path: Path) -> None:
    frames, empty = _scene(tmp_path)
    every = _see(frames, tmp_path / "all")
    # without the empty table, the die lying there all along is seen in every frame (the test's point)
    assert sum(_near(c, LYING) for c in every) >= 3, every
    seen = _see(frames, tmp_path / "s", "--empty", str(empty))
    assert seen and all(_near(c, TAUGHT) for c in seen), seen
    assert sum(_near(c, TAUGHT) for c in seen) >= 3, seen
    # the table's configured empty-table frame does the same
    cfg = tmp_path / "table.toml"
    cfg.write_text(
        f'[table]\ngame = "dice-hunter"\nkinds = ["d20"]\n[vision]\nempty_table_frame = "{empty}"\n'
    )
    configured = _see(frames, tmp_path / "c", "--config", str(cfg))
    assert configured and all(_near(c, TAUGHT) for c in configured), configured


@needs_real
def test_see_reads_with_the_tables_where_steps(tmp_path: Path) -> None:
    """A play area drawn round the taught die (`[vision] play_area_px`): nothing outside it is seen."""
    frames, _ = _scene(tmp_path)
    x, y = TAUGHT
    area = [[x - 300, y - 300], [x + 300, y - 300], [x + 300, y + 300], [x - 300, y + 300]]
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\ngame = "dice-hunter"\nkinds = ["d20"]\n[vision]\nplay_area_px = {area}\n')
    seen = _see(frames, tmp_path / "s", "--config", str(cfg))
    assert seen and all(_near(c, TAUGHT) for c in seen), seen
    # the set says which crop it keeps (issue 44 item 2): the die on its own outline
    assert json.loads((tmp_path / "s" / "seen.json").read_text())["crop"] == "die"


def _session(tmp_path: Path, kind: str, faces: list[int]) -> Path:
    session = tmp_path / "s"
    session.mkdir()
    seen = [
        {"frame": "a.jpg", "centre": [1, 2], "guess": None, "features": [1.0, 0.0], "group": g}
        for g in range(len(faces))
    ]
    meta = {"name": "red", "kind": kind, "colour": "red", "embedder": "x", "seen": seen}
    (session / "seen.json").write_text(json.dumps(meta))
    rows = "".join(f"{g},1,,{f}\n" for g, f in enumerate(faces))
    (session / "confirm.csv").write_text("group,crops,guess,face\n" + rows)
    return session


def test_confirm_refuses_a_set_lacking_faces_naming_them(tmp_path: Path) -> None:
    session = _session(tmp_path, "d10", [0, 1, 2, 3, 4, 5, 7, 8])
    out = ["learn-dice", "confirm", str(session), "--out", str(tmp_path / "o.json")]
    run = CliRunner().invoke(app, out)
    assert run.exit_code == 2, run.output
    assert "lacks faces 6, 9 (8 of 10 seen)" in " ".join(run.output.split())
    assert not (tmp_path / "o.json").exists()
    assert CliRunner().invoke(app, [*out, "--allow-missing"]).exit_code == 0


def test_confirm_refuses_a_kind_the_tables_game_does_not_use(tmp_path: Path) -> None:
    session = _session(tmp_path, "d20", list(range(1, 21)))
    cfg = tmp_path / "table.toml"
    cfg.write_text('[table]\ngame = "dice-fighter"\ndice_set = "red.json"\n')
    env = {"DICETABLE_DATA_DIR": str(tmp_path / "data")}
    confirm = ["learn-dice", "confirm", str(session), "--config", str(cfg)]
    run = CliRunner().invoke(app, confirm, env=env)
    assert run.exit_code == 2, run.output
    assert "a set of d20, but the table's game uses d10p dice" in " ".join(run.output.split())
    run = CliRunner().invoke(app, [*confirm, "--allow-missing"], env=env)  # no way round it
    assert run.exit_code == 2
    assert not (tmp_path / "data" / "red.json").exists()
    # see refuses it before looking at a frame
    run = CliRunner().invoke(
        app, ["learn-dice", "see", "x.png", "--set", "r", "--kind", "d20", "--config", str(cfg)]
    )
    assert run.exit_code == 2 and "uses d10p dice, not d20" in " ".join(run.output.split()), run.output
