"""`dicetable` commands of the hardware area (registered by controller.cli)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main app."""
