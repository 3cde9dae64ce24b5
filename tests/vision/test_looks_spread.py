"""Issue 44 item 5, eighth round: a die named a colour without hue is asked when the next colour lies
less than half that colour's own spread farther (`vision.looks.MARGIN_SPREAD`; chosen on the train
photos' cross-validation, RESULTS.md)."""

from __future__ import annotations

import numpy as np
import pytest

import vision.looks as vl
from vision.looks import CUT, HUED, WHOLE, LearntPalette, Look


def _look(blue: float, body: tuple[float, float, float] = (20.0, 0.0, -2.0)) -> list[float]:
    """A cut look (two hued looks alike) of a die of this ``body`` whose pixels are ``blue`` blue."""
    one = [*body] * 5
    shares = np.zeros(HUED - WHOLE)
    shares[9], shares[12] = blue, 1.0 - blue  # a blue sector, and dark grey
    return [*one, *shares, *one, *shares]


def _palette(name: str, body: tuple[float, float, float]) -> LearntPalette:
    # the colour's own sightings lie 0.2 of blue apart (a smoke die and a black one pooled); the
    # other colour's at 0.9 (the same body: the looks differ by their shares alone)
    spread = Look.learn([_look(x, body) for x in (0.0, 0.2, 0.4)])
    return LearntPalette.of({name: spread, "blue": Look.learn([_look(0.9, body)])})


def test_a_die_within_a_hueless_colours_own_spread_of_the_next_is_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert vl.MARGIN_SPREAD == 0.5
    pal = _palette("black", (20.0, 0.0, -2.0))
    die = np.asarray(_look(0.62))
    assert len(die) == CUT
    (d1, n1), (d2, n2) = pal.ranked(die)[:2]
    assert (n1, n2) == ("black", "blue") and d1 < vl.ASK_RATIO_HUED * d2  # the ratio alone: not asked
    spread = pal.spread_of("black", CUT)
    assert spread == pytest.approx(0.2 * 100 * vl.SHARE_WEIGHT * np.sqrt(2))
    assert d2 - d1 < vl.MARGIN_SPREAD * spread
    assert pal.near_two(die) == ("black", "blue")
    # a die deep in black's own sightings, and the same die named a colour with hue: not asked
    assert pal.near_two(np.asarray(_look(0.3))) == ("black", None)
    teal = (20.0, -20.0, -10.0)
    assert _palette("teal", teal).near_two(np.asarray(_look(0.62, teal))) == ("teal", None)
    monkeypatch.setattr(vl, "MARGIN_SPREAD", 0.0)  # the seventh round's rule: named black unasked
    assert pal.near_two(die) == ("black", None)


def test_a_colour_of_one_sighting_takes_the_others_spread_and_body_only_rosters_are_read_as_before() -> None:
    pal = LearntPalette.of(
        {
            "black": Look.learn([_look(0.4)]),
            "grey": Look.learn([_look(0.0, (50.0, 0.0, 0.0)), _look(0.2, (50.0, 0.0, 0.0))]),
            "blue": Look.learn([_look(0.9)]),
        }
    )
    assert pal.spread_of("black", CUT) is None
    assert pal.near_two(np.asarray(_look(0.62)))[1] is not None  # within half grey's spread of blue
    # a roster of body colours alone (an early round): the ratio alone, as before
    old = LearntPalette.of(
        {"black": Look.learn([[10.0, 0.0, 0.0], [30.0, 0.0, 0.0]]), "blue": Look.learn([[30.0, 5.0, -30.0]])}
    )
    assert old.near_two(np.array([25.0, 2.0, -12.0])) == ("black", None)
