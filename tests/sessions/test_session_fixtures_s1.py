"""The recorded Die-angler and Nozoku Dice demo sessions are sound.

Made by tools/sessions/make_die_angler_demo.py and make_nozoku_dice_demo.py
(drawn top-down frames, seeds in each session.json): die-angler-demo (three
players), nozoku-dice-demo (the solo game) and nozoku-dice-demo/multi (two
players, secret card choices).  A session is only worth playing if

* its truth replays through the engine to the result it states, and the game
  shows what the demo is for;
* its timeline is playable: every listed frame exists, time runs forward,
  thrown dice rest at least 1.5 s, the script is in time order;
* the script is what the table gets: Die-angler's raw button presses, fed
  through the real debounce/hold machines and ``SecretRound``, give exactly
  the secret selections of the truth (so do the multiplayer Nozoku Dice card
  choices); the scripted open choices are the truth's;
* every settled frame gives the truth from the pixels (``vision.read_dice``:
  value and colour of every die), which the end-to-end demo relies on.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import pytest

from controller.scenario import Setup, new_game
from engine import Game, Input, InputKind

SESSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "sessions"
ANGLER = SESSIONS / "die-angler-demo"
NOZOKU = SESSIONS / "nozoku-dice-demo"
NOZOKU_MULTI = NOZOKU / "multi"
ALL = pytest.mark.parametrize(
    "folder", [ANGLER, NOZOKU, NOZOKU_MULTI], ids=["die-angler", "nozoku-dice", "nozoku-dice-multi"]
)
WITH_SECRETS = pytest.mark.parametrize(
    ("folder", "rounds"), [(ANGLER, 10), (NOZOKU_MULTI, 3)], ids=["die-angler", "nozoku-dice-multi"]
)


@cache
def session(folder: Path) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    meta = json.loads((folder / "session.json").read_text())
    truth = json.loads((folder / "truth.json").read_text())
    script = [json.loads(line) for line in (folder / "script.jsonl").read_text().splitlines()]
    return meta, truth, script


def replay(folder: Path) -> Game:
    return replay_with_events(folder)[0]


def replay_with_events(folder: Path) -> tuple[Game, Counter[str]]:
    """The game after the truth's inputs, and how often each outcome event happened."""
    meta, truth, _ = session(folder)
    game = new_game(Setup.from_json(meta["setup"]), base=folder)
    events: Counter[str] = Counter()
    for raw in truth["inputs"]:
        events.update(str(o.event) for o in game.apply(Input.from_json(raw)))
    return game, events


# --- timeline ---------------------------------------------------------------------------


@ALL
def test_the_timeline_is_playable(folder: Path) -> None:
    with (folder / "frames.csv").open() as f:
        rows = list(csv.DictReader(f))
    times = [float(r["t"]) for r in rows]
    assert times == sorted(times) and len(set(times)) == len(times), "time must run forward"
    assert all((folder / name).is_file() for name in {r["file"] for r in rows})
    assert sum(p.stat().st_size for p in folder.iterdir() if p.is_file()) < 6e6, "keep a session < ~6 MB"
    meta, truth, script = session(folder)
    assert meta["colours"] == meta["setup"]["options"]["colours"]
    shown = Counter(r["file"] for r in rows)
    for s in truth["settled"]:
        assert s["file"] in shown and s["t"] in times
        if s["throw"]:
            assert shown[s["file"]] * 0.1 >= 1.5 - 1e-9, f"{s['file']}: thrown dice must rest >= 1.5 s"
    assert [s["t"] for s in script] == sorted(s["t"] for s in script)
    assert script and all(s["source"] == "button" and 0 < s["t"] < times[-1] for s in script)


@ALL
def test_the_table_comes_to_rest_only_after_a_throw_while_a_roll_is_awaited(folder: Path) -> None:
    """A hand tidying the table must not leave it settled while the game waits for a throw:
    the table would read that still picture as the throw."""
    _, truth, _ = session(folder)
    early = [s["file"] for s in truth["settled"] if not s["throw"] and s["engine_expects"] == "roll"]
    assert not early, f"settled frames that would be read as a throw: {early}"
    assert all(s["engine_expects"] == "roll" for s in truth["settled"] if s["throw"])


# --- Die-angler -------------------------------------------------------------------------


def test_die_angler_truth_replays_to_the_stated_result() -> None:
    _, truth, _ = session(ANGLER)
    game = replay(ANGLER)
    result = game.result()
    assert result is not None, "the demo is a complete game"
    assert game.scores() == truth["final_scores"]
    assert list(result.winners) == truth["winners"]
    assert game.state["held"] == truth["held"]


def test_die_angler_shows_what_the_demo_is_for() -> None:
    meta, truth, _ = session(ANGLER)
    game, events = replay_with_events(ANGLER)
    assert game.state["bout"] == 10, "all ten bouts of the deck are played"
    assert events["fish_on"] >= 2 and events["carry_over"] >= 2, "fish landed and cards carried over"
    assert len(meta["setup"]["players"]) == 3
    colours_in_frame = [{c for _, c in s["dice"]} for s in truth["settled"] if s["throw"]]
    assert any(len(c) >= 2 for c in colours_in_frame), "a group called together throws at once"
    secrets = [i for i in truth["inputs"] if i["type"] == "secret"]
    assert any(s["d6"] == 0 for s in secrets), "a player passes"
    assert len({s["d6"] for s in secrets}) >= 4, "players choose different numbers of dice"


def press_panels(script: list[dict[str, Any]], players: list[str]) -> list[tuple[float, str, Any]]:
    """(time, player, event) of every debounced event the scripted presses make on FakeButtonPanels."""
    from hardware.buttons import FakeButtonPanel

    panels = {p: FakeButtonPanel(p) for p in players}
    edges = []
    for s in script:
        if "press" in s:
            edges.append((s["t"], s["player"], s["press"], True))
            edges.append((s["t"] + max(s["hold"], 0.1), s["player"], s["press"], False))
    events = []
    for t, player, button, down in sorted(edges, key=lambda e: e[0]):
        for panel in panels.values():
            events += [(e.t, e.player, e) for e in panel.poll(t)]
        (panels[player].press if down else panels[player].release)(button, t)
    for panel in panels.values():
        events += [(e.t, e.player, e) for e in panel.poll(edges[-1][0] + 2.0)]
    return sorted(events, key=lambda e: e[0])


@WITH_SECRETS
def test_presses_make_the_secret_selections(folder: Path, rounds: int) -> None:
    """The raw presses through debounce, hold and the real menus give each round's selections."""
    from hardware.secret import RoundStatus, SecretRound, menu_for

    meta, truth, script = session(folder)
    players = meta["setup"]["players"]
    events = press_panels(script, players)
    game = new_game(Setup.from_json(meta["setup"]), base=folder)
    expected_rounds, rounds = rounds, 0
    pending = list(truth["inputs"])
    while pending:
        if game.expects().kind is InputKind.SECRET:
            rnd = SecretRound(
                {p: menu_for(game, p) for p in game.expects().players}, t_start=0, timeout_s=None
            )
            while rnd.status is RoundStatus.SELECTING:
                assert events, f"bout {rounds + 1}: the presses ran out before every player confirmed"
                rnd.handle(events.pop(0)[2])
            got = sorted(json.dumps(i.to_json(), sort_keys=True) for i in rnd.inputs)
            want = sorted(json.dumps(i, sort_keys=True) for i in pending[: len(rnd.inputs)])
            assert got == want, f"bout {rounds + 1}"
            for inp in rnd.inputs:
                game.apply(inp)
            del pending[: len(rnd.inputs)]
            rounds += 1
        else:
            game.apply(Input.from_json(pending.pop(0)))
    assert rounds == expected_rounds and game.result() is not None
    assert not [e for e in events if e[2].kind.value in ("click", "hold")], "presses left over"


def test_die_angler_rolls_are_the_dice_in_their_frames() -> None:
    """Each player's roll is exactly the dice of that player's colour in the frame it came to rest in."""
    _, truth, _ = session(ANGLER)
    frames = {s["file"]: s["dice"] for s in truth["settled"] if s["throw"]}
    rolls = [i for i in truth["inputs"] if i["type"] == "roll"]
    assert [(r["player"], r["dice"]) for r in truth["rolls"]] == [(r["player"], r["dice"]) for r in rolls]
    for r in truth["rolls"]:
        assert sorted(v for v, c in frames[r["file"]] if c == r["colour"]) == r["dice"]


# --- Nozoku Dice ------------------------------------------------------------------------


@pytest.mark.parametrize("folder", [NOZOKU, NOZOKU_MULTI], ids=["solo", "multi"])
def test_nozoku_truth_replays_to_the_stated_result(folder: Path) -> None:
    _, truth, _ = session(folder)
    game = replay(folder)
    result = game.result()
    assert result is not None, "the demo is a complete game"
    assert game.scores() == truth["final_scores"]
    assert list(result.winners) == truth["winners"]
    assert game.state["held"] == truth["held"]
    if folder == NOZOKU:
        assert game.state["hidden_wizard"] == truth["hidden_wizard"]
        assert game.state["rating"] == truth["rating"]


def test_nozoku_shows_what_the_demo_is_for() -> None:
    meta, truth, _ = session(NOZOKU)
    assert meta["setup"]["players"] == ["ann"], "the solo game"
    _, events = replay_with_events(NOZOKU)
    assert events["prophecy_fulfilled"] and events["prophecy_failed"], "removal cases A and B"
    kinds = [r["roll"] for r in truth["rolls"]]
    assert kinds[:2] == ["hand", "centre"] and kinds.count("reroll") >= 2
    assert len(truth["rolls"][1]["dice"]) == 18, "18 dice of three colours thrown into the centre"
    assert {c for _, c in truth["rolls"][1]["dice"]} == {"red", "blue", "green"}
    choices = [i for i in truth["inputs"] if i["type"] == "choice"]
    assert any("take" in c for c in choices), "all cards played: a centre die is taken"
    assert any(c.get("action") not in (None, "skip") for c in choices), "a card's action is used"


def test_nozoku_multiplayer_shows_what_the_demo_is_for() -> None:
    meta, truth, _ = session(NOZOKU_MULTI)
    assert meta["setup"]["players"] == ["ann", "bob"]
    assert [(r["roll"], r["player"]) for r in truth["rolls"][:2]] == [("hand", "ann"), ("hand", "bob")]
    assert len(truth["rolls"][2]["dice"]) == 14, "3 colours x 6 dice, less the 4 in the players' areas"
    secrets = [i for i in truth["inputs"] if i["type"] == "secret"]
    assert {s["player"] for s in secrets} == {"ann", "bob"} and len(secrets) >= 4


@pytest.mark.parametrize("folder", [NOZOKU, NOZOKU_MULTI], ids=["solo", "multi"])
def test_nozoku_script_is_the_choices_and_rolls_are_whole_centre_readings(folder: Path) -> None:
    _, truth, script = session(folder)
    scripted = [s["input"] for s in script if "input" in s]
    assert scripted == [i for i in truth["inputs"] if i["type"] == "choice"]
    rolls = [i for i in truth["inputs"] if i["type"] == "roll"]
    assert len(rolls) == len(truth["rolls"])
    for inp, r in zip(rolls, truth["rolls"], strict=True):
        assert sorted([d["value"], d["colour"]] for d in inp["dice"]) == r["dice"]
        assert not Counter(map(tuple, r["thrown"])) - Counter(map(tuple, r["dice"]))


# --- the pixels -------------------------------------------------------------------------


def read_counts(folder: Path, name: str) -> tuple[Counter[tuple[int, str]], list[Any]]:
    """(value, colour) counts read from a frame, and the readings too unsure to score unasked."""
    from controller.config import TableSection
    from vision import read_dice

    img = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
    assert img is not None, f"{folder.name}/{name} is not a readable image"
    readings = read_dice(img)
    threshold = TableSection.model_fields["confidence_threshold"].default
    unsure = [(r.value, r.colour, round(r.confidence, 2)) for r in readings if r.confidence < threshold]
    return Counter((r.value, r.colour) for r in readings), unsure


@pytest.mark.slow
@pytest.mark.parametrize(
    "folder",
    [ANGLER, NOZOKU, NOZOKU_MULTI],
    ids=["die-angler", "nozoku-dice", "nozoku-dice-multi"],
)
def test_every_settled_frame_reads_right(folder: Path) -> None:
    """vision.read_dice gives every die's value and colour in every settled frame, sure enough that
    the table scores it without asking (confidence at or above the default threshold)."""
    _, truth, _ = session(folder)
    wrong = []
    for s in {s["file"]: s for s in truth["settled"]}.values():
        got, unsure = read_counts(folder, s["file"])
        want = Counter((v, c) for v, c in s["dice"])
        if got != want:
            wrong.append(f"{s['file']}: not read {dict(want - got)}, read but absent {dict(got - want)}")
        elif unsure:
            wrong.append(f"{s['file']}: read right but unsure of {unsure}")
    frames = len({s["file"] for s in truth["settled"]})
    assert not wrong, f"{len(wrong)} of {frames} settled frames not read right:\n" + "\n".join(wrong)


def truth_reader(folder: Path) -> Any:
    """A stand-in for the vision reader that reports the truth of each settled frame (and no die in
    any other picture), so the session's timing and script are checked apart from the reader."""
    import hashlib

    from vision.reading import DieReading

    _, truth, _ = session(folder)
    known = {}
    for s in truth["settled"]:
        img = cv2.imread(str(folder / s["file"]), cv2.IMREAD_COLOR)
        assert img is not None, f"{folder.name}/{s['file']} is not a readable image"
        known[hashlib.sha1(img.tobytes()).hexdigest()] = s["dice"]

    def read(image: Any) -> list[DieReading]:
        dice = known.get(hashlib.sha1(image.tobytes()).hexdigest(), [])
        out = []
        for k, (value, colour) in enumerate(dice):
            x, y = 40.0 + 30 * k, 40.0
            quad = ((x - 10, y - 10), (x + 10, y - 10), (x + 10, y + 10), (x - 10, y + 10))
            out.append(DieReading(value=value, center=(x, y), quad=quad, confidence=0.99, colour=colour))
        return out

    return read


@pytest.mark.slow
@ALL
def test_the_table_plays_the_session_to_the_true_result(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real table loop (motion gate, script, button machinery, adapters, engine) on the recorded
    frames reaches the truth when the reader reads each settled frame right."""
    import controller.perceive
    from controller.demo import run_demo

    meta, truth, _ = session(folder)
    # the table's one perception step chooses its reader here: hand it the truth instead
    truth_read = controller.perceive.as_reader(truth_reader(folder))
    monkeypatch.setattr(controller.perceive, "reader_for", lambda *args, **kw: truth_read)
    out = run_demo(
        meta["setup"]["game"], session=folder, db=tmp_path / "demo.sqlite3", serve=False, quiet=True
    )
    assert (out["status"], out["scores"], out["winners"]) == ("over", truth["final_scores"], truth["winners"])
