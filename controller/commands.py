"""The referee's commands at a table (the admin page, a recorded referee): an answer about the
current readings, an undo, a change of the game's status, a typed input; and a recorded session's
scripted lines, fed when they are due.

:func:`correct` is `controller.table.Table.correct`: each command is checked, logged with who made
it (a ``control`` or ``undo`` event, committed) before it changes anything, and the table's
listeners are told.  What an answer means and what it changes is `controller.corrections`'.
:func:`feed_due` is `Table.feed_due`: the script's inputs and corrections due by a time, each taken
when the game can take it (a choice once the roll it follows is read, an answer once its question
is asked); a line the log refuses is put back and fed again once the log is written.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from controller.corrections import (
    ANSWERS,
    answer,
    check_command,
    check_typed_throw,
    current_version,
    next_status,
    reopen,
)
from controller.eventlog import LogWriteError
from controller.ledger import LINE
from controller.script import select_reading
from controller.symbol_faces import named
from engine import Input, InputKind, RuleError

log = logging.getLogger("dicetable.table")


def correct(table: Any, command: dict[str, Any], who: str, t: float | None = None) -> dict[str, Any]:
    """Carry out one command at ``table`` (a `controller.table.Table`); ``t``: the recording's time
    of a scripted one.  Returns the admin API's answer; raises ValueError or RuleError, nothing
    logged, for a command the table cannot take."""
    action, who = check_command(command, who)
    table._t_correction = t
    if action in ANSWERS:
        message = _answer(table, action, command, who)
    elif action == "undo":
        message = _undo(table, who)
    elif action == "input":
        message = _input(table, command)
    else:
        message = _control(table, action, who)
    table._emit()
    return {"ok": True, "message": message, "seq": table.log.count(table.game_no)}


def _answer(table: Any, action: str, command: Mapping[str, Any], who: str) -> str:
    """A person's answer about the current readings: logged, applied, then the throw scored again."""
    with table._lock:
        kind = table.game.die_kind()  # the game's only kind of die; an answer teaches its crop
        kv, players = kind.value if kind else None, table.setup.players
        checked = table.learning.answer(action, command, table.reading_set, who, kv, players, table.frame)
        checked = named(table, action, command, checked, who)  # a symbol face named (issue 46 item 3)
        # a recording's answer is logged with which line it is (`controller.ledger.resume_point`): a
        # resume reads its readings again and applies it to them, never logging (or learning) it twice
        mark = table._mark(table._t_correction, LINE, 0)
        table.log.append(table.game_no, "control", checked.row, "correction", who, mark)
        checked.apply()
    table._try_score(table.clock(), table._t_correction)
    return str(checked.message)


def again(table: Any, command: Mapping[str, Any], who: str, t: float) -> None:
    """A resumed recording's answer or control that the log already holds (`Script.logged`), fed
    again: it does to the table what it did, and nothing is logged.  An answer changes the readings
    read again as it did (the crops and looks it taught were learnt again from the log at the start,
    `RefereeLearning.replay`; an ``unlearn`` changes no reading); a control sets the status."""
    action, who = check_command(command, who)
    table._t_correction = t
    with table._lock:
        if action not in ANSWERS:
            table.status = next_status(table.status, action)
        elif action != "unlearn":
            kind = table.game.die_kind()
            kv = kind.value if kind else None
            answer(action, command, table.reading_set, who, kv, table.setup.players).apply()
    if action in ANSWERS:
        table._try_score(table.clock(), t)
    table._emit()


def _undo(table: Any, who: str) -> str:
    with table._lock:
        standing = list(table.log.inputs(table.game_no))
        if not standing:
            raise ValueError("nothing to undo: no input has been applied to this game yet")
        last = standing[-1]
        # a recording's undo (its script's line, due at t) is logged with where the recording stands:
        # a resume goes on past it and never feeds it again (it would undo a second input)
        mark = table._mark(table._t_correction, "script", -1)
        table.log.append(table.game_no, "undo", {"undoes": last.seq, "who": who}, "correction", who, mark)
        table.game = table.log.replay(table.game_no)
        table.status = "playing"
        reopen(table.reading_set, last.seq)
    return f"undid {last.data.get('type')} from {last.player or 'the table'}"


def _control(table: Any, action: str, who: str) -> str:
    with table._lock:
        status = next_status(table.status, action)
        # logged first: a status the log does not hold is never shown; a recording's control with
        # which line it is, so a resume sets the status again without logging it twice
        mark = table._mark(table._t_correction, LINE, 0)
        row = {"action": action, "who": who}
        table.log.append(table.game_no, "control", row, "correction", who, mark)
        table.status = status
    return f"game {table.status}"


def _input(table: Any, command: Mapping[str, Any]) -> str:
    inp = Input.from_json(command.get("input"))
    if inp.kind is InputKind.SECRET:
        raise ValueError("secret selections come from the players' button panels, not the admin page")
    with table._lock:
        check_typed_throw(table.game, inp, table._context_colours())
    try:
        table.apply(inp, "admin", table._t_correction)
    except RuleError as e:  # a typed roll or throw: the rules' reason, not the state's dump
        if inp.kind not in (InputKind.ROLL, InputKind.THROW):
            raise
        raise ValueError(f"the game refuses this {inp.kind.value}: {e.why}") from None
    if inp.player is not None and inp.player in table.held_choices.players(table.game):
        return f"{inp.player}'s {inp.kind.value} is held until everyone asked has chosen"
    rs = table.reading_set
    if inp.kind in (InputKind.ROLL, InputKind.THROW) and rs is not None and not rs.applied:
        # a roll typed while the camera's readings wait for an answer replaces them: the
        # question goes, and a later answer cannot score the camera's dice as well
        with table._lock:
            rs.applied, rs.input_seqs = True, table.last_input_seqs
            table.question = None
        return f"{inp.kind.value} applied in place of the camera's readings r{rs.seq}"
    return f"{inp.kind.value} applied"


def feed_due(table: Any, t: float) -> None:
    """Apply ``table``'s scripted inputs and corrections that are due by ``t`` and that can be taken now."""
    while (item := table.script.next_due(t)) is not None:
        if item.correction is not None:
            if item.correction.get("action") in ANSWERS and table.question is None:
                return  # it answers a question not asked yet
            table.script.take()
            command = dict(item.correction)
            if "reading" not in command:
                rs, q = table.reading_set, table.question
                asked = q.readings if q is not None else ()
                dice = rs.dice if rs is not None else None
                command["reading"] = select_reading(dice, asked, command.pop("die", None))
            answers = command.get("action") in ANSWERS and command.get("action") != "unlearn"
            if answers and "version" not in command and table.reading_set is not None:
                # a recorded referee answers what the table shows when the line is due: that version
                command["version"] = current_version(table.reading_set, command)
            try:
                if table.script.logged():  # a resumed recording's answer or control the log holds
                    again(table, command, item.who, t)
                else:
                    table.correct(command, item.who, t)
            except (ValueError, RuleError) as e:
                log.warning("scripted correction at t=%.2f refused: %s", item.t, e)
            except LogWriteError as e:  # not logged, so not done: it is fed again when written
                table.script.put_back(item)
                if not table.held_write.waiting:
                    table._held(e, lambda: None)
                return
            continue
        assert item.input is not None
        exp = table.game.expects()
        if exp.kind is not item.input.kind or (exp.players and item.input.player not in exp.players):
            return  # not yet: e.g. the roll it follows has not been read
        table.script.take()
        try:
            table.apply(item.input, item.source, t)
        except RuleError as e:
            log.warning("scripted input at t=%.2f refused: %s", item.t, e)
        except LogWriteError as e:  # not logged, so not applied: it is fed again when written
            table.script.put_back(item)
            table._held(e, lambda: None)
            return
