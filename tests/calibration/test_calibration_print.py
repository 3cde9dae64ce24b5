"""`board print --paper a4|a3`: the board tiled onto sheets at true scale, every page with a ruler.

The PDFs are rasterised by poppler's pdftoppm (an independent reader), so what is checked is what
a printer would be sent: page count and size, each sheet's part of the board at the right place
in millimetres, the markers where the layout puts them, and a ruler 100 mm long.
"""

from __future__ import annotations

import itertools
import re
import shutil
import struct
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest
import typer
from numpy.typing import NDArray
from typer.testing import CliRunner

from calibration.board import load_board
from calibration.pose import detect_markers
from calibration.printing import OVERLAP_MM, RULER_MM, render_board_image, tile_sheets
from controller.cli_calibration import register

runner = CliRunner()
PPM = 5.0  # px/mm the tests print at (small files, markers still readable)


@pytest.fixture
def app() -> typer.Typer:
    a = typer.Typer()
    register(a)
    return a


def rasterise(pdf: Path, dpi: float) -> list[NDArray[np.uint8]]:
    """Every page of ``pdf`` as BGR at ``dpi``, by pdftoppm."""
    assert shutil.which("pdftoppm"), "pdftoppm missing: Debian's poppler-utils (./dev.sh test installs it)"
    prefix = pdf.with_suffix("")
    subprocess.run(["pdftoppm", "-r", f"{dpi:g}", "-png", str(pdf), str(prefix)], check=True)
    files = sorted(pdf.parent.glob(prefix.name + "-*.png"), key=lambda f: int(f.stem.rsplit("-", 1)[1]))
    return [cv2.imread(str(f), cv2.IMREAD_COLOR) for f in files]


def media_boxes(pdf: Path) -> list[tuple[float, float]]:
    return [
        (float(w), float(h)) for w, h in re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf.read_bytes())
    ]


def ruler_mm(img: NDArray[np.uint8], px_per_mm: float, below_mm: float) -> float:
    """The longest solid dark horizontal run (mm) in the image below ``below_mm``: the ruler's bar."""
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)[round(below_mm * px_per_mm) :]
    best = 0
    for row in grey < 100:
        d = np.diff(np.concatenate(([0], row.astype(np.int8), [0])))
        starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
        if len(starts):
            best = max(best, int((ends - starts).max()))
    return best / px_per_mm


def test_a4_sheets_are_a4_pages_that_together_show_the_board_once_plus_overlap(
    app: typer.Typer, tmp_path: Path
) -> None:
    out = tmp_path / "df.pdf"
    res = runner.invoke(
        app, ["board", "print", "dice-fighter", "--out", str(out), "--paper", "a4", "--px-per-mm", "5"]
    )
    assert res.exit_code == 0, res.output
    assert "6 A4 portrait sheets (2 rows x 3 columns, A1..B3, overlap 10 mm)" in res.output
    board = load_board("dice-fighter")  # 560 x 380 mm
    boxes = media_boxes(out)
    assert len(boxes) == 6
    for w, h in boxes:
        assert w == pytest.approx(595.276, abs=0.01) and h == pytest.approx(841.89, abs=0.01)

    sheets = tile_sheets(board, "a4")
    assert [t.name for t in sheets.tiles] == ["A1", "A2", "A3", "B1", "B2", "B3"]
    # Coverage: every board point is on a sheet; neighbours share exactly the overlap band.
    _, _, bw, bh = board.bounds()
    xs = sorted({(t.x0, t.x0 + t.w) for t in sheets.tiles})
    ys = sorted({(t.y0, t.y0 + t.h) for t in sheets.tiles})
    assert xs[0][0] == 0 and xs[-1][1] >= bw and ys[0][0] == 0 and ys[-1][1] >= bh
    for (_, a_end), (b_start, _) in itertools.pairwise(xs):
        assert a_end - b_start == pytest.approx(OVERLAP_MM)
    for (_, a_end), (b_start, _) in itertools.pairwise(ys):
        assert a_end - b_start == pytest.approx(OVERLAP_MM)
    assert xs[-2][1] < bw and ys[-2][1] < bh  # one sheet fewer would not do

    pages = rasterise(out, PPM * 25.4)  # back at 5 px/mm
    board_img = render_board_image(board, PPM)
    seen: dict[int, list[str]] = {}
    for page, tile in zip(pages, sheets.tiles, strict=True):
        # The sheet's board area, read back from the PDF, is the board's pixels at that place.
        left, t = round(sheets.left * PPM), round(sheets.top * PPM)
        x0, y0 = round(tile.x0 * PPM), round(tile.y0 * PPM)
        want = board_img[y0 : y0 + round(tile.h * PPM), x0 : x0 + round(tile.w * PPM)]
        got = page[t : t + want.shape[0], left : left + want.shape[1]]
        differ = np.abs(got.astype(int) - want.astype(int)).max(axis=2) > 60
        assert differ.mean() < 0.02, (tile.name, differ.mean())  # only the marks differ
        shifted = page[t + 10 : t + 10 + want.shape[0], left : left + want.shape[1]]  # 2 mm off
        assert (np.abs(shifted.astype(int) - want.astype(int)).max(axis=2) > 60).mean() > differ.mean()
        # Each marker found on the sheet sits where the layout says, in board millimetres.
        for mid, corners in detect_markers(page, board).items():
            centre = corners.mean(axis=0) / PPM - (sheets.left, sheets.top) + (tile.x0, tile.y0)
            m = board.marker(mid)
            assert m is not None
            assert np.allclose(centre, m.center, atol=0.5), (tile.name, mid, centre, m.center)
            seen.setdefault(mid, []).append(tile.name)
        # And the ruler on every sheet is 100 mm.
        assert ruler_mm(page, PPM, sheets.page_h - 20) == pytest.approx(RULER_MM, abs=0.5)
    # Every marker is on the sheets that hold it whole: once, or twice/four times in an overlap.
    for m in board.markers:
        half = m.size / 2
        holding = [
            t.name
            for t in sheets.tiles
            if t.x0 <= m.center[0] - half
            and m.center[0] + half <= t.x0 + t.w
            and t.y0 <= m.center[1] - half
            and m.center[1] + half <= t.y0 + t.h
        ]
        assert holding, m.id
        assert sorted(seen.get(m.id, [])) == sorted(holding), m.id


def test_a3_landscape_and_the_ruler_is_100_mm_at_any_resolution(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "dw.pdf"
    res = runner.invoke(
        app,
        [
            "board",
            "print",
            "dicetar-wars",
            "--out",
            str(out),
            "--paper",
            "a3",
            "--landscape",
            "--px-per-mm",
            "4",
        ],
    )
    assert res.exit_code == 0, res.output
    sheets = tile_sheets(load_board("dicetar-wars"), "a3", landscape=True)
    assert (sheets.rows, sheets.cols) == (2, 2)  # an A3-sized board does not fit one A3 sheet's margins
    boxes = media_boxes(out)
    assert boxes == [pytest.approx((1190.55, 841.89), abs=0.01)] * 4
    dpi = 200.0  # not the 4 px/mm it was drawn at: the ruler is true size on paper, not in pixels
    for page in rasterise(out, dpi):
        assert page.shape[:2] == pytest.approx((297 / 25.4 * dpi, 420 / 25.4 * dpi), abs=1)
        assert ruler_mm(page, dpi / 25.4, sheets.page_h - 20) == pytest.approx(RULER_MM, abs=0.5)


def test_png_sheets_are_one_file_each_with_their_resolution(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "df.png"
    res = runner.invoke(
        app,
        [
            "board",
            "print",
            "dice-fighter",
            "--out",
            str(out),
            "--paper",
            "a4",
            "--landscape",
            "--px-per-mm",
            "4",
        ],
    )
    assert res.exit_code == 0, res.output
    sheets = tile_sheets(load_board("dice-fighter"), "a4", landscape=True)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(f"df-{t.name}.png" for t in sheets.tiles)
    assert "df-A1.png" in names and f"df-{sheets.tiles[-1].name}.png" in names and not out.exists()
    for t in sheets.tiles:
        data = (tmp_path / f"df-{t.name}.png").read_bytes()
        i = data.index(b"pHYs")
        assert struct.unpack(">IIB", data[i + 4 : i + 13]) == (4000, 4000, 1)
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        assert img.shape[:2] == (210 * 4, 297 * 4)
        assert ruler_mm(img, 4.0, 210 - 20) == pytest.approx(RULER_MM, abs=0.5)


def test_the_full_page_carries_the_ruler_too(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "full.pdf"
    res = runner.invoke(app, ["board", "print", "dice-fighter", "--out", str(out), "--px-per-mm", "3"])
    assert res.exit_code == 0, res.output
    (page,) = rasterise(out, 150)
    assert ruler_mm(page, 150 / 25.4, 380) == pytest.approx(RULER_MM, abs=0.5)


def test_bad_paper_options_are_refused_clearly(app: typer.Typer, tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["board", "print", "dice-fighter", "--out", str(tmp_path / "x.pdf"), "--paper", "letter"]
    )
    assert res.exit_code == 2 and "--paper 'letter': expected one of a4, a3, full" in res.output
    res = runner.invoke(
        app, ["board", "print", "dice-fighter", "--out", str(tmp_path / "x.pdf"), "--landscape"]
    )
    assert res.exit_code == 2 and "--landscape: only with --paper a4 or a3" in res.output
    assert not list(tmp_path.iterdir())
