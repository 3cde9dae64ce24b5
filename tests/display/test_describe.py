"""The event log in words: every kind and every game's outcomes read as sentences, secrets stay hidden."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine.dice_fighter
import engine.dice_hunter
import engine.dicetar_wars
import engine.die_angler
import engine.nozoku_dice
from controller.scenario import run_scenario_file
from display.describe import OUTCOMES, describe

ROOT = Path(__file__).resolve().parents[2]
GAMES = (engine.dice_fighter, engine.dice_hunter, engine.dicetar_wars, engine.die_angler, engine.nozoku_dice)
SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*/*.jsonl"))


def outcome(data: dict, player: str | None = None) -> dict:
    return {"seq": 9, "kind": "outcome", "source": "camera", "player": player, "data": data}


def test_every_games_outcome_has_its_own_words() -> None:
    kinds = {k.value for g in GAMES for k in g.OutcomeKind}
    assert sorted(kinds - set(OUTCOMES)) == []


def test_a_scored_half_reads_as_a_sentence() -> None:
    text = describe(
        outcome(
            {
                "event": "half_scored",
                "detail": {"half": 1, "scores": {"ann": 31, "bob": 212}, "doubled": True},
            }
        ),
        "dicetar-wars",
    )
    assert text == "Half 1 scored: ann 31, bob 212, doubled (no rethrown die ended on the board)"


def test_a_throw_names_the_thrower_and_the_dice() -> None:
    dice = [{"kind": "d6", "value": v, "colour": "red"} for v in (5, 2, 6)]
    dice[2]["field_status"] = "off"
    event = {
        "seq": 4,
        "kind": "input",
        "source": "camera",
        "player": "bob",
        "data": {"type": "throw", "player": "bob", "dice": dice},
    }
    assert describe(event, "dice-fighter") == "bob threw 3 dice: red 5, red 2, red 6 (off the field)"
    # DICETAR WARS lists every die on the board after a throw, not only the thrown ones
    assert (
        describe(event, "dicetar-wars")
        == "bob threw; the board shows 3 dice: red 5, red 2, red 6 (off the field)"
    )
    event["source"] = "admin"
    assert describe(event, "dicetar-wars").endswith("(entered by the referee)")


@pytest.mark.parametrize(
    ("game", "data"),
    [
        ("die-angler", {"type": "secret", "player": "ann", "d6": 3, "specials": {"d10": "reapproach"}}),
        ("nozoku-dice", {"type": "secret", "player": "ann", "card": 4}),
        ("dice-fighter", {"type": "secret", "player": "ann", "fighter": "lv3-champion"}),
        ("dice-fighter", {"type": "choice", "player": "ann", "attack": "super-triple-30"}),
    ],
)
def test_a_secret_selection_never_shows_what_was_chosen(game: str, data: dict) -> None:
    text = describe({"seq": 3, "kind": "input", "source": "button", "player": "ann", "data": data}, game)
    assert text.startswith("ann made a secret selection")
    hidden = [str(v) for k, v in data.items() if k not in ("type", "player")]
    assert not any(h in text for h in hidden) and "reapproach" not in text and "3" not in text


def test_other_kinds_read_as_words() -> None:
    def ev(kind: str, data: dict, player: str | None = None) -> str:
        return describe(
            {"seq": 1, "kind": kind, "source": "table", "player": player, "data": data}, "dice-hunter"
        )

    assert ev("setup", {"game": "dice-hunter", "players": ["ann", "bob", "cid"]}) == (
        "A new game of Dice Hunter for ann, bob and cid"
    )
    assert ev("undo", {"undoes": 12, "who": "ref"}) == "ref undid event #12"
    assert ev(
        "control", {"correction": "set_value", "reading": "r1.4", "from": 5, "to": 3, "who": "Kim"}
    ) == ("Kim corrected reading r1.4 from 5 to 3")
    assert ev("control", {"action": "pause", "who": "Kim"}) == "Kim paused the game"
    assert ev(
        "reading", {"t": 1.0, "dice": [{"id": "r1.1", "kind": "d6", "value": 4, "colour": "blue"}]}
    ) == ("The camera read 1 die: blue 4")
    assert ev("question", {"text": "Is die r1.2 a 3?", "readings": ["r1.2"], "kind": "unsure"}) == (
        "Asked the referee: Is die r1.2 a 3?"
    )


def test_an_unknown_event_still_reads_as_words() -> None:
    text = describe(
        outcome({"event": "comet_landed", "detail": {"crater_size": 3, "near": ["ann", "bob"]}}, "ann")
    )
    assert text == "ann: comet landed (crater size 3; near ann and bob)"
    assert describe({"kind": "mystery", "data": {}}) == "Mystery"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_scenario_event_reads_without_json(path: Path) -> None:
    """Every outcome and input of the shipped scenarios: words, no braces, no 'None'."""
    replay = run_scenario_file(path)
    game = path.parent.name
    texts = [describe(outcome(o.to_json(), o.player), game) for o in replay.outcomes]
    for line in path.read_text().splitlines():
        if line.startswith("{") and '"type"' in line and "expect_error" not in line:
            data = json.loads(line)
            texts.append(
                describe(
                    {"kind": "input", "source": "scenario", "player": data.get("player"), "data": data}, game
                )
            )
    for text in texts:
        assert text and "{" not in text and "None" not in text, text


def test_a_die_in_a_grid_square_reads_by_row_and_column_not_by_the_zone_id() -> None:
    """Issue 34: the log said "blue 4 (in r3c0 and r3c1)"."""
    from display.describe import zone_name

    throw = {
        "seq": 3,
        "kind": "input",
        "source": "camera",
        "player": "bob",
        "data": {
            "type": "throw",
            "player": "bob",
            "dice": [
                {"kind": "d6", "value": 4, "colour": "blue", "zones": ["r3c0", "r3c1"]},
                {"kind": "d6", "value": 2, "colour": "red", "zones": ["inner_ring"]},
            ],
        },
    }
    text = describe(throw, "dicetar-wars")
    assert "blue 4 (in row 4, column 1 and row 4, column 2)" in text, text
    assert "red 2 (in inner ring)" in text and "r3c0" not in text
    assert zone_name("r10c2") == "row 11, column 3" and zone_name("rc1") == "rc1"


def test_names_are_in_one_language_and_ids_become_names() -> None:
    from display.names import game_title, in_language

    assert in_language("Sardine (イワシ)", "en") == "Sardine"
    assert in_language("Sardine (イワシ)", "ja") == "イワシ"
    assert in_language("Reversal (1 Quintet) (逆転タイル・1のクインテット)", "en") == "Reversal (1 Quintet)"
    assert in_language("Summary (no super-special)", "ja") == "Summary (no super-special)"  # one language
    assert game_title("die-angler", "ja") == "ダイ公望" and game_title("die-angler", "en") == "Die-angler"
    assert game_title("dicetar-wars", "ja") == "DICETAR WARS"  # its only name
    landed = outcome({"event": "fish_on", "detail": {"cards": ["iwashi", "aji"]}}, "ann")
    names = {"iwashi": "Sardine", "aji": "Horse mackerel", "ann": "NOT A FISH"}
    text = describe(landed, "die-angler", names)
    assert "iwashi" not in text and "Sardine" in text and "Horse mackerel" in text, text
    assert "NOT A FISH" not in text


@pytest.mark.parametrize("game", ["die-angler", "dice-hunter", "dice-fighter"])
def test_every_game_names_its_cards_in_both_languages_or_one(game: str) -> None:
    from controller.scenario import Setup, new_game
    from display.names import has_japanese, in_language

    options: dict = {"deck": "virtual"} if game == "dice-hunter" else {}
    players = ("a", "b", "c") if game == "dice-hunter" else ("a", "b")
    if game == "dice-fighter":
        options = {
            "power_slots": {
                "a": ["power-first-1", "power-first-2"],
                "b": ["power-second-1", "power-second-2"],
            }
        }
    names = new_game(Setup(game, players, options)).names()
    assert names
    for name in names.values():
        assert not has_japanese(in_language(name, "en")), name
    if game != "dice-fighter":  # its example deck is in English only
        assert all(has_japanese(in_language(n, "ja")) for n in names.values()), names
