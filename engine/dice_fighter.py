"""Dice Fighter (ダイスファイター): two fighters, three percentile d10 each, a centre line.

Rules: ``dice-fighter.ja.txt`` with RULINGS.md section 5 (which overrides it).
Exactly two players; ``players[0]`` sits on side ``a`` of the centre line,
``players[1]`` on side ``b``.  Every input, with an example: ``engine/SCENARIOS.md``.
Card texts are data (``decks/dice-fighter.example.toml``, key ``cards``), read
by :meth:`DiceFighter.parse_data`; the file describes the effect vocabulary.

Shape of a game
    Both players secretly pick their first fighter (``secret``); the picks are
    revealed together.  A round: one ``throw`` of all six dice (both players at
    once), the after-throw window for power cards, attack declarations when a
    special command is matched, the special's damage roll, the damage-card
    turns (power cards, just-guard), then damage, ring-out damage, KO check and
    level check.  After a KO: support icons (``reveal`` of a drawn power card;
    just-guard cards are handed over automatically) and a new secret fighter pick.

Decisions the documents leave open (a referee's least surprising reading):

* Ownership is by side only: every die on side ``a`` (or on a power card of
  ``players[0]``) is that player's this round, whoever threw it.  A die on the
  centre line (``side: "line"``) is refused: a referee settles it first.
* A rung-out die (``field_status: "off"``) must carry ``"thrower"``: the
  camera cannot tell two red dice apart, so the controller asks the players
  (buttons or display) and fills the field in; the engine never guesses.  A
  die on a power card counts for the card's owner; if the throw says its
  ``thrower`` was the other player, it is rung out (RULINGS: only one's own
  laid power cards are field).  Without ``thrower`` a die on a power card is
  taken as its owner's, since the cards lie at the owner's edge of the field.
  Option ``require_card_thrower`` (default false) makes ``thrower`` mandatory there.
* A throw lists all six dice: two each of red, blue and green, kind ``d10p``.
  A player's rung-out dice cannot repeat a colour (each holds one of each).
* Power-card slots: the n-th power card a player lays lies in their n-th slot,
  named ``"<player>-power-<n>"`` unless option ``power_slots``
  (``{"ann": ["power-first-1", ...], ...}``) names the board's slots.  A die on
  a known slot with no card laid is off the field.
* With no die on one's side the highest die is ``<0>``: value 0, matches no
  command (a command needs real dice, so ``<0>`` is never ``<00>``).
  ``<0>`` against ``<00>`` is equal highest, hence burst mode.
* Attack declarations: only players whose dice match a command (with the
  level gate for super-specials: ``level`` is the minimum level of the fighter
  in play) declare, ``special`` or ``normal``.  Declarations are simultaneous:
  until every such player has declared, only *who* declared is shown (option
  ``open_declarations`` true shows them as they come).  Commands of every
  fighter card in a player's stack count (the rules' overlapping cards).
* A special's damage roll is a ``throw`` of one die whose colour is one of
  the roller's dice this round; it fails when that die lands on the
  opponent's side or off the field (no ring-out damage for it).  A failed
  special deals nothing and leaves burst tokens in place; a roll of <00> deals
  nothing and clears them.  Two specials at once: both rolls are entered, in
  any order.
* Normal attack colour (for just-guard): among the attacker's equal highest
  dice the engine declares a colour the defender holds no unused just-guard
  for, if there is one (the attacker's obvious best), else red, blue, green.
* Burst: a tie adds one token and the next throw follows at once.  Ring-out
  damage of that throw still counts (option ``ring_out_on_burst``, default
  true).  Each throw is a new ``round`` (one special per player per throw).
  The bonus (+10 per token) goes to every normal attack and special that deals
  damage; then tokens clear.  A super-special ignores the tokens and keeps them.
* Just-guard: the defender's choice during their card turn, against a normal
  attack or a special roll of its colour: that attack deals nothing, bonus
  included, and the card is used up.  Super-specials (no die colour) cannot be
  just-guarded, and no power card applies to them (the document's NG examples).
* Card order: attacker, then defender.  Two damaging specials at once: the
  player with the higher fighter level, then the larger damage, then a roll-off
  (``roll`` input, equal values roll again) does all their card decisions first.
  A player with nothing usable is skipped; roll-offs only happen when both
  players have something usable.
* Damage ``set_hp`` (e.g. "opponent's HP becomes 10") puts tokens so the
  remaining HP is that value; it never heals.
* Support icons apply when a KO'd fighter's owner goes on playing: ``power``
  waits for a ``reveal`` naming the card drawn (skipped when the deck is
  empty), ``just_guard`` hands over the first unused card of that colour (none
  left: nothing).  The game-ending KO grants nothing.
* Fighter hands are not tracked card by card by default: a pick must be a deck
  card nobody has played yet, and a player has ``hand_size`` (6) cards in all.
  Two simultaneous picks of the same card (a mis-entry) are both cleared and
  announced (``fighter_clash``), never refused one-sidedly: that would tell the
  second picker the first pick.
  Option ``hands`` (``{"ann": [6 ids], "bob": [...]}``) checks picks exactly;
  it then sits in the setup line, so use it only where that log is private.
* End flag at ``end_flag_levels`` (5) KO'd levels.  Victory condition 2 on
  equal totals goes to sudden death; a player left with no fighter to play
  before any end flag (possible only with other decks) loses.  Entering sudden
  death, or after a mutual sudden-death KO with equal levels: exactly one empty
  hand loses, both empty gives super sudden death, else both pick again (HP
  ``sudden_death_hp``, 10).  Comparing the levels KO'd in sudden death is the
  same as comparing totals, since totals were equal.
* Super sudden death: one throw, each side's dice summed (rung-out dice count
  nothing, no ring-out damage, no cards); a side with at least three dice, all
  showing <00>, wins outright (the camera cannot tell who threw a die on the
  field, so "the three dice one threw" is read as the dice on one's side);
  equal sums throw again.
* After-throw power cards (``die_shift``) move a die on one's own side only.
  Option ``initial_power`` (player -> card id or list) replaces the deal of
  the deck's ``initial = true`` cards (first to ``players[0]``).
* In sudden death the stack of fighter cards keeps its commands; the fighter
  in play (HP ``sudden_death_hp``) keeps its level for super-specials.

Scores: the sum of the levels of the opponent's fighters a player has KO'd.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, ClassVar

from engine.core import (
    JSON,
    Choice,
    ChoiceField,
    Context,
    DataError,
    Die,
    DieEntry,
    DieKind,
    Expectation,
    FieldStatus,
    Game,
    Input,
    InputKind,
    Outcome,
    Question,
    Reading,
    Result,
    RuleError,
    Side,
)
from engine.throws import as_kind, count_question, die_json, doubt, kind_doubt, reading_ids, thrown_again

COLOURS = ("red", "blue", "green")
DICE_PER_PLAYER = 3
RING_OUT_DAMAGE = 10
TOKEN = 10
TIMINGS = ("after_throw", "deal_damage", "receive_damage")
POWER_EFFECTS = {"after_throw": "die_shift", "deal_damage": "damage_add", "receive_damage": "damage_reduce"}
SPECIAL_EFFECTS = ("roll", "damage", "dice_sum", "set_hp")


class OutcomeKind(StrEnum):
    """Events of a Dice Fighter game (``Outcome.event``)."""

    FIGHTER_CONFIRMED = "fighter_confirmed"
    FIGHTERS_REVEALED = "fighters_revealed"
    FIGHTER_CLASH = "fighter_clash"
    DICE_THROWN = "dice_thrown"
    RING_OUT = "ring_out"
    POWER_CARD_USED = "power_card_used"
    JUST_GUARD_USED = "just_guard_used"
    PASSED = "passed"
    ATTACK_DECLARED = "attack_declared"
    ATTACKS_REVEALED = "attacks_revealed"
    SPECIAL_ROLLED = "special_rolled"
    SPECIAL_FAILED = "special_failed"
    ORDER_DECIDED = "order_decided"
    BURST = "burst"
    BURST_CLEARED = "burst_cleared"
    DAMAGE = "damage"
    RING_OUT_DAMAGE = "ring_out_damage"
    KO = "ko"
    POWER_CARD_LAID = "power_card_laid"
    JUST_GUARD_RECEIVED = "just_guard_received"
    END_FLAG = "end_flag"
    SUDDEN_DEATH = "sudden_death"
    SUPER_SUDDEN_DEATH = "super_sudden_death"
    GAME_WON = "game_won"


# -- card data -----------------------------------------------------------------


@dataclass(frozen=True)
class DieCondition:
    """One die a command needs: colour, exact value or bounds, above another die."""

    colour: str | None = None
    value: int | None = None
    min: int | None = None
    max: int | None = None
    above: int | None = None  # index of another condition of the same command

    def admits(self, die: Die) -> bool:
        if self.colour is not None and die.colour != self.colour:
            return False
        if self.value is not None and die.value != self.value:
            return False
        if self.min is not None and die.value < self.min:
            return False
        return self.max is None or die.value <= self.max


@dataclass(frozen=True)
class Special:
    """A special (fighter card) or super-special (centre-line card) command and effect."""

    id: str
    name: str
    command: tuple[DieCondition, ...]
    effect: str
    amount: int = 0
    level: int = 1  # minimum level of the fighter in play (super-specials)
    super: bool = False

    def match(self, dice: Sequence[Die]) -> tuple[Die, ...] | None:
        """The matched dice (highest sum when several ways match), or None."""
        best: tuple[Die, ...] | None = None
        for perm in itertools.permutations(dice, len(self.command)):
            if not all(c.admits(d) for c, d in zip(self.command, perm, strict=True)):
                continue
            if any(
                c.above is not None and d.value <= perm[c.above].value
                for c, d in zip(self.command, perm, strict=True)
            ):
                continue
            if best is None or sum(d.value for d in perm) > sum(d.value for d in best):
                best = perm
        return best


@dataclass(frozen=True)
class FighterCard:
    id: str
    name: str
    level: int
    hp: int
    specials: tuple[Special, ...] = ()
    support: str | None = None  # "power" or "just_guard"
    support_colour: str | None = None


@dataclass(frozen=True)
class PowerCard:
    id: str
    name: str
    timing: str
    effect: str
    amount: int
    initial: bool = False


@dataclass(frozen=True)
class JustGuardCard:
    id: str
    colour: str


@dataclass(frozen=True)
class Deck:
    """All card texts of one Dice Fighter set, validated."""

    fighters: Mapping[str, FighterCard]
    power: Mapping[str, PowerCard]
    just_guard: Mapping[str, JustGuardCard]
    supers: tuple[Special, ...]

    def __deepcopy__(self, memo: dict[int, Any]) -> Deck:
        return self  # immutable card texts: Game.apply's snapshot need not copy them


class _Reader:
    """Typed access to one TOML entry, raising DataError naming file, entry and field."""

    def __init__(self, source: str, entry: str, raw: Any) -> None:
        self.source, self.entry = source, entry
        if not isinstance(raw, Mapping):
            raise DataError(source, entry, "-", f"expected a table, got {raw!r}")
        self.raw: Mapping[str, Any] = raw

    def fail(self, name: str, why: str) -> DataError:
        return DataError(self.source, self.entry, name, why)

    def text(self, name: str, default: str | None = None) -> str:
        v = self.raw.get(name, default)
        if not isinstance(v, str) or not v:
            raise self.fail(name, f"expected a non-empty string, got {v!r}")
        return v

    def number(
        self,
        name: str,
        default: int | None = None,
        *,
        lo: int = 0,
        hi: int = 10**6,
        tens: bool = False,
        label: str | None = None,
    ) -> int:
        v = self.raw.get(name, default)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise self.fail(label or name, f"expected an integer {lo}..{hi}, got {v!r}")
        if tens and v % TOKEN:
            raise self.fail(
                label or name, f"expected a multiple of {TOKEN} (damage comes in tokens), got {v!r}"
            )
        return v

    def colour(self, name: str) -> str | None:
        v = self.raw.get(name)
        if v is not None and v not in COLOURS:
            raise self.fail(name, f"expected one of {list(COLOURS)}, got {v!r}")
        return v


def _parse_command(r: _Reader) -> tuple[DieCondition, ...]:
    raw = r.raw.get("command")
    if not isinstance(raw, list) or not 1 <= len(raw) <= 2 * DICE_PER_PLAYER:
        raise r.fail("command", f"expected a list of 1-6 die conditions, got {raw!r}")
    out = []
    for i, cond in enumerate(raw):
        c = _Reader(r.source, r.entry, cond) if isinstance(cond, Mapping) else None
        if c is None:
            raise r.fail(
                f"command[{i}]", f"expected a table such as {{colour = 'red', max = 50}}, got {cond!r}"
            )
        unknown = set(c.raw) - {"colour", "value", "min", "max", "above"}
        if unknown:
            raise r.fail(f"command[{i}]", f"unknown keys {sorted(unknown)}")
        above = c.raw.get("above")
        if above is not None and (
            not isinstance(above, int) or isinstance(above, bool) or not 0 <= above < len(raw) or above == i
        ):
            raise r.fail(f"command[{i}].above", f"expected the index of another condition, got {above!r}")
        bounds = {
            k: c.number(k, lo=0, hi=90, tens=True, label=f"command[{i}].{k}") if k in c.raw else None
            for k in ("value", "min", "max")
        }
        colour = c.raw.get("colour")
        if colour is not None and colour not in COLOURS:
            raise r.fail(f"command[{i}].colour", f"expected one of {list(COLOURS)}, got {colour!r}")
        out.append(DieCondition(colour, bounds["value"], bounds["min"], bounds["max"], above))
    return tuple(out)


def _parse_special(source: str, entry: str, raw: Any, *, is_super: bool) -> Special:
    r = _Reader(source, entry, raw)
    effect = r.text("effect")
    if effect not in SPECIAL_EFFECTS:
        raise r.fail("effect", f"expected one of {list(SPECIAL_EFFECTS)}, got {effect!r}")
    needs_amount = effect in ("damage", "set_hp")
    amount = r.number("amount", None if needs_amount else 0, lo=TOKEN if needs_amount else 0, tens=True)
    level = r.number("level", 1, lo=1, hi=99) if is_super else 1
    return Special(entry, r.text("name", entry), _parse_command(r), effect, amount, level, is_super)


def _entries(raw: Mapping[str, Any], key: str, source: str) -> list[_Reader]:
    items = raw.get(key, [])
    if not isinstance(items, list):
        raise DataError(source, key, "-", f"expected [[{key}]] entries, got {items!r}")
    readers, seen = [], set()
    for i, item in enumerate(items):
        ident = item.get("id") if isinstance(item, Mapping) else None
        r = _Reader(source, f"{key}[{i}]", item)
        r.entry = r.text("id")
        if ident in seen:
            raise r.fail("id", f"duplicate id {ident!r}")
        seen.add(ident)
        readers.append(r)
    return readers


def parse_deck(raw: Mapping[str, Any], source: str) -> Deck:
    """Validate a Dice Fighter card file (see ``decks/dice-fighter.example.toml``)."""
    fighters: dict[str, FighterCard] = {}
    for r in _entries(raw, "fighter", source):
        specials = r.raw.get("special", [])
        if isinstance(specials, Mapping):
            specials = [specials]
        if not isinstance(specials, list):
            raise r.fail("special", f"expected a table or a list of tables, got {specials!r}")
        parsed = tuple(
            _parse_special(source, r.entry if i == 0 else f"{r.entry}#{i + 1}", s, is_super=False)
            for i, s in enumerate(specials)
        )
        support, colour = r.raw.get("support"), None
        if isinstance(support, str) and support.startswith("just_guard:"):
            support, colour = "just_guard", support.split(":", 1)[1]
            if colour not in COLOURS:
                raise r.fail("support", f"just_guard colour must be one of {list(COLOURS)}, got {colour!r}")
        elif support not in (None, "power"):
            raise r.fail("support", f"expected 'power' or 'just_guard:<colour>', got {support!r}")
        fighters[r.entry] = FighterCard(
            r.entry,
            r.text("name", r.entry),
            r.number("level", lo=1, hi=99),
            r.number("hp", lo=TOKEN, tens=True),
            parsed,
            support,
            colour,
        )
    if not fighters:
        raise DataError(source, "fighter", "-", "expected at least one [[fighter]] entry")
    power: dict[str, PowerCard] = {}
    for r in _entries(raw, "power", source):
        timing = r.text("timing")
        if timing not in TIMINGS:
            raise r.fail("timing", f"expected one of {list(TIMINGS)}, got {timing!r}")
        effect = r.text("effect")
        if effect != POWER_EFFECTS[timing]:
            raise r.fail(
                "effect", f"timing {timing!r} takes effect {POWER_EFFECTS[timing]!r}, got {effect!r}"
            )
        initial = r.raw.get("initial", False)
        if not isinstance(initial, bool):
            raise r.fail("initial", f"expected true or false, got {initial!r}")
        power[r.entry] = PowerCard(
            r.entry,
            r.text("name", r.entry),
            timing,
            effect,
            r.number("amount", lo=TOKEN, hi=90, tens=True),
            initial,
        )
    guards: dict[str, JustGuardCard] = {}
    for r in _entries(raw, "just_guard", source):
        colour = r.colour("colour")
        if colour is None:
            raise r.fail("colour", f"expected one of {list(COLOURS)}")
        guards[r.entry] = JustGuardCard(r.entry, colour)
    supers = []
    for r in _entries(raw, "centre_line", source):
        if "super" in r.raw:
            supers.append(_parse_special(source, r.entry, r.raw["super"], is_super=True))
    ids = [s.id for f in fighters.values() for s in f.specials] + [s.id for s in supers]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise DataError(source, dup[0], "id", "a fighter and a centre-line card share this id")
    return Deck(fighters, power, guards, tuple(supers))


# -- round state ---------------------------------------------------------------


@dataclass(frozen=True)
class ThrownDie:
    """A die of the current throw and whose it is this round (None: rung out)."""

    die: Die
    owner: str | None
    thrower: str | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> ThrownDie:
        return self  # frozen all the way down

    def to_json(self, index: int) -> JSON:
        out: JSON = {
            "index": index,
            "value": self.die.value,
            "colour": self.die.colour,
            "owner": self.owner,
            "rung_out": self.owner is None,
        }
        if self.thrower is not None:
            out["thrower"] = self.thrower
        return out


@dataclass
class Attack:
    """One attack of this round, from declaration to its damage."""

    attacker: str
    defender: str
    kind: str  # "normal", "special", "super"
    special: str | None = None
    base: int = 0
    colour: str | None = None
    effect: str = "damage"
    amount: int = 0
    rolled: bool = True
    failed: bool = False
    added: int = 0
    reduced: int = 0
    guarded: bool = False
    cards: list[str] = field(default_factory=list)

    @property
    def takes_cards(self) -> bool:
        """Power cards, just-guard and the burst bonus only meet damage actually being dealt."""
        return self.kind != "super" and not self.failed and self.base > 0

    def to_json(self) -> JSON:
        out: JSON = {
            "attacker": self.attacker,
            "defender": self.defender,
            "kind": self.kind,
            "base": self.base,
            "colour": self.colour,
        }
        if self.special is not None:
            out["special"] = self.special
        if not self.rolled:
            out["awaiting_roll"] = True
        for name in ("failed", "guarded"):
            if getattr(self, name):
                out[name] = True
        if self.added or self.reduced:
            out.update(added=self.added, reduced=self.reduced)
        if self.cards:
            out["cards"] = list(self.cards)
        return out


class DiceFighter(Game):
    """The Dice Fighter rules: see the module docstring for every decision taken."""

    name: ClassVar[str] = "dice-fighter"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    data_files: ClassVar[dict[str, str]] = {"cards": "dice-fighter.example.toml"}
    dice_kinds: ClassVar[tuple[DieKind, ...]] = (DieKind.D10P,)  # percentile d10s (RULINGS.md)
    hidden_choices: ClassVar[frozenset[str]] = frozenset({"attack"})

    @classmethod
    def parse_data(cls, key: str, raw: Mapping[str, Any], source: str) -> Any:
        if key != "cards":
            raise DataError(source, key, "-", "dice-fighter reads only the 'cards' data file")
        return parse_deck(raw, source)

    def __init__(
        self,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(players, options, rng, data)
        deck = self.data.get("cards")
        if not isinstance(deck, Deck):
            raise RuleError(
                "dice-fighter needs its card data: data={'cards': parse_deck(...)} "
                "(the scenario runner loads decks/dice-fighter.example.toml)"
            )
        self.deck: Deck = deck
        self.side_of = {players[0]: Side.A, players[1]: Side.B}
        self._read_options()
        self.fighters: dict[str, list[str]] = {p: [] for p in self.players}
        self.tokens = {p: 0 for p in self.players}
        self.ko_levels = {p: 0 for p in self.players}
        self.kod: dict[str, list[str]] = {p: [] for p in self.players}  # fighters each player KO'd
        self.damage_taken = {p: 0 for p in self.players}  # tokens, all time
        self.tokens_cleared = {p: 0 for p in self.players}  # tokens taken off at KOs
        self.power_laid: dict[str, list[str]] = {p: [] for p in self.players}
        self.power_used: set[str] = set()
        self.just_guards: dict[str, list[str]] = {p: [] for p in self.players}
        self.guards_used: set[str] = set()
        self.burst = 0
        self.round = 0
        self.phase = "select_fighter"
        self.sudden_death = False
        self.super_sudden_death = False
        self.dice: list[ThrownDie] = []
        self.window_passed: set[str] = set()
        self.selecting: list[str] = list(self.players)
        self._secret_picks: dict[str, str] = {}
        self.drawing: list[str] = []
        self.attack_options: dict[str, list[str]] = {}
        self._declared: dict[str, str] = {}
        self.attacks: list[Attack] = []
        self.card_turns: list[str] = []
        self.order_rolls: list[JSON] = []
        self.tie_pending = False
        self.last_round: JSON = {}
        self.ended: Result | None = None
        self._lay_initial_power()

    def _read_options(self) -> None:
        o = self.options
        for name in ("require_card_thrower", "open_declarations", "ring_out_on_burst"):
            if not isinstance(o.get(name, False), bool):
                raise RuleError(f"option {name!r} must be true or false, got {o[name]!r}")
        self.require_card_thrower = bool(o.get("require_card_thrower", False))
        self.open_declarations = bool(o.get("open_declarations", False))
        self.ring_out_on_burst = bool(o.get("ring_out_on_burst", True))
        for name, default in (("hand_size", 6), ("end_flag_levels", 5), ("sudden_death_hp", 10)):
            v = o.get(name, default)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise RuleError(f"option {name!r} must be a positive integer, got {v!r}")
        self.hand_size = int(o.get("hand_size", 6))
        self.end_flag_levels = int(o.get("end_flag_levels", 5))
        self.sudden_death_hp = int(o.get("sudden_death_hp", 10))
        if self.sudden_death_hp % TOKEN:
            raise RuleError(
                f"option 'sudden_death_hp' must be a multiple of 10, got {self.sudden_death_hp!r}"
            )
        self.hands: dict[str, list[str]] | None = None
        if "hands" in o:
            hands = o["hands"]
            if (
                not isinstance(hands, Mapping)
                or set(hands) != set(self.players)
                or not all(
                    isinstance(h, list) and all(c in self.deck.fighters for c in h) for h in hands.values()
                )
            ):
                raise RuleError(
                    f"option 'hands' must map each player to a list of fighter card ids, got {hands!r}"
                )
            self.hands = {p: list(hands[p]) for p in self.players}
            if set(self.hands[self.players[0]]) & set(self.hands[self.players[1]]):
                raise RuleError(f"option 'hands': the two hands share cards, got {hands!r}")
        slots = o.get("power_slots", {})
        if (
            not isinstance(slots, Mapping)
            or not set(slots) <= set(self.players)
            or not all(isinstance(s, list) and all(isinstance(n, str) for n in s) for s in slots.values())
        ):
            raise RuleError(f"option 'power_slots' must map players to lists of slot names, got {slots!r}")
        self.power_slots: dict[str, list[str]] = {p: list(slots.get(p, [])) for p in self.players}

    def _lay_initial_power(self) -> None:
        """Option ``initial_power``: player -> card id or list of ids laid at setup (any power cards)."""
        initial = [c.id for c in self.deck.power.values() if c.initial]
        chosen = self.options.get("initial_power")
        if chosen is None:
            chosen = dict(zip(self.players, initial, strict=False))
        laid: dict[str, list[str]] = {}
        if isinstance(chosen, Mapping) and set(chosen) <= set(self.players):
            laid = {p: [v] if isinstance(v, str) else v for p, v in chosen.items()}
        cards = [c for v in laid.values() if isinstance(v, list) for c in v]
        if (
            (not laid and chosen)
            or not all(isinstance(v, list) for v in laid.values())
            or not all(c in self.deck.power for c in cards)
            or len(set(cards)) != len(cards)
        ):
            raise RuleError(
                "option 'initial_power' must map players to distinct power card ids "
                f"(one id or a list each), got {chosen!r}"
            )
        for p in self.players:
            self.power_laid[p].extend(laid.get(p, []))

    # -- derived facts ------------------------------------------------------
    def opponent(self, player: str) -> str:
        return self.players[1] if player == self.players[0] else self.players[0]

    def fighter(self, player: str) -> FighterCard | None:
        stack = self.fighters[player]
        return self.deck.fighters[stack[-1]] if stack else None

    def level(self, player: str) -> int:
        f = self.fighter(player)
        return 0 if f is None else f.level

    def hp(self, player: str) -> int:
        f = self.fighter(player)
        if f is None:
            return 0
        return self.sudden_death_hp if self.sudden_death else f.hp

    def hand_left(self, player: str) -> int:
        if self.hands is not None:
            return len([c for c in self.hands[player] if c not in self.fighters[player]])
        return self.hand_size - len(self.fighters[player])

    def slot_owner(self, slot: str) -> tuple[str, bool] | None:
        """Whose slot this is and whether a power card lies on it; None: unknown slot."""
        for p in self.players:
            named = self.power_slots[p]
            n = len(self.power_laid[p])
            if slot in named:
                return p, named.index(slot) < n
            prefix = f"{p}-power-"
            if slot.startswith(prefix) and slot[len(prefix) :].isdigit():
                k = int(slot[len(prefix) :])
                return p, len(named) < k <= n
        return None

    def slot_name(self, player: str, index: int) -> str:
        named = self.power_slots[player]
        return named[index] if index < len(named) else f"{player}-power-{index + 1}"

    def usable(self, player: str) -> list[Die]:
        return [t.die for t in self.dice if t.owner == player]

    def highest(self, player: str) -> tuple[int, list[Die]]:
        dice = self.usable(player)
        top = max((d.value for d in dice), default=0)
        return top, [d for d in dice if d.value == top]

    def specials_of(self, player: str) -> list[Special]:
        own = [s for fid in self.fighters[player] for s in self.deck.fighters[fid].specials]
        return own + [s for s in self.deck.supers if s.level <= self.level(player)]

    def find_special(self, ident: str) -> Special:
        for s in [s for f in self.deck.fighters.values() for s in f.specials] + list(self.deck.supers):
            if s.id == ident:
                return s
        raise KeyError(ident)  # never: options hold only known ids

    def unused_power(self, player: str, timing: str) -> list[str]:
        return [
            c
            for c in self.power_laid[player]
            if c not in self.power_used and self.deck.power[c].timing == timing
        ]

    # -- the protocol ---------------------------------------------------------
    def expects(self) -> Expectation:
        ph = self.phase
        if ph == "over":
            return Expectation(None)
        if ph == "select_fighter":
            waiting = tuple(p for p in self.selecting if p not in self._secret_picks)
            return Expectation(
                InputKind.SECRET,
                waiting,
                {
                    "select": "fighter",
                    "confirmed": sorted(self._secret_picks),
                    "sudden_death": self.sudden_death,
                },
            )
        if ph == "draw_power":
            return Expectation(
                InputKind.REVEAL,
                (self.drawing[0],),
                {"draw": "power_card", "deck_left": len(self.power_deck())},
            )
        if ph == "throw":
            return Expectation(
                InputKind.THROW,
                self.players,
                {
                    "dice": 2 * DICE_PER_PLAYER,
                    "thrower_needed": "every die off the field or on an empty card slot",
                    "burst_tokens": self.burst,
                    "super_sudden_death": self.super_sudden_death,
                },
            )
        if ph == "after_throw":
            who = self._window_players()
            return Expectation(
                InputKind.CHOICE,
                tuple(who),
                {"window": "after_throw", "cards": {p: self.unused_power(p, "after_throw") for p in who}},
            )
        if ph == "attack":
            waiting = tuple(p for p in self.attack_options if p not in self._declared)
            return Expectation(
                InputKind.CHOICE,
                waiting,
                {"declare": "attack", "options": {p: ["normal", *self.attack_options[p]] for p in waiting}},
                hidden=not self.open_declarations,
            )
        if ph == "special_roll":
            rollers = tuple(a.attacker for a in self.attacks if not a.rolled)
            return Expectation(InputKind.THROW, rollers, {"special_roll": 1})
        if ph == "order_roll":
            return Expectation(InputKind.ROLL, self.players, {"order_roll": "one die each, higher first"})
        p = self.card_turns[0]
        return Expectation(InputKind.CHOICE, (p,), {"window": "damage_cards", "cards": self._card_actions(p)})

    def _apply(self, inp: Input) -> list[Outcome]:
        if self.phase == "over":
            raise self.refuse("the game is over", inp)
        handler = {
            "select_fighter": self._apply_select,
            "draw_power": self._apply_draw,
            "throw": self._apply_throw,
            "after_throw": self._apply_after_throw,
            "attack": self._apply_declare,
            "special_roll": self._apply_special_roll,
            "order_roll": self._apply_order_roll,
            "damage_cards": self._apply_card_turn,
        }[self.phase]
        return handler(inp)

    # -- fighter selection (secret) -------------------------------------------
    def _refuse_secret(self, why: str, inp: Input) -> RuleError:
        """A refusal that never quotes the secret part of the input."""
        hidden = Input(inp.kind, inp.player, {k: "<hidden>" for k in inp.data})
        return RuleError(why, inp=hidden, expected=self.expects(), state=self.state_json())

    def _apply_select(self, inp: Input) -> list[Outcome]:
        if inp.kind is not InputKind.SECRET:
            raise self._refuse_secret(f"expected a secret fighter selection, got {inp.kind.value}", inp)
        if inp.player not in self.selecting:
            raise self._refuse_secret(f"player {inp.player!r} does not pick a fighter now", inp)
        if inp.player in self._secret_picks:
            raise self._refuse_secret(f"player {inp.player!r} has already confirmed a fighter", inp)
        pick = inp.data.get("fighter")
        if set(inp.data) != {"fighter"} or not isinstance(pick, str):
            raise self._refuse_secret("a fighter selection needs exactly 'fighter': a fighter card id", inp)
        if pick not in self.deck.fighters:
            raise self._refuse_secret("that is not a fighter card of this deck", inp)
        played = {f for stack in self.fighters.values() for f in stack}
        if self.hands is not None and pick not in self.hands[inp.player]:
            raise self._refuse_secret(f"player {inp.player!r} does not hold that fighter card", inp)
        if pick in played:
            raise self._refuse_secret("that fighter card is already in play", inp)
        if self.hand_left(inp.player) <= 0:
            raise self._refuse_secret(f"player {inp.player!r} has no fighter card left", inp)
        self._secret_picks[inp.player] = pick
        out = [Outcome(OutcomeKind.FIGHTER_CONFIRMED, inp.player)]
        if len(self._secret_picks) < len(self.selecting):
            return out
        picks = list(self._secret_picks.values())
        if len(set(picks)) < len(picks):
            # Both named the same card: a mis-entry (hands are disjoint).  Refusing the
            # second pick would tell its maker the first one, so both pick again instead.
            self._secret_picks = {}
            clash = next(f for f in picks if picks.count(f) > 1)
            return [*out, Outcome(OutcomeKind.FIGHTER_CLASH, None, {"fighter": clash, "pick_again": True})]
        for p, f in self._secret_picks.items():
            self.fighters[p].append(f)
            self.tokens[p] = 0
        out.append(Outcome(OutcomeKind.FIGHTERS_REVEALED, None, dict(self._secret_picks)))
        self._secret_picks = {}
        self.selecting = []
        self._start_throw()
        return out

    def power_deck(self) -> list[str]:
        laid = {c for cards in self.power_laid.values() for c in cards}
        return [c for c, card in self.deck.power.items() if not card.initial and c not in laid]

    def _apply_draw(self, inp: Input) -> list[Outcome]:
        self.require(inp, InputKind.REVEAL)
        card = inp.data.get("power_card")
        deck = self.power_deck()
        if card not in deck:
            raise self.refuse(f"'power_card' must name a card of the power deck, one of {deck}", inp)
        p = self.drawing.pop(0)
        self.power_laid[p].append(card)
        slot = self.slot_name(p, len(self.power_laid[p]) - 1)
        out = [Outcome(OutcomeKind.POWER_CARD_LAID, p, {"card": card, "slot": slot})]
        self._next_after_support()
        return out

    # -- the throw --------------------------------------------------------------
    def _start_throw(self) -> None:
        self.phase = "throw"  # the last throw's dice stay in view until the next throw
        self.attacks = []
        self.attack_options = {}
        self._declared = {}
        self.card_turns = []
        self.window_passed = set()

    def _read_throw(self, inp: Input) -> list[ThrownDie]:
        raw = inp.data.get("dice")
        if not isinstance(raw, list) or len(raw) != 2 * DICE_PER_PLAYER:
            raise self.refuse(f"a throw lists all {2 * DICE_PER_PLAYER} dice, got {raw!r}", inp)
        out: list[ThrownDie] = []
        for i, d in enumerate(raw):
            out.append(self._read_die(inp, i, d))
        colours = sorted(t.die.colour or "" for t in out)
        if colours != sorted(COLOURS * 2):
            raise self.refuse(f"a throw has two dice of each of {list(COLOURS)}, got colours {colours}", inp)
        for p in self.players:
            rung = [t.die.colour for t in out if t.owner is None and t.thrower == p]
            if len(rung) != len(set(rung)):
                raise self.refuse(
                    f"player {p!r} holds one die of each colour, but two rung-out "
                    f"dice of the same colour name them as thrower",
                    inp,
                )
        return out

    def _read_die(self, inp: Input, i: int, raw: Any) -> ThrownDie:
        die = Die.from_json(raw)
        where = f"die {i} ({raw!r})"
        if die.kind is not DieKind.D10P or die.colour not in COLOURS:
            raise self.refuse(f"{where}: expected a d10p die coloured one of {list(COLOURS)}", inp)
        thrower = raw.get("thrower")
        if thrower is not None and thrower not in self.players:
            raise self.refuse(f"{where}: thrower must be one of {list(self.players)}", inp)
        if die.field_status is None:
            raise self.refuse(f"{where}: lacks field_status (field, card_slot or off)", inp)
        if die.field_status is FieldStatus.OFF:
            if thrower is None:
                raise self.refuse(f"{where}: a rung-out die needs its 'thrower' (ask the players)", inp)
            return ThrownDie(die, None, thrower)
        if die.field_status is FieldStatus.CARD_SLOT:
            owner = self.slot_owner(die.card_slot or "")
            if owner is None:
                raise self.refuse(f"{where}: unknown card slot {die.card_slot!r}", inp)
            if thrower is None and (self.require_card_thrower or not owner[1]):
                raise self.refuse(f"{where}: a die on a card slot needs its 'thrower' (ask the players)", inp)
            if not owner[1] or (thrower is not None and thrower != owner[0]):
                return ThrownDie(die, None, thrower)
            return ThrownDie(die, owner[0], thrower)
        if die.side is None or die.side is Side.LINE:
            raise self.refuse(
                f"{where}: expected side 'a' or 'b' "
                "(a die on the centre line is for the referee to settle first)",
                inp,
            )
        return ThrownDie(die, self.players[0] if die.side is Side.A else self.players[1], thrower)

    def _require_shared(self, inp: Input, kind: InputKind) -> None:
        """An input both players make together: any or no ``player`` of this game."""
        self.require(inp, kind, ())
        if inp.player is not None and inp.player not in self.players:
            raise self.refuse(f"player {inp.player!r} is not at this table {list(self.players)}", inp)

    def _apply_throw(self, inp: Input) -> list[Outcome]:
        self._require_shared(inp, InputKind.THROW)
        self.dice = self._read_throw(inp)
        self.round += 1
        out = [
            Outcome(
                OutcomeKind.DICE_THROWN,
                None,
                {"round": self.round, "dice": [t.to_json(i) for i, t in enumerate(self.dice)]},
            )
        ]
        out += [
            Outcome(OutcomeKind.RING_OUT, t.thrower, {"index": i, "colour": t.die.colour})
            for i, t in enumerate(self.dice)
            if t.owner is None
        ]
        if self.super_sudden_death:
            return out + self._settle_super_sudden_death()
        self.phase = "after_throw"
        if not self._window_players():
            out += self._open_attack()
        return out

    def _settle_super_sudden_death(self) -> list[Outcome]:
        sums = {p: sum(d.value for d in self.usable(p)) for p in self.players}
        zeros = [
            p
            for p in self.players
            if len(self.usable(p)) >= DICE_PER_PLAYER and all(d.value == 0 for d in self.usable(p))
        ]
        self.last_round = {"super_sudden_death": sums}
        if len(zeros) == 1:
            return self._win(zeros[0], "super_sudden_death_00")
        a, b = self.players
        if not zeros and sums[a] != sums[b]:
            return self._win(a if sums[a] > sums[b] else b, "super_sudden_death")
        self._start_throw()
        return [Outcome(OutcomeKind.SUPER_SUDDEN_DEATH, None, {"sums": sums, "throw_again": True})]

    # -- after-throw power cards -------------------------------------------------
    def _window_players(self) -> list[str]:
        return [
            p
            for p in self.players
            if p not in self.window_passed and self.unused_power(p, "after_throw") and self.usable(p)
        ]

    def _apply_after_throw(self, inp: Input) -> list[Outcome]:
        self.require(inp, InputKind.CHOICE)
        p = str(inp.player)
        if inp.data.get("pass") is True and set(inp.data) == {"pass"}:
            self.window_passed.add(p)
            out = [Outcome(OutcomeKind.PASSED, p, {"window": "after_throw"})]
        else:
            out = [self._use_die_shift(inp, p)]
            self.window_passed = set()
        if not self._window_players():
            out += self._open_attack()
        return out

    def _use_die_shift(self, inp: Input, p: str) -> Outcome:
        card, index, shift = inp.data.get("power"), inp.data.get("die"), inp.data.get("shift")
        if card not in self.unused_power(p, "after_throw"):
            raise self.refuse(
                f"'power' must be one of your unused after-throw cards "
                f"{self.unused_power(p, 'after_throw')}, or send 'pass': true",
                inp,
            )
        amount = self.deck.power[card].amount
        if not isinstance(index, int) or not 0 <= index < len(self.dice) or self.dice[index].owner != p:
            raise self.refuse(
                f"'die' must be the index of a die on your side, one of "
                f"{[i for i, t in enumerate(self.dice) if t.owner == p]}",
                inp,
            )
        if (
            not isinstance(shift, int)
            or isinstance(shift, bool)
            or shift == 0
            or shift % TOKEN
            or abs(shift) > amount
        ):
            raise self.refuse(
                f"'shift' must be a non-zero multiple of 10 between -{amount} and {amount}", inp
            )
        t = self.dice[index]
        value = t.die.value + shift
        if not 0 <= value <= 90:
            raise self.refuse(f"die {index} shows {t.die.value}; shifting by {shift} leaves 00..90", inp)
        self.dice[index] = replace(t, die=replace(t.die, value=value))
        self.power_used.add(card)
        return Outcome(OutcomeKind.POWER_CARD_USED, p, {"card": card, "die": index, "value": value})

    # -- attack declarations ---------------------------------------------------------
    def _open_attack(self) -> list[Outcome]:
        self.attack_options = {}
        for p in self.players:
            matched = [s.id for s in self.specials_of(p) if s.match(self.usable(p)) is not None]
            if matched:
                self.attack_options[p] = matched
        self._declared = {}
        if not self.attack_options:
            return self._resolve_attacks()
        self.phase = "attack"
        return []

    def _apply_declare(self, inp: Input) -> list[Outcome]:
        refuse = self.refuse if self.open_declarations else self._refuse_secret
        if inp.kind is not InputKind.CHOICE:
            raise refuse(f"expected an attack declaration (choice), got {inp.kind.value}", inp)
        p = str(inp.player)
        if p not in self.attack_options or p in self._declared:
            raise refuse(f"player {inp.player!r} does not declare an attack now", inp)
        choice = inp.data.get("attack")
        allowed = ["normal", *self.attack_options[p]]
        if set(inp.data) != {"attack"} or choice not in allowed:
            raise refuse(f"'attack' must be one of {allowed}", inp)
        self._declared[p] = str(choice)
        detail = {"attack": choice} if self.open_declarations else {}
        out = [Outcome(OutcomeKind.ATTACK_DECLARED, p, detail)]
        if len(self._declared) < len(self.attack_options):
            return out
        return out + self._resolve_attacks()

    def _resolve_attacks(self) -> list[Outcome]:
        specials = {p: c for p, c in self._declared.items() if c != "normal"}
        out: list[Outcome] = []
        if self._declared:
            out.append(Outcome(OutcomeKind.ATTACKS_REVEALED, None, dict(self._declared)))
        self._declared = {}
        if specials:
            for p, ident in specials.items():
                out += self._special_attack(p, self.find_special(ident))
            if any(not a.rolled for a in self.attacks):
                self.phase = "special_roll"
                return out
            return out + self._open_card_turns()
        a, b = self.players
        (va, top_a), (vb, top_b) = self.highest(a), self.highest(b)
        if va == vb:
            self.burst += 1
            out.append(Outcome(OutcomeKind.BURST, None, {"highest": va, "burst_tokens": self.burst}))
            self.tie_pending = True
            return out + self._finish_round()
        winner, loser, top = (a, b, top_a) if va > vb else (b, a, top_b)
        guarded = {
            self.deck.just_guard[g].colour for g in self.just_guards[loser] if g not in self.guards_used
        }
        colours = [d.colour for d in top]
        free = [c for c in COLOURS if c in colours and c not in guarded]
        colour = free[0] if free else next(c for c in COLOURS if c in colours)
        self.attacks = [Attack(winner, loser, "normal", base=abs(va - vb), colour=colour)]
        return out + self._open_card_turns()

    def _special_attack(self, p: str, s: Special) -> list[Outcome]:
        matched = s.match(self.usable(p)) or ()
        att = Attack(
            p,
            self.opponent(p),
            "super" if s.super else "special",
            special=s.id,
            effect=s.effect,
            amount=s.amount,
        )
        if s.effect == "roll":
            att.rolled = False
        elif s.effect == "damage":
            att.base = s.amount
        elif s.effect == "dice_sum":
            att.base = sum(d.value for d in matched)
        self.attacks.append(att)
        return []

    def _apply_special_roll(self, inp: Input) -> list[Outcome]:
        self.require(inp, InputKind.THROW)
        att = next(a for a in self.attacks if a.attacker == inp.player and not a.rolled)
        raw = inp.data.get("dice")
        if not isinstance(raw, list) or len(raw) != 1:
            raise self.refuse("a special roll is a throw of exactly one die: 'dice': [{...}]", inp)
        die = Die.from_json(raw[0])
        own = sorted({d.colour or "" for d in self.usable(att.attacker)})
        if die.kind is not DieKind.D10P or die.colour not in own:
            raise self.refuse(
                f"the special roll uses one of your own dice this round: a d10p of colour {own}", inp
            )
        if die.field_status is None:
            raise self.refuse("the rolled die lacks field_status (field, card_slot or off)", inp)
        owner: str | None = None
        if die.field_status is FieldStatus.FIELD and die.side in (Side.A, Side.B):
            owner = self.players[0] if die.side is Side.A else self.players[1]
        elif die.field_status is FieldStatus.CARD_SLOT:
            slot = self.slot_owner(die.card_slot or "")
            owner = slot[0] if slot is not None and slot[1] else None
        elif die.field_status is FieldStatus.FIELD:
            raise self.refuse("the rolled die lies on the centre line or lacks a side: settle it first", inp)
        att.rolled, att.colour = True, die.colour
        out: list[Outcome]
        if owner != att.attacker:
            att.failed = True
            out = [
                Outcome(
                    OutcomeKind.SPECIAL_FAILED,
                    att.attacker,
                    {"special": att.special, "why": "the die crossed the centre line or rang out"},
                )
            ]
        else:
            att.base = die.value
            out = [
                Outcome(
                    OutcomeKind.SPECIAL_ROLLED,
                    att.attacker,
                    {"special": att.special, "value": die.value, "colour": die.colour},
                )
            ]
        if all(a.rolled for a in self.attacks):
            out += self._open_card_turns()
        return out

    # -- damage cards --------------------------------------------------------------
    def _attack_by(self, p: str) -> Attack | None:
        return next((a for a in self.attacks if a.attacker == p and a.takes_cards), None)

    def _attack_on(self, p: str) -> Attack | None:
        return next((a for a in self.attacks if a.defender == p and a.takes_cards), None)

    def _card_actions(self, p: str) -> dict[str, list[str]]:
        acts: dict[str, list[str]] = {}
        if self._attack_by(p) is not None and self.unused_power(p, "deal_damage"):
            acts["power"] = self.unused_power(p, "deal_damage")
        on = self._attack_on(p)
        if on is not None and not on.guarded:
            if self.unused_power(p, "receive_damage"):
                acts["power"] = acts.get("power", []) + self.unused_power(p, "receive_damage")
            guards = [
                g
                for g in self.just_guards[p]
                if g not in self.guards_used and self.deck.just_guard[g].colour == on.colour
            ]
            if guards:
                acts["just_guard"] = guards
        return acts

    def _open_card_turns(self) -> list[Outcome]:
        live = [a for a in self.attacks if a.takes_cards]
        if len(live) == 2:
            a, b = self.players
            key = {p: (self.level(p), next(x.base for x in live if x.attacker == p)) for p in (a, b)}
            if key[a] == key[b]:
                if self._card_actions(a) and self._card_actions(b):
                    self.phase = "order_roll"
                    return []
                order = [a, b]
            else:
                order = [a, b] if key[a] > key[b] else [b, a]
        elif live:
            order = [live[0].attacker, live[0].defender]
        else:
            order = []
        return self._begin_card_turns(order)

    def _begin_card_turns(self, order: list[str]) -> list[Outcome]:
        self.card_turns = order
        return self._advance_card_turns()

    def _advance_card_turns(self) -> list[Outcome]:
        while self.card_turns and not self._card_actions(self.card_turns[0]):
            self.card_turns.pop(0)
        if self.card_turns:
            self.phase = "damage_cards"
            return []
        return self._finish_round()

    def _apply_order_roll(self, inp: Input) -> list[Outcome]:
        self._require_shared(inp, InputKind.ROLL)
        values = inp.data.get("values")
        if (
            not isinstance(values, Mapping)
            or set(values) != set(self.players)
            or not all(
                isinstance(v, int) and not isinstance(v, bool) and v in DieKind.D10P.face_range()
                for v in values.values()
            )
        ):
            raise self.refuse(
                f"an order roll gives 'values': {{player: 00..90}} for {list(self.players)}", inp
            )
        a, b = self.players
        if values[a] == values[b]:
            return [Outcome(OutcomeKind.ORDER_DECIDED, None, {"values": dict(values), "roll_again": True})]
        order = [a, b] if values[a] > values[b] else [b, a]
        out = [Outcome(OutcomeKind.ORDER_DECIDED, order[0], {"values": dict(values), "order": order})]
        return out + self._begin_card_turns(order)

    def _apply_card_turn(self, inp: Input) -> list[Outcome]:
        self.require(inp, InputKind.CHOICE)
        p = str(inp.player)
        acts = self._card_actions(p)
        if inp.data.get("pass") is True and set(inp.data) == {"pass"}:
            self.card_turns.pop(0)
            return [Outcome(OutcomeKind.PASSED, p, {"window": "damage_cards"}), *self._advance_card_turns()]
        if set(inp.data) == {"power"} and inp.data["power"] in acts.get("power", []):
            card = self.deck.power[inp.data["power"]]
            if card.timing == "deal_damage":
                att = self._attack_by(p)
                assert att is not None
                att.added += card.amount
            else:
                att = self._attack_on(p)
                assert att is not None
                att.reduced += card.amount
            att.cards.append(card.id)
            self.power_used.add(card.id)
            out = Outcome(
                OutcomeKind.POWER_CARD_USED,
                p,
                {"card": card.id, "effect": card.effect, "amount": card.amount},
            )
        elif set(inp.data) == {"just_guard"} and inp.data["just_guard"] in acts.get("just_guard", []):
            att = self._attack_on(p)
            assert att is not None
            att.guarded = True
            att.cards.append(inp.data["just_guard"])
            self.guards_used.add(inp.data["just_guard"])
            out = Outcome(
                OutcomeKind.JUST_GUARD_USED, p, {"card": inp.data["just_guard"], "colour": att.colour}
            )
        else:
            raise self.refuse(f"expected 'pass': true or one of {acts}", inp)
        return [out, *self._advance_card_turns()]

    # -- damage, KO, level check -------------------------------------------------------
    def _finish_round(self) -> list[Outcome]:
        out: list[Outcome] = []
        bonus = self.burst * TOKEN
        damage = {p: 0 for p in self.players}
        consumed = False
        for att in self.attacks:
            d = att.defender
            if att.kind != "super" and not att.failed:
                consumed = True
            if att.effect == "set_hp" and not att.failed:
                target = max(0, self.hp(d) - att.amount) // TOKEN
                add = max(0, target - self.tokens[d])
                self.tokens[d] += add
                self.damage_taken[d] += add
                damage[d] += add * TOKEN
                out.append(
                    Outcome(
                        OutcomeKind.DAMAGE,
                        d,
                        {"by": att.attacker, "damage": add * TOKEN, "hp_set_to": att.amount},
                    )
                )
                continue
            if att.failed or att.base <= 0:  # a failed special, a <00> roll: no damage
                continue
            dealt = (
                0
                if att.guarded
                else max(0, att.base + (0 if att.kind == "super" else bonus) + att.added - att.reduced)
            )
            self.tokens[d] += dealt // TOKEN
            self.damage_taken[d] += dealt // TOKEN
            damage[d] += dealt
            out.append(
                Outcome(
                    OutcomeKind.DAMAGE,
                    d,
                    {
                        "by": att.attacker,
                        "kind": att.kind,
                        "damage": dealt,
                        "base": att.base,
                        "burst": 0 if att.kind == "super" else bonus,
                        "guarded": att.guarded,
                    },
                )
            )
        if consumed and self.burst:
            out.append(Outcome(OutcomeKind.BURST_CLEARED, None, {"burst_tokens": self.burst}))
            self.burst = 0
        ring = {p: 0 for p in self.players}
        if self.ring_out_on_burst or not self.tie_pending:
            for t in self.dice:
                if t.owner is None and t.thrower is not None:
                    ring[t.thrower] += RING_OUT_DAMAGE
        for p, r in ring.items():
            if r:
                self.tokens[p] += r // TOKEN
                self.damage_taken[p] += r // TOKEN
                out.append(Outcome(OutcomeKind.RING_OUT_DAMAGE, p, {"damage": r}))
        self.last_round = {
            "round": self.round,
            "attacks": {a.attacker: a.to_json() for a in self.attacks},
            "damage": damage,
            "ring_out_damage": ring,
            "burst": self.tie_pending,
        }
        self.tie_pending = False
        return out + self._check_ko()

    def _check_ko(self) -> list[Outcome]:
        out: list[Outcome] = []
        kod: list[str] = []
        for p in self.players:
            if self.tokens[p] * TOKEN >= self.hp(p):
                f = self.fighter(p)
                assert f is not None
                by = self.opponent(p)
                self.ko_levels[by] += f.level
                self.kod[by].append(f.id)
                self.tokens_cleared[p] += self.tokens[p]
                self.tokens[p] = 0
                kod.append(p)
                out.append(
                    Outcome(
                        OutcomeKind.KO,
                        p,
                        {"fighter": f.id, "level": f.level, "by": by, "ko_levels": self.ko_levels[by]},
                    )
                )
        if not kod:
            self._start_throw()
            return out
        out += self._sudden_death_check(kod) if self.sudden_death else self._level_check(kod)
        if self.phase == "over" or self.super_sudden_death:
            return out
        for p in kod:
            out += self._support(p)
        self.selecting = list(self.players) if self.sudden_death else kod
        self._next_after_support()
        return out

    def _level_check(self, kod: list[str]) -> list[Outcome]:
        flagged = [p for p in self.players if self.ko_levels[p] >= self.end_flag_levels]
        if len(flagged) == 1:
            return [
                Outcome(OutcomeKind.END_FLAG, flagged[0], {"ko_levels": dict(self.ko_levels)}),
                *self._win(flagged[0], "champion"),
            ]
        if len(flagged) == 2:
            out = [Outcome(OutcomeKind.END_FLAG, None, {"ko_levels": dict(self.ko_levels)})]
            a, b = self.players
            if self.ko_levels[a] != self.ko_levels[b]:
                return out + self._win(a if self.ko_levels[a] > self.ko_levels[b] else b, "mutual_ko")
            self.sudden_death = True
            out.append(Outcome(OutcomeKind.SUDDEN_DEATH, None, {"hp": self.sudden_death_hp}))
            return out + self._hand_check()
        empty = [p for p in kod if self.hand_left(p) <= 0]
        if empty:
            return (
                self._win(self.opponent(empty[0]), "no_fighters_left")
                if len(empty) == 1
                else self._hand_check()
            )
        return []

    def _sudden_death_check(self, kod: list[str]) -> list[Outcome]:
        if len(kod) == 1:
            return self._win(self.opponent(kod[0]), "sudden_death")
        a, b = self.players
        la, lb = (self.deck.fighters[self.kod[p][-1]].level for p in (a, b))
        if la != lb:
            return self._win(a if la > lb else b, "sudden_death_mutual_ko")
        return self._hand_check()

    def _hand_check(self) -> list[Outcome]:
        a, b = self.players
        left = {p: self.hand_left(p) > 0 for p in (a, b)}
        if left[a] != left[b]:
            return self._win(a if left[a] else b, "sudden_death_hand")
        if not left[a]:
            self.super_sudden_death = True
            self._start_throw()
            return [Outcome(OutcomeKind.SUPER_SUDDEN_DEATH, None, {"throw_again": False})]
        return []

    def _support(self, p: str) -> list[Outcome]:
        f = self.deck.fighters[self.kod[self.opponent(p)][-1]]
        if f.support == "power" and len(self.power_deck()) > len(self.drawing):
            self.drawing.append(p)
        elif f.support == "just_guard":
            given = {g for gs in self.just_guards.values() for g in gs}
            free = [
                g for g, c in self.deck.just_guard.items() if c.colour == f.support_colour and g not in given
            ]
            if free:
                self.just_guards[p].append(free[0])
                return [
                    Outcome(OutcomeKind.JUST_GUARD_RECEIVED, p, {"card": free[0], "colour": f.support_colour})
                ]
        return []

    def _next_after_support(self) -> None:
        if self.super_sudden_death:
            return
        if self.drawing:
            self.phase = "draw_power"
        else:
            self.phase = "select_fighter"
            self._secret_picks = {}

    def _win(self, winner: str, reason: str) -> list[Outcome]:
        loser = self.opponent(winner)
        self.ended = Result((winner,), (winner, loser), self.scores(), reason)
        self.phase = "over"
        return [Outcome(OutcomeKind.GAME_WON, winner, {"reason": reason})]

    # -- views ----------------------------------------------------------------
    def scores(self) -> dict[str, int]:
        return dict(self.ko_levels)

    @classmethod
    def _check_final(
        cls, players: list[str], scores: dict[str, int], winners: list[str], options: dict[str, Any]
    ) -> str | None:
        """One winner.  Once a player's KO'd levels reach the end flag, the game ends with the
        higher total winning (sudden death starts from equal totals and only adds to the winner's);
        only a player left without fighters before any end flag loses with more levels."""
        if len(winners) != 1:
            return f"winners: Dice Fighter has one winner, got {winners}"
        flag = options.get("end_flag_levels", 5)
        flag = flag if isinstance(flag, int) and not isinstance(flag, bool) and flag > 0 else 5
        (winner,) = winners
        (loser,) = (p for p in players if p != winner)
        if scores[loser] > scores[winner] and scores[loser] >= flag:
            return (
                f"winner {winner} has {scores[winner]} KO'd levels, {loser} {scores[loser]}: "
                f"{loser} reached the end flag ({flag}) with more, so {winner} cannot have won"
            )
        return None

    def result(self) -> Result | None:
        return self.ended

    def player_json(self, p: str) -> JSON:
        f = self.fighter(p)
        return {
            "side": self.side_of[p].value,
            "fighter": None if f is None else f.id,
            "level": self.level(p),
            "hp": self.hp(p),
            "damage_tokens": self.tokens[p],
            "hp_left": max(0, self.hp(p) - self.tokens[p] * TOKEN),
            "fighters_played": list(self.fighters[p]),
            "hand_left": self.hand_left(p),
            "ko_levels": self.ko_levels[p],
            "kod_fighters": list(self.kod[p]),
            "power_cards": [
                {"card": c, "slot": self.slot_name(p, i), "used": c in self.power_used}
                for i, c in enumerate(self.power_laid[p])
            ],
            "just_guards": [
                {"card": g, "colour": self.deck.just_guard[g].colour, "used": g in self.guards_used}
                for g in self.just_guards[p]
            ],
        }

    # -- queries -------------------------------------------------------------------------------
    @classmethod
    def read_throw(cls, ctx: Context, readings: Sequence[Reading]) -> list[Input] | Question:
        """What a settled throw means (engine.throws): its inputs, or the question to ask first."""
        detail = ctx.expected.detail
        kind = cls.dice_kinds[0].value
        if ctx.expected.kind is InputKind.ROLL:  # the order roll-off: one die each, on its side
            by_side = {str(d.get("side")): d for d in readings}
            if len(readings) != 2 or set(by_side) != {"a", "b"}:
                return Question(
                    "The order roll needs one die on each side of the centre line. Rethrow.",
                    reading_ids(readings),
                    "count",
                )
            q = kind_doubt(readings, kind) or doubt(readings, ctx.threshold)
            if q is not None:
                return q
            values = {ctx.players[0]: int(by_side["a"]["value"]), ctx.players[1]: int(by_side["b"]["value"])}
            return [Input(InputKind.ROLL, None, {"values": values})]
        if "special_roll" in detail:
            moved = list(readings)
            if len(moved) != 1 and ctx.previous:
                moved = thrown_again(readings, ctx.previous)
            q = (
                count_question(moved, 1, "newly thrown dice")
                or kind_doubt(moved, kind)
                or doubt(moved, ctx.threshold)
            )
            if q is not None:
                return q
            return [
                Input(InputKind.THROW, ctx.expected.players[0], {"dice": [die_json(as_kind(moved[0], kind))]})
            ]
        kept = [i for i, d in enumerate(readings) if d.get("colour") in COLOURS]
        index = {old: new for new, old in enumerate(kept)}
        readings = [readings[i] for i in kept]
        q = (
            count_question(readings, int(detail.get("dice", 6)), "dice")
            or kind_doubt(readings, kind)
            or doubt(readings, ctx.threshold)
        )
        if q is not None:
            return q
        readings = [as_kind(d, kind) for d in readings]
        # off the field, or on a slot with no card laid (that is off the field too): whose throw was it?
        players = ctx.state.get("players") or {}
        laid = {
            c.get("slot")
            for p in players.values()
            if isinstance(p, Mapping)
            for c in p.get("power_cards", [])
        }
        unowned = [
            d
            for d in readings
            if not d.get("thrower")
            and (
                d.get("field_status") == "off"
                or (d.get("field_status") == "card_slot" and d.get("card_slot") not in laid)
            )
        ]
        if unowned:
            d = unowned[0]
            names = " or ".join(ctx.players)
            return Question(
                f"Who threw the {d.get('colour') or ''} die {d.get('id')} that is off the field: {names}? "
                "The camera cannot tell dice of one colour apart.",
                reading_ids(unowned),
                "owner",
            )
        return [Input(InputKind.THROW, None, {"dice": [die_json(d, index) for d in readings]})]

    def choices(self, player: str) -> list[Choice]:
        """An attack declaration, or the cards the player may use now, or passing."""
        exp = self.expects()
        if exp.kind is not InputKind.CHOICE or player not in exp.players:
            return []
        detail = exp.detail
        if detail.get("declare") == "attack":
            return [
                (f"attack {o}", {"attack": o}) for o in (detail.get("options") or {}).get(player, ["normal"])
            ]
        out: list[Choice] = []
        if detail.get("window") == "damage_cards":
            cards = detail.get("cards") or {}
            out += [(f"power {c}", {"power": c}) for c in cards.get("power", [])]
            out += [(f"just guard {c}", {"just_guard": c}) for c in cards.get("just_guard", [])]
        return [*out, ("pass", {"pass": True})]

    def secret_fields(self, player: str) -> tuple[ChoiceField, ...]:
        """A fighter card: from the player's hand (option ``hands``), else every card not in play."""
        if self.expects().kind is not InputKind.SECRET or player not in self.players:
            return super().secret_fields(player)
        if self.hands is not None:
            fighters = sorted(self.hands[player])
        else:
            played = {f for stack in self.fighters.values() for f in stack}
            fighters = sorted(f for f in self.deck.fighters if f not in played)
        if not fighters:
            raise RuleError(f"player {player!r} has no fighter card to choose from")
        return (ChoiceField("fighter", tuple((f, f) for f in fighters)),)

    def dice_colours(self, player_colours: Mapping[str, str]) -> frozenset[str] | None:
        return frozenset(COLOURS)

    def entry_dice(self, player: str | None, player_colours: Mapping[str, str]) -> tuple[DieEntry, ...]:
        """Both players' dice, each on side a or b of the centre line or off the field (thrown by whom)."""
        if self.expects().kind is not InputKind.THROW:
            return ()
        return tuple(
            DieEntry((DieKind.D10P,), tuple(COLOURS), sides=True, throwers=self.players)
            for _ in range(2 * DICE_PER_PLAYER)
        )

    def names(self) -> dict[str, str]:
        d = self.deck
        out = {s.id: s.name for s in d.supers}
        out.update({g.id: f"{g.colour} just guard" for g in d.just_guard.values()})
        out.update({f.id: f.name for f in d.fighters.values()})
        out.update({c.id: c.name for c in d.power.values()})
        return out

    def board_colours(self, player_colours: Mapping[str, str]) -> frozenset[str] | None:
        return frozenset(COLOURS)

    def state_json(self) -> JSON:
        out: JSON = {
            "phase": self.phase,
            "round": self.round,
            "burst_tokens": self.burst,
            "sudden_death": self.sudden_death,
            "super_sudden_death": self.super_sudden_death,
            "players": {p: self.player_json(p) for p in self.players},
            "dice": [t.to_json(i) for i, t in enumerate(self.dice)],
            "owners": [t.owner for t in self.dice],
            "rung_out": {
                p: sum(1 for t in self.dice if t.owner is None and t.thrower == p) for p in self.players
            },
            "power_deck_left": len(self.power_deck()),
            "last_round": dict(self.last_round),
        }
        if self.phase == "select_fighter":
            out["fighter_selection"] = {
                "waiting": [p for p in self.selecting if p not in self._secret_picks],
                "confirmed": sorted(self._secret_picks),
            }
        if self.phase == "attack":
            out["attack_options"] = {p: list(v) for p, v in self.attack_options.items()}
            out["declared"] = dict(self._declared) if self.open_declarations else sorted(self._declared)
        if self.attacks:
            out["attacks"] = {a.attacker: a.to_json() for a in self.attacks}
        if self.phase == "damage_cards":
            out["card_turn"] = self.card_turns[0]
        return out
