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
    perceiver: Any,
    seq: int,
    before: dict[str, Any] | None,
    listed: bool,
    colours: dict[str, Any],
) -> dict[str, Any]:
    """One image's result line, read by the one perception step (controller.perceive).

    With ``before`` (the previous frame's result line, board geometry on), a die seen there and now
    covered by another is carried into this frame (``calibration.memory``), with ``seen_in``.  With
    ``listed`` the line also lists every candidate rejected ("rejected": centre, size, step, why)."""
    from hardware.imagefile import ImageError, read_image

    if not path.is_file():
        return {"image": str(path), "error": "no such file"}
    try:  # the size is checked from the header before a pixel is decoded
        img = read_image(path)
    except ImageError as e:
        return {"image": str(path), "error": str(e).removeprefix(f"{path}: ")}
    earlier = [{**d, "seen_in": d.get("seen_in", before["image"])} for d in before["dice"]] if before else []
    t = time.perf_counter()
    try:
        seen = perceiver.perceive(img, seq=seq, before=earlier, **colours)
    except (ValueError, cv2.error) as e:
        return {"image": str(path), "error": str(e)}
    ms = (time.perf_counter() - t) * 1000
    if seen.board_problem is not None:
        return {"image": str(path), "error": f"board geometry: {seen.board_problem}"}
    result = {"image": str(path), "dice": [d.to_json() for d in seen.dice], "ms": round(ms, 1)}
    if listed:
        result["rejected"] = [r.to_json() for r in seen.rejected]
    return result


def _table_perceiver(config: Path) -> tuple[Any, dict[str, Any], dict[str, Any] | None, dict[str, Any]]:
    """How the table of ``config`` reads a frame (controller.perceive), its game's colours at its
    first throw (`throw_colours`), which empty-table picture it reads against (`_empty_used`), and
    what the board picture says of the dice: ``owners`` (colour -> player) and ``scoring`` (its game
    scores the board's zones: DICETAR WARS)."""
    from controller.config import ConfigError, load_config
    from controller.perceive import Perceiver, TableError, player_colours, throw_colours
    from controller.scenario import Setup, new_game

    try:
        cfg = load_config(config)
        perceiver = Perceiver.from_config(cfg)
        setup = Setup.for_table(cfg)
        game = new_game(setup)
    except (ConfigError, TableError, ValueError) as e:
        raise typer.BadParameter(str(e), param_hint="--config") from None
    colours = player_colours(cfg, game.state)
    who = {"owners": {c: p for p, c in colours.items()}, "scoring": setup.game == "dicetar-wars"}
    return perceiver, throw_colours(game, colours), _empty_used(cfg, perceiver), who


def _empty_used(cfg: Any, perceiver: Any) -> dict[str, Any] | None:
    """The empty table the running table would read against now, put in ``perceiver``: the picture it
    learnt again (controller.empty_learn, saved beside the stored one or the event log) when that is
    newer than the stored one, else the stored one ([vision] empty_table_frame).  Its ``file``,
    ``source`` ("re-learnt" or "calibrate empty") and ``learnt_at`` (local time); None when the
    table has none on file (it takes its camera's first empty frame: read has no empty table)."""
    from datetime import datetime

    from controller.empty_learn import EmptyLearning

    if not cfg.vision.empty_table:
        return {"file": None, "source": "off", "learnt_at": None}
    learning = EmptyLearning.for_table(perceiver, cfg.vision, cfg.database_path(), time.time)
    status = learning.status()
    if status is None or status["learnt_at"] is None:
        return None
    re_learnt = status["source"] == "re-learnt"
    file = learning.path if re_learnt else Path(cfg.vision.empty_table_frame).expanduser()
    at = datetime.fromtimestamp(status["learnt_at"]).isoformat(timespec="seconds")
    return {"file": str(file), "source": status["source"], "learnt_at": at}


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


def _options_perceiver(
    board: Path | None,
    calibration: Path | None,
    kinds_text: str | None,
    numbered: bool,
    empty: Path | None,
    die_size: str | None,
    play_area: str | None,
    palette: Path | None,
    board_look: bool,
    tilted: bool = False,
) -> Any:
    """How plain `dicetable read` reads a frame with these options (controller.perceive): a table of
    no game, whose [vision] steps are the options given; a BadParameter names a wrong option."""
    from controller.config import VisionSection
    from controller.perceive import Perceiver, reader_for
    from vision.numbered.labels import KINDS, parse_kinds

    if numbered and kinds_text is not None:
        raise typer.BadParameter("--numbered is the old name of --kinds d6,d10,d10p,d20: give --kinds alone")
    if numbered:
        typer.echo("--numbered is deprecated: use --kinds d6,d10,d10p,d20 (read as that)", err=True)
    try:
        kinds = KINDS if numbered else parse_kinds(kinds_text or "d6")
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--kinds") from None
    geometry = _geometry(board, calibration)
    size: tuple[float, float] | None = None
    if die_size is not None:
        try:
            lo, hi = (float(v) for v in die_size.split(","))
            if not 0 < lo <= hi:
                raise ValueError("0 < LOW <= HIGH")
            size = (lo, hi)
        except ValueError as e:
            raise typer.BadParameter(f"--die-size {die_size!r}: expected LOW,HIGH pixels ({e})") from None
    area: list[tuple[float, float]] | None = None
    if play_area is not None:
        try:
            pts = [[float(v) for v in p.split(",")] for p in play_area.split()]
            if len(pts) < 3 or any(len(p) != 2 for p in pts):
                raise ValueError("3 or more points of 2 numbers")
            area = [(p[0], p[1]) for p in pts]
        except ValueError as e:
            raise typer.BadParameter(
                f"--play-area {play_area!r}: expected 'x,y x,y x,y ...' pixels ({e})"
            ) from None
    if empty is not None:
        from hardware.imagefile import ImageError, read_image

        if not empty.is_file():
            raise typer.BadParameter(f"--empty {str(empty)!r}: expected a photo of the empty table")
        try:  # its size checked from its header before a pixel is decoded
            read_image(empty)
        except ImageError as e:
            raise typer.BadParameter(f"--empty: {e} (expected a photo of the empty table)") from None
    vision = VisionSection(
        empty_table=empty is not None,
        empty_table_frame=None if empty is None else str(empty),
        die_size=size is not None,
        die_size_px=size,
        play_area=area is not None,
        play_area_px=area,
        board_look=board_look,
        stacks_by_sides=board_look,
    )
    if tilted and tuple(kinds) != ("d6",):
        raise typer.BadParameter(
            f"--tilted reads pip d6 only, not {','.join(kinds)}: give --kinds d6 or no --kinds"
        )
    reader = reader_for("", kinds, estimate_tilt=tilted)
    if geometry is None and empty is None and size is None and area is None and tuple(kinds) != ("d6",):
        # nothing tells the photo's scale: numbered dice looked for at every zoom (vision.numbered.scale)
        from vision.numbered.scale import AnyScale

        reader = AnyScale(reader)  # type: ignore[arg-type]
    return Perceiver.of(reader, vision, geometry, _load_palette(palette), kinds=kinds)


def _draw_explained(
    path: Path, result: dict[str, Any], out: Path, perceiver: Any, who: dict[str, Any]
) -> bool:
    """The board picture (controller.board_picture) of the image: each die read outlined in its colour
    with its id, colour and owner, value, zones, support and score (on a board with scoring zones), the
    board's zones outlined from the calibration, and each rejected candidate (red, the step)."""
    from controller.board_picture import die_facts, draw, geometry_zones
    from hardware.imagefile import ImageError, read_image

    try:
        img = read_image(path)
    except ImageError as e:
        raise typer.BadParameter(str(e)) from None
    geometry = perceiver.geometry
    zones = geometry_zones(geometry, img)
    multipliers = None
    if geometry is not None and who.get("scoring", True):  # a board with scoring zones (DICETAR WARS)
        multipliers = {z.name: z.multiplier for z in getattr(geometry.board, "zones", ())} or None
    dice = result.get("dice", [])
    facts = die_facts(dice, multipliers, who.get("owners"))
    picture = draw(
        img,
        facts,
        zones,
        multipliers is not None,
        result.get("rejected", []),
        f"{path.name}: {len(dice)} dice",
    )
    try:
        return bool(cv2.imwrite(str(out), picture.image))
    except cv2.error:  # e.g. a name whose ending names no image format
        return False


def _geometry(board: Path | None, calibration: Path | None) -> Any:
    """The board and calibration `--board` and `--calibration` name (their die placed by the image
    search for each top face, `fit` "image"), or None."""
    if board is None and calibration is None:
        return None
    if board is None or calibration is None:
        raise typer.BadParameter("--board and --calibration go together: give both or neither")
    from controller.perceive import BoardGeometry, TableError

    try:
        return BoardGeometry(str(board), str(calibration), fit="image")
    except TableError as e:
        raise typer.BadParameter(str(e)) from None


def _colour_names(text: str) -> tuple[str, ...]:
    """``--colours``: names the table knows (vision.palette.KNOWN_COLOURS), or a BadParameter naming them."""
    from vision.palette import Palette

    try:
        return Palette.parse_colours(text, "--colours")
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--colours") from None


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
        help="also list every candidate the reader rejected and the step that rejected it (empty table, "
        "die size, play area, board look; the d6 reader's classifier and verifier too), and draw the "
        "board picture of each image beside it, NAME.explain.png (each die's outline, "
        "id, colour and owner, value, zones, support and score; the board's zones)",
    ),
    explain_out: Path | None = typer.Option(
        None,
        "--explain-out",
        help="with one image: draw its board picture (as --explain does) to this PNG",
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
        "typical plastic colours, balanced by the board's white and black when --board is given, else by "
        "the frame's own light",
    ),
    board_look: bool = typer.Option(
        True,
        "--board-look/--no-board-look",
        help="with --board (pip d6): also read die-sized spots that differ from the board's print (a white "
        "die on the white paper, a red die on a red zone), and stand a die showing a lower die's sides one "
        "level up, as the table does ([vision] board_look, stacks_by_sides)",
    ),
    config: Path | None = typer.Option(
        None,
        "--config",
        help="read as the table of this table.toml would: its game's kinds, its learnt set of dice, board, "
        "calibration, palette, [vision] steps and empty table (the one the running table learnt again "
        "when newer than the stored empty_table_frame; --json and --explain name it); give no other "
        "reading option",
    ),
    colours_text: str | None = typer.Option(
        None,
        "--colours",
        help="the colours the dice on the table come in, separated by commas (e.g. red,blue): each die's "
        "colour is named among these and white and black (default: any of the typical plastic colours)",
    ),
    tilted: bool = typer.Option(
        False,
        "--tilted",
        help="pip d6 seen by a camera at an angle (up to 60 degrees off vertical) with no --calibration: "
        "the tilt is estimated from the dice and each die read by its top face; a die in doubt is "
        "reported below the asking threshold ([vision] estimate_tilt); about 30x slower",
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
    top-face quad, colour; with --config, exactly as that table reads a settled frame."""
    if config is not None:
        given = {
            "--board": board,
            "--calibration": calibration,
            "--kinds": kinds_text,
            "--numbered": numbered or None,
            "--empty": empty,
            "--die-size": die_size,
            "--play-area": play_area,
            "--palette": palette,
            "--no-board-look": None if board_look else True,
            "--colours": colours_text,
            "--tilted": tilted or None,
        }
        extra = [k for k, v in given.items() if v is not None]
        if extra:
            raise typer.BadParameter(
                f"--config reads as the table does, from its table.toml; {', '.join(extra)} "
                "belong in that file, not beside it"
            )
        perceiver, colours, empty_used, who = _table_perceiver(config)
        if sequence and perceiver.geometry is None:
            raise typer.BadParameter(
                f"--sequence needs a board: {config} configures no [board] layout and calibration"
            )
    else:
        perceiver = _options_perceiver(
            board, calibration, kinds_text, numbered, empty, die_size, play_area, palette, board_look, tilted
        )
        colours = {} if colours_text is None else {"colours": _colour_names(colours_text)}
        empty_used, who = None, {}
        if sequence and perceiver.geometry is None:
            raise typer.BadParameter(
                "--sequence needs --board and --calibration (dice are carried by their place)"
            )
    if explain_out is not None and len(images) != 1:
        raise typer.BadParameter(f"--explain-out draws one image, got {len(images)} images")
    listed = bool(explain or explain_out or empty or die_size or play_area)
    cv2.setNumThreads(1)
    try:
        # load the models and run them once now, so "ms" is the reading alone
        perceiver.reader.read(np.zeros((64, 64, 3), np.uint8))
    except (OSError, cv2.error) as e:
        raise typer.BadParameter(f"the vision models could not be loaded: {e}") from None
    failed = False
    before: dict[str, Any] | None = None
    if config is not None and explain and not as_json:
        typer.echo(_empty_words(empty_used))
    for n, path in enumerate(images, 1):
        result = _read_one(path, perceiver, n, before if sequence else None, listed, colours)
        if config is not None:
            result["empty_table"] = empty_used
        drawn = explain_out if explain_out is not None else _picture_path(path) if explain else None
        if drawn is not None and "dice" in result:  # the board picture beside the text
            if _draw_explained(path, result, drawn, perceiver, who):
                result["picture"] = str(drawn)
            elif explain_out is not None:
                raise typer.BadParameter(f"--explain-out {str(drawn)!r}: could not write the picture there")
            else:
                typer.echo(f"{path}: the board picture could not be written to {drawn}", err=True)
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
            if "picture" in result:
                typer.echo(f"  picture: {result['picture']}")
            for d in dice:
                x, y = d["center"]
                flag = " cocked" if d.get("cocked") else ""
                if d.get("carried"):
                    flag += f" hidden under die {d['under']}, seen in {d['seen_in']}"
                typer.echo(
                    f"  {d['id']:<6} {d['kind']:<4} {d['value']:>2} {d['colour']:<7} at ({x:.0f}, {y:.0f}) "
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


def _picture_path(image: Path) -> Path:
    """Where ``--explain`` writes an image's board picture: beside the image, ``<its name>.explain.png``."""
    return image.with_name(f"{image.stem}.explain.png")


def _empty_words(used: dict[str, Any] | None) -> str:
    """--explain's first line with --config: the empty table the frames are read against."""
    if used is None:
        return (
            "empty table: none on file (the running table takes its camera's first empty frame); "
            "read without one"
        )
    if used["source"] == "off":
        return "empty table: off ([vision] empty_table = false)"
    how = "learnt again by the running table" if used["source"] == "re-learnt" else "calibrate empty"
    return f"empty table: {used['file']} ({how}, {used['learnt_at']})"


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main app."""
    app.command("read")(read)
