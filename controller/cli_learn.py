"""`dicetable learn-dice`: learn a set of the table's own dice (registered by controller.cli).

dicetable learn-dice see FRAME... --set NAME --kind d20 --colour red --session DIR
        [--config table.toml] [--empty EMPTY.png]
        look at the set's dice showing their faces, as the table reads a frame (its where-steps; only
        what differs from the empty table); write DIR/confirm.csv, DIR/groups.png
dicetable learn-dice confirm DIR [--labels FILE] [--config table.toml [--owner NAME] [--colour NAME]
        | --out SET.json] [--allow-missing]
        the person's faces for each group; store the set where the table reads it (a set lacking
        faces, or of a kind the table's game does not use, is refused): with --config the die is an
        entry of the table's roster (its faces and the looks of its crops, `learn_dice.rostered`),
        read against it as a die taught on /learn is, and the set is also saved where [table]
        dice_set points, when it does
dicetable learn-dice colour PHOTO... --config table.toml (--die ID | --owner NAME --colour NAME [--kind d6])
        a die's look (its body colour) learnt from photos of it alone, into the table's roster
        (controller.learn_looks)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from controller.config import TableConfig

learn_app = typer.Typer(
    help="Learn a set of the table's own dice: see their faces, confirm them.", no_args_is_help=True
)


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


@learn_app.command("see")
def see_cmd(
    frames: list[Path] = typer.Argument(..., help="Frames of the set's dice, each face shown at least once."),
    name: str = typer.Option(..., "--set", help="The set's name (say red-d20), as readings will name it."),
    kind: str = typer.Option(..., "--kind", help="d6, d10, d10p or d20."),
    colour: str = typer.Option("", "--colour", help="The dice's colour, for the person (not used to read)."),
    session: Path = typer.Option(Path("learn-session"), "--session", help="Folder for the session's files."),
    config: Path | None = typer.Option(
        None,
        "--config",
        help="The table's table.toml: read the frames as the table does (its board, [vision] steps, "
        "empty-table frame, die size); the set's kind must be one its game uses.",
    ),
    empty: Path | None = typer.Option(
        None,
        "--empty",
        help="A frame of the empty table from the same camera: only what differs from it is a die.",
    ),
) -> None:
    """Find the dice in the frames, group the faces seen, and write the sheet to confirm."""
    from controller.learn_dice import PICTURE, SHEET, LearnError, see
    from vision.numbered.reader import default_reader

    cfg = _config(config) if config is not None else None
    try:
        seen = see(frames, name, kind, colour, session, default_reader(), cfg, empty)
    except LearnError as e:
        raise _fail(str(e)) from None
    groups = max(s.group for s in seen) + 1
    found = {s.frame for s in seen}
    for f in frames:  # say which frame showed no die (issue 44 item 2)
        if str(f) not in found:
            typer.echo(f"{f}: no die found (not even the detector's strongest peak); nothing learnt from it")
    if cfg is not None and cfg.vision.camera_tilt_deg is not None:  # the lens the dice tell (issue 44)
        from controller.learn_dice import lens_said

        typer.echo(lens_said(session, cfg))
    from controller.learn_view import session_view

    learnt = session_view(session)  # the camera's view the teaching rolls told ([vision] learn_camera_view)
    if learnt is not None:
        typer.echo(learnt.said())
    typer.echo(
        f"{len(seen)} dice seen in {len(frames)} frames, {groups} groups: look at {session / PICTURE}, "
        f"fill in the face column of {session / SHEET} (- for not one of the set), then run "
        f"'dicetable learn-dice confirm {session}'"
    )


@learn_app.command("confirm")
def confirm_cmd(
    session: Path = typer.Argument(..., help="The folder 'learn-dice see' wrote."),
    labels: Path | None = typer.Option(
        None, "--labels", help="The filled-in sheet (default SESSION/confirm.csv)."
    ),
    config: Path | None = typer.Option(
        None,
        "--config",
        help="The table's table.toml: the die is added to its roster (read against it, as a die taught "
        "on /learn) and the set saved where its [table] dice_set points, when it has one.",
    ),
    out: Path | None = typer.Option(None, "--out", help="Save the set here instead (no roster entry)."),
    owner: str = typer.Option(
        "table", "--owner", help="With --config: the die's owner in the roster (the player's name)."
    ),
    colour: str = typer.Option(
        "",
        "--colour",
        help="With --config: the die's colour in the roster (default: the session's --colour, else the "
        "colour the table named most often on the confirmed crops).",
    ),
    allow_missing: bool = typer.Option(
        False,
        "--allow-missing",
        help="Store a set that lacks faces of its kind (the referee's answers add them as the table plays).",
    ),
) -> None:
    """Make the set from the confirmed faces and store it for the table: with --config, the die joins
    the table's roster (its faces and the look of its crops; read against the roster as a die taught
    on /learn is) and the set is saved where [table] dice_set points, when it does."""
    from controller.learn_dice import LearnError, confirm, game_kinds_of, rostered

    if (config is None) == (out is None):
        raise _fail("expected one of --config table.toml (the table's roster and set) or --out FILE")
    if out is not None and (owner != "table" or colour):
        raise _fail("--owner and --colour name the die in the table's roster: expected them with --config")
    cfg = _config(config) if config is not None else None
    try:
        dice = confirm(session, labels, game_kinds_of(cfg) if cfg is not None else None, allow_missing)
        die, not_die = rostered(cfg, session, dice, labels, owner, colour) if cfg is not None else (None, 0)
    except LearnError as e:
        raise _fail(str(e)) from None
    if cfg is not None:  # the camera's view the session learnt, kept for `read --config` (issue 44)
        from controller.learn_view import keep

        kept = keep(cfg, session)
        if kept is not None:
            typer.echo(kept)
    said = f"set {dice.name!r} ({dice.kind}, faces {', '.join(map(str, dice.faces))})"
    if cfg is not None:
        assert die is not None
        out = cfg.dice_set_path
        looks = (die.look or {}).get("seen", 0)
        typer.echo(
            f"{said}: {die.name} ({die.id}) in the roster {cfg.roster_path} ({len(dice.values)} crops, "
            f"{looks} looks); the table reads against it from its next start"
            + (
                f"; {not_die} crops named not the die kept at their places (the table leaves out what "
                f"lies there and looks like them)"
                if not_die
                else ""
            )
        )
    if out is not None:
        dice.save(out)
        typer.echo(f"{said} saved to {out}")


def _config(path: Path) -> TableConfig:
    from controller.config import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as e:
        raise _fail(str(e)) from None


def register(app: typer.Typer) -> None:
    app.add_typer(learn_app, name="learn-dice")


@learn_app.command("colour")
def colour_cmd(
    photos: list[Path] = typer.Argument(..., help="Photos of the die alone on the table, 3 or more rolls."),
    config: Path = typer.Option(..., "--config", help="The table's table.toml (its roster, board, reader)."),
    die: str = typer.Option("", "--die", help="The die's id in the table's roster (see the admin page)."),
    owner: str = typer.Option("", "--owner", help="A new die: its owner (the player's name)."),
    colour: str = typer.Option("", "--colour", help="A new die: its colour, as the game names it."),
    kind: str = typer.Option("d6", "--kind", help="A new die: d6, d10, d10p or d20."),
) -> None:
    """Learn a die's colour from photos of it alone: the table then names its dice's colours (their
    owners) by the learnt looks, once every colour of its roster has one."""
    from controller.learn_looks import learn_colour
    from controller.roster import Die, RosterError, new_die

    if bool(die) == bool(owner or colour):
        raise _fail("expected --die ID (a die of the roster) or --owner and --colour (a new die), not both")
    cfg = _config(config)
    try:
        target: str | Die = die or new_die(kind, owner, colour)
        got = learn_colour(cfg, target, photos)
    except RosterError as e:
        raise _fail(str(e)) from None
    look = got.look or {}
    typer.echo(
        f"{got.name} ({got.id}): look learnt from {len(photos)} photo(s), {look.get('seen')} sightings, "
        f"Lab {look.get('lab')} (spread {look.get('spread')}), saved to {cfg.roster_path}"
    )
    from controller.learn_looks import close_notes

    for note in close_notes(cfg, got):
        typer.echo(note)
