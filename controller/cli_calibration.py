"""`dicetable` commands of the calibration area (registered by controller.cli).

dicetable board print LAYOUT --out FILE.pdf|png [--paper a4|a3 [--landscape]]
                                                      a printable board at true scale (tiled)
dicetable board check LAYOUT                          validate a layout and summarise it
dicetable board import FILE.svg --out LAYOUT.toml     a layout file from an SVG drawing
dicetable calibrate charuco --out FILE.png            the ChArUco sheet to photograph
dicetable calibrate camera IMAGE... --out CAL.json    intrinsics from ChArUco views
dicetable calibrate camera --nominal NAME --out CAL.json   intrinsics from a datasheet
dicetable calibrate pose FRAME --calibration CAL.json --board LAYOUT
                                                      remember the board's pose (empty board)
dicetable calibrate check FRAME --calibration CAL.json --board LAYOUT
                                                      has the camera or board moved?
dicetable calibrate colours FRAME --colour red ... --out PALETTE.json
                                                      learn die colours under this light
dicetable calibrate empty FRAME --out EMPTY.png       the empty table the d6 reader compares with
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _read_image(path: Path) -> Any:
    from hardware.imagefile import ImageError, read_image

    if not path.is_file():
        raise _fail(f"{path}: no such file (expected an image: .jpg or .png)")
    try:  # the size is checked from the header before a pixel is decoded
        return read_image(path)
    except ImageError as e:
        raise _fail(str(e)) from None


def _board(layout: str) -> Any:
    from calibration.board import BoardError, load_board

    try:
        return load_board(layout)
    except BoardError as e:
        raise _fail(str(e)) from None


def _calibration(path: Path) -> Any:
    from calibration.camera import CalibrationError, load_calibration

    try:
        return load_calibration(path)
    except CalibrationError as e:
        raise _fail(str(e)) from None


board_app = typer.Typer(help="Board layouts: print, check, import from SVG.", no_args_is_help=True)
calibrate_app = typer.Typer(help="Camera, board pose and colour calibration.", no_args_is_help=True)


@board_app.command("print")
def board_print(
    layout: str = typer.Argument(
        ..., help="A layout TOML file, or a shipped name: dicetar-wars, dice-fighter."
    ),
    out: Path = typer.Option(..., "--out", help="Where to write: FILE.png or FILE.pdf."),
    px_per_mm: float = typer.Option(10.0, help="Resolution (10 px/mm = 254 dpi)."),
    paper: str = typer.Option(
        "full",
        "--paper",
        help="full: the board on one page of its own size; a4, a3: tiled onto sheets at true scale.",
    ),
    landscape: bool = typer.Option(False, "--landscape", help="Sheets in landscape (with --paper a4/a3)."),
) -> None:
    """Write a printable board at true scale (print at 100 %, no fit-to-page).

    Every page carries a 100 mm ruler to check the scale. With --paper a4/a3 the sheets are
    named A1, A2, .. (row letter, column number) and overlap their neighbours: cut along the
    dashed lines, lay each sheet over its neighbour and glue where the crosshairs meet.
    """
    from calibration.printing import PrintError, print_board, tile_sheets

    b = _board(layout)
    paper = paper.lower()
    try:
        files = print_board(b, out, px_per_mm, paper, landscape)
    except PrintError as e:
        raise _fail(str(e)) from None
    except OSError as e:
        raise _fail(f"{out}: cannot write: {e.strerror or e}") from None
    x0, y0, x1, y1 = b.bounds()
    note = " (an EXAMPLE layout)" if b.example else ""
    sheets = ""
    if paper != "full":
        s = tile_sheets(b, paper, landscape)
        names = f"{s.tiles[0].name}..{s.tiles[-1].name}"
        sheets = (
            f", {len(s.tiles)} {paper.upper()} {'landscape' if landscape else 'portrait'} sheets "
            f"({s.rows} rows x {s.cols} columns, {names}, overlap {s.overlap:.0f} mm)"
        )
    where = str(files[0]) if len(files) == 1 else f"{files[0]} .. {files[-1]}"
    typer.echo(
        f"{where}: board {b.name!r}{note}, {x1 - x0:.0f} x {y1 - y0:.0f} mm, {len(b.markers)} markers{sheets}"
    )
    typer.echo("print at 100 % / actual size, then check the 100 mm ruler with a rule")


@board_app.command("check")
def board_check(layout: str = typer.Argument(..., help="A layout TOML file or a shipped name.")) -> None:
    """Validate a layout and print what it holds."""
    b = _board(layout)
    typer.echo(
        f"{b.source}: OK: board {b.name!r}{' (example)' if b.example else ''}, "
        f"{len(b.zones)} zones, {len(b.fields)} fields, {len(b.card_slots)} card slots, "
        f"{len(b.markers)} markers ({b.markers_dict}), centre line: {'yes' if b.centre_line else 'no'}"
    )
    for note in b.notes:
        typer.echo(f"note: {note}", err=True)


@board_app.command("import")
def board_import(
    svg: Path = typer.Argument(
        ..., help="An SVG drawing of the board (Inkscape, Illustrator, a print shop's file)."
    ),
    out: Path = typer.Option(..., "--out", help="The layout file to write (.toml)."),
    name: str = typer.Option("", help="The board's name (default: the SVG file's name)."),
) -> None:
    """Write a layout file from an SVG: zones, markers, outline, fields, card slots, centre line.

    Zones are shapes with data-zone="NAME" data-multiplier="N" (or id zone:NAME:xN); markers are
    squares with data-marker="ID" (or id marker:ID); see calibration/svg_import.py for the rest.
    """
    from calibration.board import BoardError, parse_board
    from calibration.svg_import import SvgImportError, layout_from_svg, to_toml

    if out.suffix.lower() != ".toml":
        raise _fail(f"--out {str(out)!r}: expected a layout file name ending in .toml")
    try:
        layout = layout_from_svg(svg, name or None)
        board = parse_board(layout, str(svg))
    except (SvgImportError, BoardError) as e:
        raise _fail(str(e)) from None
    try:
        out.write_text(to_toml(layout), encoding="utf-8")
    except OSError as e:
        raise _fail(f"{out}: cannot write: {e.strerror or e}") from None
    typer.echo(
        f"{out}: board {board.name!r}, {len(board.zones)} zones, {len(board.fields)} fields, "
        f"{len(board.card_slots)} card slots, {len(board.markers)} markers ({board.markers_dict}), "
        f"centre line: {'yes' if board.centre_line else 'no'}"
    )


def _spec(squares_x: int, squares_y: int, square_mm: float, marker_mm: float, dictionary: str) -> Any:
    import cv2

    from calibration.camera import CharucoSpec

    if squares_x < 3 or squares_y < 3:
        raise _fail(f"--squares-x/--squares-y: expected at least 3 each, got {squares_x}x{squares_y}")
    if not 0 < marker_mm < square_mm:
        raise _fail(f"--marker-mm: expected 0 < marker < square ({square_mm} mm), got {marker_mm}")
    if not hasattr(cv2.aruco, dictionary):
        raise _fail(
            f"--dictionary: expected an OpenCV ArUco dictionary such as DICT_4X4_50, got {dictionary!r}"
        )
    return CharucoSpec(squares_x, squares_y, square_mm, marker_mm, dictionary)


@calibrate_app.command("charuco")
def calibrate_charuco_sheet(
    out: Path = typer.Option(..., "--out", help="FILE.png or FILE.pdf"),
    squares_x: int = 7,
    squares_y: int = 5,
    square_mm: float = 30.0,
    marker_mm: float = 22.0,
    dictionary: str = "DICT_4X4_50",
) -> None:
    """Write the ChArUco sheet to print and photograph for `calibrate camera`."""
    import cv2

    from calibration.printing import pdf_bytes, png_bytes_with_dpi

    spec = _spec(squares_x, squares_y, square_mm, marker_mm, dictionary)
    img = cv2.cvtColor(spec.image(px_per_mm=10.0), cv2.COLOR_GRAY2BGR)
    if out.suffix.lower() not in (".png", ".pdf"):
        raise _fail(f"--out {str(out)!r}: expected a file name ending in .png or .pdf")
    data = png_bytes_with_dpi(img, 10.0) if out.suffix.lower() == ".png" else pdf_bytes(img, 10.0)
    out.write_bytes(data)
    typer.echo(f"{out}: ChArUco {squares_x}x{squares_y}, squares {square_mm} mm, markers {marker_mm} mm")


@calibrate_app.command("camera")
def calibrate_camera(
    images: list[Path] = typer.Argument(
        None, help="Photos of the ChArUco sheet from varied angles (10-20); not with --nominal."
    ),
    out: Path = typer.Option(..., "--out", help="Calibration JSON to write."),
    nominal: str = typer.Option(
        "",
        "--nominal",
        help="Write the datasheet intrinsics of a camera instead: pi-camera-2, pi-camera-3, "
        "pi-camera-3-wide, pi-hq-6mm/8mm/12mm/16mm/25mm, or webcam-FOV (diagonal degrees).",
    ),
    size: str = typer.Option("1280x960", "--size", help="With --nominal: the frames' size, WIDTHxHEIGHT."),
    squares_x: int = 7,
    squares_y: int = 5,
    square_mm: float = 30.0,
    marker_mm: float = 22.0,
    dictionary: str = "DICT_4X4_50",
) -> None:
    """Camera intrinsics and lens distortion from ChArUco views (prints the reprojection error),
    or from a datasheet with --nominal for a first game."""
    from calibration.camera import CalibrationError, calibrate_charuco, save_calibration

    if nominal:
        if images:
            raise _fail("give either ChArUco photos or --nominal NAME, not both")
        _calibrate_nominal(nominal, size, out)
        return
    if not images:
        raise _fail("expected photos of the ChArUco sheet, or --nominal NAME for a datasheet calibration")
    spec = _spec(squares_x, squares_y, square_mm, marker_mm, dictionary)
    views = [(str(p), _read_image(p)) for p in images]
    try:
        res = calibrate_charuco(views, spec)
    except CalibrationError as e:
        raise _fail(str(e)) from None
    save_calibration(res.calibration, out)
    k = res.calibration.camera_matrix
    typer.echo(
        f"{out}: {res.views_used} views, reprojection error {res.calibration.reprojection_error:.3f} px; "
        f"fx {k[0, 0]:.1f} fy {k[1, 1]:.1f} cx {k[0, 2]:.1f} cy {k[1, 2]:.1f}"
    )
    for name in res.views_rejected:
        typer.echo(f"  rejected (too few corners found): {name}")


def _calibrate_nominal(name: str, size: str, out: Path) -> None:
    import re

    from calibration.camera import CalibrationError, save_calibration
    from calibration.nominal import nominal_calibration

    m = re.fullmatch(r"(\d+)x(\d+)", size.strip().lower())
    if m is None:
        raise _fail(f"--size {size!r}: expected WIDTHxHEIGHT in pixels, such as 1280x960")
    try:
        cal = nominal_calibration(name, int(m[1]), int(m[2]))
        save_calibration(cal, out)
    except CalibrationError as e:
        raise _fail(str(e)) from None
    except OSError as e:
        raise _fail(f"{out}: cannot write: {e.strerror or e}") from None
    k, (w, h) = cal.camera_matrix, cal.image_size
    typer.echo(
        f"{out}: nominal {name} at {w}x{h}: fx {k[0, 0]:.1f} fy {k[1, 1]:.1f} "
        f"cx {k[0, 2]:.1f} cy {k[1, 2]:.1f}, no distortion (a datasheet's figures: for precision, "
        "calibrate from ChArUco photos)"
    )


@calibrate_app.command("pose")
def calibrate_pose(
    frame: Path = typer.Argument(..., help="A frame of the empty board from the fixed table camera."),
    calibration: Path = typer.Option(..., "--calibration", help="Calibration JSON (updated in place)."),
    board: str = typer.Option(..., "--board", help="Layout TOML or shipped name."),
) -> None:
    """Remember the board's pose in the calibration file (to detect a moved camera or board)."""
    from calibration.camera import save_calibration
    from calibration.pose import PoseError, detect_markers, pose_from_markers

    img = _read_image(frame)
    cal = _calibration(calibration)
    b = _board(board)
    try:
        c = cal.for_image(img.shape[1], img.shape[0])
        pose = pose_from_markers(detect_markers(img, b), c, b)
    except (PoseError, ValueError) as e:
        raise _fail(f"{frame}: {e}") from None
    from dataclasses import replace

    save_calibration(replace(cal, board_pose=pose.to_json(b.name)), calibration)
    h = -pose.camera_position()[2]
    typer.echo(
        f"{calibration}: board {b.name!r} pose saved from markers {list(pose.markers_used)}, "
        f"RMS {pose.reprojection_error:.2f} px, camera {h:.0f} mm above the board"
    )


@calibrate_app.command("check")
def calibrate_check(
    frame: Path = typer.Argument(..., help="A current frame from the table camera."),
    calibration: Path = typer.Option(..., "--calibration", help="Calibration JSON with a saved pose."),
    board: str = typer.Option(..., "--board", help="Layout TOML or shipped name."),
) -> None:
    """Say whether the camera or board moved since `calibrate pose` (exit status 1 if so)."""
    from calibration.pose import BoardPose, PoseError, check_moved, detect_markers, pose_from_markers

    img = _read_image(frame)
    cal = _calibration(calibration)
    b = _board(board)
    if cal.board_pose is None or cal.board_pose.get("board") != b.name:
        raise _fail(
            f"{calibration}: no saved pose for board {b.name!r}: run `dicetable calibrate pose` first"
        )
    try:
        c = cal.for_image(img.shape[1], img.shape[0])
        current = pose_from_markers(detect_markers(img, b), c, b)
    except (PoseError, ValueError) as e:
        raise _fail(f"{frame}: {e}") from None
    result = check_moved(BoardPose.from_json(cal.board_pose), current, c, b)
    typer.echo(result.describe())
    if result.moved:
        raise typer.Exit(1)


@calibrate_app.command("colours")
def calibrate_colours(
    frame: Path = typer.Argument(..., help="A frame of one throw, under the table's light."),
    colour: list[str] = typer.Option(..., "--colour", help="A colour expected in the throw (repeat)."),
    out: Path = typer.Option(..., "--out", help="Palette JSON to write (loads as vision.Palette)."),
    empty: Path | None = typer.Option(
        None, "--empty", help="A frame of the empty board: find dice by difference instead of the reader."
    ),
) -> None:
    """Learn each named die colour from one throw and write a palette file."""
    import numpy as np

    from calibration.colours import ColourError, find_dice_by_difference, learn_palette, save_palette
    from vision.palette import Palette

    img = _read_image(frame)
    try:
        if empty is not None:
            quads = find_dice_by_difference(_read_image(empty), img)
        else:
            from vision.reader import read_dice

            quads = [np.asarray(r.quad, np.float64) for r in read_dice(img)]
        palette = learn_palette(img, quads, colour, Palette.default().lab)
    except ColourError as e:
        raise _fail(f"{frame}: {e}") from None
    save_palette(palette, out)
    for name, entry in palette.items():
        typer.echo(f"{name}: Lab {entry['lab']} from {entry['samples']} dice")
    typer.echo(f"{out}: palette of {len(palette)} colours")


@calibrate_app.command("empty")
def calibrate_empty(
    frame: Path = typer.Argument(..., help="A frame of the empty play area from the fixed table camera."),
    out: Path = typer.Option(..., "--out", help="Where to write the reference: FILE.png (lossless)."),
) -> None:
    """Keep a frame of the empty table: dice are read only where a settled frame differs from it
    (table.toml: [vision] empty_table_frame; the table learns it again from a still board with no die
    on it, kept beside it as NAME.learnt.png until the next calibration)."""
    import cv2

    from vision.reader import read_dice

    if out.suffix.lower() != ".png":
        raise _fail(f"--out {str(out)!r}: expected a file name ending in .png (lossless)")
    img = _read_image(frame)
    seen = read_dice(img)
    if seen:
        where = ", ".join(f"a {r.value} at ({r.center[0]:.0f}, {r.center[1]:.0f})" for r in seen)
        typer.echo(
            f"note: the reader sees {len(seen)} die/dice on {frame}: {where}; they count as part of the "
            "empty table (never read): take the frame again if they are dice to be thrown",
            err=True,
        )
    try:
        if not cv2.imwrite(str(out), img):
            raise OSError("the PNG encoder refused it")
    except (OSError, cv2.error) as e:
        raise _fail(f"{out}: cannot write: {e}") from None
    typer.echo(
        f"{out}: empty table, {img.shape[1]}x{img.shape[0]} px; in table.toml: "
        f'[vision] empty_table_frame = "{out}"'
    )


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main app."""
    app.add_typer(board_app, name="board")
    app.add_typer(calibrate_app, name="calibrate")


if __name__ == "__main__":  # pragma: no cover - direct use during development
    _app = typer.Typer()
    register(_app)
    _app(sys.argv[1:])
