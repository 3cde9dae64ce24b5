"""The event log in words: one sentence per logged event, for people at the table.

``describe(event, game)`` takes an event as ``/api/events`` serves it (``seq``,
``kind``, ``source``, ``player``, ``data``) and the game's name, and says what
happened: "bob threw 5 dice: 6, 5, 4, 4, 1", "half 1 scored: ann 31, bob 130;
bob's half doubled".  Every kind of the log is covered (``setup``, ``input``,
``outcome``, ``undo``, ``control`` with corrections, ``reading``, ``question``)
and every game's outcomes; anything unknown still reads as words (the event's
name and its details), never as raw JSON.

A secret stays secret: a ``secret`` input, and a choice that the game keeps hidden
until everyone has chosen (Dice Fighter's attack), are told as "made a secret
selection" without its content; the game's reveal outcome says what was chosen.

In another language (``lang="ja"``) the sentences come from that language's catalogue
(``display/lang/ja.json``, its ``event.*`` keys; ``display.i18n``): an outcome ``X`` is the
template ``event.outcome.X`` filled with its details, and ``event.outcome.X+key`` is added when
the detail ``key`` is set; the same secret rule decides what an input may say.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from display.i18n import catalogue, fill
from display.names import GAME_TITLES, Lang, game_title
from engine import Game, find_game


def _rules(game: str | None) -> type[Game] | None:
    """The game's rules class, to ask what its inputs mean (None for a game this engine lacks)."""
    try:
        return find_game(str(game))
    except ValueError:
        return None


def _words(name: str) -> str:
    return str(name).replace("_", " ").replace("-", " ")


def _list(items: Sequence[Any]) -> str:
    words = [str(i) for i in items]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


_GRID_ZONE = re.compile(r"r(\d{1,3})c(\d{1,3})")


def zone_name(zone: Any) -> str:
    """A board zone as people name it: a grid square's id (``r3c0``, counted from 0) as "row 4,
    column 1"; any other name in words (``inner_ring``: "inner ring")."""
    m = _GRID_ZONE.fullmatch(str(zone))
    if m:
        return f"row {int(m[1]) + 1}, column {int(m[2]) + 1}"
    return _words(str(zone))


def zone_label(zone: Any, lang: Lang = "en") -> str:
    """A board zone as people name it, in ``lang`` (``zone_name``; "4行1列" in Japanese)."""
    return zone_name(zone) if lang == "en" else _Say(lang).zone(zone)


def _die(d: Any) -> str:
    if not isinstance(d, Mapping):
        return str(d)
    colour = f"{d['colour']} " if d.get("colour") else ""
    kind = d.get("kind", "d6")
    kind = f"d{d['sides']}" if kind == "dN" and d.get("sides") else str(kind)
    where = ""
    if d.get("field_status") == "off":
        where = " (off the field)"
    elif d.get("zones"):
        zones = d["zones"] if isinstance(d["zones"], list) else [d["zones"]]
        where = f" (in {_list([zone_name(z) for z in zones])})"
    kind_txt = "" if kind == "d6" else f" {kind}"
    return f"{colour}{d.get('value')}{kind_txt}{where}".strip()


def _dice(dice: Any) -> str:
    if not isinstance(dice, list):
        return str(dice)
    return ", ".join(_die(d) for d in dice)


def _scores(scores: Any) -> str:
    if not isinstance(scores, Mapping):
        return str(scores)
    return ", ".join(f"{p} {v}" for p, v in scores.items())


def _value(v: Any) -> str:
    if isinstance(v, Mapping):
        if "name" in v:
            return str(v["name"])
        if "id" in v:
            return str(v["id"])
        if "number" in v:
            return f"card {v['number']}"
        if all(isinstance(x, int | float | str) for x in v.values()):
            return _scores(v)
        return ", ".join(f"{_words(k)} {_value(x)}" for k, x in v.items())
    if isinstance(v, list):
        if v and isinstance(v[0], Mapping) and "value" in v[0]:
            return _dice(v)
        return _list([_value(x) for x in v]) or "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def _details(detail: Mapping[str, Any]) -> str:
    """Any detail as "key value; key value" in words (the fallback)."""
    return "; ".join(f"{_words(k)} {_value(v)}" for k, v in detail.items())


def _fallback(who: str | None, name: str, detail: Mapping[str, Any]) -> str:
    head = f"{who}: {_words(name)}" if who else _words(name).capitalize()
    more = _details(detail)
    return f"{head} ({more})" if more else head


# -- inputs ---------------------------------------------------------------------------------
def is_secret(data: Mapping[str, Any], game: str | None) -> bool:
    """An input that must not say what was chosen: a secret selection, or a choice the game keeps
    hidden until everyone has chosen (its payload names one of the game's ``hidden_choices``)."""
    rules = _rules(game)
    hidden = rules.hidden_choices if rules is not None else frozenset()
    return data.get("type") == "secret" or any(k in hidden for k in data if k not in ("type", "player"))


def _input(data: Mapping[str, Any], player: str | None, game: str | None, source: str) -> str:
    who = player or data.get("player") or "the table"
    kind = data.get("type")
    payload = {k: v for k, v in data.items() if k not in ("type", "player")}
    by = {"admin": " (entered by the referee)", "correction": " (a correction)"}.get(source, "")
    rules = _rules(game)
    if is_secret(data, game):
        return f"{who} made a secret selection (shown when everyone has chosen){by}"
    if kind in ("roll", "throw"):
        verb = "rolled" if kind == "roll" else "threw"
        dice = payload.get("dice")
        if isinstance(dice, list):
            n = f"{len(dice)} {'die' if len(dice) == 1 else 'dice'}"
            if rules is not None and rules.throw_shows_board:
                return f"{who} {verb}; the board shows {n}: {_dice(dice)}{by}"
            return f"{who} {verb} {n}: {_dice(dice)}{by}"
        if isinstance(payload.get("values"), Mapping):
            return f"{verb.capitalize()} for the order: {_scores(payload['values'])}{by}"
        return f"{who} {verb}" + (f" ({_details(payload)})" if payload else "") + by
    if kind == "start":
        return f"The game was started{by}"
    if kind == "reveal":
        what = ", ".join(f"{_words(k)} {_value(v)}" for k, v in payload.items())
        return f"Turned face up: {what}{by}" if player is None else f"{who} turned face up: {what}{by}"
    if kind == "choice":
        return f"{who} chose: {_choice(payload)}{by}"
    return _fallback(who, str(kind or "input"), payload) + by


def _choice(p: Mapping[str, Any]) -> str:
    if p.get("pass") is True or p.get("done") is True:
        return "to pass" if "pass" in p else "to stop"
    if "keep" in p:
        return f"keep {_value(p['keep'])}"
    if "take" in p:
        take = p["take"]
        taken = f"the dice showing {take['value']}" if isinstance(take, Mapping) and "value" in take else take
        return f"take {taken}" + (f" from {p['from']}" if "from" in p else "")
    if p.get("chips") is True:
        return "take chips"
    if "action" in p:
        rest = {k: v for k, v in p.items() if k != "action"}
        return _words(p["action"]) + (f" ({_details(rest)})" if rest else "")
    return _details(p)


# -- outcomes -------------------------------------------------------------------------------
Phrase = Callable[[str | None, Mapping[str, Any]], str]


def _half_scored(who: str | None, d: Mapping[str, Any]) -> str:
    text = f"Half {d.get('half')} scored: {_scores(d.get('scores', {}))}"
    if d.get("doubled"):
        text += ", doubled (no rethrown die ended on the board)"
    return text


def _damage(who: str | None, d: Mapping[str, Any]) -> str:
    text = f"{d.get('by')} hit {who} for {d.get('damage')} damage"
    if d.get("burst"):
        text += f" ({d.get('base')} + {d.get('burst')} burst)"
    return text + (", guarded" if d.get("guarded") else "")


def _winners(d: Mapping[str, Any]) -> str:
    winners = d.get("winners")
    text = f"Game over: {_list(winners)} won" if winners else "Game over"
    if d.get("scores"):
        text += f" ({_scores(d['scores'])})"
    if d.get("totals"):
        text += f" ({_scores(d['totals'])})"
    return text + (f": {d['reason']}" if d.get("reason") else "")


OUTCOMES: dict[str, Phrase] = {
    # shared names
    "rolled": lambda w, d: (
        f"{w} rolled {_value(d.get('dice', []))}"
        + (f" (roll {d['roll']})" if "roll" in d else "")
        + (f", sum {d['sum']}" if "sum" in d else "")
    ),
    "passed": lambda w, d: f"{w} passed" + (f" ({_words(d['window'])})" if d.get("window") else ""),
    "game_over": lambda w, d: (
        _winners(d)
        if "winners" in d or not w
        else f"Game over: {w} won" + (f" ({_scores(d['totals'])})" if d.get("totals") else "")
    ),
    "round_started": lambda w, d: (
        f"Round {d.get('round')} begins"
        + (f" ({d['phase']} game)" if d.get("phase") else "")
        + (f", order {_list(d['order'])}" if d.get("order") else "")
    ),
    # DICETAR WARS
    "thrown": lambda w, d: f"{w} threw {d.get('dice')} dice ({_words(d.get('step', ''))})",
    "rethrow_needed": lambda w, d: (
        f"{w} must rethrow {d.get('dice')} {'die' if d.get('dice') == 1 else 'dice'} off the board"
    ),
    "half_scored": _half_scored,
    "replay_needed": lambda w, d: f"A tie ({_scores(d.get('totals', {}))}): the game is played again",
    # Dice Hunter
    "tile_revealed": lambda w, d: (
        f"Tile {d.get('tile')} turned up ({d.get('deck_remaining')} left in the deck)"
    ),
    "kept": lambda w, d: (
        f"{w} kept {', '.join(map(str, d.get('kept', [])))} and rolls {d.get('reroll')} again"
    ),
    "tile_taken": lambda w, d: (
        f"{w} took tile {d.get('tile')}" + (f" ({d['points']} points)" if d.get("points") is not None else "")
    ),
    "tile_stolen": lambda w, d: (
        f"{w} stole tile {d.get('tile')} from {d.get('from')} ({d.get('points')} points)"
    ),
    "chips_taken": lambda w, d: f"{w} took {d.get('chips')} chips ({d.get('chip_supply')} left)",
    "late_game_started": lambda w, d: f"The late game begins, order {_list(d.get('order', []))}",
    # Dice Fighter
    "fighter_confirmed": lambda w, d: f"{w} has chosen a fighter (hidden until both have)",
    "fighters_revealed": lambda w, d: f"Fighters revealed: {_scores(d)}",
    "fighter_clash": lambda w, d: _fallback(None, "both picked the same fighter: choose again", d),
    "dice_thrown": lambda w, d: (
        f"Round {d.get('round')} throw: "
        + ", ".join(
            (f"{x['owner']}'s " if x.get("owner") else "")
            + _die(x)
            + (" rang out" if x.get("rung_out") else "")
            for x in d.get("dice", [])
        )
    ),
    "ring_out": lambda w, d: f"{w}'s {d.get('colour')} die rang out",
    "ring_out_damage": lambda w, d: f"{w} takes {d.get('damage')} ring-out damage",
    "power_card_used": lambda w, d: f"{w} used power card {d.get('card')}",
    "just_guard_used": lambda w, d: f"{w} used just guard {d.get('card')}",
    "attack_declared": lambda w, d: f"{w} has declared an attack (hidden until both have)",
    "attacks_revealed": lambda w, d: f"Attacks revealed: {_scores(d)}",
    "special_rolled": lambda w, d: (
        f"{w} rolled the special {d.get('special')}: {d.get('colour')} {d.get('value')}"
    ),
    "special_failed": lambda w, d: f"{w}'s special {d.get('special')} failed: {d.get('why')}",
    "order_decided": lambda w, d: (
        f"Order rolls: {_scores(d.get('values', {}))}" + (", tied: roll again" if d.get("roll_again") else "")
    ),
    "burst": lambda w, d: f"Burst! highest die {d.get('highest')} (burst tokens: {d.get('burst_tokens')})",
    "burst_cleared": lambda w, d: "The burst tokens are cleared",
    "damage": _damage,
    "ko": lambda w, d: f"{w}'s {d.get('fighter')} is knocked out by {d.get('by')}",
    "power_card_laid": lambda w, d: f"{w} laid power card {d.get('card')}",
    "just_guard_received": lambda w, d: f"{w} received just guard {d.get('card')}",
    "end_flag": lambda w, d: f"The end flag is up (KO levels {_scores(d.get('ko_levels', {}))})",
    "sudden_death": lambda w, d: f"Sudden death: every fighter at {d.get('hp')} HP",
    "super_sudden_death": lambda w, d: (
        "Super sudden death" + (": throw again" if d.get("throw_again") else "")
    ),
    "game_won": lambda w, d: f"{w} won the game" + (f" ({_words(d['reason'])})" if d.get("reason") else ""),
    # Die-angler
    "card_revealed": lambda w, d: (
        f"Fish card {_value(d.get('card'))} turned up"
        + (
            f" (target {d['card']['target']})"
            if isinstance(d.get("card"), Mapping) and "target" in d["card"]
            else ""
        )
    ),
    "carry_over": lambda w, d: f"{_list(d.get('cards', []))} carried over: {d.get('why')}",
    "cooldown": lambda w, d: (
        "Resting dice: " + "; ".join(f"{p} {_list(v)}" for p, v in d.get("resting", {}).items())
    ),
    "extra_game_started": lambda w, d: f"Extra game for {_list(d.get('tied', []))}",
    "fish_on": lambda w, d: f"Fish on! {w} lands {_list(d.get('cards', []))}",
    "group_called": lambda w, d: (
        f"{_list(d.get('players', []))} to play" + (" together" if d.get("simultaneous") else "")
    ),
    "lured": lambda w, d: (
        f"{w} lured with the {d.get('by')}: now {_value(d.get('dice', []))}, sum {d.get('sum')}"
    ),
    "main_game_over": lambda w, d: f"The main game is over (held {_scores(d.get('held', {}))})",
    "reroll_called": lambda w, d: f"{w} rerolls with the {d.get('by')}",
    "rerolled": lambda w, d: f"{w} rerolled: {_value(d.get('dice', []))}, sum {d.get('sum')}",
    "roll_counted": lambda w, d: (
        f"{w}'s roll counts: sum {d.get('sum')}" + (", a catch" if d.get("success") else ", no catch")
    ),
    "selection_confirmed": lambda w, d: f"{w} has chosen (hidden until everyone has)",
    "selections_revealed": lambda w, d: (
        "Selections revealed: "
        + "; ".join(
            f"{p} {s.get('d6', 0)} d6" + (f" + {_list(s['specials'])}" if s.get("specials") else "")
            for p, s in d.get("selections", {}).items()
            if isinstance(s, Mapping)
        )
    ),
    # Nozoku Dice
    "action_done": lambda w, d: (
        f"{w}: {_words(d.get('action', ''))}"
        + (
            f" die {d['die']} (showing {d['from']})"
            if d.get("die") is not None and d.get("from") is not None
            else ""
        )
        + (f" to {d['to']}" if d.get("to") is not None else "")
    ),
    "action_impossible": lambda w, d: f"{w} cannot {_words(d.get('action', ''))} (card {d.get('card')})",
    "action_skipped": lambda w, d: f"{w} skipped {_words(d.get('action', ''))}",
    "card_played": lambda w, d: f"{w} played {_value(d.get('card'))}",
    "card_selected": lambda w, d: f"{w} has chosen a card (hidden until everyone has)",
    "cards_returned": lambda w, d: f"{w} returned cards ({_die(d.get('die'))})",
    "cards_revealed": lambda w, d: f"Cards revealed: {_value(d.get('cards', {}))}",
    "centre_rerolled": lambda w, d: f"{w} rerolled the centre's {_list(d.get('faces', []))}s",
    "centre_rolled": lambda w, d: f"{w} rolled {d.get('dice')} dice into the centre",
    "dice_taken": lambda w, d: f"{w} took {_dice(d.get('dice', []))}",
    "die_rerolled": lambda w, d: f"{w} rerolled die {d.get('die')}: {d.get('from')} to {d.get('to')}",
    "doubles_flipped": lambda w, d: f"{w} flipped doubles from {d.get('from')} to {d.get('to')}",
    "game_ended": lambda w, d: _winners(d),
    "hand_rolled": lambda w, d: f"{w} rolled {_dice(d.get('dice', []))}",
    "prophecy_failed": lambda w, d: f"{w}'s prophecy (card {d.get('card')}) failed",
    "prophecy_fulfilled": lambda w, d: f"{w}'s prophecy (card {d.get('card')}) came true",
    "prophecy_played": lambda w, d: f"{w} played a prophecy ({_value(d.get('card'))})",
}


def _outcome(data: Mapping[str, Any], player: str | None) -> str:
    name = str(data.get("event", "outcome"))
    who = player or data.get("player")
    raw = data.get("detail")
    detail: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    phrase = OUTCOMES.get(name)
    if phrase is not None:
        try:
            return phrase(who, detail)
        except (AttributeError, KeyError, TypeError, ValueError):
            pass  # an unexpected detail shape: the words of the fallback still read
    return _fallback(who, name, detail)


# -- the other kinds ------------------------------------------------------------------------
def _control(data: Mapping[str, Any], player: str | None) -> str:
    who = data.get("who") or player or "the referee"
    correction = data.get("correction")
    if correction == "confirm":
        return f"{who} confirmed reading {data.get('reading')}"
    if correction == "set_value":
        return f"{who} corrected reading {data.get('reading')} from {data.get('from')} to {data.get('to')}"
    if correction == "set_colour":
        return f"{who} said reading {data.get('reading')} is {data.get('to')}, not {data.get('from')}"
    if correction == "set_thrower":
        return f"{who} said reading {data.get('reading')} was thrown by {data.get('thrower')}"
    if correction == "not_a_die":
        return f"{who} said reading {data.get('reading')} is not a die: left out of the throw"
    if correction == "set_support":
        on = data.get("to")
        where = "the board" if on == "board" else f"die {on}"
        return f"{who} said reading {data.get('reading')} rests on {where}"
    if correction is not None:
        rest = {k: v for k, v in data.items() if k not in ("correction", "who")}
        return f"{who}: {_words(correction)}" + (f" ({_details(rest)})" if rest else "")
    action = data.get("action")
    if action == "position":
        return f"The table marked its place (input {data.get('inputs')} next)"
    if action == "not_tumbled":
        at = data.get("t")
        when = f" at {float(at):.1f} s" if isinstance(at, (int, float)) else ""
        why = data.get("reason") or "no rolling seen"
        return f"Flagged for the referee: the throw{when} did not tumble ({why}); it counts unless undone"
    if action == "scored_dice":
        return f"The table remembers where {len(data.get('dice', []))} scored dice lie"
    if action == "teach":
        return _teach(data, who)
    if action in ("pause", "start", "end"):
        return {"pause": f"{who} paused the game", "start": f"{who} (re)started the game"}.get(
            str(action), f"{who} ended the game"
        )
    return _fallback(str(who), str(action or "control"), {k: v for k, v in data.items() if k != "who"})


def _teach(data: Mapping[str, Any], who: str) -> str:
    """A step of teaching the table a die of its own (controller.teach); its crop's numbers left out."""
    step, roll, face = data.get("step"), data.get("roll"), data.get("face")
    if step == "start":
        return f"{who} started teaching the table {data.get('name')}"
    if step == "roll":
        return f"The camera saw roll {roll} of the die being taught (proposed: {data.get('proposed')})"
    if step == "answer":
        return (
            f"{who} left roll {roll} out: not the die"
            if face is None
            else f"{who} taught roll {roll} as {face}"
        )
    if step == "nudged":
        return f"The camera saw roll {roll} of the die being taught nudged, not rolled again: not counted"
    if step == "saved":
        return f"{who} saved the taught set ({data.get('crops')} crops) to {data.get('path')}"
    return f"{who} stopped teaching a die; nothing saved"


def _named(value: Any, names: Mapping[str, str], key: str = "") -> Any:
    """``value`` with every card or tile id in it replaced by its name (a player is never renamed)."""
    if isinstance(value, Mapping):
        out = {k: _named(v, names, str(k)) for k, v in value.items()}
        if "name" in value and isinstance(value.get("id"), str) and value["id"] in names:
            out["name"] = names[value["id"]]  # a card as its data gives it: its name in the page's language
        return out
    if isinstance(value, list):
        return [_named(v, names, key) for v in value]
    if isinstance(value, str) and key not in ("player", "type", "event", "kind", "colour"):
        return names.get(value, value)
    return value


def describe(
    event: Mapping[str, Any],
    game: str | None = None,
    names: Mapping[str, str] | None = None,
    lang: Lang = "en",
) -> str:
    """One event of the log in words (see the module docstring); ``names``: the game's cards and
    tiles by id (``display.names``), so that a sentence names them as people do, not by id;
    ``lang``: the language of the sentence."""
    if names:
        event = {**event, "data": _named(event.get("data"), names)}
    if lang != "en":
        return _Say(lang).event(event, game)
    kind = event.get("kind")
    raw = event.get("data")
    data: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    player = event.get("player")
    if kind == "setup":
        title = GAME_TITLES.get(str(data.get("game")), str(data.get("game")))
        return f"A new game of {title} for {_list(data.get('players', []))}"
    if kind == "input":
        return _input(data, player, game, str(event.get("source", "")))
    if kind == "outcome":
        return _outcome(data, player)
    if kind == "undo":
        return f"{data.get('who') or player or 'the referee'} undid event #{data.get('undoes')}"
    if kind == "control":
        return _control(data, player)
    if kind == "reading":
        dice = data.get("dice", [])
        return f"The camera read {len(dice)} {'die' if len(dice) == 1 else 'dice'}: {_dice(dice)}"
    if kind == "question":
        return f"Asked the referee: {data.get('text')}"
    return _fallback(player, str(kind or "event"), data)


def describe_events(
    events: Sequence[Mapping[str, Any]],
    game: str | None,
    names: Mapping[str, str] | None = None,
    lang: Lang = "en",
) -> list[dict[str, Any]]:
    """The events with their words (in ``lang``) added as ``text``."""
    return [{**e, "text": describe(e, game, names, lang)} for e in events]


# -- in a catalogue's language ----------------------------------------------------------------
class _Say:
    """The event log in the words of ``lang``'s catalogue (its ``event.*`` templates)."""

    def __init__(self, lang: Lang) -> None:
        self.lang, self.words = lang, catalogue(lang)

    def t(self, key: str, **fields: Any) -> str:
        return fill(self.words.get(f"event.{key}", key), fields)

    def list(self, items: Any) -> str:
        return self.words["list.sep"].join(str(i) for i in items) if isinstance(items, list) else str(items)

    def colour(self, colour: Any) -> str:
        return self.words.get(f"colour.{colour}", str(colour))

    def zone(self, zone: Any) -> str:
        m = _GRID_ZONE.fullmatch(str(zone))
        return self.t("zone.grid", row=int(m[1]) + 1, column=int(m[2]) + 1) if m else _words(str(zone))

    def die(self, d: Any) -> str:
        if not isinstance(d, Mapping):
            return str(d)
        kind = d.get("kind", "d6")
        kind = f"d{d['sides']}" if kind == "dN" and d.get("sides") else str(kind)
        text = " ".join(
            x for x in (self.colour(d["colour"]) if d.get("colour") else "", str(d.get("value"))) if x
        )
        text += "" if kind == "d6" else f" {kind}"
        if d.get("field_status") == "off":
            text += self.t("die.off_field")
        elif d.get("zones"):
            zones = d["zones"] if isinstance(d["zones"], list) else [d["zones"]]
            text += self.t("die.in", zones=self.list([self.zone(z) for z in zones]))
        return text

    def dice(self, dice: Any) -> str:
        return self.list([self.die(d) for d in dice]) if isinstance(dice, list) else str(dice)

    def scores(self, scores: Any) -> str:
        if not isinstance(scores, Mapping):
            return self.value(scores)
        return self.list([f"{p} {self.value(v)}" for p, v in scores.items()])

    def value(self, v: Any) -> str:
        if isinstance(v, Mapping):
            for key in ("name", "id"):
                if key in v:
                    return str(v[key])
            if "number" in v:
                return self.t("card", number=v["number"])
            if "value" in v:
                return self.die(v)
            return self.list([f"{_words(k)} {self.value(x)}" for k, x in v.items()])
        if isinstance(v, list):
            return self.list([self.value(x) for x in v]) if v else self.t("none")
        if isinstance(v, bool):
            return self.t("yes" if v else "no")
        return self.colour(v) if isinstance(v, str) else str(v)

    def fields(self, who: Any, detail: Mapping[str, Any]) -> dict[str, str]:
        out = {str(k): self.value(v) for k, v in detail.items()}
        return {**out, "who": str(who or self.t("the_table")), "all": self.scores(detail)}

    def event(self, event: Mapping[str, Any], game: str | None) -> str:
        kind = event.get("kind")
        raw = event.get("data")
        data: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        player = event.get("player")
        if kind == "setup":
            title = game_title(str(data.get("game")), self.lang)
            return self.t("setup", title=title, players=self.list(list(data.get("players", []))))
        if kind == "input":
            return self.input(data, player, game, str(event.get("source", "")))
        if kind == "outcome":
            return self.outcome(data, player)
        if kind == "undo":
            return self.t(
                "undo", who=data.get("who") or player or self.t("the_referee"), seq=data.get("undoes")
            )
        if kind == "control":
            return self.control(data, player)
        if kind == "reading":
            dice = data.get("dice", [])
            return self.t("reading", n=len(dice) if isinstance(dice, list) else "?", dice=self.dice(dice))
        if kind == "question":
            return self.t("question")
        return self.t("other", who=player or "", what=_words(str(kind or "")))

    def input(self, data: Mapping[str, Any], player: str | None, game: str | None, source: str) -> str:
        who = player or data.get("player") or self.t("the_table")
        kind = data.get("type")
        payload = {k: v for k, v in data.items() if k not in ("type", "player")}
        by = self.t(f"by.{source}") if source in ("admin", "correction") else ""
        if is_secret(data, game):  # the secret rule, the same as in English
            return self.t("input.secret", who=who) + by
        rules = _rules(game)
        if kind in ("roll", "throw"):
            dice = payload.get("dice")
            if isinstance(dice, list):
                board = "_board" if kind == "throw" and rules is not None and rules.throw_shows_board else ""
                return self.t(f"input.{kind}{board}", who=who, n=len(dice), dice=self.dice(dice)) + by
            if isinstance(payload.get("values"), Mapping):
                return self.t("input.order", scores=self.scores(payload["values"])) + by
            return self.t(f"input.{kind}_bare", who=who) + by
        if kind == "start":
            return self.t("input.start") + by
        if kind == "reveal":
            what = self.list([self.value(v) for v in payload.values()])
            return self.t("input.reveal" if player is None else "input.reveal_by", who=who, what=what) + by
        if kind == "choice":
            return self.t("input.choice", who=who, choice=self.choice(payload)) + by
        return self.t("input.other", who=who, what=_words(str(kind or ""))) + by

    def choice(self, p: Mapping[str, Any]) -> str:
        if p.get("pass") is True or p.get("done") is True:
            return self.t("choice.pass" if "pass" in p else "choice.stop")
        if "keep" in p:
            return self.t("choice.keep", what=self.value(p["keep"]))
        if "take" in p:
            take = p["take"]
            what = (
                self.t("choice.dice_showing", value=take["value"])
                if isinstance(take, Mapping) and "value" in take
                else self.value(take)
            )
            return self.t(
                "choice.take_from" if "from" in p else "choice.take", what=what, **{"from": p.get("from")}
            )
        if p.get("chips") is True:
            return self.t("choice.chips")
        if "action" in p:
            return self.words.get(f"word.{p['action']}", _words(str(p["action"])))
        return self.value(dict(p))

    def outcome(self, data: Mapping[str, Any], player: str | None) -> str:
        name = str(data.get("event", "outcome"))
        raw = data.get("detail")
        detail: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        fields = self.fields(player or data.get("player"), detail)
        if f"event.outcome.{name}" not in self.words:
            return self.t("outcome.other", who=fields["who"], what=_words(name))
        text = self.t(f"outcome.{name}", **fields)
        for key, value in detail.items():  # the parts said only when their detail is set
            if value not in (None, False, "", [], {}) and f"event.outcome.{name}+{key}" in self.words:
                text += self.t(f"outcome.{name}+{key}", **fields)
        return text

    def control(self, data: Mapping[str, Any], player: str | None) -> str:
        who = data.get("who") or player or self.t("the_referee")
        correction = data.get("correction")
        fields = {"who": who, "reading": data.get("reading"), "thrower": data.get("thrower")}
        if correction in ("confirm", "set_value", "set_colour", "set_thrower", "not_a_die"):
            to, was = data.get("to"), data.get("from")
            if correction == "set_colour":
                to, was = self.colour(to), self.colour(was)
            return self.t(f"control.{correction}", **fields, to=to, **{"from": was})
        if correction is not None:
            return self.t("control.correction", who=who, what=_words(str(correction)))
        action = data.get("action")
        if action == "position":
            return self.t("control.position", inputs=data.get("inputs"))
        if action == "not_tumbled":
            return self.t("control.not_tumbled")
        if action == "scored_dice":
            return self.t("control.scored_dice", n=len(data.get("dice", [])))
        if action in ("pause", "start", "end"):
            return self.t(f"control.{action}", who=who)
        if action == "teach":  # a step of teaching the table a die (controller.teach)
            step = str(data.get("step"))
            if step == "answer" and data.get("face") is None:
                step = "skip"
            name = data.get("name")
            if step == "start" and isinstance(data.get("kind"), str):
                name = fill(
                    self.words["learn.name"],
                    {
                        "owner": data.get("owner"),
                        "colour": self.colour(data.get("colour")),
                        "kind": data["kind"],
                    },
                )
            if f"event.control.teach.{step}" in self.words:
                fields = {k: data.get(k) for k in ("roll", "face", "proposed", "crops", "path")}
                return self.t(f"control.teach.{step}", who=who, name=name, **fields)
        return self.t("control.other", who=who, what=_words(str(action or "")))
