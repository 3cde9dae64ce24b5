"""The camera's view learnt from the teaching rolls (issue 44): whether a table's camera looks at the
table at an angle, and how, when its table.toml states no view (``[vision] camera_tilt_deg``).

A d20 seen 45 degrees off vertical shows its top face displaced from its outline's centre toward the
far side; read at the outline's centre, the OCR head reads a side face (on REAL d20_off-angle right
1.8 % at the centre, 79.7 % shifted toward the far side; on the top-down d20_top 96.9 % at the centre,
2.6 % shifted: benchmarks/head_top_shift.py).  `learn-dice see` has two cues in its teaching rolls:

* the dice's outlines against the empty table: one die's size across the frame says which way the
  point below the camera lies (the dice nearer it look bigger) and, for each tilt, the lens that
  tilt needs (`vision.oblique.lens_for_tilt`, `size_tilt`);
* the OCR head's evidence under each hypothesis (`hypotheses`: each tilt of TILTS toward the side the
  dice look bigger, with the lens the sizes then need): how surely it reads each teaching die's top
  face cut under it (`weigh`), against how surely it reads the dice where they are cut today.

No view is learnt when the sizes tell no direction; `choose` takes a tilt only when the head reads
the dice clearly surer under it than with no view (GAIN, and on at least SURER of the dice), else no
view (today's cut).  A view the table.toml states
always wins (`learn-dice see` then learns nothing); a learnt view is kept in the session's seen.json
and, by `confirm --config`, in the table's view file (`view_path`), read by `read --config`, the
teaching page and `learn-dice see` alike when ``[vision] learn_camera_view = true`` (`table_view`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from controller.config import TableConfig

#: the tilts (degrees off vertical) weighed beside "no view"
TILTS = (15.0, 30.0, 45.0, 60.0)
#: the fewest teaching dice whose outlines were found to learn a view from
MIN_DICE = 12
#: how much surer a tilt must read the teaching dice than no view to be taken: the head's evidence for
#: the value it reads (the log of its best value's score, `ocr.OcrHead.value`'s second feature)
#: averaged over the dice must gain GAIN, and be higher on at least SURER of the dice.  Set on the
#: 20-face renders of seed 44 alone (the true 45 degrees gained 0.79 on 68 % of the dice, 60 degrees
#: 0.16, 15 and 30 degrees lost 0.25-0.28; benchmarks/learn_view.py): a third of the true view's gain
GAIN = 0.3
SURER = 0.6
#: the sizes tell the nadir's direction when their fitted gradient across the frame (the die's side,
#: px per frame width) is at least this share of the die's side, and beyond GRADIENT_Z times its
#: standard error
GRADIENT = 0.05
GRADIENT_Z = 4.0


@dataclass(frozen=True)
class LearntView:
    """What the teaching rolls told of the camera: ``tilt_deg`` None (no tilt: the dice cut as from
    straight above), else the tilt, the nadir's direction and the lens (`vision.oblique.Tilt`);
    ``scores``: each hypothesis weighed (`weigh`); ``why``: said to the person."""

    tilt_deg: float | None
    nadir_deg: float = 90.0
    focal: float = 0.98
    why: str = ""
    scores: tuple[tuple[str, float, float], ...] = ()

    def tilt(self) -> Any:
        """The `vision.oblique.Tilt` learnt, or None (no tilt)."""
        if self.tilt_deg is None:
            return None
        from vision.oblique import Tilt

        return Tilt(self.tilt_deg, self.nadir_deg, self.focal)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "scores"} | {
            "scores": [list(s) for s in self.scores]
        }

    def said(self) -> str:
        if self.tilt_deg is None:
            return f"the camera's view: no tilt learnt ({self.why})"
        return (
            f"the camera's view learnt from the teaching rolls: {self.tilt_deg:g} degrees off straight down, "
            f"the point below it at {self.nadir_deg:g} degrees from the frame's centre, lens "
            f"{self.focal:.3g} x the frame's width ({self.why})"
        )


def view_from_json(data: Any) -> LearntView:
    """A learnt view from its JSON form (`LearntView.to_json`); ValueError naming what is wrong."""
    if not isinstance(data, dict):
        raise ValueError(f"expected an object with tilt_deg, nadir_deg and focal, got {data!r}")
    tilt = data.get("tilt_deg")
    try:
        nadir = float(data.get("nadir_deg", 90.0))
        focal = float(data.get("focal", 0.98))
        tilt = None if tilt is None else float(tilt)
    except (TypeError, ValueError):
        raise ValueError(f"tilt_deg, nadir_deg and focal: expected numbers, got {data!r}") from None
    if tilt is not None and not 0.0 <= tilt <= 75.0:
        raise ValueError(f"tilt_deg: expected 0 to 75 degrees, got {tilt:g}")
    if not 0.0 <= nadir < 360.0:
        raise ValueError(f"nadir_deg: expected 0 to under 360 degrees, got {nadir:g}")
    if not 0.3 <= focal <= 10.0:
        raise ValueError(
            f"focal: expected 0.3 to 10 (the focal length over the frame's width), got {focal:g}"
        )
    return LearntView(tilt, nadir, focal, str(data.get("why", "")))


def size_gradient(centres: np.ndarray, sides: np.ndarray, width: int) -> tuple[float, float] | None:
    """The direction (degrees from the frame's centre, 0 right, 90 below) toward which the dice look
    bigger, and the gradient's size (the die's side gained across the frame's width, as a share of
    the median side), or None: too few dice, or no gradient beyond GRADIENT_Z standard errors."""
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    s = np.asarray(sides, np.float64).reshape(-1)
    if len(c) < MIN_DICE:
        return None
    a = np.column_stack([c[:, 0] / width, c[:, 1] / width, np.ones(len(c))])
    w = np.ones(len(c))
    sol: np.ndarray = np.zeros(3)
    for _ in range(5):  # iteratively reweighted, as `size_tilt`
        sol = np.linalg.lstsq(a * w[:, None], s * w, rcond=None)[0]
        res = np.abs(a @ sol - s)
        scale = 1.5 * float(np.median(res)) + 1e-6
        w = np.sqrt(np.minimum(1.0, scale / np.maximum(res, 1e-9)))
    res = s - a @ sol
    dof = max(1, len(c) - 3)
    sigma2 = float(np.sum((w * res) ** 2)) / dof
    try:
        cov = sigma2 * np.linalg.inv((a * w[:, None]).T @ (a * w[:, None]))
    except np.linalg.LinAlgError:
        return None
    g = sol[:2]
    norm = float(np.linalg.norm(g))
    se = math.sqrt(max(1e-12, float(g @ cov[:2, :2] @ g) / max(norm**2, 1e-12)))
    share = norm / max(float(np.median(s)), 1e-6)
    if norm < GRADIENT_Z * se or share < GRADIENT:
        return None
    return math.degrees(math.atan2(float(g[1]), float(g[0]))) % 360.0, share


def hypotheses(
    outlines: list[tuple[float, float, float]], width: int, height: int, tilts: tuple[float, ...] = TILTS
) -> tuple[list[Any], str]:
    """The views weighed (`vision.oblique.Tilt`s) and what the sizes told: each tilt of ``tilts`` along
    the dice's size gradient (the nadir's side, where they look bigger), with the lens under which the
    sizes tell that tilt (`lens_for_tilt`; a tilt no lens from 0.3 to 10 fits is left out); none when
    the sizes tell no direction (`size_gradient`: a camera straight above, or too few dice).  Weighing
    every direction without the sizes was tried on the REAL proxy's off-angle frames (laid flat, no
    size gradient): of 32 hypotheses the head's evidence favoured ones that read fewer dice right
    (benchmarks/RESULTS.md, the camera's view learnt)."""
    from vision.oblique import Tilt, lens_for_tilt

    at = np.asarray(outlines, np.float64).reshape(-1, 3)
    grad = size_gradient(at[:, :2], at[:, 2], width)
    if grad is None:
        return [], "the dice's sizes across the frame tell no direction (as from straight above)"
    towards = round(grad[0] / 5.0) * 5.0 % 360.0
    out = []
    for t in tilts:
        lens = lens_for_tilt(at[:, :2], at[:, 2], width, height, t, dice=MIN_DICE)
        if lens is not None:
            out.append(Tilt(t, towards, round(lens, 3)))
    return out, f"the dice look bigger toward {towards:g} degrees ({grad[1]:.0%} of a die across the frame)"


def weigh(
    head: Any, frames: list[tuple[Any, list[tuple[float, float, float]]]], kind: str, views: list[Any]
) -> tuple[np.ndarray, np.ndarray]:
    """The OCR head's evidence for its reading of each teaching die (columns: the log of its best
    value's score, `ocr.OcrHead.value`'s second feature), read as cut today (row 0:
    at its outline's centre, the outline's side) and under each of ``views`` (rows 1..: its top face
    warped, `vision.numbered.die_crop.TopFaces`), and the value read (same shape).  Each frame: an
    image, or a function that reads it (`from_frames` keeps no frame in memory)."""
    import copy

    from vision.numbered.die_crop import TopFaces
    from vision.oblique import resting_top

    n = sum(len(dice) for _, dice in frames)
    conf = np.zeros((len(views) + 1, n))
    vals = np.zeros((len(views) + 1, n), np.int64)
    mine = copy.copy(head)
    mine.rectify = None
    col = 0
    for got_image, dice in frames:
        if not dice:
            continue
        image = got_image if isinstance(got_image, np.ndarray) else got_image()  # a loader: read again
        h, w = image.shape[:2]
        got = mine.read(image, [((x, y), s, kind) for x, y, s in dice])
        conf[0, col : col + len(dice)] = [g.features[1] for g in got]
        vals[0, col : col + len(dice)] = [g.value for g in got]
        for i, tilt in enumerate(views, 1):
            cut = TopFaces(tilt)
            mine.rectify = cut
            view = tilt.view(w, h)
            asks = []
            for x, y, s in dice:
                top = resting_top(view, (x, y), s, kind)
                if top is not None:
                    cut.remember(image, top[0], ((x, y), s, 0.0))
                asks.append((top[0] if top is not None else (x, y), s, kind))
            got = mine.read(image, asks)
            conf[i, col : col + len(dice)] = [g.features[1] for g in got]
            vals[i, col : col + len(dice)] = [g.value for g in got]
            mine.rectify = None
        col += len(dice)
    return conf, vals


def choose(conf: np.ndarray, views: list[Any], how: str) -> LearntView:
    """The view the head's evidence clearly favours (module docstring), or no tilt."""
    base = float(conf[0].mean())
    scores = [("no view", round(base, 4), 1.0)]
    best, best_gain, best_share = None, -1.0, 0.0
    for i, v in enumerate(views, 1):
        gain = float(conf[i].mean()) - base
        share = float(np.mean(conf[i] > conf[0]))
        name = f"{v.tilt_deg:g}/{v.towards_deg:g}/{v.f_side:.3g}"
        scores.append((name, round(float(conf[i].mean()), 4), round(share, 3)))
        if gain > best_gain:
            best, best_gain, best_share = v, gain, share
    if best is None or best_gain < GAIN or best_share < SURER:
        said = "no tilt read the teaching dice clearly surer than the cut from straight above"
        if best is not None:
            said += (
                f" (best {best.tilt_deg:g} degrees: the head's mean log evidence {best_gain:+.2f}, surer on "
                f"{best_share:.0%} of the dice; needs +{GAIN:g} and {SURER:.0%})"
            )
        return LearntView(None, why=f"{said}; {how}", scores=tuple(scores))
    return LearntView(
        best.tilt_deg,
        best.towards_deg,
        best.f_side,
        f"the OCR head read the teaching dice's top faces {best_gain:+.2f} surer on average, surer on "
        f"{best_share:.0%} of them; {how}",
        tuple(scores),
    )


def learn(
    head: Any,
    frames: list[tuple[Any, list[tuple[float, float, float]]]],
    kind: str,
    width: int,
    height: int,
) -> LearntView:
    """The view the teaching ``frames`` (each frame and its dice's outlines: centre x, y and longer
    side, found against the empty table) tell, or no tilt (module docstring)."""
    from vision.oblique import RESTING_HEIGHT

    if head is None:
        return LearntView(None, why="the reader has no OCR head to weigh a view with")
    if kind not in RESTING_HEIGHT:
        return LearntView(None, why=f"a {kind} is cut as from straight above whatever the view")
    outlines = [o for _, dice in frames for o in dice]
    if len(outlines) < MIN_DICE:
        return LearntView(
            None,
            why=f"{len(outlines)} dice outlined against the empty table, {MIN_DICE} needed to learn a view",
        )
    views, how = hypotheses(outlines, width, height)
    if not views:
        return LearntView(None, why=how)
    conf, _ = weigh(head, frames, kind, views)
    return choose(conf, views, how)


#: `from_frames`: outlines this far from the teaching dice's median side (a share of it) are not the die
SIDE_SPREAD = (0.6, 1.6)


def from_frames(
    frames: list[Path],
    find: Any,
    read_image: Any,
    head: Any,
    kind: str,
    empty: np.ndarray | None,
    outlines: Any,
) -> tuple[LearntView, dict[str, list[dict[str, Any]]]]:
    """`learn-dice see`'s view (`learn`) from its teaching frames: ``find(image)`` gives each frame's
    dice (JSON readings, `learn_dice.dice_in`), ``read_image(path)`` the frame; each die's outline
    settled against the empty table ``empty`` (``outlines(image, dice, empty)``: `learn_dice._outlines`;
    none without it: no view is learnt).  Returns the view and the dice found in each frame (by path),
    so `see` finds them once."""
    found: dict[str, list[dict[str, Any]]] = {}
    seen: list[tuple[Any, list[tuple[float, float, float]]]] = []
    for path in frames:
        img = read_image(path)
        dice = find(img)
        found[str(path)] = dice
        if empty is not None and empty.shape == img.shape:
            seen.append((lambda p=path: read_image(p), outlines(img, dice, empty)))
    if empty is None:
        return LearntView(None, why="no empty table to outline the dice against: no view learnt"), found
    sides = [o[2] for _, dice in seen for o in dice]
    if sides:  # what is far from the die's size is not the die (a relay board, a sliver of shadow)
        mid = float(np.median(sides))
        lo, hi = SIDE_SPREAD[0] * mid, SIDE_SPREAD[1] * mid
        seen = [(img, [o for o in dice if lo <= o[2] <= hi]) for img, dice in seen]
    h, w = empty.shape[:2]
    return learn(head, seen, kind, w, h), found


# -- where a table keeps the view learnt --------------------------------------------------------


def view_path(cfg: TableConfig) -> Path:
    """The table's learnt view file, kept with its roster (`confirm --config` writes it)."""
    roster = cfg.roster_path
    return roster.with_name(f"{cfg.table.id}.camera_view.json")


def learnt_of(cfg: TableConfig) -> LearntView | None:
    """The view the table learnt (its view file), or None (none learnt, or the file refused:
    `learnt_problem` says why)."""
    path = view_path(cfg)
    try:
        return view_from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def learnt_problem(cfg: TableConfig) -> str | None:
    """Why the table's view file is refused (naming it and what was expected), or None (it is
    readable, or there is none)."""
    path = view_path(cfg)
    if not path.exists():
        return None
    try:
        view_from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as e:
        return (
            f"{path}: {e} (expected the camera's view 'learn-dice confirm --config' wrote); the d20 are cut "
            "as from straight above: remove it and teach again"
        )
    return None


def table_view(cfg: TableConfig) -> Any:
    """The view a table's d20 are cut by (`vision.oblique.Tilt`, or None): the one its table.toml
    states (``[vision] camera_tilt_deg``: always wins; 0 for none), else with ``[vision]
    learn_camera_view = true`` the one learnt from its teaching rolls (`learnt_of`), else none."""
    stated = cfg.vision.camera_view()
    if stated is not None or not cfg.vision.learn_camera_view:
        return stated
    got = learnt_of(cfg)
    return got.tilt() if got is not None else None


def session_view(folder: Path) -> LearntView | None:
    """The view `learn-dice see` learnt in a session folder (its seen.json), or None (none learnt)."""
    try:
        data = json.loads((folder / "seen.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("view") is None:
        return None
    try:
        return view_from_json(data["view"])
    except ValueError:
        return None


def keep(cfg: TableConfig, folder: Path) -> str | None:
    """`confirm --config`: the view the session learnt kept in the table's view file (`view_path`);
    what is said of it, or None (the session learnt none: the file is left as it is)."""
    got = session_view(folder)
    if got is None:
        return None
    path = view_path(cfg)
    before = learnt_of(cfg)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(got.to_json(), indent=1), encoding="utf-8")
    said = (
        f"the camera's view learnt kept in {path}: "
        + (
            "no tilt"
            if got.tilt_deg is None
            else f"{got.tilt_deg:g} degrees, nadir {got.nadir_deg:g}, lens {got.focal:.3g}"
        )
        + " (state [vision] camera_tilt_deg to override it: 0 for straight down)"
    )
    if before is not None and (before.tilt_deg, before.nadir_deg, before.focal) != (
        got.tilt_deg,
        got.nadir_deg,
        got.focal,
    ):
        said += (
            "; it differs from the view learnt before: dice taught under that one were cut otherwise, "
            "teach them again"
        )
    return said
