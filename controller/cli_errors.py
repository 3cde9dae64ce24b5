"""How the command line says a user's input is wrong: one paragraph on stderr and a non-zero exit.

Its own module (below ``controller.cli`` and every area of commands) so that an area that reports
with it does not import the module that imports the areas.
"""

from __future__ import annotations

import typer
from rich.console import Console

err = Console(stderr=True)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a clear error to stderr and return the Exit to raise."""
    from rich.markup import escape

    # escaped: a message names config sections ("[camera]") that rich would take for markup
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)
