"""Debounce and hold-to-confirm, on our state machines and on real gpiozero Buttons with mock pins."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware.buttons import ButtonMachine, Debouncer, FakeButtonPanel, GpioButtonPanel, Press


def test_a_bouncing_press_is_one_press_at_the_first_contact() -> None:
    m = ButtonMachine(debounce_s=0.02, hold_s=1.0)
    out = []
    for i, level in enumerate([True, False, True, False, True]):  # 2 ms bounce
        out += m.feed(level, 0.100 + i * 0.002)
    out += m.poll(0.110)
    assert out == []  # not stable yet
    out += m.poll(0.130)
    assert out == [(Press.PRESS, pytest.approx(0.100))]
    out = m.feed(False, 0.300) + m.feed(True, 0.301) + m.feed(False, 0.303) + m.poll(0.4)
    assert [k for k, _ in out] == [Press.RELEASE, Press.CLICK]


def test_a_short_glitch_is_ignored() -> None:
    d = Debouncer(0.02)
    assert d.feed(True, 1.0) == [] and d.feed(False, 1.005) == [] and d.poll(2.0) == []
    assert d.stable is False


def test_holding_reports_hold_once_while_still_held_and_no_click() -> None:
    m = ButtonMachine(debounce_s=0.01, hold_s=1.0)
    out = m.feed(True, 5.0) + m.poll(5.5)
    assert [k for k, _ in out] == [Press.PRESS]
    out = m.poll(6.01)
    assert out == [(Press.HOLD, pytest.approx(6.0))]
    assert m.poll(7.0) == []
    assert [k for k, _ in m.feed(False, 7.5) + m.poll(7.6)] == [Press.RELEASE]


def test_bad_timings_are_refused() -> None:
    with pytest.raises(ValueError, match="hold_s"):
        ButtonMachine(hold_s=0)
    with pytest.raises(ValueError, match="debounce_s"):
        ButtonMachine(debounce_s=-1)


@pytest.fixture
def mock_pins() -> Iterator[MockFactory]:
    old = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = old


def test_gpio_panel_debounces_real_gpiozero_buttons(mock_pins: MockFactory) -> None:
    now = [0.0]
    panel = GpioButtonPanel(
        "ann",
        {"up": 5, "down": 6, "select": 13, "confirm": 19},
        clock=lambda: now[0],
        debounce_s=0.02,
        hold_s=1.0,
    )
    pin = mock_pins.pin(5)
    for level in ("low", "high", "low", "high", "low"):  # the contact bounces for 8 ms
        getattr(pin, f"drive_{level}")()
        now[0] += 0.002
    now[0] = 0.2
    pin.drive_high()
    events = panel.poll(0.5)
    assert [(e.button, e.kind.value) for e in events] == [("up", "press"), ("up", "release"), ("up", "click")]
    assert events[0].t == pytest.approx(0.0) and events[0].player == "ann"

    confirm = mock_pins.pin(19)
    now[0] = 1.0
    confirm.drive_low()
    assert [e.kind.value for e in panel.poll(1.5)] == ["press"]
    assert [(e.button, e.kind.value, e.t) for e in panel.poll(2.2)] == [("confirm", "hold", 2.0)]
    panel.close()


def test_gpio_panel_needs_a_select_pin_and_free_pins(mock_pins: MockFactory) -> None:
    with pytest.raises(ValueError, match="'select' pin is required"):
        GpioButtonPanel("ann", {"up": 5})
    a = GpioButtonPanel("ann", {"select": 13})
    with pytest.raises(ValueError, match="cannot use pins"):
        GpioButtonPanel("bob", {"select": 13})
    a.close()


def test_a_button_that_does_not_close_leaves_the_others_closed(
    mock_pins: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """gpiozero's button thread that fails to stop (ZombieThread, on a slow emulated arm64 core) does
    not end the table's shutdown: it is logged, the other buttons are closed, their pins free again."""
    from gpiozero.exc import ZombieThread

    panel = GpioButtonPanel("ann", {"up": 5, "select": 13})
    stuck = panel._devices["up"]

    def zombie() -> None:
        raise ZombieThread("Thread failed to die within 10 seconds")

    stuck.close = zombie
    with caplog.at_level("WARNING", logger="hardware.buttons"):
        panel.close()
    assert "button 'up'" in caplog.text and "did not close" in caplog.text
    again = GpioButtonPanel("bob", {"select": 13})  # the select button's pin was let go
    again.close()
    del stuck.close  # (the stuck button closed for good, as its thread would end)
    stuck.close()


def test_closing_a_panel_tells_every_hold_thread_to_stop_before_it_joins_one(mock_pins: MockFactory) -> None:
    """Each button's gpiozero hold thread polls every 0.1 s; joined one after another, unwoken, they
    took ~0.5 s a table of four panels to close (a third of the crash sweep's time). Now every thread
    is told to stop, and woken, before the first button's close joins its own."""
    panel = GpioButtonPanel("ann", {"up": 5, "down": 6, "select": 13, "confirm": 19})
    threads = [dev._hold_thread for dev in panel._devices.values()]
    first = next(iter(panel._devices.values()))
    close, told = first.close, []

    def closing() -> None:
        told.extend(t.stopping.is_set() for t in threads)
        close()

    first.close = closing
    panel.close()
    assert told == [True] * 4
    assert not any(t.is_alive() for t in threads)
    again = GpioButtonPanel("bob", {"up": 5, "down": 6, "select": 13, "confirm": 19})  # every pin let go
    again.close()


def test_fake_panel_refuses_buttons_it_does_not_have() -> None:
    panel = FakeButtonPanel("ann", ("up", "select"))
    with pytest.raises(ValueError, match="has no button 'confirm'"):
        panel.press("confirm", 0.0)
