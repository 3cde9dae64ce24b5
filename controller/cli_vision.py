"""`dicetable` commands of the vision area (registered by controller.cli)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import typer


def _read_one(
    path: Path, geometry: Any, numbered: bool = False, before: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One image's result line; with ``before`` (the previous frame's result line, board geometry on),
    a die seen there and now covered by another is carried into this frame (``calibration.memory``)."""

    from hardware.imagefile import ImageError, read_image
    from vision import read_dice
    from vision.numbered import read_all

    if not path.is_file():
        return {"image": str(path), "error": "no such file"}
    try:  # the size is checked from the header before a pixel is decoded
        img = read_image(path)
    except ImageError as e:
        return {"image": str(path), "error": str(e).removeprefix(f"{path}: ")}
    nadir = None
    if numbered and geometry is not None:  # the top faces of numbered dice lean away from it
        from controller.table import frame_nadir

        nadir = frame_nadir(img, geometry[1], geometry[2])
    t = time.perf_counter()
    try:
        dice = read_all(img, nadir=nadir) if numbered else read_dice(img)
    except ValueError as e:
        return {"image": str(path), "error": str(e)}
    ms = (time.perf_counter() - t) * 1000
    out = [d.to_json() for d in dice]
    if geometry is not None and dice:
        from calibration.memory import carry_covered, known_dice

        place, calibration, board = geometry
        carried = carry_covered((before or {}).get("dice", []), out)
        try:
            # the reader's quads are outlines of each die as seen (sides too): fit the top faces
            placed = place(
                [d.quad for d in dice],
                [d.kind for d in dice],
                calibration,
                board,
                image=img,
                outline=True,
                known=known_dice(carried),
            )
        except ValueError as e:
            return {"image": str(path), "error": f"board geometry: {e}"}
        out += [{**d, "seen_in": d.get("seen_in", (before or {}).get("image"))} for d, _ in carried]
        for entry, g in zip(out, placed, strict=True):
            entry.update(g.to_json())
    return {"image": str(path), "dice": out, "ms": round(ms, 1)}


def _geometry(board: Path | None, calibration: Path | None) -> Any:
    if board is None and calibration is None:
        return None
    if board is None or calibration is None:
        raise typer.BadParameter("--board and --calibration go together: give both or neither")
    try:
        from calibration.board import load_board
        from calibration.camera import load_calibration
        from calibration.geometry import place
    except ImportError as e:  # pragma: no cover - only before the calibration package exists
        raise typer.BadParameter(f"board geometry is not available in this install: {e}") from None
    try:
        return place, load_calibration(calibration), load_board(board)
    except (OSError, ValueError) as e:
        raise typer.BadParameter(str(e)) from None


def read(
    images: list[Path] = typer.Argument(..., help="photos or frames to read"),
    as_json: bool = typer.Option(False, "--json", help="one JSON line per image"),
    board: Path | None = typer.Option(None, "--board", help="board layout TOML (with --calibration)"),
    calibration: Path | None = typer.Option(
        None, "--calibration", help="camera calibration file (with --board)"
    ),
    numbered: bool = typer.Option(
        False,
        "--numbered",
        help="also read d10, percentile d10 (d10p) and d20 dice; every die gets its kind. For tables "
        "that use numbered dice: on real pip-d6-only photos it reads about 1 % fewer d6 right than without",
    ),
    sequence: bool = typer.Option(
        False,
        "--sequence",
        help="with --board: the images are frames of one table in order (the camera fixed); a die seen "
        "in one frame and covered by a die in the next is carried over ('hidden', 'carried', 'under', "
        "'seen_in'), as the table does",
    ),
) -> None:
    """Read every pip d6 in each image (with --numbered every d6, d10, d10p and d20): kind, value,
    centre, top-face quad, colour."""
    import cv2
    import numpy as np

    from vision.numbered.reader import default_reader as numbered_reader
    from vision.reader import default_reader

    cv2.setNumThreads(1)
    geometry = _geometry(board, calibration)
    if sequence and geometry is None:
        raise typer.BadParameter(
            "--sequence needs --board and --calibration (dice are carried by their place)"
        )
    try:
        # load the models and run them once now, so "ms" is the reading alone
        blank = np.zeros((64, 64, 3), np.uint8)
        default_reader().read(blank)
        if numbered:
            numbered_reader().read(blank)
    except (OSError, cv2.error) as e:
        raise typer.BadParameter(f"the vision models could not be loaded: {e}") from None
    failed = False
    before: dict[str, Any] | None = None
    for path in images:
        result = _read_one(path, geometry, numbered, before if sequence else None)
        if "dice" in result:
            before = result
        failed |= "error" in result
        if as_json:
            typer.echo(json.dumps(result))
        elif "error" in result:
            typer.echo(f"{path}: error: {result['error']}", err=True)
        else:
            dice = result["dice"]
            values = " ".join(
                str(d["value"]) if d["kind"] == "d6" else f"{d['kind']}:{d['value']}" for d in dice
            )
            total = sum(d["value"] for d in dice)
            typer.echo(f"{path}: {len(dice)} dice, total {total}: {values} ({result['ms']} ms)")
            for d in dice:
                x, y = d["center"]
                flag = " cocked" if d.get("cocked") else ""
                if d.get("carried"):
                    flag += f" hidden under die {d['under'] + 1}, seen in {d['seen_in']}"
                typer.echo(
                    f"  {d['kind']:<4} {d['value']:>2} {d['colour']:<7} at ({x:.0f}, {y:.0f}) "
                    f"conf {d['confidence']:.2f}{flag}"
                )
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main app."""
    app.command("read")(read)
