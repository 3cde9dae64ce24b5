"""`dicetable install-service`: a systemd unit for a table (registered by controller.cli)."""

from __future__ import annotations

from pathlib import Path

import typer


def install_service_cmd(
    config: Path = typer.Option(..., "--config", help="The table.toml the service runs."),
    out: Path | None = typer.Option(
        None,
        "--out",
        help="Where to write the unit (default: /etc/systemd/system/dicetable-ID.service as root, "
        "else ./dicetable-ID.service).",
    ),
    user: str | None = typer.Option(None, help="The user the table runs as (default: who called sudo)."),
) -> None:
    """Write a systemd unit that starts the table at boot and restarts it when it fails."""
    import os

    from controller.cli_errors import err, fail
    from controller.service import service_account, unit_name, unit_text
    from controller.setup_check import check_table

    config = config.expanduser().resolve()
    try:
        account = service_account(user)
    except ValueError as e:
        raise fail(str(e)) from None
    # checked as the table will run: its user's home and data dir (a learnt dice set, the event log,
    # a '~' in a path), not root's under sudo
    os.environ["HOME"] = str(account.home)
    os.environ["DICETABLE_DATA_DIR"] = str(account.data_dir)
    check = check_table(config)  # what check-config and run check, the same function
    if check.problems:
        raise fail(
            f"{check.error()}\nno service written: fix the config first ('dicetable check-config {config}')"
        ) from None
    cfg = check.cfg
    assert cfg is not None
    for key, msg in check.notes:
        err.print(f"note: {key}: {msg}", markup=False, highlight=False, soft_wrap=True)
    name = unit_name(cfg.table.id)
    if out is None:
        out = Path("/etc/systemd/system" if os.geteuid() == 0 else ".") / name
    text = unit_text(
        config,
        table_id=cfg.table.id,
        game=cfg.table.game,
        data_dir=account.data_dir,
        user=account.name,
        home=account.home,
    )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
    except OSError as e:
        raise fail(
            f"{out}: cannot write the unit ({e.strerror}); choose another --out or run with sudo"
        ) from None
    typer.echo(f"wrote {out}: runs as {account.name} (HOME {account.home}, data in {account.data_dir})")
    installed = out.parent == Path("/etc/systemd/system")
    steps = [] if installed else [f"sudo cp {out} /etc/systemd/system/{name}"]
    steps += [
        "sudo systemctl daemon-reload",
        f"sudo systemctl enable --now {name}",
        f"journalctl -u {name} -f",
    ]
    typer.echo("next:\n" + "\n".join(f"  {s}" for s in steps))


def register(app: typer.Typer) -> None:
    app.command("install-service")(install_service_cmd)
