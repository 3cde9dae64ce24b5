"""A tournament's pairings, pushed to its tables over MQTT (the table side: controller/pairings.py).

For each match of the current round the tournament publishes, retained, on
``<prefix>/<table_id>/pairing``::

    {"table": "table-3", "tournament": "Kyoto Dice Open", "round": 2, "game": "die-angler",
     "players": [{"name": "ann", "seat": 1, "colour": "red"}, {"name": "bob", "seat": 2, "colour": "blue"}],
     "paired": "2026-11-27T04:01:02+00:00"}

Seats follow the pairing's order; colours go by seat (``SEAT_COLOURS``), so two
players at a table never share one.  The messages are sent again at every
(re)connect of the tournament's hall client, so a broker restart loses none.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from display.broker import DEFAULT_PREFIX

log = logging.getLogger(__name__)

#: a seat's colour (seat 1 red, seat 2 blue, ...): all from the hall's fixed set, all different
SEAT_COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "white", "black")


def pairing_topic(table_id: str, prefix: str = DEFAULT_PREFIX) -> str:
    return f"{prefix}/{table_id}/pairing"


def pairing_messages(state: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """table id -> its pairing message, from a tournament's ``state()`` (no round yet: none).

    A bye (a match without a table) has no message."""
    out: dict[str, dict[str, Any]] = {}
    if not state.get("round"):
        return out
    for m in state.get("matches", []):
        table = m.get("table")
        if not table:
            continue
        out[table] = {
            "table": table,
            "tournament": state["name"],
            "round": m["round"],
            "game": state["game"],
            "players": [
                {"name": name, "seat": seat, "colour": SEAT_COLOURS[(seat - 1) % len(SEAT_COLOURS)]}
                for seat, name in enumerate(m["players"], start=1)
            ],
            "paired": m.get("paired") or state.get("started"),
        }
    return out


def describe(pairing: Mapping[str, Any]) -> str:
    """What a table's page shows: ``table-3 · round 2 · ann vs bob``."""
    names = " vs ".join(p["name"] for p in pairing["players"])
    return f"{pairing['table']} · round {pairing['round']} · {names}"


def publish_pairings(client: Any, state: Mapping[str, Any], prefix: str = DEFAULT_PREFIX) -> int:
    """Publish (retained, QoS 1) every table's pairing of the current round; returns how many."""
    messages = pairing_messages(state)
    for table, message in messages.items():
        client.publish(pairing_topic(table, prefix), json.dumps(message), qos=1, retain=True)
    if messages:
        log.info("published round %s's pairings to %s", state.get("round"), ", ".join(messages))
    return len(messages)
