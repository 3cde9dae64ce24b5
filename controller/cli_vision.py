"""`dicetable` commands of the vision area (registered by controller.cli)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import typer


def _read_one(
    path: Path,
    geometry: Any,
    kinds: tuple[str, ...] = ("d6",),
    before: dict[str, Any] | None = None,
    where: list[Any] | None = None,
    palette: Any = None,
    board_look: bool = True,
) -> dict[str, Any]:
    """One image's result line.

    ``palette`` names the colours: a learnt ``vision.Palette``, or None (with board geometry, the
    default colours balanced by the board's white and black in this frame).  With ``before`` (the
    previous frame's result line, board geometry on), a die seen there and now covered by another is
    carried into this frame (``calibration.memory``).  With ``where`` (a list of vision.where steps,
    maybe empty; d6 only) the line also lists every candidate rejected ("rejected": centre, size,
    step, why).  With board geometry and ``board_look`` (pip d6), a die-sized spot that differs from
    the board's print is read too and a die showing a lower die's sides is placed one level up, as the
    table does (vision.where.BoardLook, calibration.raised)."""

    from hardware.imagefile import ImageError, read_image
    from vision import read_dice
    from vision.numbered import read_all

    if not path.is_file():
        return {"image": str(path), "error": "no such file"}
    try:  # the size is checked from the header before a pixel is decoded
        img = read_image(path)
    except ImageError as e:
        return {"image": str(path), "error": str(e).removeprefix(f"{path}: ")}
    numbered = kinds != ("d6",)  # pip d6 alone: the pip reader alone
    nadir = None
    if numbered and geometry is not None:  # the top faces of numbered dice lean away from it
        from controller.table import frame_nadir

        nadir = frame_nadir(img, geometry[1], geometry[2])
    if palette is None and geometry is not None:
        palette = _board_palette(img, geometry)
    # with board geometry, pip d6 seen obliquely are read by their top face (vision.oblique)
    view = _board_view(img, geometry) if geometry is not None and not numbered else None
    t = time.perf_counter()
    rejected = None
    look = _board_look(img, geometry) if board_look and geometry is not None and not numbered else None
    try:
        if (where is not None or look is not None) and not numbered:
            from vision.reader import default_reader

            seen = default_reader().examine(
                img, palette, where=[*(where or []), *([look] if look else [])], view=view
            )
            dice = list(seen.readings)
            if where is not None:
                rejected = [r.to_json() for r in seen.rejected]
        else:
            dice = (
                read_all(img, palette, nadir=nadir, kinds=kinds)
                if numbered
                else read_dice(img, palette, view=view)
            )
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
                lying=look.lying(img) if look is not None else None,
            )
        except ValueError as e:
            return {"image": str(path), "error": f"board geometry: {e}"}
        out += [{**d, "seen_in": d.get("seen_in", (before or {}).get("image"))} for d, _ in carried]
        for entry, g in zip(out, placed, strict=True):
            entry.update(g.to_json())
    result = {"image": str(path), "dice": out, "ms": round(ms, 1)}
    if rejected is not None:
        result["rejected"] = rejected
    return result


def _board_look(img: Any, geometry: Any) -> Any:
    """The board's print as this frame should show it (vision.where.BoardLook), or None when the
    board's pose cannot be solved in it."""
    from calibration.boardlook import board_in_frame
    from calibration.diceset import DiceSet
    from calibration.pose import estimate_board_pose
    from vision.where import BoardLook, DieSize

    _, calibration, board = geometry
    h, w = img.shape[:2]
    try:
        pose = estimate_board_pose(img, calibration, board)
        view, valid = board_in_frame(board, pose, calibration, w, h)
    except ValueError:
        return None
    cal = calibration.for_image(w, h)
    size = float(np.median(DiceSet.of(None, board.die_size_mm).sizes_mm))
    expected = DieSize.from_board(size, cal.camera_matrix, cal.dist_coeffs, pose.rvec, pose.tvec).expected
    return BoardLook(view, valid, expected)


def _board_view(img: Any, geometry: Any) -> Any:
    """Where the camera looks from in this frame (vision.oblique.View) from the board's pose; None
    when the pose cannot be solved (the dice are then read by their boxes)."""
    from calibration.pose import estimate_board_pose
    from vision.oblique import View

    _, calibration, board = geometry
    h, w = img.shape[:2]
    try:
        pose = estimate_board_pose(img, calibration, board)
        return View.from_pose(pose.rvec, calibration.for_image(w, h).camera_matrix)
    except ValueError:
        return None


def _board_palette(img: Any, geometry: Any) -> Any:
    """The default colours balanced by the board's paper white and markers' black in this frame
    (``calibration.boardlight``); None (the colours as the camera sees them) when they cannot be read."""
    from calibration.boardlight import board_light
    from calibration.pose import estimate_board_pose
    from vision.palette import Palette

    _, calibration, board = geometry
    try:
        light = board_light(img, estimate_board_pose(img, calibration, board), calibration, board)
    except ValueError:
        return None
    return Palette.default().balanced(light.white_bgr, light.black_bgr)


def _load_palette(path: Path | None) -> Any:
    """A learnt palette file (`dicetable calibrate colours ... --out`), or a BadParameter naming it."""
    if path is None:
        return None
    from vision.palette import Palette

    try:
        return Palette.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValueError) as e:
        raise typer.BadParameter(
            f"--palette {str(path)!r}: expected a palette JSON file from 'dicetable calibrate colours' ({e})"
        ) from None


def _where_steps(empty: Path | None, die_size: str | None, play_area: str | None) -> list[Any]:
    """The vision.where steps the options ask for, or a BadParameter naming the option."""
    from vision.where import DieSize, EmptyTable, PlayArea

    steps: list[Any] = []
    if play_area is not None:
        try:
            pts = [[float(v) for v in p.split(",")] for p in play_area.split()]
            steps.append(PlayArea(np.array(pts)))
        except ValueError as e:
            raise typer.BadParameter(
                f"--play-area {play_area!r}: expected 'x,y x,y x,y ...' pixels ({e})"
            ) from None
    if die_size is not None:
        try:
            lo, hi = (float(v) for v in die_size.split(","))
            steps.append(DieSize.fixed(lo, hi))
        except ValueError as e:
            raise typer.BadParameter(f"--die-size {die_size!r}: expected LOW,HIGH pixels ({e})") from None
    if empty is not None:
        ref = cv2.imread(str(empty), cv2.IMREAD_COLOR) if empty.is_file() else None
        if ref is None:
            raise typer.BadParameter(f"--empty {str(empty)!r}: expected a photo of the empty table")
        steps.append(EmptyTable(ref))
    return steps


#: drawing colours (BGR): a die read, and a candidate rejected
KEPT, REJECTED = (60, 200, 60), (40, 40, 230)


def _draw_explained(path: Path, result: dict[str, Any], out: Path) -> None:
    """The image with each die read (green, its value) and each rejected candidate (red, the step)."""
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise typer.BadParameter(f"{path}: not a readable image")
    thick = max(1, round(max(img.shape[:2]) / 640))
    for d in result.get("dice", []):
        q = np.array(d["quad"], np.int32)
        cv2.polylines(img, [q], True, KEPT, thick)
        x, y = q.min(0)
        cv2.putText(
            img, f"{d['value']} {d['confidence']:.2f}", (int(x), int(y) - 3), 0, 0.5 * thick, KEPT, thick
        )
    for r in result.get("rejected", []):
        (cx, cy), (w, h) = r["center"], r["size"]
        p0, p1 = (round(cx - w / 2), round(cy - h / 2)), (round(cx + w / 2), round(cy + h / 2))
        cv2.rectangle(img, p0, p1, REJECTED, thick)
        cv2.putText(img, r["step"], (p0[0], p1[1] + 12 * thick), 0, 0.45 * thick, REJECTED, thick)
    if not cv2.imwrite(str(out), img):
        raise typer.BadParameter(f"--explain-out {str(out)!r}: could not write the picture there")


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
    kinds_text: str | None = typer.Option(
        None,
        "--kinds",
        help="the kinds of dice to read, any of d6,d10,d10p,d20 separated by commas (default d6: pip "
        "dice only); the table never looks for kinds its game does not use. With numbered kinds every "
        "die gets its kind; on real pip-d6-only photos d6,d10,d10p,d20 reads about 1 % fewer d6 right "
        "than d6 alone",
    ),
    numbered: bool = typer.Option(
        False,
        "--numbered",
        hidden=True,
        help="deprecated: the same as --kinds d6,d10,d10p,d20",
    ),
    explain: bool = typer.Option(
        False,
        "--explain",
        help="also list every candidate the d6 reader rejected and the step that rejected it (empty table, "
        "die size, play area, classifier, verifier)",
    ),
    explain_out: Path | None = typer.Option(
        None,
        "--explain-out",
        help="with one image: draw the dice read and the candidates rejected to this PNG",
    ),
    empty: Path | None = typer.Option(
        None,
        "--empty",
        help="a photo of the empty table from the same camera: dice only where the frame differs",
    ),
    die_size: str | None = typer.Option(
        None, "--die-size", help="LOW,HIGH: a die's size in pixels; boxes far outside it are not dice"
    ),
    play_area: str | None = typer.Option(
        None, "--play-area", help="'x,y x,y x,y ...': the polygon (pixels) dice are looked for in"
    ),
    palette: Path | None = typer.Option(
        None,
        "--palette",
        help="a palette learnt at this table ('dicetable calibrate colours ... --out FILE'); default: "
        "typical plastic colours, balanced by the board's white and black when --board is given",
    ),
    board_look: bool = typer.Option(
        True,
        "--board-look/--no-board-look",
        help="with --board (pip d6): also read die-sized spots that differ from the board's print (a white "
        "die on the white paper, a red die on a red zone), and stand a die showing a lower die's sides one "
        "level up, as the table does ([vision] board_look, stacks_by_sides)",
    ),
    sequence: bool = typer.Option(
        False,
        "--sequence",
        help="with --board: the images are frames of one table in order (the camera fixed); a die seen "
        "in one frame and covered by a die in the next is carried over ('hidden', 'carried', 'under', "
        "'seen_in'), as the table does",
    ),
) -> None:
    """Read every die of the given kinds in each image (default: pip d6): kind, value, centre,
    top-face quad, colour."""
    import cv2
    import numpy as np

    from vision.numbered.labels import KINDS, parse_kinds
    from vision.numbered.reader import default_reader as numbered_reader
    from vision.reader import default_reader

    if numbered and kinds_text is not None:
        raise typer.BadParameter("--numbered is the old name of --kinds d6,d10,d10p,d20: give --kinds alone")
    if numbered:
        typer.echo("--numbered is deprecated: use --kinds d6,d10,d10p,d20 (read as that)", err=True)
    try:
        kinds = KINDS if numbered else parse_kinds(kinds_text or "d6")
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--kinds") from None
    cv2.setNumThreads(1)
    geometry = _geometry(board, calibration)
    learnt = _load_palette(palette)
    if explain_out is not None and len(images) != 1:
        raise typer.BadParameter(f"--explain-out draws one image, got {len(images)} images")
    where = _where_steps(empty, die_size, play_area)
    if (where or explain or explain_out) and kinds != ("d6",):
        raise typer.BadParameter(
            f"--explain, --empty, --die-size and --play-area read pip d6 only, not --kinds {','.join(kinds)}"
        )
    if sequence and geometry is None:
        raise typer.BadParameter(
            "--sequence needs --board and --calibration (dice are carried by their place)"
        )
    try:
        # load the models and run them once now, so "ms" is the reading alone
        blank = np.zeros((64, 64, 3), np.uint8)
        default_reader().read(blank)
        if kinds != ("d6",):
            numbered_reader().read(blank)
    except (OSError, cv2.error) as e:
        raise typer.BadParameter(f"the vision models could not be loaded: {e}") from None
    failed = False
    before: dict[str, Any] | None = None
    for path in images:
        ask = where if (where or explain or explain_out) else None
        result = _read_one(path, geometry, kinds, before if sequence else None, ask, learnt, board_look)
        if explain_out is not None and "dice" in result:
            _draw_explained(path, result, explain_out)
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
            for r in result.get("rejected", []):
                (x, y), (w, h) = r["center"], r["size"]
                read = f", would read {r['value']} at {r['confidence']:.2f}" if "value" in r else ""
                typer.echo(
                    f"  rejected at ({x:.0f}, {y:.0f}) {w:.0f}x{h:.0f} px by {r['step']}: {r['why']}{read}"
                )
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main app."""
    app.command("read")(read)
