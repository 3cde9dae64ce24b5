"""A table in a tournament takes each round's players and game from the tournament's pairing.

With ``[mqtt] pairings = true`` the table subscribes to its own
``<prefix>/<table id>/pairing`` (retained; published by ``dicetable tournament``,
display/pairings.py).  Each message is checked whole (``check_pairing``): one
that fails changes nothing and is logged with why (kept in ``refusals``).  A
pairing for a new round starts a new game — logged as a new game in the table's
event log, with the pairing's players in its seats and their colours, the game
the round plays — as soon as the table's current game is over or has not
started yet (no input logged); until then it waits.  The page then shows
``table-3 · round 2 · ann vs bob`` (``Table.pairing``) before the first throw.

Each seat keeps its button panel (``table.toml``'s player of that seat: its pins);
a seat beyond those has none.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any

import paho.mqtt.client as mqtt

from controller.config import TableConfig
from controller.eventlog import EventLog
from controller.scenario import Setup, new_game
from controller.table import Table, TableError
from display.hall_checks import check_pairing, parse
from display.pairings import SEAT_COLOURS, describe, pairing_topic

log = logging.getLogger("dicetable.pairings")

MAX_PAYLOAD = 16_384


def paired_config(cfg: TableConfig, pairing: dict[str, Any]) -> TableConfig:
    """``cfg`` with the pairing's game and players (seat by seat: each seat keeps its pins).

    The table's own game options stay when the game is the one it was configured for; another game
    plays with its defaults.  A ValueError (a pydantic one) when the game refuses the table's set-up."""
    raw = cfg.model_dump()
    seats = raw["players"]
    players = []
    for i, p in enumerate(pairing["players"]):
        seat = dict(seats[i]) if i < len(seats) else {}
        seat.update(name=p["name"], colour=p["colour"])
        players.append(seat)
    raw["players"] = players
    if pairing["game"] != cfg.table.game:
        raw["table"] = {**raw["table"], "game": pairing["game"], "options": {}}
    else:  # an option per player (colours, power slots) goes seat by seat to the pairing's players
        raw["table"] = {**raw["table"], "options": _reseated(raw["table"]["options"], names(cfg), players)}
    paired = TableConfig.model_validate(raw)
    try:
        new_game(Setup.for_table(paired))  # the game itself judges the players at this table
    except ValueError as e:  # a RuleError names what the rules want
        raise ValueError(f"{paired.table.game} refuses this table's players {names(paired)}: {e}") from None
    return paired


def _reseated(options: dict[str, Any], seated: list[str], players: list[dict[str, Any]]) -> dict[str, Any]:
    """The table's game options with each option keyed by its players (``{"ann": ..., "bob": ...}``)
    keyed by the pairing's players seat by seat, and ``colours`` the pairing's own colours."""
    out = dict(options)
    for key, value in options.items():
        if isinstance(value, dict) and value and set(value) <= set(seated) and len(players) >= len(seated):
            out[key] = {players[seated.index(k)]["name"]: v for k, v in value.items()}
    if isinstance(options.get("colours"), dict):
        out["colours"] = {p["name"]: p["colour"] for p in players}
    return out


def names(cfg: TableConfig) -> list[str]:
    return [p.name for p in cfg.players]


class PairingFollower:
    """Subscribes to the table's pairing topic and starts each new round's game at the table."""

    def __init__(self, table: Table, publisher: Any, base_cfg: TableConfig | None = None) -> None:
        """``publisher``: the table's started ``display.mqtt.TablePublisher``, whose connection the
        follower shares (a broker with ``use_username_as_clientid`` lets one client per table in);
        ``base_cfg``: the table.toml the pairings fill in (default: the table's)."""
        self.table, self.publisher = table, publisher
        self.topic = pairing_topic(table.table_id, publisher.prefix)
        self.base_cfg = base_cfg or table.cfg
        self.current: tuple[str, int] | None = None  # (tournament, round) of the game being played
        self.current_pairing: dict[str, Any] | None = None  # the pairing it was started with
        self.waiting: dict[str, Any] | None = None  # a checked pairing waiting for the game to end
        self.refusals: deque[dict[str, str]] = deque(maxlen=50)
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = False
        self._thread = threading.Thread(target=self._loop, name="pairings", daemon=True)

    def start(self) -> PairingFollower:
        self.table.listeners.append(self._on_snapshot)
        self._thread.start()
        client = self.publisher.client
        client.message_callback_add(self.topic, self._on_message)
        self.publisher.on_connected.append(self._subscribe)
        if client.is_connected():
            self._subscribe(client)
        return self

    def stop(self) -> None:
        self._stop = True
        self._wake.set()
        self._thread.join(timeout=5)
        if self._on_snapshot in self.table.listeners:
            self.table.listeners.remove(self._on_snapshot)

    def _subscribe(self, client: mqtt.Client) -> None:
        client.subscribe(self.topic, qos=1)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self.offer(msg.payload)
        except Exception as e:  # the last resort: paho's thread must live
            log.exception("table %s failed on a pairing", self.table.table_id)
            self._refuse(f"the table could not take it ({type(e).__name__}: {str(e)[:120]})")

    def _refuse(self, why: str) -> None:
        self.refusals.append({"topic": self.topic, "why": why[:300]})
        log.warning("table %s refused the pairing on %s: %s", self.table.table_id, self.topic, why)

    def offer(self, payload: bytes | bytearray | str) -> bool:
        """A pairing message: checked, then kept to start when the table is free; False when refused."""
        raw = payload.encode() if isinstance(payload, str) else bytes(payload)
        if not raw:  # the retained pairing was cleared
            return False
        try:
            pairing = check_pairing(self.table.table_id, parse(raw, MAX_PAYLOAD))
            paired_config(self.base_cfg, pairing)  # the game must take these players at this table
        except ValueError as e:
            self._refuse(str(e).replace("\n", " "))
            return False
        key = (pairing["tournament"], pairing["round"])
        with self._lock:
            if key == self.current:
                if self.current_pairing is None or _seating(pairing) == _seating(self.current_pairing):
                    return True  # this round's game is already on (a retained message again)
                # another pairing for the round being played: the newer one counts while nothing
                # has been played under the older (a pairing made by mistake, then mended)
                if not self._untouched():
                    self._refuse(
                        f"round {pairing['round']}'s pairing changed to {describe(pairing)}, but its game "
                        f"({describe(self.current_pairing)}) has inputs logged already: not taken"
                    )
                    return False
                self.waiting = pairing
                log.warning(
                    "table %s: round %d paired again, %s replaces %s (no input logged under it)",
                    self.table.table_id,
                    pairing["round"],
                    describe(pairing),
                    describe(self.current_pairing),
                )
                self._wake.set()
                return True
            t = self.table
            # the first pairing since the table started, and its game is on already: resumed from
            # the log after a restart (a later round always waits for the game in play to end)
            seated = (pairing["game"], [p["name"] for p in pairing["players"]])
            if (
                self.current is None
                and t.status != "over"
                and (t.setup.game, list(t.setup.players)) == seated
            ):
                self.current, self.current_pairing, self.waiting = key, pairing, None
                t.pairing = describe(pairing)
                adopted = True
            else:
                self.waiting, adopted = pairing, False
        if adopted:
            self.table._emit()
            log.info("table %s: plays on %s", self.table.table_id, describe(pairing))
            return True
        log.info("table %s: round %d paired: %s", self.table.table_id, pairing["round"], describe(pairing))
        self._wake.set()
        return True

    def _on_snapshot(self, snapshot: dict[str, Any]) -> None:
        if snapshot.get("status") == "over" and self.waiting is not None:
            self._wake.set()  # never start a game inside the table's own listener call

    def _free(self) -> bool:
        """The table's game is over, or no input has been logged in it yet."""
        return self.table.status == "over" or self._untouched()

    def _untouched(self) -> bool:
        """No input has been logged in the table's game yet."""
        t = self.table
        return next(iter(t.log.inputs(t.game_no)), None) is None

    def start_waiting(self) -> bool:
        """Start the waiting pairing's game if the table is free; True when one started."""
        with self._lock:
            pairing = self.waiting
            if pairing is None or not self._free():
                return False
            same_round = self.current == (pairing["tournament"], pairing["round"])
            if same_round and not self._untouched():  # played since it was taken: the older stands
                self.waiting = None
                no = pairing["round"]
                self._refuse(f"round {no}'s game was played meanwhile: not taken {describe(pairing)}")
                return False
            self.waiting = None
            self.current, self.current_pairing = (pairing["tournament"], pairing["round"]), pairing
        cfg = paired_config(self.base_cfg, pairing)
        try:
            self.table.new_game(cfg, pairing=describe(pairing))
        except (ValueError, TableError) as e:
            self._refuse(f"could not start round {pairing['round']}'s game: {e}")
            return False
        t = self.table
        log.info("table %s: started game %d for %s", t.table_id, t.game_no, describe(pairing))
        print(f"table {self.table.table_id}: {describe(pairing)} ({pairing['game']})", flush=True)
        return True

    def _loop(self) -> None:
        while not self._stop:
            self._wake.wait(timeout=1.0)
            self._wake.clear()
            if self._stop:
                return
            try:
                self.start_waiting()
            except Exception:  # keep following: the next pairing may do
                log.exception("table %s: starting a paired game failed", self.table.table_id)


def _seating(pairing: dict[str, Any]) -> tuple[Any, ...]:
    """What a pairing seats: its game and each seat's player and colour."""
    return (pairing["game"], tuple((p["seat"], p["name"], p["colour"]) for p in pairing["players"]))


def follow_pairings(table: Table, publisher: Any, base_cfg: TableConfig | None = None) -> PairingFollower:
    """The started follower of ``[mqtt] pairings = true`` on the table's publisher's connection."""
    return PairingFollower(table, publisher, base_cfg).start()


def last_paired_config(cfg: TableConfig, events: EventLog) -> TableConfig:
    """The config a paired table opens with: the latest game's game and players from its log while
    that game is unfinished (so a restart resumes the paired game it was playing: ``open_game``;
    its pairing, retained, then finds it on and lets it play on), else ``cfg`` itself."""
    latest = events.latest_game()
    if latest is None or events.replay(latest).result() is not None:
        return cfg  # nothing to resume: a finished game's round waits for its pairing as any other
    setup = events.setup(latest)
    if (setup.game, list(setup.players)) == (cfg.table.game, names(cfg)):
        return cfg
    seated = [
        {"name": n, "seat": i, "colour": SEAT_COLOURS[(i - 1) % len(SEAT_COLOURS)]}
        for i, n in enumerate(setup.players, start=1)
    ]
    try:
        return paired_config(cfg, {"game": setup.game, "players": seated})
    except ValueError as e:  # not a game this table can play now: its own file then
        log.warning("table %s: not resuming game %d (%s)", cfg.table.id, latest, e)
        return cfg
