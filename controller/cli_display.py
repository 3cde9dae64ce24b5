"""`dicetable` commands of the display area (registered by controller.cli)."""

from __future__ import annotations

import sys
import threading

import typer


def _fail(message: str) -> typer.Exit:
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(2)


def hall(
    broker: str = typer.Option(..., help="The MQTT broker as HOST:PORT, e.g. 127.0.0.1:1883."),
    host: str = typer.Option("127.0.0.1", help="Address to serve the hall page on."),
    port: int = typer.Option(8001, help="Port to serve the hall page on."),
) -> None:
    """Serve the tournament hall page: every table's game, scores and status, live from MQTT."""
    import uvicorn

    from display.hall_app import create_hall_app
    from display.hub import Hub
    from display.mqtt import Hall, parse_broker
    from display.server import WS_IMPL

    try:
        b_host, b_port = parse_broker(broker)
    except ValueError as e:
        raise _fail(str(e)) from None
    if not 0 < port < 65536:
        raise _fail(f"--port {port} is out of range 1..65535")
    hub = Hub()
    the_hall = Hall(b_host, b_port, on_change=hub.notify)
    the_hall.start()
    print(f"hall on http://{host}:{port}/ (broker {b_host}:{b_port}, reconnecting with backoff)")
    try:
        uvicorn.run(create_hall_app(the_hall, hub), host=host, port=port, log_level="warning", ws=WS_IMPL)
    finally:
        the_hall.stop()


def serve_fake(
    game: str = typer.Option("demo-sum", help="Game to play on the fake table (demo-sum or an engine game)."),
    players: str = typer.Option("ann:red,bob:blue", help="Players as NAME:COLOUR,NAME:COLOUR."),
    table_id: str = typer.Option("table-1", "--table", help="The table's id."),
    option: list[str] = typer.Option([], help="Game option KEY=VALUE (repeatable), e.g. deck=virtual."),
    host: str = typer.Option("127.0.0.1", help="Address to serve on."),
    port: int = typer.Option(8000, help="Port to serve on."),
    admin_token: str | None = typer.Option(None, help="Admin token; without one admin is loopback-only."),
    broker: str | None = typer.Option(None, help="Also publish to this MQTT broker (HOST:PORT)."),
    every: float = typer.Option(4.0, help="Seconds between the fake camera's rolls (0: no autoplay)."),
) -> None:
    """Serve the table display over a fake table (for trying the pages without a camera)."""
    import uvicorn

    from display.app import create_app
    from display.backend import FakeTable
    from display.hub import Hub
    from display.mqtt import TablePublisher, check_table_id, parse_broker
    from display.server import WS_IMPL, autoplay, parse_players

    options: dict[str, object] = {}
    for item in option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise _fail(f"--option {item!r}: expected KEY=VALUE")
        options[key] = int(value) if value.isdigit() else value
    try:
        check_table_id(table_id)
        table = FakeTable(table_id, game, parse_players(players), options)
        b = parse_broker(broker) if broker else None
    except ValueError as e:
        raise _fail(str(e)) from None
    hub = Hub()
    table.add_listener(hub.notify)
    publisher = None
    if b is not None:
        publisher = TablePublisher(table_id, *b)
        hub.add_listener(publisher.publish)
        publisher.start()
        publisher.publish(table.snapshot())
    stop = threading.Event()
    if every > 0:
        threading.Thread(target=autoplay, args=(table, stop, every), daemon=True).start()
    print(f"fake table {table_id} ({game}) on http://{host}:{port}/  admin: http://{host}:{port}/admin")
    try:
        uvicorn.run(
            create_app(table, hub, admin_token, loopback_only_admin=False),
            host=host,
            port=port,
            log_level="warning",
            ws=WS_IMPL,
        )
    finally:
        stop.set()
        if publisher is not None:
            publisher.stop()


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main app."""
    app.command("hall")(hall)
    app.command("serve-fake")(serve_fake)
