"""One perception step: a settled frame in, the dice on it out (a typed, frozen `ReadingSet`).

The table (`controller.table.Table.on_settled`), `dicetable read` (plain, or `--config table.toml`
to read exactly as that table would), `dicetable learn-dice` and the benchmarks read a frame
through `Perceiver.perceive` and nothing else.  A `Perceiver` is a table's setup for reading: the
reader for its kinds of dice (a `vision.reading.Reader`, with its learnt set of dice), its board and
camera calibration (`BoardGeometry`), its measured palette and its `[vision]` where-steps with the
empty table (`controller.where.TableWhere`).  For each frame it runs, in order:

1. the board's pose, solved once from the frame's markers (when a board is configured);
2. the palette: cut down to the colours the game's dice come in now and balanced by the board's
   white and black (without a measured palette);
3. where a die can be (`TableWhere.steps`: the empty table, the die's size, the play area, the
   board's look) and where the camera looks from (`vision.oblique.View`, from the pose);
4. the reader (`Reader.examine`): every die read, every candidate rejected and why;
5. ids (`r<seq>.<n>`), then the place of each die on the board (`calibration.geometry.place`:
   zones, side, field, stacking; dice the last scored throw showed and a new die now covers carried
   over: `calibration.memory`), each placed pip d6 read again from its top face at the board
   (`controller.values`: the still's pixels when the camera takes one), then which readings are unsure.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from controller.die_sizes import table_sizes_mm
from controller.where import TableWhere

if TYPE_CHECKING:
    from controller.config import TableConfig, VisionSection
    from engine import Game
    from vision.reading import Examined, Reader, Rejected


class TableError(RuntimeError):
    """The table cannot go on; the message says why and what to do."""


# -- one die, one frame ----------------------------------------------------------------------------

#: what a reader says of a die, in its JSON order (vision.reading.DieReading.to_json; `learnt`: the
#: learnt set that read it)
READ_FIELDS = ("kind", "value", "center", "quad", "confidence", "colour", "cocked", "learnt")
#: where a die lies on the board (calibration.geometry.place), all or none of them
PLACE_FIELDS = (
    "zones",
    "min_multiplier",
    "side",
    "field_status",
    "card_slot",
    "stack_level",
    "rests_on",
    "board_center_mm",
    "footprint_mm",
)
#: a die carried over from the throw scored before (calibration.memory) and a person's answers
MEMORY_FIELDS = ("hidden", "carried", "under", "seen_as", "seen_in", "confirmed", "thrower")


@dataclass(frozen=True)
class Placed:
    """Where a die lies on the board (`calibration.geometry.DieGeometry`, as the table keeps it)."""

    zones: tuple[str, ...]
    min_multiplier: int | None
    side: str | None
    field_status: str
    card_slot: str | None
    stack_level: int
    rests_on: int | None  # an index into the same reading set's dice
    board_center_mm: tuple[float, float]
    footprint_mm: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Reading:
    """One die of a frame: what the reader said (None: a reader that did not say it), its place on
    the board (None: no board, or it could not be placed), what the memory of covered dice says,
    and whether the table must ask about it.  `to_json` is the one dict form of a die (the table's
    readings, the event log, `dicetable read --json`); `extra` keeps keys a test's or a recording's
    reader added that no field here names."""

    id: str
    kind: str | None = None
    value: Any = None
    center: tuple[float, float] | None = None
    quad: tuple[tuple[float, float], ...] | None = None
    confidence: float | None = None
    colour: str | None = None
    cocked: bool | None = None
    learnt: str | None = None
    place: Placed | None = None
    support_hidden: bool = False
    hidden: bool | None = None
    carried: bool | None = None
    under: Any = None
    seen_as: str | None = None
    seen_in: str | None = None
    confirmed: bool | None = None
    thrower: str | None = None
    unsure: bool | None = None
    extra: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k in READ_FIELDS:
            v = getattr(self, k)
            if v is not None:
                out[k] = [list(p) for p in v] if k == "quad" else list(v) if k == "center" else v
        out["id"] = self.id
        if self.place is not None:
            p = self.place
            out.update(
                zones=list(p.zones),
                min_multiplier=p.min_multiplier,
                side=p.side,
                field_status=p.field_status,
                card_slot=p.card_slot,
                stack_level=p.stack_level,
                rests_on=p.rests_on,
                board_center_mm=list(p.board_center_mm),
                footprint_mm=[list(q) for q in p.footprint_mm],
            )
        if self.support_hidden:
            out["support_hidden"] = True
        for k in MEMORY_FIELDS:
            v = getattr(self, k)
            if v is not None:
                out[k] = v
        if self.unsure is not None:
            out["unsure"] = self.unsure
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Reading:
        """A die from its dict form (a reader's `to_json`, or a dict a test's reader gives)."""
        known = {*READ_FIELDS, *PLACE_FIELDS, *MEMORY_FIELDS, "id", "support_hidden", "unsure"}
        kw: dict[str, Any] = {k: d[k] for k in (*READ_FIELDS, *MEMORY_FIELDS, "unsure") if k in d}
        if "center" in kw and kw["center"] is not None:
            kw["center"] = tuple(kw["center"])
        if "quad" in kw and kw["quad"] is not None:
            kw["quad"] = tuple(tuple(p) for p in kw["quad"])
        extra = {k: v for k, v in d.items() if k not in known}
        if all(k in d for k in PLACE_FIELDS):
            kw["place"] = Placed(
                tuple(d["zones"]),
                d["min_multiplier"],
                d["side"],
                d["field_status"],
                d["card_slot"],
                d["stack_level"],
                d["rests_on"],
                tuple(d["board_center_mm"]),
                tuple(tuple(p) for p in d["footprint_mm"]),
            )
        else:  # a partial place (e.g. a remembered die's footprint): kept as given
            extra.update({k: d[k] for k in PLACE_FIELDS if k in d})
        return cls(
            id=str(d.get("id", "")),
            support_hidden=bool(d.get("support_hidden", False)),
            extra=tuple(extra.items()),
            **kw,
        )


@dataclass(frozen=True)
class ReadingSet:
    """The dice of one settled frame (`seq`: its number at the table, `t`: its time), what the
    readers rejected and why (`dicetable read --explain`), and why the dice could not be placed on
    the board (`board_problem`; None: placed, or no board)."""

    seq: int
    t: float
    dice: tuple[Reading, ...] = ()
    rejected: tuple[Rejected, ...] = ()
    board_problem: str | None = None
    #: whether the board's pose was solved in the frame (None: no board configured)
    pose_found: bool | None = None
    #: CPU milliseconds the step took (process time)
    ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seq": self.seq, "t": self.t, "dice": [d.to_json() for d in self.dice]}
        if self.rejected:
            out["rejected"] = [r.to_json() for r in self.rejected]
        if self.board_problem is not None:
            out["board_problem"] = self.board_problem
        return out


# -- a table's setup for reading --------------------------------------------------------------------


def game_kinds(game: str) -> tuple[str, ...]:
    """The kinds the camera reads for a game whose config names none (``table.kinds``): every kind the
    game is played with (``engine.Game.dice_kinds``: Die-angler's d6, d10 and d20, Dice Fighter's
    percentile d10s, pip d6 for the others; issue 43: a mixed game read as pip d6 alone scored its
    d20s as d6).  A table may name fewer in ``table.kinds``."""
    from engine import find_game
    from engine.core import DieKind

    kinds = tuple(k.value for k in find_game(game).dice_kinds if k is not DieKind.DN)
    return kinds or ("d6",)


@dataclass(frozen=True)
class FrameOnly:
    """A reader of the frame alone (a test's, a recorded camera's: a callable giving `DieReading`s or
    dicts) as a `vision.reading.Reader`: it is given no palette, where-steps or view, and the table
    gives it none of the where-steps' cues (the stacks-by-sides cue) either."""

    fn: Any

    def read(self, image: np.ndarray, palette: Any = None, where: Any = None, view: Any = None) -> list[Any]:
        return list(self.fn(image))

    def examine(self, image: np.ndarray, palette: Any = None, where: Any = None, view: Any = None) -> Any:
        from vision.reading import Examined

        return Examined(self.read(image), [])


def player_colours(cfg: TableConfig, state: Mapping[str, Any]) -> dict[str, str]:
    """Each player's dice colour: the game's own (its state's ``colours``) over the table config's."""
    colours = {p.name: p.colour for p in cfg.players}
    own = state.get("colours")
    if isinstance(own, Mapping):
        colours.update({str(k): str(v) for k, v in own.items()})
    return colours


def throw_colours(game: Game, colours: Mapping[str, str]) -> dict[str, Any]:
    """`Perceiver.perceive`'s ``colours`` (what the game's dice come in now: the palette is cut to
    them) and ``place_colours`` (the dice placed on the board), as the running ``game`` says
    (``Game.dice_colours``, ``Game.board_colours``) given its players' ``colours`` (`player_colours`),
    and ``expected``: how many dice of which colours the throw shows (``Game.entry_dice``; issue 45:
    when every one is seen, no die can rest on a die no frame shows)."""
    from calibration.memory import expected_counts

    player = next(iter(game.expects().players), None)
    return {
        "colours": game.dice_colours(colours),
        "place_colours": game.board_colours(colours),
        "expected": expected_counts(game.entry_dice(player, colours)) or None,
    }


#: a reading's look (`Perceiver.looks`) while the perception step reads a frame, taken out before the
#: reading is kept
_LOOK = "_look"
#: `Perceiver.looks` keeps the looks of this many readings, the newest
LOOKS_KEPT = 256


def _as_dict(r: Any) -> dict[str, Any]:
    """A reader's die as a dict: a `DieReading`'s `to_json`, or a test's dict as it is."""
    return dict(r.to_json() if hasattr(r, "to_json") else r)


def _scaled_die(d: Mapping[str, Any], k: float) -> dict[str, Any]:
    """A die's dict with its ``center`` and ``quad`` (pixels) ``k`` times larger."""
    out = dict(d)
    if out.get("center") is not None:
        out["center"] = [float(v) * k for v in out["center"]]
    if out.get("quad") is not None:
        out["quad"] = [[float(x) * k, float(y) * k] for x, y in out["quad"]]
    return out


def as_reader(reader: Any) -> Reader:
    """`reader` as a `vision.reading.Reader`: itself when it is one, else a callable of the frame
    alone (`FrameOnly`)."""
    from vision.reading import Reader

    return reader if isinstance(reader, Reader) else FrameOnly(reader)


def reader_for(
    game: str,
    kinds: Sequence[str] | None = None,
    learnt: Any = None,
    ocr: bool = True,
    estimate_tilt: bool = False,
    ocr_head: str = "full",
    top_view: Any = None,
) -> Reader:
    """The reader for a game's dice (``kinds``: the config's ``table.kinds``, else the game's own,
    `game_kinds`): the pip-d6 reader for pip d6 alone, else the numbered reader looking for those kinds
    only (`vision.numbered.NumberedDice`).  ``learnt``: the table's learnt set of dice
    (``load_learnt``), read by the numbered reader (its readings say so).  ``estimate_tilt``:
    ``[vision] estimate_tilt``, the pip-d6 reader that estimates a tilted camera's view.  ``ocr_head``:
    ``[vision] ocr_head``, the full OCR head or the fast one (`NumberedReader`'s ``ocr_head``).
    ``top_view``: ``[vision] camera_tilt_deg``'s view, a d20 cut on its top face (`viewed`)."""
    want = tuple(kinds) if kinds else game_kinds(game)
    if learnt is not None and learnt.kind not in want:
        raise TableError(f"table.dice_set: a set of {learnt.kind}, expected one of the game's kinds {want}")
    if estimate_tilt and (want != ("d6",) or learnt is not None):
        raise TableError(
            f"vision.estimate_tilt: reads pip d6 only; this table reads {', '.join(want)}"
            + (" with a learnt set of dice" if learnt is not None else "")
            + " (set estimate_tilt = false, or calibrate the board so the camera's view is known)"
        )
    if want == ("d6",) and learnt is None:
        from vision.numbered.combined import LONE_MEDIAN, PipDice
        from vision.reader import default_reader

        # a die the pip reader reads surely and the numbered classifier does not take for a d6 (a
        # numbered die at a table of pip d6) is asked, never scored as a d6 (issue 43); a lone photo
        # of mostly unsure readings shows no dice (issue 46), except to the tilted reader, which
        # reads an oblique photo's dice unsurely by design
        return PipDice(
            default_reader(estimate_view=estimate_tilt), lone_median=None if estimate_tilt else LONE_MEDIAN
        )
    from vision.numbered import NumberedDice
    from vision.numbered.reader import NumberedReader

    # ``ocr``: [vision] ocr_second_opinion, the OCR head beside the classifier (vision.numbered.ocr): the
    # default reader's way; off, a reader of the classifier alone
    if not ocr:
        return NumberedDice(want, learnt, viewed(NumberedReader(ocr=False), top_view))
    if ocr_head == "full":
        return NumberedDice(want, learnt, None if top_view is None else viewed(None, top_view))
    return NumberedDice(want, learnt, viewed(NumberedReader(ocr_head=ocr_head), top_view))


def viewed(reader: Any, top_view: Any) -> Any:
    """``reader`` (a `NumberedReader`; None: the default one) that cuts a d20 seen obliquely on its top
    face by ``top_view`` (``[vision] camera_tilt_deg``: `VisionSection.camera_view`; issue 44): a copy
    sharing its nets; ``reader`` itself when ``top_view`` is None."""
    import copy

    if top_view is None:
        return reader
    if reader is None:
        from vision.numbered.reader import default_reader

        reader = default_reader()
    from vision.numbered.die_crop import TopFaces

    mine = copy.copy(reader)
    mine.top_view = top_view
    if getattr(reader, "ocr", None) is not None:  # the OCR head reads the top face warped too
        mine.ocr = copy.copy(reader.ocr)
        mine.ocr.rectify = TopFaces(top_view)
    return mine


def load_learnt(path: Path | None, to_teach: bool = False) -> Any:
    """The table's learnt set of dice (``table.dice_set``, `dicetable learn-dice`), None without one;
    raises TableError naming the file.  ``to_teach``: the table's game has numbered dice, so a set can
    be taught at the table (controller.teach saves it at ``path``): no file there yet is no set yet."""
    if path is None or (to_teach and not path.exists()):
        return None
    from vision.numbered.learnt import load_set
    from vision.numbered.reader import default_reader

    try:
        return load_set(path, default_reader().embedder().digest)
    except ValueError as e:
        raise TableError(f"table.dice_set: {e}") from None


def _roster(path: Path) -> Any:
    """The roster to read against (`controller.roster.roster_view`; None: none of its dice taught)."""
    from controller.roster import roster_view

    return roster_view(path)


def with_roster(learnt: Any, roster: Any, kinds: Sequence[str]) -> Any:
    """The learnt sets the table reads with: one a taught die of its roster (``roster``), and the
    configured set ``learnt`` for a kind none of them is (issue 44 item 4); ``learnt`` without one."""
    if roster is None:
        return learnt
    from controller.roster import entry_sets
    from vision.numbered.learnt import LearntSets
    from vision.numbered.reader import default_reader

    mine = entry_sets(list(roster.dice), default_reader().embedder().digest, tuple(kinds))
    if not mine:
        return learnt
    covered = {s.kind for s in mine}
    rest = [
        s for s in getattr(learnt, "sets", [learnt] if learnt is not None else []) if s.kind not in covered
    ]
    return LearntSets(tuple(mine + rest))


def _not_dice(roster: Path) -> Any:
    """What learn-dice sessions were told is not the die (`controller.not_dice`; None: nothing)."""
    from controller.not_dice import load_not_dice, path_for

    if not path_for(roster).is_file():
        return None
    from vision.numbered.reader import default_reader

    return load_not_dice(roster, default_reader().embedder().digest)


def _body_lab(image: np.ndarray, palette: Any) -> Any:
    """A reading's look in ``image`` as a roster's looks keep it (`controller.roster.die_look`,
    balanced by ``palette``'s light); None when it cannot be measured."""
    import cv2

    from controller.roster import die_look

    def lab(r: Mapping[str, Any]) -> Any:
        if palette is None or not r.get("quad"):
            return None
        try:
            return die_look(image, r["quad"], palette)
        except (ValueError, cv2.error):
            return None

    return lab


def _learnt_looks(path: Path) -> Any:
    """The roster's learnt looks as a palette (`controller.roster.learnt_palette`; None: no roster,
    a colour without a look, or a refused file, which the table's roster reports)."""
    from controller.roster import RosterError, learnt_palette, load_roster

    try:
        return learnt_palette(load_roster(path))
    except RosterError:
        return None


def load_palette(path: str | Path, what: str = "camera.palette") -> Any:
    """A measured palette (a ``dicetable calibrate colours`` file); raises TableError naming it."""
    from vision.palette import Palette

    try:
        return Palette.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValueError) as e:
        raise TableError(
            f"{what} {str(path)!r}: expected a palette JSON file from 'dicetable calibrate colours' ({e})"
        ) from None


def frame_nadir(
    image: np.ndarray, calibration: Any, board: Any, pose: Any = None
) -> tuple[float, float] | None:
    """The point below the camera in this frame (pixels), from the board's pose (``pose``, or solved
    from the frame's markers: calibration.pose); None when the pose cannot be solved."""
    from calibration.pose import estimate_board_pose
    from vision.numbered.topface import nadir_from_pose

    h, w = image.shape[:2]
    try:
        pose = pose or estimate_board_pose(image, calibration, board)
        return nadir_from_pose(pose.rvec, calibration.for_image(w, h).camera_matrix)
    except ValueError:  # PoseError: too few markers seen; or a degenerate pose
        return None


class BoardGeometry:
    """The configured board layout and camera calibration: where each die lies on the board."""

    def __init__(
        self, layout: str, calibration: str, fit: str = "body", die_sizes_mm: list[float] | None = None
    ) -> None:
        from calibration.board import BOARDS_DIR, load_board, resolve_board_path
        from calibration.camera import load_calibration

        self.fit = fit
        #: the dice set's sizes (table.toml [dice] sizes_mm); None: the board file's (deprecated), else 16
        self.die_sizes_mm = die_sizes_mm

        path = resolve_board_path(layout)
        if not path.exists() and (BOARDS_DIR / Path(layout).name).exists():
            path = BOARDS_DIR / Path(layout).name
        try:
            self.board = load_board(path)
            self.calibration = load_calibration(calibration)
        except (ValueError, OSError) as e:
            raise TableError(f"board {layout!r} / calibration {calibration!r}: {e}") from None
        for note in self.board.notes:  # e.g. a die size in the board file: it belongs to [dice]
            warnings.warn(note, FutureWarning, stacklevel=2)

    @classmethod
    def of(
        cls, board: Any, calibration: Any, fit: str = "body", die_sizes_mm: list[float] | None = None
    ) -> BoardGeometry:
        """A loaded board layout and camera calibration (a rendered scene's, a test's)."""
        self = cls.__new__(cls)
        self.board, self.calibration, self.fit, self.die_sizes_mm = board, calibration, fit, die_sizes_mm
        return self

    def pose(self, image: np.ndarray) -> Any:
        """The board's pose in this frame (calibration.pose.BoardPose), or None when it cannot be
        solved (then `place` solves it again and says why)."""
        from calibration.pose import estimate_board_pose

        try:
            return estimate_board_pose(image, self.calibration, self.board)
        except ValueError:
            return None

    def balance(self, palette: Any, image: np.ndarray, pose: Any) -> Any:
        """``palette`` balanced by the board's paper white and markers' black in this frame
        (calibration.boardlight); unchanged when they cannot be read."""
        from calibration.boardlight import board_light

        try:
            light = board_light(image, pose, self.calibration, self.board)
        except ValueError:
            return palette
        return palette.balanced(light.white_bgr, light.black_bgr)

    def view(self, image: np.ndarray, pose: Any) -> Any:
        """Where the camera looks from in this frame (vision.oblique.View) from the board's pose; None
        without a pose."""
        from vision.oblique import View

        if pose is None:
            return None
        h, w = image.shape[:2]
        try:
            return View.from_pose(pose.rvec, self.calibration.for_image(w, h).camera_matrix)
        except ValueError:  # the board's down is not in front of the camera: a degenerate pose
            return None

    def nadir(self, image: np.ndarray, pose: Any = None) -> tuple[float, float] | None:
        """The point below the camera in this frame (`frame_nadir`), from `pose` when given."""
        return frame_nadir(image, self.calibration, self.board, pose)

    def place(
        self,
        image: np.ndarray,
        readings: list[dict[str, Any]],
        colours: Iterable[str] | None = None,
        before: Sequence[Mapping[str, Any]] | None = None,
        prefix: str = "h",
        pose: Any = None,
        lying: np.ndarray | None = None,
        around: bool = False,
        expected: Mapping[Any, int] | None = None,
    ) -> None:
        """Add zones, side, field status, card slot and stacking to the readings (raises ValueError).

        Only the readings of ``colours`` (the game's dice; None: all) are placed: the stacking
        search grows with the square of the dice, and nothing else can hold a game die up.
        ``rests_on`` indexes the whole list.

        ``pose``: the board's pose in this frame when already solved (`pose`), else solved here.
        ``lying``: where something lies on the board (`TableWhere.lying`): a die showing the sides
        of a die under it is placed one level up; with no die seen or carried under it, its reading
        says ``support_hidden`` and is unsure (the table asks for the die under it).  ``around``: ``lying`` is
        the empty table's change (`vision.empty_diff`), which tells a die from its shadow: a die too
        near the nadir to show its sides is raised by what lies round it (calibration.raised).

        ``before`` are the readings scored last: a die seen there that a newly thrown die now
        covers (:mod:`calibration.memory`) is appended to ``readings``, marked ``hidden`` and
        ``carried``, with the id ``prefix`` + n, and the die over it is placed on it.

        ``expected``: how many dice of which colours the throw shows (`throw_colours`): when every
        die is seen (or carried), no die rests on a die no frame shows (`calibration.place`'s
        ``all_seen``, `calibration.memory.settle_supports`).
        """
        from calibration.geometry import HIDDEN, place
        from calibration.memory import (
            ask_over_carried,
            carry_covered,
            check_expected,
            known_dice,
            settle_supports,
            short_by,
        )

        counts = None if expected is None else check_expected(dict(expected))

        wanted = None if colours is None else {c.lower() for c in colours}
        idx = [
            i for i, r in enumerate(readings) if wanted is None or str(r.get("colour", "")).lower() in wanted
        ]
        if not idx:
            return
        carried = carry_covered([dict(d) for d in before or []], [readings[i] for i in idx], wanted)
        seen = [readings[i] for i in idx] + [d for d, _ in carried]
        geo = place(
            [readings[i]["quad"] for i in idx],
            [readings[i].get("kind", "d6") for i in idx],
            self.calibration,
            self.board,
            image=image,
            pose=pose,
            # the reader's quads are boxes about each die: their top faces by geometry alone (the image
            # search costs ~50 ms a die; boxes taken for top faces make false stacks:
            # benchmarks/results/geometry.md); "none" for readers that give exact top faces
            outline=self.fit != "none",
            fit="image" if self.fit == "image" else "body",
            known=known_dice(carried),
            die_size_mm=self.die_sizes_mm,
            lying=lying,
            around=around,
            all_seen=counts is not None and not short_by(seen, counts),
        )
        for n, (die, _) in enumerate(carried, 1):
            die["id"] = f"{prefix}{n}"
            idx.append(len(readings))
            readings.append(die)
        for i, g in zip(idx, geo, strict=True):
            readings[i].update(
                zones=list(g.zones),
                min_multiplier=g.min_multiplier,
                side=g.side,
                field_status=g.field_status,
                card_slot=g.card_slot,
                stack_level=g.stack_level,
                rests_on=None if g.rests_on is None else idx[g.rests_on],
                board_center_mm=[round(g.board_center_mm[0], 1), round(g.board_center_mm[1], 1)],
                footprint_mm=[[round(float(x), 1), round(float(y), 1)] for x, y in g.footprint_mm],
            )
            if g.support_hidden:
                readings[i]["support_hidden"] = True
            if g.support_doubt:
                # what the frame cannot tell this die rests on (issue 45 item 4): the table asks
                readings[i]["support_options"] = [
                    {
                        "on": "board" if o.on is None else "hidden" if o.on == HIDDEN else idx[o.on],
                        "stack_level": o.stack_level,
                        "zones": list(o.place.zones),
                        "min_multiplier": o.place.min_multiplier,
                        "side": o.place.side,
                        "field_status": o.place.field_status,
                        "card_slot": o.place.card_slot,
                    }
                    for o in g.support_doubt
                ]
        settle_supports([readings[i] for i in idx], counts)
        ask_over_carried(readings)  # a die the memory puts over a carried die, placed elsewhere


@dataclass
class Perceiver:
    """A table's setup for reading frames (see the module's doc); `perceive` reads one frame.

    ``palette``: the palette measured at the table (None: the reader's default colours, balanced by
    the board's white and black when the pose is known); ``threshold``: a reading less sure than this
    is unsure; ``rectify``: ``[vision] rectify_oblique`` (off: the reader is told no view)."""

    reader: Reader
    where: TableWhere
    geometry: BoardGeometry | None = None
    palette: Any = None
    threshold: float = 0.8
    rectify: bool = True
    #: whether the table's own palette goes to the reader (not for a reader it was handed)
    own_reader: bool = True
    kinds: tuple[str, ...] = field(default=("d6",))
    #: the roster's learnt looks (`controller.roster.learnt_palette`): without a measured palette,
    #: the dice's colours are named by them (issue 44 item 5); None: by the palette
    learnt: Any = None
    #: the roster read against (issue 44 item 4, `controller.roster.RosterView`): each die matched to
    #: one of the table's dice, or asked; None: no roster, or none of its dice taught
    roster: Any = None
    #: what learn-dice sessions were told is not the die, where it lay (`controller.not_dice`): a
    #: reading none of the roster's dice matched that lies there and looks like it is left out
    not_dice: Any = None
    #: the look each die of the frames read last was named by, by its reading's id (its centre
    #: beside, so a reading of another frame under the same id is told apart), when the table names
    #: colours by learnt looks (`vision.reading.DieReading.look`: what a referee's answer about its
    #: colour adds to the roster's look, `controller.referee_looks`; never logged): the newest LOOKS_KEPT
    looks: dict[str, tuple[tuple[float, float], tuple[float, ...]]] = field(default_factory=dict)

    @classmethod
    def from_config(
        cls, cfg: TableConfig, reader: Any = None, geometry: BoardGeometry | None = None
    ) -> Perceiver:
        """The setup a table.toml describes: its game's kinds and learnt set of dice, board and
        calibration, palette, empty-table frame and ``[vision]`` steps; raises TableError naming
        what is wrong.  ``reader``: a reader to use instead of the config's (`as_reader`);
        ``geometry``: a board geometry to use instead of the config's."""
        from controller.learn_view import table_view

        palette = load_palette(cfg.camera.palette) if reader is None and cfg.camera.palette else None
        kinds = tuple(cfg.table.kinds) if cfg.table.kinds else game_kinds(cfg.table.game)
        roster = _roster(cfg.roster_path) if reader is None and kinds != ("d6",) else None
        chosen = (
            as_reader(reader)
            if reader is not None
            else reader_for(
                cfg.table.game,
                cfg.table.kinds,
                with_roster(
                    load_learnt(cfg.dice_set_path, any(k in ("d10", "d10p", "d20") for k in kinds)),
                    roster,
                    kinds,
                ),
                cfg.vision.ocr_second_opinion,
                cfg.vision.estimate_tilt,
                cfg.vision.ocr_head,
                table_view(cfg),  # stated, or learnt from the teaching rolls (controller.learn_view)
            )
        )
        # the dice's sizes in mm: [dice] sizes_mm and the roster's dice's (`controller.die_sizes`)
        sizes = table_sizes_mm(cfg)
        if geometry is None and cfg.board.layout and cfg.board.calibration:
            geometry = BoardGeometry(cfg.board.layout, cfg.board.calibration, cfg.board.fit, sizes)
        if reader is None and kinds == ("d6",):  # the roster's named symbol faces (issue 46 item 3)
            from controller.symbol_faces import with_symbols

            chosen = with_symbols(chosen, cfg.roster_path)
        if reader is None and kinds != ("d6",):  # a numbered die's kind from the table's dice (issue 43)
            from controller.kind_at_table import at_table

            chosen = at_table(chosen, kinds, cfg.roster_path)
        learnt = _learnt_looks(cfg.roster_path) if reader is None and palette is None else None
        return replace(
            cls.of(
                chosen,
                cfg.vision,
                geometry,
                palette,
                cfg.table.confidence_threshold,
                own_reader=reader is None,
                kinds=kinds,
                die_sizes_mm=sizes,
            ),
            learnt=learnt,
            roster=roster,
            not_dice=_not_dice(cfg.roster_path) if reader is None else None,
        )

    @classmethod
    def of(
        cls,
        reader: Reader,
        vision: VisionSection,
        geometry: BoardGeometry | None = None,
        palette: Any = None,
        threshold: float = 0.8,
        own_reader: bool = True,
        kinds: tuple[str, ...] = ("d6",),
        die_sizes_mm: list[float] | None = None,
    ) -> Perceiver:
        """A setup from its parts (raises TableError when the ``[vision]`` steps cannot be made).
        A process that reads frames keeps the memory of one frame's arrays for the next
        (`vision.runtime.keep_freed_memory`) and runs numpy's matrix products on one thread
        (`vision.runtime.one_blas_thread`): the same readings, at less CPU a frame and a throw."""
        from vision.runtime import keep_freed_memory, one_blas_thread

        keep_freed_memory()
        one_blas_thread()
        try:
            where = TableWhere(
                vision,
                geometry.board if geometry is not None else None,
                geometry.calibration if geometry is not None else None,
                die_sizes_mm,
            )
        except ValueError as e:
            raise TableError(str(e)) from None
        return cls(reader, where, geometry, palette, threshold, vision.rectify_oblique, own_reader, kinds)

    def warm(self, image: np.ndarray) -> bool:
        """Read ``image`` (the camera's first frame) once, its reading dropped, so that the first throw
        does not pay for loading the reader's nets and running them the first time (~220 ms CPU here,
        most of it onnxruntime's first runs; issue 32).  Nothing is kept of the frame: the where-steps
        and the board's pose are made again for each frame read.  A reader the table was handed
        (`FrameOnly`: a test's, a recording's) is not called; a frame that cannot be read is left to
        the loop to report.  True when it was read."""
        if isinstance(self.reader, FrameOnly):
            return False
        try:
            self.perceive(image)
        except Exception:  # the loop reports a frame it cannot read when it reads one
            return False
        return True

    def set_empty(self, empty: np.ndarray) -> None:
        """The empty table as the camera saw it last (the motion gate's empty frame)."""
        self.where.set_empty(empty)

    def reading_palette(self, image: np.ndarray, pose: Any, colours: Iterable[str] | None) -> Any:
        """The palette the reader names colours with: the table's (or the default), cut down to
        ``colours`` (the colours the game's dice come in now; None: any) and the colours of things
        that are not dice; without a measured palette, the colours the table knows by those names
        (`Palette.known`) balanced by the board's white and black, or by the frame's own light
        without a board (`Palette.balanced_by_frame`)."""
        from controller.adapters import NOT_DICE
        from vision.palette import Palette

        if self.palette is not None:
            return self.palette if colours is None else self.palette.only({*colours} | set(NOT_DICE))
        if self.learnt is not None:
            palette = self.learnt if colours is None else self.learnt.only({*colours} | set(NOT_DICE))
        else:
            palette = Palette.default() if colours is None else Palette.known({*colours} | set(NOT_DICE))
        if self.geometry is not None and pose is not None:
            palette = self.geometry.balance(palette, image, pose)
        return palette if palette.light is not None else palette.balanced_by_frame(image)

    def perceive(
        self,
        image: np.ndarray,
        *,
        seq: int = 1,
        t: float = 0.0,
        empty: np.ndarray | None = None,
        colours: Iterable[str] | None = None,
        place_colours: Iterable[str] | None = None,
        before: Sequence[Mapping[str, Any]] = (),
        frame: np.ndarray | None = None,
        expected: Mapping[Any, int] | None = None,
    ) -> ReadingSet:
        """The dice of one settled frame (see the module's doc for the stages).

        ``frame``: the gate's frame when ``image`` is the full-resolution still taken after it
        (`hardware.stills`, issue 43): the board's pose is solved in ``frame`` (the same view, the
        calibration scaled to each), the settings in pixels and the empty table are scaled to the
        still, the readers read the still (their nets on its dice's crops: `vision.numbered.reader
        .still_copies`), and the dice are given in ``frame``'s pixels, like every frame the table
        keeps.
        ``empty``: the empty table as the camera saw it last; ``colours``: the colours the game's
        dice come in now (None: any); ``place_colours``: the dice placed on the board (the game's:
        `engine.Game.board_colours`; None: all); ``before``: the dice of the throw scored
        last (a die they show that a new die covers is carried over); ``expected``: how many dice of
        which colours the throw shows (`throw_colours`; None: not known).  Raises ValueError or
        cv2.error for a frame that cannot be read; a board the dice cannot be placed on is the
        set's ``board_problem``."""
        c0 = time.process_time()
        if empty is not None:
            self.set_empty(empty)
        k = 1.0 if frame is None else image.shape[1] / frame.shape[1]
        self.where.video_width = None if frame is None or k <= 1.0 else int(frame.shape[1])
        if k > 1.0:
            before = [_scaled_die(d, k) for d in before]
        pose = None
        if self.geometry is not None:
            pose = self.geometry.pose(frame if frame is not None and k > 1.0 else image)
        palette = self.reading_palette(image, pose, colours) if self.own_reader else None
        frame_only = isinstance(self.reader, FrameOnly)
        steps = [] if frame_only else self.where.steps(image, pose)
        view = None
        if self.rectify and self.geometry is not None and pose is not None:
            view = self.geometry.view(image, pose)
        seen: Examined = self.reader.examine(image, palette, steps, view)
        readings = [_as_dict(r) for r in seen.readings]
        if self.learnt is not None and self.palette is None:  # the look each die was named by
            for d, found in zip(readings, seen.readings, strict=True):
                if getattr(found, "look", None) is not None:
                    d[_LOOK] = found.look
        if self.roster is not None and not frame_only:  # which of the table's dice (issue 44 item 4)
            from vision.numbered.reader import UNCONFIRMED

            readings = self.roster.settle(
                readings, UNCONFIRMED, None if colours is None else set(colours), _body_lab(image, palette)
            )
        rejected = list(seen.rejected)
        if self.not_dice is not None and not frame_only and readings:  # named not the die (issue 44)
            from vision.numbered.reader import default_reader
            from vision.reading import Rejected

            table = self.where.empty  # the crops cut as learn-dice see cut them (its empty table)
            bare = table.empty if table is not None and table.empty.shape == image.shape else None
            gone = self.not_dice.drop(image, readings, default_reader(), bare, steps)
            for r in (r for r, g in zip(readings, gone, strict=True) if g):
                q = np.asarray(r["quad"], np.float64).reshape(-1, 2)
                why = "named not the die at this place in a learn-dice session"
                rejected.append(
                    Rejected(
                        tuple(r["center"]), float(np.ptp(q[:, 0])), float(np.ptp(q[:, 1])), "not_dice", why
                    )
                )
            readings = [r for r, g in zip(readings, gone, strict=True) if not g]
        for i, r in enumerate(readings):
            r["id"] = f"r{seq}.{i + 1}"
        board_problem: str | None = None
        if self.geometry is not None:
            try:
                self.geometry.place(
                    image,
                    readings,
                    place_colours,
                    before=before,
                    prefix=f"r{seq}.h",
                    pose=pose,
                    lying=None if frame_only else self.where.lying(image),
                    around=self.where.finder is not None,  # the empty table's change: see place
                    expected=expected,
                )
            except ValueError as e:
                board_problem = str(e)
            else:  # each placed pip d6 read again from its top face at the board (issue 45 item 2)
                from controller.values import pip_classifier, read_top_faces

                classifier = None if frame_only else pip_classifier(self.reader, self.kinds)
                read_top_faces(image, readings, pose, self.geometry.calibration, classifier)
        if k > 1.0:  # the still's dice in the gate frame's pixels
            readings = [_scaled_die(r, 1.0 / k) for r in readings]
        for r in readings:
            if _LOOK in r:
                look = r.pop(_LOOK)
                self.looks.pop(str(r["id"]), None)  # the newest last
                self.looks[str(r["id"])] = (tuple(r["center"]), look)
        for stale in list(self.looks)[: max(0, len(self.looks) - LOOKS_KEPT)]:
            self.looks.pop(stale, None)
        for r in readings:
            # a die raised on a die no frame showed: the die under it must be told
            r["unsure"] = (
                r.get("confidence", 1.0) < self.threshold
                or bool(r.get("support_hidden"))
                or bool(r.get("support_options"))
            ) and not r.get("confirmed")
        return ReadingSet(
            seq,
            t,
            tuple(Reading.from_json(r) for r in readings),
            tuple(rejected),
            board_problem,
            None if self.geometry is None else pose is not None,
            1000 * (time.process_time() - c0),
        )
