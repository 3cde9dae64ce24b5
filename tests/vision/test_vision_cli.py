"""`dicetable read`: one JSON line per image, errors per image, exit 1 if any failed."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import typer
from typer.testing import CliRunner
from vision_helpers import draw_row

from controller.cli_vision import register
from hardware.drawn import felt


def app() -> typer.Typer:
    a = typer.Typer()

    @a.callback()
    def main() -> None:
        """test app"""

    register(a)
    return a


def test_read_json_lines_and_errors(tmp_path: Path) -> None:
    img = felt(480, 640)
    draw_row(img, [2, 6, 1])
    good = tmp_path / "table.png"
    cv2.imwrite(str(good), img)
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8 not really a jpeg")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    res = CliRunner().invoke(app(), ["read", str(good), str(bad), str(empty), "--json"])
    assert res.exit_code == 1
    lines = [json.loads(line) for line in res.stdout.strip().splitlines()]
    assert [d["image"] for d in lines] == [str(good), str(bad), str(empty)]
    first = lines[0]
    assert sorted(d["value"] for d in first["dice"]) == [1, 2, 6]
    # the one dict form of a die (controller.perceive.Reading): with its id, and whether a table would ask
    assert set(first["dice"][0]) == {
        "id",
        "kind",
        "value",
        "center",
        "quad",
        "confidence",
        "colour",
        "cocked",
        "unsure",
    }
    assert first["ms"] > 0
    assert "not a readable image" in lines[1]["error"] and "error" in lines[2]


def test_read_human_output_and_success_exit(tmp_path: Path) -> None:
    img = felt(480, 640)
    draw_row(img, [5])
    p = tmp_path / "one.png"
    cv2.imwrite(str(p), img)
    res = CliRunner().invoke(app(), ["read", str(p)])
    assert res.exit_code == 0, res.output
    assert "1 dice, total 5" in res.stdout


def test_board_needs_calibration(tmp_path: Path) -> None:
    p = tmp_path / "one.png"
    cv2.imwrite(str(p), np.zeros((10, 10, 3), np.uint8))
    res = CliRunner().invoke(app(), ["read", str(p), "--board", "x.toml"])
    assert res.exit_code != 0
    assert "--calibration" in res.output


def test_read_with_board_geometry() -> None:
    """With a layout and a calibration every die also gets board millimetres and zones."""
    root = Path(__file__).resolve().parents[2]
    session = root / "tests" / "fixtures" / "sessions" / "dicetar-wars-demo"
    board = root / "boards" / "dicetar-wars.example.toml"
    if not (session / "camera.json").is_file() or not board.is_file():
        import pytest

        pytest.skip("the dicetar-wars demo session or board layout is not there")
    truth = json.loads((session / "truth.json").read_text())["throws"][0]
    frame = session / truth["frame"]
    res = CliRunner().invoke(
        app(),
        ["read", str(frame), "--json", "--board", str(board), "--calibration", str(session / "camera.json")],
    )
    assert res.exit_code == 0, res.output
    (line,) = [json.loads(x) for x in res.stdout.strip().splitlines()]
    want = {(d["value"], tuple(d["zones"])) for d in truth["dice"]}
    sure = {(d["value"], tuple(d["zones"])) for d in line["dice"] if d["confidence"] >= 0.7}
    everything = {(d["value"], tuple(d["zones"])) for d in line["dice"]}
    # Every die is read with its zones; anything else the reader saw on the printed board is
    # flagged unsure (the table asks a human about those).
    assert sure == want and want <= everything
    assert all("board_center_mm" in d and "stack_level" in d for d in line["dice"])


def test_read_numbered_reports_each_kind() -> None:
    """--numbered: a rendered frame of mixed dice comes out with each die's kind, as the truth has it."""
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "numbered"
    truth = json.loads((folder / "scene_0002.json").read_text())
    res = CliRunner().invoke(app(), ["read", str(folder / "scene_0002.jpg"), "--json", "--numbered"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout.strip())
    kinds = sorted(d["kind"] for d in got["dice"])
    assert kinds == sorted(d["kind"] for d in truth["dice"])
    assert {"d6", "d10", "d10p", "d20"} >= set(kinds) and len(set(kinds)) >= 3
    plain = CliRunner().invoke(app(), ["read", str(folder / "scene_0002.jpg"), "--json"])
    assert {d["kind"] for d in json.loads(plain.stdout.strip())["dice"]} <= {"d6"}


def test_read_a_sequence_carries_a_die_covered_in_the_next_frame() -> None:
    """--sequence: the red die a blue die lands on in the second throw was read in the first frame;
    it is carried into the second (hidden, with its value) and the blue die is placed on it."""
    root = Path(__file__).resolve().parents[2]
    session = root / "tests" / "fixtures" / "sessions" / "dicetar-wars-demo"
    board = root / "boards" / "dicetar-wars.example.toml"
    throws = json.loads((session / "truth.json").read_text())["throws"][:2]
    frames = [str(session / t["frame"]) for t in throws]
    geometry = ["--json", "--board", str(board), "--calibration", str(session / "camera.json")]
    alone = CliRunner().invoke(app(), ["read", frames[1], *geometry])
    res = CliRunner().invoke(app(), ["read", *frames, *geometry, "--sequence"])
    assert res.exit_code == 0 and alone.exit_code == 0, res.output + alone.output
    first, second = [json.loads(x) for x in res.stdout.strip().splitlines()]
    assert not [d for d in first["dice"] if d.get("carried")]
    # frame two alone shows one die of the stack; with the first frame before it, both
    assert len(second["dice"]) == len(json.loads(alone.stdout)["dice"]) + 1
    (carried,) = [d for d in second["dice"] if d.get("carried")]
    truth = throws[1]["dice"]
    lower = truth[next(d["rests_on"] for d in truth if d.get("rests_on") is not None)]
    assert (carried["colour"], carried["value"], carried["seen_in"]) == (
        lower["colour"],
        lower["value"],
        frames[0],
    )
    top = next(d for d in second["dice"] if d["id"] == carried["under"])
    assert top["stack_level"] == 1 and second["dice"][top["rests_on"]]["carried"]


def test_sequence_needs_the_board() -> None:
    res = CliRunner().invoke(app(), ["read", "a.png", "--sequence"])
    assert res.exit_code != 0 and "--board" in res.output


def test_read_explain_names_the_step_that_rejected_each_candidate(tmp_path: Path) -> None:
    empty = felt(480, 640)
    draw_row(empty, [5], size=48, y=120)  # a die printed on the cloth: part of the empty table
    frame = empty.copy()
    draw_row(frame, [2], size=48, y=360)
    e, f, out = tmp_path / "empty.png", tmp_path / "frame.png", tmp_path / "explained.png"
    cv2.imwrite(str(e), empty)
    cv2.imwrite(str(f), frame)
    res = CliRunner().invoke(
        app(), ["read", str(f), "--explain", "--empty", str(e), "--explain-out", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "1 dice, total 2" in res.stdout
    assert "by empty table:" in res.stdout
    drawn = cv2.imread(str(out))
    assert drawn.shape == frame.shape and not np.array_equal(drawn, frame)
    res = CliRunner().invoke(app(), ["read", str(f), "--json", "--explain", "--die-size", "10,20"])
    line = json.loads(res.stdout)
    assert line["dice"] == [] and {r["step"] for r in line["rejected"]} == {"die size"}
    res = CliRunner().invoke(app(), ["read", str(f), "--play-area", "1,2 3"])
    assert res.exit_code != 0 and "--play-area '1,2 3': expected 'x,y x,y x,y ...'" in res.output


def test_read_with_a_board_reads_a_die_on_its_own_colour_by_the_board_look(tmp_path: Path) -> None:
    # a low-contrast scene (white dice on the white paper, red dice on the red zones) whose detector
    # misses a die the board look finds: `read --board` reads as the table does
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "lowcontrast"
    truth = json.loads((folder / "scene_0006.json").read_text())
    cam = tmp_path / "camera.json"
    cam.write_text(
        json.dumps(
            {k: truth["camera"][k] for k in ("camera_matrix", "dist_coeffs")}
            | {"image_size": truth["image_size"]}
        )
    )
    board = Path(__file__).resolve().parents[2] / truth["board_file"]
    args = [
        "read",
        str(folder / "scene_0006.jpg"),
        "--json",
        "--board",
        str(board),
        "--calibration",
        str(cam),
    ]
    on = json.loads(CliRunner().invoke(app(), args).stdout.strip().splitlines()[-1])
    off = json.loads(CliRunner().invoke(app(), [*args, "--no-board-look"]).stdout.strip().splitlines()[-1])
    assert len(off["dice"]) == len(truth["dice"]) - 1
    assert len(on["dice"]) == len(truth["dice"])
    assert "rejected" not in on  # listed only with --explain or a where option
