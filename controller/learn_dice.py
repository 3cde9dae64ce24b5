"""The guided session that learns a set of a table's own dice (`dicetable learn-dice`).

`see`: the table looks at frames of one set (a kind and a colour) showing its faces, through its
perception step (`controller.perceive`: its where-steps, the empty table, the die's size); every die
read is cut out where `read` finds it and embedded (`vision.numbered.embed`), and the crops are
grouped so that each group is one face (`group_faces`: average linkage on likeness, the OCR head's
reading and the dice's colours, `die_lab`, keeping two faces apart; `cluster`, on one crop at LINK,
as before issue 44 item 2).  It writes, in the session folder:

* `seen.json`: every crop's frame, centre, group, the classifier's guess and its embedding (of the
  crop the set keeps, `"crop"`: the die centred on its own outline, or with `see(crop="box")` round
  the top face, issue 44 item 2), whether only the detector found it (`"unread"`), and the frames no
  die was found in (`"no_die"`);
* `confirm.csv`: one row a group (`group, crops, guess, face`): the person fills in `face`, the value
  the group's die shows (or `-`: not one of the set's dice);
* `groups.png`: a contact sheet, one row a group, to look at while filling it in.

`confirm`: the filled-in sheet (or a labels file of the same form) makes the set
(`vision.numbered.learnt.DiceSet`), saved where the table's config points (`[table] dice_set`); a set
lacking faces, or of a kind the table's game does not use, is refused, naming what is missing.
`rostered`: with a table's config the die is also an entry of its roster (`controller.roster`: its
faces and the looks of its crops, as ``/learn`` keeps a die), which the table reads against.
"""

from __future__ import annotations

import base64
import csv
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from controller.perceive import Perceiver
from vision.numbered import die_head
from vision.numbered.embed import TURNS, likeness
from vision.numbered.labels import KINDS, VALUES
from vision.numbered.learnt import CROPS, DiceSet
from vision.numbered.reader import NumberedReader
from vision.numbered.template import decode, encode, pixels_of

if TYPE_CHECKING:
    from controller.config import TableConfig

SEEN, SHEET, PICTURE = "seen.json", "confirm.csv", "groups.png"
# Two groups of crops are one face while their crops are on average at least this alike (at the
# best turn).  Not tuned: crops of one face in a clip are mostly 0.9 alike or more, of two faces
# rarely over 0.8 (benchmarks/vision_numbered_learnt.py).
LINK = 0.85
#: `group_faces`: crops the OCR head reads at least this surely as different values are two faces
#: (chosen on the train set-ups d20_off-angle and d20_color).  With the camera's view stated the head
#: reads each d20 at its top face, and two crops it reads as different values at OCR_SURE_TOP or more
#: are two faces; two groups whose crops so read all read one value, the same, are one face when at
#: least OCR_LINK alike.  Chosen on the RENDERED 20-face d20, seed 44, true view (benchmarks/
#: learn_groups.py --renders): crops read two values at >= 0.4 were 238 pairs, none of one face; pairs
#: read one value at >= 0.4 and >= 0.75 alike, 6, all of one face (at >= 0.7 alike, 2 of 9 two faces).
#: Without a view the head reads a side face, which several top faces share: on the same renders, of
#: the pairs it read one value at >= 0.7, 3 of 6 were two faces (the step before issue 44's session 22
#: joined them: a group of faces 15 and 19), so without a view no group is joined on its word.
OCR_SURE = 0.7
OCR_SURE_TOP = 0.4
OCR_LINK = 0.75
#: `group_faces`' link, near-copies only (purity first: a group of two faces teaches the set wrong and
#: the set then reads those faces surely wrong).  Was 0.88 (the train set-ups' crops, 4-6 frames a face
#: of one clip each, fell in groups of one face each at 0.88).  On the RENDERED 20-face d20 (seed 44,
#: a die thrown anew each roll, 50-70 px, motion blur) the embeddings barely tell faces apart: pairs
#: of one face 0.73-0.75 alike at the median, of two faces 0.64-0.72, up to 0.93 (0.88: 6 pairs of one face
#: and 21 of two above it; 7-8 mixed groups, 10-12 crops taught wrong).  0.94: none mixed there and on
#: the train set-ups, with or without the view (benchmarks/learn_groups.py).  The die crops'
#: colour-pixel template (`e1c2719`) and the OCR head's whole evidence (the overlap of two crops'
#: values' evidence) were tried as more evidence: neither told the renders' faces apart either.
GROUP_LINK = 0.94
#: `group_faces`: two crops whose die's colour (`die_lab`, CIE Lab in OpenCV's 8-bit units) is this
#: far apart or more are two dice, never one face.  A learn session teaches one die, or one set of one
#: look, so the veto changes nothing there; on the train set-up d20_off-angle each face is another
#: die (orange, red, blue, purple) that the embedding net, trained to read a value whatever the die's
#: colour, sees alike at 60 px with motion blur (0.8-0.93): through the CLI 3 and 4 of 16 crops were
#: grouped, and taught, as another face (own learn frames 81.2 / 75 %); kept apart at 20-35, none.
#: One face's crops on the train set-ups (d20_off-angle, d20_color, their real clips' light) are at
#: most 31.1 apart: so 35
LOOK_APART = 35.0
#: `die_lab`: the disc's radius, a share of the crop's side
DISC = 0.3
THUMB, PER_ROW = 72, 12  # contact sheet: a crop's side in pixels, crops shown a group


class LearnError(ValueError):
    """A learn-dice session cannot go on: the message names the input and what was expected."""


@dataclass(frozen=True)
class Seen:
    frame: str
    centre: tuple[float, float]
    group: int
    guess: int | None
    features: list[float]
    #: the die's look (`controller.roster.die_look`, balanced by the light as the table reads it) and
    #: the colour the reader named: the roster entry `confirm --config` makes keeps them (None: not
    #: measured; a session seen before the CLI taught roster entries)
    lab: list[float] | None = None
    colour: str | None = None
    #: found by the detector alone in a frame the perception step read no die in (`dice_in`)
    unread: bool = False
    #: the reading's box side and what lay at its place (`vision.numbered.die_crop.place_patch`, its
    #: bytes in base64): a crop named not the die is left out later only where the place still looks
    #: so (`controller.not_dice`); None in a session seen before
    side: float | None = None
    place: str | None = None
    #: the die crop's colour pixels (`vision.numbered.template.encode`), which a set of die crops keeps
    #: (`DiceSet.pixels`); None: a session of box crops, or seen before sets kept pixels
    pixels: str | None = None
    #: the OCR head's views of the die as its recogniser saw them (`vision.numbered.die_head.encode`),
    #: which a set keeps to read its own die by (`DiceSet.head_views`); None: none read
    head: str | None = None


def dice_in(
    perceiver: Perceiver, reader: NumberedReader, image: np.ndarray, kind: str
) -> list[dict[str, Any]]:
    """The dice the learning step takes from one frame (JSON readings: centre, quad, kind, value):
    the perception step's (a die of another kind the table reads has no value); in a frame it reads
    no die of ``kind`` in, also the detector's strongest peak that no reading lies in and that passes
    the frame's where-steps (the empty table, the die's size, the play area), as `read` keeps a peak
    a learnt set knows whatever the classifier calls it (issue 44 item 2: 2 of d20_wood's 40 taught
    frames read no die, yet `read` with the set found the die in them).  Such a die has no value (the
    classifier called it no die) and ``"unread": true``."""
    from vision.numbered.reader import screened, still_copies
    from vision.reading import box_quad

    dice = [d.to_json() for d in perceiver.perceive(image).dice]
    dice = [d if d.get("kind") == kind else {**d, "value": None} for d in dice]
    if any(d.get("kind") == kind for d in dice):
        return dice
    # no die of the set's kind read (the perception step may read the table's other kinds: `see`
    # with a config): the strongest peak no reading lies in
    copies = still_copies(image) if reader.copy_stills else None
    work, k = (copies.work, copies.k) if copies is not None else (image, 1.0)
    found = reader.detect(work, shrunk=copies.video if copies is not None else None)
    found = screened(image, found, k, perceiver.where.steps(image))
    found = [f for f in found if not any(_inside(d, f, k) for d in dice)]
    if not found:
        return dice
    f = reader.locate(work, found[:1])[0]
    quad = box_quad((f.box_center[0] * k, f.box_center[1] * k), f.w * k, f.h * k)
    centre = [f.center[0] * k, f.center[1] * k]
    unread = {"kind": None, "value": None, "center": centre, "quad": [list(p) for p in quad], "unread": True}
    return [*dice, unread]


def _inside(reading: dict[str, Any], f: Any, k: float) -> bool:
    """Whether a reading's centre lies in the detector's box ``f`` (found in a copy shrunk by ``k``)."""
    cx, cy = (float(v) for v in reading["center"])
    bx, by = float(f.box_center[0]) * k, float(f.box_center[1]) * k
    return abs(cx - bx) <= float(f.w) * k / 2 and abs(cy - by) <= float(f.h) * k / 2


def cluster(turned: np.ndarray, link: float = LINK) -> list[int]:
    """A group number for each of N crops (N x T x D embeddings at T turns): average-linkage
    grouping, merged while two groups' mean likeness is at least `link`; groups numbered by size."""
    if len(turned) == 0:
        return []
    sims = likeness(turned, turned[:, 0])
    return _numbered(_linked(np.maximum(sims, sims.T), link), len(turned))


def _linked(sims: np.ndarray, link: float, apart: np.ndarray | None = None) -> list[list[int]]:
    """Average-linkage groups of N items (`sims`: N x N likeness, symmetric): merged while two groups'
    mean likeness is at least `link`; two groups holding a pair `apart` (N x N bool) never merge."""
    n = len(sims)
    sims = sims.astype(np.float64).copy()
    np.fill_diagonal(sims, -np.inf)
    if apart is not None:
        sims[apart] = -np.inf
    members: dict[int, list[int]] = {i: [i] for i in range(n)}
    while len(members) > 1:
        i, j = (int(k) for k in np.unravel_index(int(np.argmax(sims)), sims.shape))
        if sims[i, j] < link:
            break
        a, b = len(members[i]), len(members[j])
        row = (sims[i] * a + sims[j] * b) / (a + b)  # the merged group's mean likeness to each other
        row[np.isneginf(sims[i]) | np.isneginf(sims[j])] = -np.inf  # kept apart from either: from both
        sims[i], sims[:, i] = row, row
        sims[i, i] = -np.inf
        sims[j], sims[:, j] = -np.inf, -np.inf
        members[i] += members.pop(j)
    return list(members.values())


def _numbered(groups: list[list[int]], n: int) -> list[int]:
    out = [0] * n
    for g, m in enumerate(sorted(groups, key=lambda m: (-len(m), m[0]))):
        for k in m:
            out[k] = g
    return out


def die_lab(crops: list[np.ndarray]) -> np.ndarray:
    """N x 3: each square BGR die crop's colour, the median CIE Lab (OpenCV's 8-bit units) of the disc
    of DISC times its side round its middle (the die's body and numerals, not the table round it)."""
    out = np.zeros((len(crops), 3), np.float64)
    for i, c in enumerate(crops):
        small = cv2.resize(c, (32, 32), interpolation=cv2.INTER_AREA)
        yy, xx = np.mgrid[:32, :32]
        disc = (yy - 15.5) ** 2 + (xx - 15.5) ** 2 <= (DISC * 32) ** 2
        out[i] = np.median(cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float64)[disc], axis=0)
    return out


def group_faces(
    boxed: np.ndarray,
    own: np.ndarray | None = None,
    ocr: list[tuple[int, float] | None] | None = None,
    link: float = GROUP_LINK,
    looks: np.ndarray | None = None,
    top: bool = False,
) -> list[int]:
    """A group number for each of N crops, each group one face (issue 44 item 2): `boxed`, the crops
    round the top face, and `own`, the die's own crops (`die_crop`), each N x T x D embeddings at T
    turns; `ocr`: the OCR head's reading of each crop (value, confidence; None: none); `top`: the head
    read each crop at its top face (the camera's view stated: `ocr_of`), so its word is the face's.

    Purity first (a group of two faces teaches the set wrong; two groups of one face only ask the
    person once more).  Two crops' likeness is the mean of their likeness on either crop (the top
    face's numeral and the whole die's look); average linkage at `link` (GROUP_LINK: near-copies
    only), two crops whose colours (``looks``: N x 3, `die_lab`) are LOOK_APART or more apart and two
    crops the OCR head reads as different values at OCR_SURE or more (OCR_SURE_TOP with `top`) never
    in one group.  Then, with `top` only, two groups whose crops the head reads at OCR_SURE_TOP or
    more all read one value, the same, and whose mean likeness is at least OCR_LINK, one group: read
    at the die's middle at an angle, the head reads a side face, one that many top faces share.
    Groups numbered by size.  `boxed`: in `see`, the crop round the top face scaled on the die's
    outline (`face_crop`)."""
    n = len(boxed)
    if n == 0:
        return []
    sims = likeness(boxed, boxed[:, 0])
    if own is not None:
        sims = (sims + likeness(own, own[:, 0])) / 2
    sims = np.maximum(sims, sims.T).astype(np.float64)
    at = OCR_SURE_TOP if top else OCR_SURE
    sure = np.array([o is not None and o[1] >= at for o in ocr or [None] * n])
    value = np.array([o[0] if o is not None else -1 for o in ocr or [None] * n])
    apart = sure[:, None] & sure[None, :] & (value[:, None] != value[None, :])
    if looks is not None:  # two dice of other colours: never one face
        lab = np.asarray(looks, np.float64).reshape(n, 3)
        apart |= np.linalg.norm(lab[:, None] - lab[None, :], axis=2) >= LOOK_APART
    groups = _linked(sims, link, apart if apart.any() else None)
    while top:  # groups the OCR head reads alike at their top faces, alike enough: one face
        best: tuple[float, int, int] | None = None
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                va = {int(value[i]) for i in groups[a] if sure[i]}
                vb = {int(value[i]) for i in groups[b] if sure[i]}
                if len(va) != 1 or va != vb or apart[np.ix_(groups[a], groups[b])].any():
                    continue
                m = float(sims[np.ix_(groups[a], groups[b])].mean())
                if m >= OCR_LINK and (best is None or m > best[0]):
                    best = (m, a, b)
        if best is None:
            break
        _, a, b = best
        groups[a] = groups[a] + groups.pop(b)
    return _numbered(groups, n)


def _outlines(
    image: np.ndarray, dice: list[dict[str, Any]], empty: np.ndarray | None
) -> list[tuple[float, float, float]]:
    """Each die's settled outline against the empty table `empty` (centre x, y and longer side, px);
    none without the empty table (the die's own contour takes in its shadow)."""
    from vision.numbered.die_crop import settle

    if empty is None or empty.shape[:2] != image.shape[:2]:
        return []
    out = []
    for d in dice:
        quad = np.asarray(d.get("quad") or [d["center"]] * 4, np.float64).reshape(-1, 2)
        side = max(float(np.ptp(quad[:, 0])), float(np.ptp(quad[:, 1])), 1.0)
        found = settle(image, (float(quad[:, 0].mean()), float(quad[:, 1].mean())), side, empty)
        if found is not None:
            out.append((found[0][0], found[0][1], found[1]))
    return out


def ocr_of(
    reader: NumberedReader,
    image: np.ndarray,
    dice: list[dict[str, Any]],
    kind: str,
    empty: np.ndarray | None = None,
    views: list[np.ndarray | None] | None = None,
) -> list[tuple[int, float] | None]:
    """The OCR head's reading of each die (value, confidence; None for every die when the reader has
    no head or `kind` has no numerals it reads), for `group_faces`; ``views``: each die's head views
    added to it (`OcrValue.views`, None where there are none)."""
    from vision.numbered.ocr import OCR_KINDS

    head = getattr(reader, "ocr", None)
    if head is None or kind not in OCR_KINDS or not dice:
        if views is not None:
            views += [None] * len(dice)
        return [None] * len(dice)
    from vision.numbered.die_crop import TopFaces, settle
    from vision.oblique import resting_top

    asks = []
    for d in dice:
        quad = np.asarray(d.get("quad") or [d["center"]] * 4, np.float64).reshape(-1, 2)
        side = max(float(np.ptp(quad[:, 0])), float(np.ptp(quad[:, 1])), 1.0)
        # the head reads a square scaled on the die's outline: a small die's box in a still may be
        # several times the die (issue 44 item 2)
        found = settle(image, (float(quad[:, 0].mean()), float(quad[:, 1].mean())), side, empty)
        centre = (float(d["center"][0]), float(d["center"][1]))
        seen = reader.top_view_of(image, kind, empty) if found is not None else None
        top = resting_top(seen, found[0], found[1], kind) if seen is not None and found is not None else None
        if top is not None and found is not None and isinstance(head.rectify, TopFaces):
            head.rectify.remember(image, top[0], found)  # the head's cut: the top face warped
        asks.append((top[0] if top is not None else centre, found[1] if found else side, kind))
    try:
        got = head.read(image, asks)
    except ValueError:
        got = []
    if views is not None:
        views += [g.views for g in got] if got else [None] * len(dice)
    if not got:
        return [None] * len(dice)
    return [(int(g.value), float(g.confidence)) for g in got]


def _image(path: Path) -> np.ndarray:
    """The picture at ``path``, its size checked from its header before it is decoded (the one guard,
    ``hardware.imagefile.read_image``); a LearnError naming the file when it cannot be read."""
    from hardware.imagefile import ImageError, read_image

    if not path.is_file():
        raise LearnError(f"{path}: expected a readable image (JPEG, PNG) of the table showing the dice")
    try:
        return read_image(path)
    except ImageError as e:
        raise LearnError(f"{e} (expected an image of the table showing the dice)") from None


def learning_perceiver(
    kind: str,
    cfg: TableConfig | None = None,
    empty: bool = False,
    reader: NumberedReader | None = None,
    kinds: tuple[str, ...] | None = None,
) -> Perceiver:
    """The perception step `see` reads frames with: the table's own (``cfg``: its board, calibration,
    empty-table frame, die size, play area and other ``[vision]`` steps) or, without a config, the
    default steps; its reader looks for ``kind`` alone (`vision.numbered.NumberedDice`, no learnt set:
    the set is what is being learnt).  ``empty``: an empty-table frame will be given (its step on,
    whatever the config says).  ``kinds``: the kinds it reads instead (`see` with a config: the
    table's, `game_kinds_of`, so what it finds is what `read --config` finds)."""
    from controller.config import VisionSection
    from controller.perceive import BoardGeometry, TableError
    from vision.numbered import NumberedDice

    vision = cfg.vision if cfg is not None else VisionSection()
    if empty:
        vision = vision.model_copy(update={"empty_table": True})
    geometry = None
    sizes = None
    if cfg is not None:
        from controller.die_sizes import table_sizes_mm

        sizes = table_sizes_mm(cfg)
        if cfg.board.layout and cfg.board.calibration:
            try:
                geometry = BoardGeometry(cfg.board.layout, cfg.board.calibration, cfg.board.fit, sizes)
            except TableError as e:
                raise LearnError(str(e)) from None
    kinds = kinds or (kind,)
    dice = NumberedDice(kinds, None, reader)
    try:
        return Perceiver.of(dice, vision, geometry, kinds=kinds, die_sizes_mm=sizes)
    except TableError as e:
        raise LearnError(str(e)) from None


def see(
    frames: list[Path],
    name: str,
    kind: str,
    colour: str,
    folder: Path,
    reader: NumberedReader,
    cfg: TableConfig | None = None,
    empty: Path | None = None,
    crop: str = "die",
) -> list[Seen]:
    """Look at the frames, group what was seen, and write the session folder (module docstring).

    Each frame is read by the table's perception step (`learning_perceiver`: ``cfg``'s steps and the
    kinds its game reads, so what `read --config` would find is offered to be named, a relay board
    at the frame's edge named `-` where the table finds it; else the defaults and ``kind`` alone), so
    a die only counts where the table would read one; in a frame it reads no die of ``kind`` in,
    the detector's strongest peak there is taken (`dice_in`: `read` keeps such a die when the set
    knows it), and a frame with not even that is named in ``seen.json``'s ``no_die``.  Each die is cut
    where `read` finds it (`NumberedReader.crops_of`: at the detector's peak holding it, whichever
    reader found it).  ``empty``: a frame of the empty table (else the config's ``[vision]
    empty_table_frame``): only what differs from it is seen, so a keyboard or a vent in view is never
    taken for a face, and each die's outline is what changed.  ``crop``: the crop the set keeps
    (`DiceSet.crop`, issue 44 item 2): "die" (the default), centred, scaled and turned on the die's
    outline (`vision.numbered.die_crop`), or "box", round its top face as the detector's box frames
    it.  On the train set-ups' later rolls (benchmarks/learn_readback.py) the die's own crop read
    more right with a 60 px die in the camera's frame (d20_color 42 -> 44 of 54, d20_off-angle 51 ->
    52 of 69) and about as many at the table's scale (47 -> 45, 64 -> 64); the crop round the top face
    of a small die in a still frames it small in a corner (its box several times the die).  The crops
    are grouped by face on the crop round the top face scaled on the die and on the die's own crop,
    with the OCR head's word, crops of dice of other colours kept apart (`group_faces`).  Each crop
    keeps what lay at its place (`Seen.place`), for the crops named not the die (`not_dice`)."""
    if crop not in CROPS:
        raise LearnError(f"crop: expected one of {', '.join(CROPS)}, got {crop!r}")
    if kind not in KINDS:
        raise LearnError(f"--kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    if not frames:
        raise LearnError("frames: expected one or more images of the set's dice showing their faces")
    if cfg is not None:
        used = game_kinds_of(cfg)
        if kind not in used:
            raise LearnError(
                f"--kind {kind}: the table's game {cfg.table.game!r} uses {', '.join(used)} dice, "
                f"not {kind}: learn a set of one of those"
            )
    learning = cfg is not None and cfg.vision.camera_tilt_deg is None and cfg.vision.learn_camera_view
    if cfg is not None and not learning:  # a camera at an angle: a d20 cut on its top face, as `read` cuts it
        from controller.perceive import viewed

        reader = viewed(reader, cfg.vision.camera_view())
    empty_img = _image(empty) if empty is not None else None
    # with a config, the table's kinds: what `read --config` finds where the set's die is not (a relay
    # board found at its boxes) is offered too, so what the person names `-` covers it (issue 44)
    kinds = game_kinds_of(cfg) if cfg is not None else None
    perceiver = learning_perceiver(kind, cfg, empty_img is not None, reader, kinds)
    if empty_img is not None:
        perceiver.set_empty(empty_img)
    table = perceiver.where.empty  # the empty table given, or the config's empty_table_frame
    empty_frame = table.empty if table is not None else None  # the die's outline: what changed
    learnt, found = _learn_view(frames, perceiver, reader, kind, empty_frame) if learning else (None, {})
    if learnt is not None:  # the view the teaching rolls tell: each d20 cut by it (controller.learn_view)
        from controller.perceive import viewed

        reader = viewed(reader, learnt.tilt())
    where, crops, kept, guesses, unread, none, wholes, looks = [], [], [], [], [], [], [], []
    places: list[tuple[float, str]] = []
    ocr: list[tuple[int, float] | None] = []
    heads: list[np.ndarray | None] = []  # the head's views of each die (`vision.numbered.die_head`)
    sizes: list[tuple[float, float, float]] = []  # each die's outline: centre x, y, longer side
    for path in frames:
        img = _image(path)
        if table is not None and table.empty.shape != img.shape:
            raise LearnError(
                f"{path}: {img.shape[1]}x{img.shape[0]} px, but the empty table "
                f"{empty or 'of [vision] empty_table_frame'} is {table.empty.shape[1]}x"
                f"{table.empty.shape[0]}: expected frames of the same camera mode"
            )
        dice = found[str(path)] if str(path) in found else dice_in(perceiver, reader, img, kind)
        if not dice:
            none.append(str(path))
        screens = perceiver.where.steps(img)  # each die cut where `read` finds it (`crops_of`)
        # each cut as the set's kind, as `read` cuts a learnt set's die (a d20 at an angle: its top face)
        own = reader.crops_of(img, dice, crop, empty_frame, screens, kind=kind)
        faces = reader.crops_of(img, dice, "face", empty_frame, screens, kind=kind)
        dies = own if crop == "die" else reader.crops_of(img, dice, "die", empty_frame, screens, kind=kind)
        looks += _looks(perceiver, img, dice)
        ocr += ocr_of(reader, img, dice, kind, empty_frame, heads)
        sizes += _outlines(img, dice, empty_frame) if cfg is not None and cfg.vision.camera_tilt_deg else []
        for d, face, cut, whole in zip(dice, faces, own, dies, strict=True):
            where.append((str(path), (round(d["center"][0], 1), round(d["center"][1], 1))))
            crops.append(face)
            wholes.append(whole)
            kept.append(cut)
            guesses.append(int(d["value"]) if d.get("kind") == kind and d.get("value") is not None else None)
            unread.append(bool(d.get("unread")))
            places.append(_place(img, d))
    if not crops:
        steps = " (where it differs from the empty table)" if table is not None else ""
        raise LearnError(
            f"frames: no die found in any of the {len(frames)} frames{steps} (expected the set's {kind}s)"
        )
    embed = reader.embedder().embed
    whole = embed(wholes, TURNS)
    # the camera's view stated and the empty table given: the OCR head read each d20 at its top face
    top = empty_frame is not None and reader.top_view_of(empty_frame, kind, empty_frame) is not None
    groups = group_faces(embed(crops, TURNS), whole, ocr, looks=die_lab(wholes), top=top)
    upright = whole[:, :1] if crop == "die" else embed(kept, 1)
    pixels = [encode(pixels_of(w)) if crop == "die" else None for w in wholes]
    head_views = [None if h is None else die_head.encode(h) for h in heads]
    seen = [
        Seen(
            fr,
            c,
            g,
            guess,
            [round(float(x), 5) for x in t[0]],
            look[0],
            look[1],
            u,
            place[0],
            place[1],
            px,
            hv,
        )
        for (fr, c), g, guess, t, look, u, place, px, hv in zip(
            where, groups, guesses, upright, looks, unread, places, pixels, head_views, strict=True
        )
    ]
    folder.mkdir(parents=True, exist_ok=True)
    meta: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "colour": colour,
        "embedder": reader.embedder().digest,
        "crop": crop,
        "no_die": none,  # the frames no die was found in (not even the detector's peak)
    }
    if cfg is not None and cfg.vision.camera_tilt_deg is not None and sizes and empty_frame is not None:
        from vision.oblique import lens_for_tilt

        at = np.array(sizes, np.float64)  # the lens the dice's sizes tell at the stated tilt (issue 44)
        h, w = empty_frame.shape[:2]
        lens = lens_for_tilt(at[:, :2], at[:, 2], w, h, cfg.vision.camera_tilt_deg)
        meta["lens"] = None if lens is None else round(lens, 3)
    if learnt is not None:  # `confirm --config` keeps it with the table's roster
        meta["view"] = learnt.to_json()
    (folder / SEEN).write_text(json.dumps({**meta, "seen": [s.__dict__ for s in seen]}), encoding="utf-8")
    with (folder / SHEET).open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["group", "crops", "guess", "face"])
        for g in range(max(groups) + 1):
            mine = [s.guess for s in seen if s.group == g and s.guess is not None]
            guess = Counter(mine).most_common(1)[0][0] if mine else ""
            w.writerow([g, sum(s.group == g for s in seen), guess, ""])
    cv2.imwrite(str(folder / PICTURE), contact_sheet(wholes, groups))
    return seen


def _learn_view(
    frames: list[Path], perceiver: Perceiver, reader: NumberedReader, kind: str, empty: np.ndarray | None
) -> tuple[Any, dict[str, list[dict[str, Any]]]]:
    """The camera's view the teaching frames tell (`controller.learn_view.from_frames`, ``[vision]
    learn_camera_view``), and the dice found in each frame (by path)."""
    from controller.learn_view import from_frames

    def find(img: np.ndarray) -> list[dict[str, Any]]:
        return dice_in(perceiver, reader, img, kind)

    return from_frames(frames, find, _image, getattr(reader, "ocr", None), kind, empty, _outlines)


def _place(img: np.ndarray, reading: dict[str, Any]) -> tuple[float, str]:
    """A reading's box side and what lies at its place (`Seen.place`)."""
    from vision.numbered.die_crop import place_patch

    quad = np.asarray(reading["quad"], np.float64).reshape(-1, 2)
    side = max(float(np.ptp(quad[:, 0])), float(np.ptp(quad[:, 1])), 4.0)
    centre = (float(reading["center"][0]), float(reading["center"][1]))
    patch = place_patch(img, centre, side)
    return round(side, 1), base64.b64encode(np.ascontiguousarray(patch).tobytes()).decode("ascii")


def _looks(perceiver: Perceiver, img: np.ndarray, dice: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    """(look, colour named) of each die read in ``img``: its look as the table reads it against its
    roster's looks (`controller.roster.die_look`, balanced by the light: `Perceiver.reading_palette`;
    None when it cannot be measured) and the colour the reader named (None: none)."""
    from controller.roster import die_look

    try:
        pose = perceiver.geometry.pose(img) if perceiver.geometry is not None else None
        palette = perceiver.reading_palette(img, pose, None)
    except (ValueError, cv2.error):
        palette = None
    out: list[tuple[Any, Any]] = []
    for d in dice:
        lab = None
        if palette is not None and d.get("quad"):
            try:
                lab = [round(float(x), 3) for x in die_look(img, d["quad"], palette)]
            except (ValueError, cv2.error):
                lab = None
        out.append((lab, d.get("colour") or None))
    return out


def game_kinds_of(cfg: TableConfig) -> tuple[str, ...]:
    """The kinds of dice a table's game uses (``table.kinds``, else the game's own)."""
    from controller.perceive import game_kinds

    return tuple(cfg.table.kinds) if cfg.table.kinds else game_kinds(cfg.table.game)


def contact_sheet(crops: list[np.ndarray], groups: list[int]) -> np.ndarray:
    """One row a group: its number, then up to PER_ROW of its crops."""
    rows = []
    for g in range(max(groups) + 1):
        mine = [c for c, k in zip(crops, groups, strict=True) if k == g]
        step = max(1, len(mine) // PER_ROW)
        tiles = [cv2.resize(c, (THUMB, THUMB), interpolation=cv2.INTER_AREA) for c in mine[::step][:PER_ROW]]
        label = np.full((THUMB, THUMB, 3), 255, np.uint8)
        cv2.putText(label, str(g), (8, THUMB - 24), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2)
        tiles += [np.full((THUMB, THUMB, 3), 255, np.uint8)] * (PER_ROW - len(tiles))
        rows.append(np.hstack([label, *tiles]))
    return np.vstack(rows)


def read_faces(path: Path, kind: str) -> dict[int, int | None]:
    """A filled-in confirm sheet: group -> face (None: not one of the set's dice; a group left
    blank is an error, so nothing is learnt unconfirmed)."""
    try:
        rows = list(csv.DictReader(path.open(encoding="utf-8")))
    except OSError as e:
        raise LearnError(
            f"{path}: expected the confirm sheet written by 'dicetable learn-dice see' ({e})"
        ) from None
    out: dict[int, int | None] = {}
    for n, r in enumerate(rows, 2):
        face = (r.get("face") or "").strip()
        try:
            group = int(r["group"])
            out[group] = None if face == "-" else int(face)
        except (KeyError, TypeError, ValueError):
            raise LearnError(
                f"{path} line {n}: expected a group number and its face (a value the {kind} shows, "
                f"or - for not one of the set's dice), got {r!r}"
            ) from None
        value = out[group]
        if value is not None and value not in VALUES[kind]:
            raise LearnError(
                f"{path} line {n}: a {kind} shows {VALUES[kind][0]}..{VALUES[kind][-1]}, got {face!r}"
            )
    return out


def confirm(
    folder: Path,
    sheet: Path | None = None,
    game_kinds: tuple[str, ...] | None = None,
    allow_missing: bool = False,
) -> DiceSet:
    """The set learnt in a session folder, its groups named by the filled-in sheet (default the
    folder's confirm.csv).  Refused: a set of a kind the table's game does not use (``game_kinds``,
    when known), and one that lacks faces of its kind unless ``allow_missing``."""
    try:
        data = json.loads((folder / SEEN).read_text(encoding="utf-8"))
        kind = str(data["kind"])
        seen = data["seen"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise LearnError(
            f"{folder}: expected a session folder from 'dicetable learn-dice see' ({e})"
        ) from None
    sheet = sheet or folder / SHEET
    faces = read_faces(sheet, kind)
    missing = sorted({int(s["group"]) for s in seen} - set(faces))
    if missing:
        raise LearnError(f"{sheet}: expected a face (or -) for every group, missing {missing}")
    keep = [s for s in seen if faces[int(s["group"])] is not None]
    if not keep:
        raise LearnError(f"{sheet}: every group is '-': expected at least one face of the set")
    if game_kinds is not None and kind not in game_kinds:
        raise LearnError(
            f"{folder}: a set of {kind}, but the table's game uses {', '.join(game_kinds)} dice: "
            "learn a set of one of those ('dicetable learn-dice see --kind ...')"
        )
    have = {faces[int(s["group"])] for s in keep}
    lacking = [v for v in VALUES[kind] if v not in have]
    if lacking and not allow_missing:
        raise LearnError(
            f"{sheet}: the {kind} set lacks faces {', '.join(map(str, lacking))} "
            f"({len(have)} of {len(VALUES[kind])} seen): show them in more frames and run "
            "'dicetable learn-dice see' again, or store it as it is with --allow-missing "
            "(the referee's answers add faces as the table plays)"
        )
    pixels = None  # the crops' pixels when the session kept them all (`Seen.pixels`)
    if all(s.get("pixels") for s in keep):
        try:
            pixels = np.stack([decode(s["pixels"]) for s in keep])
        except ValueError as e:
            raise LearnError(
                f"{folder / SEEN}: a crop's pixels are not as 'learn-dice see' wrote them ({e})"
            ) from None
    head_values = head_views = None  # the taught rolls' head views (`vision.numbered.die_head`)
    if keep and all(s.get("head") for s in keep):
        try:
            head_views = np.stack([die_head.decode(s["head"]) for s in keep])
        except ValueError as e:
            raise LearnError(
                f"{folder / SEEN}: a crop's head views are not as 'learn-dice see' wrote them ({e})"
            ) from None
        head_values = np.array([faces[int(s["group"])] for s in keep], np.int64)
    return DiceSet(
        str(data["name"]),
        kind,
        str(data.get("colour", "")),
        str(data["embedder"]),
        np.array([faces[int(s["group"])] for s in keep], np.int64),
        np.array([s["features"] for s in keep], np.float32),
        crop=str(data.get("crop", "box")),  # a session seen before issue 44 item 2: the box crop
        pixels=pixels,  # a small die is read by them too (`vision.numbered.template`)
        head_values=head_values,  # the set's own reader (`DiceSet.die_head`)
        head_views=head_views,
    )


#: the owner of a die `confirm --config` adds to the roster when none is named (``--owner``)
OWNER = "table"


def rostered(
    cfg: TableConfig,
    folder: Path,
    dice: DiceSet,
    sheet: Path | None = None,
    owner: str = OWNER,
    colour: str = "",
    who: str = "cli",
) -> tuple[Any, int]:
    """The die a session taught (its confirmed set ``dice``) as an entry of the table's roster
    (`controller.roster`), as ``/learn`` keeps a die it taught, so the table reads it against the
    roster (issue 44 item 4: matched by its faces and look, a die of its kind that is none of the
    roster's dice asked, its taught faces trusted: `controller.roster.TRUST_TAUGHT`): the entry of
    ``owner``'s die of ``colour`` (else the session's ``--colour``, else the colour the reader named
    most often on the crops confirmed) and the set's kind, added, or its faces and look replaced when
    the roster lists it; its look the taught crops' looks.  Logged in the table's event log (a
    ``control`` row ``roster``) before the file is written; the crops of groups named ``-`` are kept
    as not the die at their places (`not_dice`).  Returns (the entry, how many such crops).  Raises
    LearnError naming what is wrong (a refused roster file is left as it is)."""
    from controller.learn_looks import _log_row
    from controller.roster import COLOUR_MAX, OWNER_MAX, Roster, RosterError

    data = json.loads((folder / SEEN).read_text(encoding="utf-8"))
    faces = read_faces(sheet or folder / SHEET, dice.kind)
    keep = [s for s in data["seen"] if faces.get(int(s["group"])) is not None]
    named = Counter(str(s["colour"]) for s in keep if s.get("colour"))
    colour = (colour or str(data.get("colour") or "")).strip() or (
        named.most_common(1)[0][0] if named else ""
    )
    if not colour or len(colour) > COLOUR_MAX:
        raise LearnError(
            f"--colour: expected the die's colour (1 to {COLOUR_MAX} characters, say blue) for its "
            f"roster entry, got {colour!r} (the session has none: give --colour to confirm)"
        )
    owner = owner.strip()
    if not owner or len(owner) > OWNER_MAX:
        raise LearnError(f"--owner: expected the die's owner (1 to {OWNER_MAX} characters), got {owner!r}")
    labs = [s["lab"] for s in keep if s.get("lab")]
    sizes = cfg.dice.sizes_mm or []
    roster = Roster(cfg.roster_path)
    if roster.error is not None:
        raise LearnError(f"{roster.error}: mend or remove it, then confirm again")
    try:
        die = roster.taught(
            dice,
            owner,
            colour,
            sizes[0] if len(sizes) == 1 else None,
            cfg.table.dice_set,
            who,
            _log_row(cfg),
            labs,
            join=False,
        )
    except (RosterError, OSError) as e:
        raise LearnError(f"roster {cfg.roster_path}: {e}") from None
    return die, not_dice(cfg, data, faces)


#: a crop named not the die is kept (`not_dice`) when crops named so in at least RECUR other frames
#: lie within STAYS of the frame's width of it: a thing that stays in place (a relay board, a
#: keyboard), not a piece of the die's own shadow or edge read beside it once (which, kept, left out
#: 2 of d20_wood's 40 learn frames read back: benchmarks/learnt_cli.py).  Set from those runs.
RECUR, STAYS = 2, 0.02


def _dist(a: dict[str, Any], b: dict[str, Any]) -> float:
    return float(np.hypot(a["centre"][0] - b["centre"][0], a["centre"][1] - b["centre"][1]))


def not_dice(cfg: TableConfig, data: dict[str, Any], faces: dict[int, int | None]) -> int:
    """The crops of a session's groups named ``-`` (not the die) that stay in place over its frames
    (RECUR, STAYS) kept at their places beside the table's roster (`controller.not_dice`: the table
    then leaves out a reading that lies there and looks like them, cut as the session cut its crops);
    how many."""
    from controller.not_dice import NotDice, load_not_dice, patch_of, path_for

    named = [s for s in data["seen"] if faces.get(int(s["group"]), 0) is None]
    if not named:
        return 0
    try:
        first = _image(Path(named[0]["frame"]))
    except LearnError:
        return 0  # the session's frames are gone: their width is not known
    width = int(first.shape[1])
    near = STAYS * width
    named = [
        s
        for s in named
        if len({o["frame"] for o in named if o["frame"] != s["frame"] and _dist(o, s) <= near}) >= RECUR
    ]
    if not named:
        return 0
    placed = all(s.get("side") and s.get("place") for s in named)  # a session seen before: none
    got = NotDice(
        str(data["embedder"]),
        width,
        np.array([s["centre"] for s in named], np.float64),
        np.array([s["features"] for s in named], np.float32),
        str(data.get("crop", "box")),
        np.array([s["side"] for s in named], np.float64) if placed else None,
        np.stack([patch_of(s["place"]) for s in named]) if placed else None,
    )
    old = load_not_dice(cfg.roster_path, got.embedder)
    (got if old is None else old.plus(got)).save(path_for(cfg.roster_path))
    return len(named)


def lens_said(folder: Path, cfg: TableConfig) -> str:
    """What `learn-dice see` says of the lens the session's dice told at the stated ``[vision]
    camera_tilt_deg`` (`see` keeps it in ``seen.json``: `vision.oblique.lens_for_tilt`)."""
    lens = json.loads((folder / SEEN).read_text(encoding="utf-8")).get("lens")
    v = cfg.vision
    if lens is None:
        return (
            f"the dice's sizes across the frames tell no lens at the stated tilt {v.camera_tilt_deg:g} "
            "(too few dice against the empty table, or too little tilt): state [vision] camera_focal"
        )
    stated = "camera_focal" in v.model_fields_set
    return (
        f"at the stated tilt {v.camera_tilt_deg:g} degrees the dice's sizes across the frames tell a lens "
        f"of {lens:g} x the frame's width ([vision] camera_focal "
        + (f"is {v.camera_focal:g}" if stated else f"is not stated: {v.camera_focal:g} is guessed; set it")
        + "; the top face is cut by the lens in table.toml, so teach the set again after changing it)"
    )
