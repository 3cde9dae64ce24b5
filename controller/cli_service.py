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

    from controller.cli_errors import fail
    from controller.config import ConfigError, data_dir, load_config
    from controller.service import service_user, unit_name, unit_text
    from controller.setup_check import table_problems

    config = config.expanduser().resolve()
    try:
        cfg = load_config(config)
        problems = table_problems(cfg)
        if problems:
            raise ConfigError(str(config), problems)
    except ConfigError as e:
        raise fail(
            f"{e}\nno service written: fix the config first ('dicetable check-config {config}')"
        ) from None
    name = unit_name(cfg.table.id)
    if out is None:
        out = Path("/etc/systemd/system" if os.geteuid() == 0 else ".") / name
    text = unit_text(
        config, table_id=cfg.table.id, game=cfg.table.game, data_dir=data_dir(), user=user or service_user()
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
    typer.echo(f"wrote {out}")
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
