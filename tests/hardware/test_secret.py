"""Secret selection on the button panels: private until everyone has confirmed, then engine inputs."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from controller.scenario import Setup, new_game
from engine.core import Input, InputKind
from hardware.buttons import FakeButtonPanel, GpioButtonPanel
from hardware.secret import Field, Menu, RoundStatus, SecretRound, menu_for


class Panels:
    """Fake panels with a shared clock; click/hold helpers as a person would press."""

    def __init__(self, players: tuple[str, ...]) -> None:
        self.t = 0.0
        self.panels = {p: FakeButtonPanel(p, clock=lambda: self.t) for p in players}

    def click(self, player: str, button: str, times: int = 1) -> None:
        for _ in range(times):
            self.panels[player].press(button, self.t)
            self.t += 0.1
            self.panels[player].release(button, self.t)
            self.t += 0.1

    def hold(self, player: str, button: str = "confirm", s: float = 1.2) -> None:
        self.panels[player].press(button, self.t)
        self.t += s
        self.drive()
        self.panels[player].release(button, self.t)
        self.t += 0.1

    def drive(self) -> None:
        self.round.drive(list(self.panels.values()), self.t)

    round: SecretRound


def start(menus: dict, timeout_s: float | None = 60.0) -> Panels:
    panels = Panels(tuple(menus))
    panels.round = SecretRound(menus, t_start=0.0, timeout_s=timeout_s)
    return panels


def card_menu() -> Menu:
    """A hand of six cards, 1-6, as Nozoku Dice's secret card choice has it."""
    field = Field("card", tuple((str(c), c) for c in range(1, 7)))
    return Menu("nozoku-dice", (field,), lambda v: {"card": v["card"]})


def die_angler_in_select() -> object:
    game = new_game(Setup("die-angler", ("ann", "bob"), {}, 0, {}))
    game.apply(Input(InputKind.REVEAL, None, {"card": game.expects().detail["cards"][0]}))
    return game


def test_die_angler_selection_is_revealed_when_both_confirm_and_the_engine_takes_it() -> None:
    game = die_angler_in_select()
    pn = start({p: menu_for(game, p) for p in ("ann", "bob")})
    pn.click("ann", "up", 3)  # d6: 3
    pn.click("ann", "select")  # -> d10
    pn.click("ann", "up")  # chum
    pn.click("ann", "select")  # -> d20
    pn.click("ann", "up", 2)  # reapproach
    pn.hold("ann")
    assert pn.round.status is RoundStatus.SELECTING and pn.round.confirmed == ["ann"]
    pn.click("bob", "down")  # wraps round to d6: 5
    pn.hold("bob")
    assert pn.round.status is RoundStatus.REVEALED
    assert [i.to_json() for i in pn.round.inputs] == [
        {"type": "secret", "player": "ann", "d6": 3, "specials": {"d10": "chum", "d20": "reapproach"}},
        {"type": "secret", "player": "bob", "d6": 5, "specials": {}},
    ]
    for inp in pn.round.inputs:
        game.apply(inp)  # type: ignore[attr-defined]
    assert game.expects().kind is InputKind.ROLL  # type: ignore[attr-defined]


def test_nothing_about_a_choice_is_visible_before_the_reveal(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    seen: list[dict] = []
    menus = {"ann": card_menu(), "bob": card_menu()}
    pn = Panels(("ann", "bob"))
    pn.round = SecretRound(menus, t_start=0.0, timeout_s=None, on_change=seen.append)
    before = json.dumps(pn.round.public_status())
    pn.click("ann", "up", 4)  # card 5
    pn.drive()
    assert json.dumps(pn.round.public_status()) == before  # presses change nothing public, not even a count
    pn.hold("ann")
    status = pn.round.public_status()
    assert status == {"status": "selecting", "confirmed": ["ann"], "waiting": ["bob"]}
    messages = [r.getMessage() for r in caplog.records]
    assert any("ann confirmed" in m for m in messages)
    public_text = " ".join(
        [
            json.dumps(status),
            repr(pn.round),
            str(pn.round),
            *messages,
            json.dumps(seen),
            repr(pn.round._cursors),
        ]
    )
    assert "5" not in public_text and "card" not in public_text
    assert pn.round.private_view("ann") == {"field": "card", "option": "5", "confirmed": True}
    pn.hold("bob")
    assert pn.round.public_status()["revealed"] == {"ann": {"card": 5}, "bob": {"card": 1}}


def test_a_timeout_reveals_nothing_and_forgets_the_choices(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    pn = start({p: menu_for(die_angler_in_select(), p) for p in ("ann", "bob")}, timeout_s=30.0)
    pn.click("ann", "up", 4)
    pn.hold("ann")
    pn.t = 29.0
    pn.drive()
    assert pn.round.status is RoundStatus.SELECTING
    pn.t = 30.5
    pn.drive()
    assert pn.round.status is RoundStatus.TIMED_OUT and pn.round.inputs == []
    assert "bob" in pn.round.public_status()["reason"]
    assert pn.round.private_view("ann")["option"] == "0"  # forgotten
    pn.hold("bob")  # too late: nothing happens
    assert pn.round.status is RoundStatus.TIMED_OUT
    assert not any("4" in r.getMessage() for r in caplog.records)


def test_a_cancel_ends_the_round_without_a_reveal() -> None:
    pn = start({"ann": card_menu(), "bob": card_menu()})
    pn.click("bob", "up", 2)
    pn.hold("bob")
    pn.round.cancel("the referee restarted the bout")
    pn.hold("ann")
    assert pn.round.status is RoundStatus.CANCELLED and pn.round.inputs == []
    assert pn.round.public_status()["reason"] == "the referee restarted the bout"


def test_a_confirmed_choice_is_final() -> None:
    pn = start({"ann": card_menu(), "bob": card_menu()})
    pn.click("ann", "up")
    pn.hold("ann")
    pn.click("ann", "up", 3)  # ignored after confirming
    pn.hold("bob")
    assert pn.round.inputs[0].data == {"card": 2}


def test_dice_fighter_menu_lists_the_fighters_and_the_engine_accepts_the_pick() -> None:
    game = new_game(Setup("dice-fighter", ("ann", "bob"), {}, 0, {}))
    menus = {p: menu_for(game, p) for p in ("ann", "bob")}
    fighters = [v for _, v in menus["ann"].fields[0].options]
    assert len(fighters) >= 2
    pn = start(menus)
    pn.hold("ann")
    pn.click("bob", "up")
    pn.hold("bob")
    assert [i.data["fighter"] for i in pn.round.inputs] == fighters[:2]
    for inp in pn.round.inputs:
        game.apply(inp)
    assert game.expects().kind is not InputKind.SECRET


@pytest.fixture
def mock_pins() -> Iterator[MockFactory]:
    old = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = old


def test_selection_through_real_gpiozero_buttons_without_a_confirm_button(mock_pins: MockFactory) -> None:
    now = [0.0]
    panels = [
        GpioButtonPanel(p, pins, clock=lambda: now[0])
        for p, pins in (
            ("ann", {"up": 5, "down": 6, "select": 13}),
            ("bob", {"up": 17, "down": 27, "select": 22}),
        )
    ]
    rnd = SecretRound({"ann": card_menu(), "bob": card_menu()}, t_start=0.0)  # no confirm: hold select

    def tap(pin: int, hold: float = 0.1) -> None:
        mock_pins.pin(pin).drive_low()
        now[0] += hold
        rnd.drive(panels, now[0])
        mock_pins.pin(pin).drive_high()
        now[0] += 0.1
        rnd.drive(panels, now[0])

    tap(5)
    tap(5)  # ann: card 3
    tap(13, hold=1.5)  # ann holds select: confirm
    tap(27)  # bob: card 6
    assert rnd.confirmed == ["ann"]
    tap(22, hold=1.5)
    assert rnd.status is RoundStatus.REVEALED
    assert [i.data for i in rnd.inputs] == [{"card": 3}, {"card": 6}]
    for p in panels:
        p.close()
