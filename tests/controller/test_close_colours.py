"""A taught look that comes close to another colour of the roster is told (issue 44 item 5: a table
asks when two players' dice are close): real byler_d6 dice of 2019-12-08 as a roster, each kind of die
a player's, its look learnt from the dice of 6 photos (`benchmarks/labels/d6_looks.csv`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.colours_real import LABELS, TRAIN_LABELS, TUNE_LABELS, load_labels
from benchmarks.colours_roster import load_looks, seen_in
from controller.config import parse_config
from controller.learn_looks import close_colours, close_notes
from controller.roster import Die, save_roster
from vision.looks import Look

PHOTOS = ("111246", "111304", "111339", "111352", "111411", "111434")
#: a kind of die -> (its player, its colour)
PLAYERS = {
    "smoke": ("ann", "black"),
    "blue-black swirl": ("bob", "blue"),
    "yellow": ("cat", "yellow"),
    "black opaque": ("dan", "black"),
    "brown": ("eve", "brown"),
    "maroon": ("fay", "maroon"),
    "red": ("gus", "red"),
}


@pytest.fixture(scope="module")
def dice(request: pytest.FixtureRequest) -> list[Die]:
    real = request.getfixturevalue("real_fixtures")
    labels = {**load_labels(LABELS), **load_labels(TRAIN_LABELS), **load_labels(TUNE_LABELS)}
    names = [f"byler_d6/images/IMG_20191208_{n}.jpg" for n in PHOTOS]
    photos = {p: seen_in(p, labels[p], load_looks(), real) for p in names}
    out = []
    for look, (owner, colour) in PLAYERS.items():
        rows = [s.whole for p in names for s in photos[p] if s.look == look]
        out.append(Die(f"{owner}-{colour}", "d6", owner, colour, look=Look.learn(rows).to_json()))
    return out


def test_a_swirl_seen_black_is_close_to_black_and_the_yellow_die_stands_apart(dice: list[Die]) -> None:
    swirl = close_colours(dice, "bob-blue")
    assert set(swirl) == {"black"} and sum(swirl["black"]) >= 1  # one of its sightings is its black top
    assert close_colours(dice, "cat-yellow") == {} and close_colours(dice, "gus-red") == {}
    assert close_colours(dice, "nobody") == {}


def test_the_note_names_the_close_colour(dice: list[Die], tmp_path: Path) -> None:
    cfg = parse_config(
        {"table": {"game": "dicetar-wars", "seed": 3}, "players": [{"name": "bob", "colour": "blue"}]}
    )
    save_roster(cfg.roster_path, dice)
    bob = next(d for d in dice if d.id == "bob-blue")
    (note,) = close_notes(cfg, bob)
    assert note.startswith("bob-blue looks like the black dice in ") and "will be asked about" in note
    assert close_notes(cfg, next(d for d in dice if d.id == "cat-yellow")) == []


def test_no_note_before_every_colour_has_a_look(dice: list[Die]) -> None:
    unlearnt = [*dice, Die("hal-green", "d6", "hal", "green")]  # green not learnt: the palette names
    assert close_colours(unlearnt, "bob-blue") == {}
