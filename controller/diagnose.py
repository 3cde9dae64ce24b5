"""``dicetable demo --explain``: what the reader saw in each throw of a recorded session, and what the
table did with it.

Plays the session exactly as ``dicetable demo`` does (same reader, motion gate, script and recorded
referee), and records every reading set the table took.  Afterwards each set is matched, die by die,
against the session's ``truth.json`` (nearest true die within half a die), and the table's log says
what became of it: scored (with which input), asked (which question), answered (by whom), or left
waiting when the session ended.  The truth is only read here, after the game: nothing in the loop sees it.

Per die the verdict is one of ``ok``, ``missed`` (a true die no reading matched), ``extra`` (a reading
with no true die there), or the fields that differ: ``value``, ``colour``, ``kind`` and, on a board,
``field_status``, ``side``, ``zones``, ``stack_level``, ``card_slot``.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.adapters import TableReadings

#: board fields compared when both the truth and the placed reading have them
BOARD_KEYS = ("field_status", "side", "zones", "stack_level", "card_slot")


@dataclass(frozen=True)
class TrueDie:
    kind: str
    value: int
    colour: str
    center: tuple[float, float]
    size: float | None = None  # top face side in pixels, when the truth has its outline
    board: Mapping[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        return f"{self.colour} {self.kind} {self.value}"


@dataclass
class DieRow:
    verdict: str  # ok | missed | extra | the differing fields joined by "+"
    truth: TrueDie | None
    reading: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        r = self.reading
        return {
            "verdict": self.verdict,
            "truth": None
            if self.truth is None
            else {
                "kind": self.truth.kind,
                "value": self.truth.value,
                "colour": self.truth.colour,
                "center": [round(c, 1) for c in self.truth.center],
                **dict(self.truth.board),
            },
            "reading": None
            if r is None
            else {
                k: r[k]
                for k in ("id", "kind", "value", "colour", "confidence", "center", *BOARD_KEYS)
                if k in r
            },
            "notes": self.notes,
        }


@dataclass
class ThrowRow:
    seq: int
    t: float
    file: str | None
    expected: str
    dice: list[DieRow]
    actions: list[str]
    outcome: str  # scored | scored (wrong) | asked | superseded | stalled | ignored
    has_truth: bool = True

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.dice:
            for v in d.verdict.split("+"):
                out[v] = out.get(v, 0) + 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "t": self.t,
            "file": self.file,
            "expected": self.expected,
            "outcome": self.outcome,
            "counts": self.counts(),
            "dice": [d.to_json() for d in self.dice],
            "actions": self.actions,
        }


@dataclass
class Report:
    game: str
    throws: list[ThrowRow]
    scores: dict[str, Any]
    true_scores: dict[str, Any]
    status: str
    waiting_for: str
    unread: list[str]  # truth frames with dice that the table never read

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "status": self.status,
            "waiting_for": self.waiting_for,
            "scores": self.scores,
            "true_scores": self.true_scores,
            "throws": [t.to_json() for t in self.throws],
            "unread_truth_frames": self.unread,
        }

    def text(self) -> str:
        lines = [f"{self.game}: {len(self.throws)} reading sets"]
        for th in self.throws:
            c = th.counts()
            summary = ", ".join(f"{v} {k}" for k, v in sorted(c.items(), key=lambda kv: kv[0] != "ok"))
            where = f" {th.file}" if th.file else ""
            lines.append(f"\n#{th.seq} t={th.t:.2f}{where}  expects {th.expected}")
            if th.has_truth:
                n_true = sum(1 for d in th.dice if d.truth is not None)
                n_read = sum(1 for d in th.dice if d.reading is not None)
                lines.append(f"  truth {n_true} dice, read {n_read}: {summary or 'nothing'}")
            else:
                lines.append(f"  no truth recorded for this frame; read {len(th.dice)}")
            for d in th.dice:
                if d.verdict == "ok" and not d.notes:
                    continue
                lines.append("    " + _die_line(d))
            for d in th.dice:
                r = d.reading
                if r is not None and r.get("carried"):
                    lines.append(
                        f"  > carried {r.get('colour')} {r.get('value')} (seen as {r.get('seen_as')}) as "
                        f"{r.get('id')}: now covered by {r.get('under')}"
                    )
            for a in th.actions:
                lines.append(f"  > {a}")
            lines.append(f"  = {th.outcome}")
        if self.unread:
            lines.append(f"\ntruth frames never read by the table: {', '.join(self.unread)}")
        lines.append(f"\nstatus {self.status} ({self.waiting_for})")
        lines.append(f"scores {self.scores}; true {self.true_scores}")
        return "\n".join(lines)


def _die_line(d: DieRow) -> str:
    r, t = d.reading, d.truth
    read = (
        "-"
        if r is None
        else f"{r.get('id')} {r.get('colour')} {r.get('kind', 'd6')} {r.get('value')} "
        f"(conf {float(r.get('confidence', 0)):.2f})"
    )
    if r is not None and "center" in r:
        read += f" at ({r['center'][0]:.0f},{r['center'][1]:.0f})"
    true = "-" if t is None else f"{t.label()} at ({t.center[0]:.0f},{t.center[1]:.0f})"
    extra = ""
    if r is not None and t is not None:
        diffs = [k for k in BOARD_KEYS if k in d.verdict.split("+")]
        extra = "".join(f"; {k} read {r.get(k)!r}, true {t.board.get(k)!r}" for k in diffs)
    notes = ("; " + "; ".join(d.notes)) if d.notes else ""
    return f"{d.verdict:<14} read {read:<44} true {true}{extra}{notes}"


# -- the truth ---------------------------------------------------------------------------------------


def truth_frames(truth: Mapping[str, Any]) -> dict[str, list[TrueDie]]:
    """The true dice of each settled frame the generator recorded, by image file name."""
    out: dict[str, list[TrueDie]] = {}
    for s in truth.get("settled", []):  # drawn sessions: [value, colour] and centres in pixels
        centers = s.get("centers") or []
        if len(centers) != len(s.get("dice", [])):
            continue
        out[str(s["file"])] = [
            TrueDie("d6", int(v), str(c), (float(x), float(y)))
            for (v, c), (x, y) in zip(s["dice"], centers, strict=True)
        ]
    for th in truth.get("throws", []):  # rendered sessions: full die records with their top face
        dice = []
        for d in th.get("dice", []):
            if "top_quad_px" not in d:
                break
            q = d["top_quad_px"]
            cx, cy = sum(p[0] for p in q) / len(q), sum(p[1] for p in q) / len(q)
            side = sum(math.dist(q[i], q[(i + 1) % len(q)]) for i in range(len(q))) / len(q)
            board = {k: d[k] for k in BOARD_KEYS if k in d}
            if "thrower" in d:
                board["thrower"] = d["thrower"]
            dice.append(TrueDie(str(d["kind"]), int(d["value"]), str(d["colour"]), (cx, cy), side, board))
        else:
            out[str(th["frame"])] = dice
    return out


def _same(key: str, read: Any, true: Any) -> bool:
    if key == "zones":
        return sorted(read or []) == sorted(true or [])
    if key == "stack_level":
        return int(read or 0) == int(true or 0)
    return bool(read == true)


def match(readings: Sequence[dict[str, Any]], truth: Sequence[TrueDie]) -> list[DieRow]:
    """Pair readings with true dice (nearest first, within about half a die) and say what differs."""
    sizes = [t.size for t in truth if t.size] or [_reading_size(r) for r in readings if "quad" in r]
    # a pip d6 shows its whole top face; a numbered die's top facet is a fraction of the die
    factor = 0.6 if all(t.kind == "d6" for t in truth) else 1.2
    reach = factor * (sorted(sizes)[len(sizes) // 2] if sizes else 40.0)
    pairs = sorted(
        (math.dist(r["center"], t.center), i, j)
        for i, r in enumerate(readings)
        if "center" in r
        for j, t in enumerate(truth)
    )
    used_r: set[int] = set()
    used_t: set[int] = set()
    rows: list[DieRow] = []
    paired: dict[int, int] = {}
    for dist, i, j in pairs:
        if dist > reach:
            break
        if i in used_r or j in used_t:
            continue
        used_r.add(i)
        used_t.add(j)
        paired[j] = i
    for j, t in enumerate(truth):
        if j not in paired:
            rows.append(DieRow("missed", t, None))
            continue
        r = readings[paired[j]]
        diffs = []
        if str(r.get("kind", "d6")) != t.kind:
            diffs.append("kind")
        if int(r.get("value", -1)) != t.value:
            diffs.append("value")
        if str(r.get("colour", "")).lower() != t.colour.lower():
            diffs.append("colour")
        diffs += [k for k in BOARD_KEYS if k in t.board and k in r and not _same(k, r[k], t.board[k])]
        rows.append(DieRow("+".join(diffs) or "ok", t, r))
    rows += [DieRow("extra", None, r) for i, r in enumerate(readings) if i not in used_r]
    return rows


def _reading_size(r: Mapping[str, Any]) -> float:
    q = r["quad"]
    return sum(math.dist(q[i], q[(i + 1) % len(q)]) for i in range(len(q))) / len(q)


# -- what the table did ------------------------------------------------------------------------------


def _actions(events: Sequence[Any]) -> dict[int, list[tuple[str, str]]]:
    """(kind, text) of what followed each reading set in the log, by reading-set number."""
    out: dict[int, list[tuple[str, str]]] = {}
    k = 0
    for e in events:
        if e.kind == "reading":
            k += 1
            out[k] = []
            continue
        if k == 0:
            continue
        d = e.data
        if e.kind == "question":
            out[k].append(("asked", f"asked ({d.get('kind')}): {d.get('text')}"))
        elif e.kind == "control" and "correction" in d:
            c = d["correction"]
            what = {
                "confirm": f"confirmed {d.get('reading')}",
                "set_value": f"set {d.get('reading')} from {d.get('from')} to {d.get('to')}",
                "set_thrower": f"said {d.get('reading')} was thrown by {d.get('thrower')}",
                "hidden": f"said a {d.get('colour')} {d.get('value')} lies hidden under {d.get('under')} "
                f"(added as {d.get('reading')})",
            }.get(c, c)
            out[k].append(("answer", f"{d.get('who')}: {what}"))
        elif e.kind == "input" and e.source == "camera":
            dice = d.get("dice")
            shown = (
                " ".join(f"{x.get('colour', '')[:1]}{x.get('value')}" for x in dice)
                if isinstance(dice, list)
                else json.dumps({k2: v for k2, v in d.items() if k2 not in ("type", "player")})
            )
            out[k].append(("scored", f"scored {d.get('type')} {e.player or ''} [{shown}]".replace("  ", " ")))
        elif e.kind == "input":
            out[k].append(("input", f"then {e.source}: {d.get('type')} {e.player or ''}".rstrip()))
        elif e.kind == "undo":
            out[k].append(("undo", f"undo by {d.get('who')}"))
    return out


def _outcome(acts: Sequence[tuple[str, str]], dice: Sequence[DieRow], last: bool, over: bool) -> str:
    kinds = [a for a, _ in acts]
    if "scored" in kinds:
        # an extra reading of a colour no die in the frame has (a marker, board art) is left out
        # by the games that pick their dice by colour; one of a game colour is an error
        colours = {d.truth.colour.lower() for d in dice if d.truth is not None}
        wrong = [
            d
            for d in dice
            if d.verdict != "ok"
            and d.reading is not None
            and (d.verdict != "extra" or str(d.reading.get("colour", "")).lower() in colours)
        ]
        fixed = {_answered(acts, d) for d in wrong}
        if wrong and (False in fixed):
            return f"scored, with {sum(1 for d in wrong if not _answered(acts, d))} reading error(s) left in"
        return "scored"
    if "asked" in kinds:
        return (
            "asked; the session ended still waiting (stalled)" if last and not over else "asked; superseded"
        )
    return "read, nothing scored (the game did not take it)"


def _answered(acts: Sequence[tuple[str, str]], d: DieRow) -> bool:
    """Whether a person's answer set this reading (its value) in the log."""
    rid = (d.reading or {}).get("id")
    return any(kind == "answer" and f" {rid} " in f" {text} " for kind, text in acts)


# -- running -----------------------------------------------------------------------------------------


def explain(game: str, session: Path | None = None, recorded_referee: bool = True) -> Report:
    """Play the session like ``dicetable demo`` and explain every reading set against its truth."""
    from controller.demo import DemoError, run_demo, session_dir
    from controller.eventlog import EventLog
    from controller.table import Table
    from hardware.frames import read_frames_csv

    folder = session or session_dir(game)
    try:
        truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DemoError(f"{folder}/truth.json: cannot explain without the session's truth ({e})") from None
    true_dice = truth_frames(truth)
    rows = read_frames_csv(folder)
    seen: list[tuple[TableReadings, str]] = []
    state: dict[str, Any] = {}

    def observe(table: Table) -> None:
        state["table"] = table
        table.reading_listeners.append(lambda rs, exp: seen.append((rs, exp.describe())))

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "explain.sqlite3"
        try:
            run_demo(
                game,
                session=folder,
                db=db,
                serve=False,
                quiet=True,
                recorded_referee=recorded_referee,
                observe=observe,
            )
        except DemoError as e:  # the game did not end: the report says where it stopped
            state["error"] = str(e)
        table = state.get("table")
        if table is None:
            raise DemoError(state.get("error") or f"{folder}: the session could not be started")
        with EventLog(db) as ev:
            events = ev.events(table.game_no)
    acts = _actions(events)
    over = table.status == "over"
    throws: list[ThrowRow] = []
    read_files: set[str] = set()
    for n, (rs, expected) in enumerate(seen):
        file = _file_at(rows, rs.t)
        has_truth = file in true_dice
        if has_truth and file is not None:
            read_files.add(file)
            dice = match(rs.dice, true_dice[file])
        else:
            dice = [DieRow("unchecked", None, r) for r in rs.dice]
        a = acts.get(rs.seq, [])
        throws.append(
            ThrowRow(
                rs.seq,
                rs.t,
                file,
                expected,
                dice,
                [text for _, text in a],
                _outcome(a, dice, n == len(seen) - 1, over),
                has_truth,
            )
        )
    thrown = {str(s["file"]) for s in truth.get("settled", []) if s.get("throw")} | {
        str(t["frame"]) for t in truth.get("throws", [])
    }
    result = table.game.result()
    return Report(
        table.setup.game,
        throws,
        table.game.scores(),
        truth.get("final_scores", {}),
        table.status if result is None else f"over, won by {' and '.join(result.winners)}",
        table._waiting_for(table.game.state.get("expects") or {}),
        sorted(thrown - read_files),
    )


def _file_at(rows: Sequence[tuple[str, float]], t: float) -> str | None:
    """The image the session shows at time ``t``."""
    best = None
    for name, tt in rows:
        if tt <= t + 1e-6:
            best = name
        else:
            break
    return best
