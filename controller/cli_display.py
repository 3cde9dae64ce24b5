"""`dicetable` commands of the display area (registered by controller.cli)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from controller.config import TableConfig
    from display.broker import BrokerLink


#: the help of every server command's --allow-host
ALLOW_HOST_HELP = (
    "Another name the page is reached by (repeatable); a request naming any other host is refused "
    "(DNS rebinding). This machine's names and IP addresses are always taken."
)


def _fail(message: str) -> typer.Exit:
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(2)


def hall(
    broker: str | None = typer.Option(None, help="The MQTT broker as HOST:PORT, anonymous, no TLS."),
    mqtt: Path | None = typer.Option(
        None, "--mqtt", help="A TOML file whose [mqtt] section says how the hall connects (user, TLS)."
    ),
    host: str = typer.Option("127.0.0.1", help="Address to serve the hall page on."),
    port: int = typer.Option(8001, help="Port to serve the hall page on."),
    allow_host: list[str] = typer.Option([], help=ALLOW_HOST_HELP),
) -> None:
    """Serve the tournament hall page: every table's game, scores and status, live from MQTT."""
    from display.guard import host_names
    from display.hall_app import create_hall_app, wake_hub
    from display.hub import Hub
    from display.mqtt import Hall
    from display.server import serve

    try:
        link = hall_link(broker, mqtt)
    except ValueError as e:
        raise _fail(str(e)) from None
    if not 0 < port < 65536:
        raise _fail(f"--port {port} is out of range 1..65535")
    hub = Hub()
    the_hall = Hall(link=link, on_update=wake_hub(hub))
    the_hall.start()
    print(f"hall on http://{host}:{port}/ (broker {link.describe()}, reconnecting with backoff)")
    try:
        serve(create_hall_app(the_hall, hub, allowed_hosts=host_names(host, allow_host)), host, port)
    finally:
        the_hall.stop()


def hall_link(broker: str | None, mqtt_file: Path | None) -> BrokerLink:
    """The hall's connection from exactly one of --broker and --mqtt (ValueError naming the flag)."""
    from controller.mqtt_settings import load_mqtt_file
    from display.broker import BrokerLink
    from display.mqtt import parse_broker

    if (broker is None) == (mqtt_file is None):
        raise ValueError("give the broker as --broker HOST:PORT or --mqtt FILE (one of them)")
    if broker is not None:
        b_host, b_port = parse_broker(broker)
        return BrokerLink(b_host, b_port)
    assert mqtt_file is not None
    return load_mqtt_file(mqtt_file).link("dicetable-hall")


def fake_config(game: str, players: str, options: list[str], table_id: str) -> TableConfig:
    """The TableConfig of a serve-fake table (raises ValueError naming the bad flag)."""
    from controller.config import parse_config
    from display.mqtt import check_table_id
    from display.server import parse_players

    opts: dict[str, object] = {}
    for item in options:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--option {item!r}: expected KEY=VALUE")
        opts[key] = int(value) if value.isdigit() else value
    check_table_id(table_id)
    raw = {
        "table": {"id": table_id, "game": game, "options": opts},
        "players": [{"name": n, "colour": c} for n, c in parse_players(players)],
    }
    return parse_config(raw, "serve-fake")  # a ConfigError is a ValueError


def serve_fake(
    game: str = typer.Option("dice-hunter", help="Game to play on the table (one of the engine's games)."),
    players: str = typer.Option("ann:red,bob:blue,cid:green", help="Players as NAME:COLOUR,NAME:COLOUR."),
    table_id: str = typer.Option("table-1", "--table", help="The table's id."),
    option: list[str] = typer.Option([], help="Game option KEY=VALUE (repeatable), e.g. deck=virtual."),
    host: str = typer.Option("127.0.0.1", help="Address to serve on."),
    port: int = typer.Option(8000, help="Port to serve on."),
    admin_token: str | None = typer.Option(None, help="Admin token; without one admin is loopback-only."),
    broker: str | None = typer.Option(None, help="Also publish to this MQTT broker (HOST:PORT)."),
    every: float = typer.Option(4.0, help="Seconds between the drawn camera's throws (0: no autoplay)."),
    allow_host: list[str] = typer.Option([], help=ALLOW_HOST_HELP),
) -> None:
    """Serve the table display over a real table whose camera is simulated (for trying the pages).

    The table, its event log (in a temporary folder, deleted on exit), its questions and corrections
    are the real ones; the camera draws random throws (controller.drawn_camera).
    """
    import tempfile
    from pathlib import Path

    from controller.drawn_camera import DrawnCamera, autoplay, where_to_act
    from controller.eventlog import EventLog
    from controller.live import display_board
    from controller.table import Table
    from display.app import create_app
    from display.guard import host_names
    from display.hub import Hub
    from display.mqtt import TablePublisher, parse_broker
    from display.server import serve

    try:
        cfg = fake_config(game, players, option, table_id)
        b = parse_broker(broker) if broker else None
    except ValueError as e:
        raise _fail(str(e)) from None
    camera = DrawnCamera()
    with tempfile.TemporaryDirectory(prefix="dicetable-serve-fake-") as folder:
        events = EventLog(Path(folder) / "events.sqlite3")
        try:  # the game itself judges its players and options (a RuleError is a ValueError)
            table = Table(cfg, events, reader=camera.read, resume=False)
        except ValueError as e:
            events.close()
            raise _fail(f"{e} (check --game, --players and --option)") from None
        hub = Hub()
        table.listeners.append(hub.notify)
        publisher = None
        if b is not None:
            publisher = TablePublisher(table_id, *b)
            hub.add_listener(publisher.publish)
            publisher.start()
            publisher.publish(table.snapshot())
        stop = threading.Event()
        player = threading.Thread(target=autoplay, args=(table, camera, stop, every), daemon=True)
        if every > 0:
            player.start()
        url = f"http://{host}:{port}"
        print(f"table {table_id}: {game}, drawn camera", flush=True)
        print(f"  table page: {url}/\n  admin page: {url}/admin", flush=True)
        said = [""]

        def say_where(snap: dict[str, object]) -> None:  # each time the table waits for something new
            line = where_to_act(snap, url, every)
            if line != said[0]:
                said[0] = line
                print(line, flush=True)

        say_where(table.snapshot())
        table.listeners.append(say_where)
        try:
            app = create_app(
                table,
                hub,
                admin_token,
                loopback_only_admin=False,
                board=display_board(table),  # none configured: the game's shipped example
                allowed_hosts=host_names(host, allow_host),
            )
            serve(app, host, port)
        finally:
            stop.set()
            if player.is_alive():
                player.join(timeout=10)  # a throw in progress finishes before the log closes
            if publisher is not None:
                publisher.stop()
            table.panels.close()
            events.close()


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main app."""
    app.command("hall")(hall)
    app.command("serve-fake")(serve_fake)
