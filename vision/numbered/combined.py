"""One list of dice from the pip-d6 reader and the numbered reader run on the same frame.

The d6 reader (vision.reader) was trained on real photos of pip dice and stays the
authority on d6; it has never seen a d10 or d20, so where the numbered reader finds
a numbered die, a d6 reading on the same spot is that die misread and is dropped, unless the
d6 reading is sure and the numbered one weak (`merge`).  A d6 only the numbered reader found is
kept too.

Not wired into `vision.read_dice`: games of pip d6 only need no second reader.  On the real d6
photos (shared/fixtures/real/byler_d6) the numbered reader trained on renders alone called most
real d6 numbered, and merging replaced right d6 readings (held-out: 143 of 370 read right, the d6
reader alone 364); with session 4's classifier, which learnt real pip d6 from the train photos,
it calls 6 of the 370 numbered and `read_all` reads 359 right
(`benchmarks/results/vision_numbered_real.md`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from vision.numbered.labels import KIND_SLICES, KINDS, parse_kinds
from vision.palette import Palette
from vision.reading import DieReading, Examined, Reader, Rejected, box_quad
from vision.where import Box, WhereStep, screen

if TYPE_CHECKING:
    from vision.numbered.learnt import Learnt
    from vision.numbered.reader import Copies, NumberedReader
    from vision.oblique import View


def _size(r: DieReading) -> float:
    xs, ys = [p[0] for p in r.quad], [p[1] for p in r.quad]
    return max(max(xs) - min(xs), max(ys) - min(ys), 1.0)


def _near(a: DieReading, b: DieReading, sizes: dict[int, float]) -> bool:
    """Whether two readings are of one die: centres closer than half the larger one's size
    (`sizes`: each reading's size by id, made once per merge)."""
    return math.dist(a.center, b.center) < 0.5 * max(sizes[id(a)], sizes[id(b)])


# A numbered reading (d10, d10p, d20) less sure than WEAK_NUMBERED does not displace a d6 reading at
# least SURE_D6 sure on the same spot; it is dropped instead.  Chosen on the byler_d6 TRAIN photos
# (merged d6 read right 1084 -> 1094 of 1117) and the TRAIN-generator validation windows (numbered
# dice read right unchanged, 408 of 427 and 167 of 170): training/numbered/MODELS.md, session 5.
WEAK_NUMBERED = 0.3
SURE_D6 = 0.9
# A d6 reading kept on a spot where the numbered reader read another kind (a d20's face with a 3 read
# as three pips, however weak the numbered reading) is read no surer than this: the table asks
# (issue 29's contract, never silently wrong).  On the real d20 photos read at any scale the pip
# reader read 8 d20s as d6 at 0.83-0.97 (`benchmarks/vision_numbered_scale.py`).
DISPUTED = 0.5
# ... and so is a d6 reading the numbered classifier, read at the pip reader's box, gives the d6 kind
# less than this share of its probability (`doubted`).  Chosen on the TRAIN sets: the sure d6 readings
# on d20_lurig's d20_color and d20_off-angle d20s at any scale all had under 0.22; 1.1 % of the sure
# d6 readings of byler_d6's real pip dice (704, every 2nd photo) had under 0.5.
D6_KIND = 0.5
# A lone photo (no empty table to compare with: `dicetable read IMAGE` alone, a table before it has
# seen its empty table) whose pip-d6 readings are mostly unsure, their median confidence under this,
# shows no dice: coins, a clock, printed signs read as unsure pips (issue 46 item 5).  Chosen on the
# TRAIN sources only: the readings on the train no-dice photos (negatives/ rsandrini desks and
# opencv_contrib scene text) had a median of 0.38 a photo, the byler_d6 and skovy_d6 train photos
# 0.70 at least; the middle, 0.54, rounded up to 0.55.  Measured in benchmarks/vision_d6_budget.py.
LONE_MEDIAN = 0.55
#: where-step names that compare the frame with the empty table (vision.where.EmptyTable,
#: vision.empty_diff): with one of them the photo is not alone
EMPTY_STEPS = ("empty table", "empty diff")
#: the step named in `alone`'s rejections
LONE_STEP = "lone photo"
# A sure d6 reading (SURE_D6) that the numbered classifier at its box takes for a d6 with at least this
# share is not disputed by a weak numbered reading (WEAK_NUMBERED) beside it (`merge`'s ``cleared``).
# The sure d6 readings of real d20s had under 0.22 (above); measured in benchmarks/table_stills.py.
D6_CLEAR = 0.8
# The not-a-d6 check in one pass for most dice (issue 46 item 4): a sure pip-d6 reading the numbered
# classifier, read once upright at the pip reader's own box (no top-face net, no quarter turns), gives
# the d6 kind at least this share of its probability is a d6, and its check stops there; the others
# are checked as before (`d6_shares`: top face found, unsure crops turned).  Chosen on the TRAIN
# photos: byler_d6 train 988 of 1110 checked dice stop at the first pass, and the verdict (D6_KIND)
# changes for 1 (a real d6 the full check doubted, 0.46); the sure d6 readings of real d20s had at
# most 0.77 there (d20_lurig's train set-ups d20_color and d20_off-angle, every 3rd crop, at 1, 1/2
# and 1/4 scale: 69; d20_desk_scenes train: 8, all under 0.8).  Measured on the held-out sets in
# benchmarks/vision_d6_budget.py.
D6_AT_BOX = 0.9


def merge(
    d6: list[DieReading],
    numbered: list[DieReading],
    disputed: float = DISPUTED,
    cleared: frozenset[int] = frozenset(),
) -> list[DieReading]:
    """d6 readings, plus numbered ones; a d6 reading on a numbered die gives way, unless the d6
    reading is sure (SURE_D6) and the numbered one weak (WEAK_NUMBERED).  A d6 reading kept on a spot
    the numbered reader read as another kind is read no surer than `disputed` (DISPUTED; 1.0: as sure
    as the pip reader made it, as before issue 29), unless that reading was weak, the d6 reading sure
    and the numbered classifier at the pip reader's box took it for a d6 (``cleared``: the ids of such
    d6 readings, `d6_shares` at least D6_CLEAR; issue 43: the Die-angler demo's drawn d6, read at the
    game's own kinds, had weak d10 peaks of the detector on 8 of its 99 dice, every one asked)."""
    sizes = {id(r): _size(r) for r in (*d6, *numbered)}
    others = [
        o
        for o in numbered
        if o.kind != "d6"
        and not (
            o.confidence < WEAK_NUMBERED and any(r.confidence >= SURE_D6 and _near(r, o, sizes) for r in d6)
        )
    ]
    out = [r for r in d6 if not any(_near(r, o, sizes) for o in others)]
    out += others
    out += [r for r in numbered if r.kind == "d6" and not any(_near(r, o, sizes) for o in out)]
    doubt = {
        id(r)
        for r in d6
        if any(
            o.kind != "d6"
            and _near(r, o, sizes)
            and not (id(r) in cleared and o.confidence < WEAK_NUMBERED and r.confidence >= SURE_D6)
            for o in numbered
        )
    }
    out = [_disputed(r, disputed) if id(r) in doubt else r for r in out]
    out.sort(key=lambda r: (r.center[1], r.center[0]))
    return out


def d6_shares(
    image_bgr: np.ndarray,
    d6: list[DieReading],
    reader: NumberedReader,
    copies: Copies | None = None,
    disputed: float = DISPUTED,
    at_box: float | None = None,
) -> dict[int, float]:
    """For each of the pip-d6 reader's readings surer than `disputed`, by its id: the share of its
    probability the numbered classifier, read at its box, gives the d6 kind.

    ``at_box`` (D6_AT_BOX; None: off): each die is first read once upright at the pip reader's box,
    and one given the d6 kind at least this share keeps that share; only the others have their top
    face found and their crop read at the classifier's turns (`NumberedReader.classify`)."""
    from vision.numbered.reader import Found, sized, still_copies
    from vision.runtime import blob, softmax

    sure = [i for i, r in enumerate(d6) if r.confidence > disputed]
    if not sure:
        return {}
    copies = copies or still_copies(image_bgr)
    k = copies.k
    found = []
    for i in sure:
        c, side = (d6[i].center[0] / k, d6[i].center[1] / k), _size(d6[i]) / k
        found.append(Found(c, side, side, 0.0, c))
    out: dict[int, float] = {}
    if at_box is not None:
        x = np.stack(sized(reader.crops(copies.work, found), reader.crop_side))
        first = softmax(reader._cls(blob(x)))[:, KIND_SLICES["d6"]].sum(1)
        out = {id(d6[i]): float(s) for i, s in zip(sure, first, strict=True) if s >= at_box}
        found = [f for i, f in zip(sure, found, strict=True) if id(d6[i]) not in out]
        sure = [i for i in sure if id(d6[i]) not in out]
        if not sure:
            return out
    located = reader.locate(copies.work, found, None, None)
    probs = reader.classify(reader.crops(copies.work, located))
    out.update({id(d6[i]): float(p[KIND_SLICES["d6"]].sum()) for i, p in zip(sure, probs, strict=True)})
    return out


def doubted(
    image_bgr: np.ndarray,
    d6: list[DieReading],
    reader: NumberedReader,
    copies: Copies | None = None,
    disputed: float = DISPUTED,
    shares: dict[int, float] | None = None,
    at_box: float | None = None,
) -> list[DieReading]:
    """The pip-d6 reader's readings, each one surer than `disputed` (DISPUTED) that the numbered
    classifier, read at its box, gives the d6 kind less than D6_KIND of its probability read no surer
    than `disputed` (a d20's face of numerals read as pips: the table asks).  ``shares``: the
    readings' `d6_shares` when already made; ``at_box``: as `d6_shares`'."""
    if shares is None:
        shares = d6_shares(image_bgr, d6, reader, copies, disputed, at_box)
    return [_disputed(r, disputed) if shares.get(id(r), 1.0) < D6_KIND else r for r in d6]


def _disputed(r: DieReading, most: float = DISPUTED) -> DieReading:
    """A d6 reading the numbered reader read as another kind: no surer than `most`."""
    return r if r.confidence <= most else replace(r, confidence=most)


def read_all(
    image_bgr: np.ndarray,
    palette: Palette | None = None,
    nadir: tuple[float, float] | None = None,
    kinds: tuple[str, ...] = KINDS,
    learnt: Learnt | None = None,
    where: Sequence[WhereStep] = (),
    rejected: list[Rejected] | None = None,
) -> list[DieReading]:
    """Every die in a BGR uint8 frame, d6 and numbered (kind d6, d10, d10p or d20).

    `kinds`: the kinds the game uses (`labels.parse_kinds`); the table never looks for others.
    Without d6 the pip-d6 reader is not run; the numbered reader keeps only those kinds
    (`reader.verdict`).

    A high-resolution still (say 3456x2592) is halved by area down to the video frame's size once
    (`reader.still_copies`): the pip-d6 reader reads the video-size copy, its dice scaled back, the
    numbered reader's detector starts from it, and the numbered reader cuts its crops from the
    first halving.  `nadir`: the point below the camera (frame pixels) when the board's pose is
    known (`NumberedReader.read`).  `learnt`: the table's learnt set of dice (`NumberedReader.read_at`).
    `where`: the vision.where steps each reader's candidates must pass (in the frame's pixels), each
    one they stop added to `rejected` when given.
    """
    from vision.image_check import check_bgr
    from vision.numbered.reader import still_copies

    image_bgr = check_bgr(image_bgr)
    kinds = parse_kinds(kinds)
    copies = still_copies(image_bgr)
    again: set[tuple[float, float]] = set()
    pips = read_pips(image_bgr, palette, copies.video, where, rejected, again) if "d6" in kinds else []
    return add_numbered(
        image_bgr,
        pips,
        palette,
        nadir,
        copies=copies,
        kinds=kinds,
        learnt=learnt,
        where=where,
        rejected=rejected,
        again=again,
    )


def read_pips(
    image_bgr: np.ndarray,
    palette: Palette | None = None,
    small: np.ndarray | None = None,
    where: Sequence[WhereStep] = (),
    rejected: list[Rejected] | None = None,
    again: set[tuple[float, float]] | None = None,
) -> list[DieReading]:
    """The pip-d6 reader's dice in a checked BGR frame; a still larger than a video frame is read
    shrunk to the video frame's size (`small`, its `video_copy` when already made), its dice scaled
    back to the still's pixels.  `where`: the steps its candidates must pass (a shrunk still's dice
    are judged after reading, on their boxes in the still's pixels), each stopped added to `rejected`.
    `again`: the centres of the dice the symbol-face step kept as questions (`Examined.found_again`)
    are added to it (`add_numbered` drops such a question lying on a numbered die)."""
    from vision.numbered.reader import scaled, video_copy
    from vision.reader import default_reader as d6_reader

    small = video_copy(image_bgr) if small is None else small
    if small is None:
        seen = d6_reader().examine(image_bgr, palette, where or None)
        if rejected is not None:
            rejected += seen.rejected
        if again is not None:
            again.update(seen.readings[i].center for i in seen.found_again)
        return seen.readings
    k = image_bgr.shape[1] / small.shape[1]
    seen = d6_reader().examine(small, palette)
    got = [scaled(r, k) for r in seen.readings]
    if again is not None:
        again.update(got[i].center for i in seen.found_again)
    if not where:
        return got
    boxes = [Box(r.center, _size(r), _size(r)) for r in got]
    passed, stopped = screen(image_bgr, boxes, where)
    if rejected is not None:
        rejected += [
            Rejected(boxes[i].center, boxes[i].w, boxes[i].h, step, why, got[i].value, got[i].confidence)
            for i, step, why in stopped
        ]
    return [got[i] for i in passed]


def add_numbered(
    image_bgr: np.ndarray,
    d6: list[DieReading],
    palette: Palette | None = None,
    nadir: tuple[float, float] | None = None,
    reader: NumberedReader | None = None,
    copies: Copies | None = None,
    kinds: tuple[str, ...] = KINDS,
    learnt: Learnt | None = None,
    where: Sequence[WhereStep] = (),
    rejected: list[Rejected] | None = None,
    disputed: float = DISPUTED,
    again: Collection[tuple[float, float]] = (),
) -> list[DieReading]:
    """The pip-d6 reader's readings `d6` of a frame merged (`merge`) with the numbered reader's
    (`reader`, the default one if None; `copies`: the frame's `still_copies` when already made).
    `again`: the centres of the d6 the symbol-face step kept as questions (`read_pips`): dropped.
    Beside numbered dice the numbered reader is the authority on faces that are not pips; what the
    pip reader called no die there is a numbered die or the board's print (a zone's printed "x3"
    was asked as a symbol die), so the symbol-face step serves tables of pip d6 alone (`PipDice`).

    A die only the pip reader found is looked at once more by the numbered reader (`second_look`).
    A d6 of the numbered reader is kept only where the pip reader found none, so its top face is
    looked for then, not for every d6 it reads.  `kinds`, `where`, `rejected`: as `read_all`'s;
    `disputed`: as `merge`'s."""
    from vision.numbered.reader import default_reader, with_face_quad

    reader = reader or default_reader()
    copies = copies if reader.copy_stills else None
    numbered = reader.read(
        image_bgr,
        palette,
        nadir,
        quads=False,
        copies=copies,
        kinds=kinds,
        learnt=learnt,
        where=where,
        rejected=rejected,
    )
    shares = d6_shares(image_bgr, d6, reader, copies, disputed)
    d6 = doubted(image_bgr, d6, reader, copies, disputed, shares)
    if reader.second_look:
        numbered += second_look(image_bgr, d6, numbered, reader, palette, nadir, kinds=kinds, learnt=learnt)
    pip = {id(r) for r in d6}
    cleared = frozenset(i for i in pip if shares.get(i, 0.0) >= D6_CLEAR)
    merged = merge(d6, numbered, disputed, cleared)
    if again:
        merged = [r for r in merged if not (id(r) in pip and r.center in again)]
    return [r if id(r) in pip else with_face_quad(image_bgr, r) for r in merged]


def second_look(
    image_bgr: np.ndarray,
    d6: list[DieReading],
    numbered: list[DieReading],
    reader: NumberedReader,
    palette: Palette | None = None,
    nadir: tuple[float, float] | None = None,
    view: tuple[float, float, int, int] | None = None,
    kinds: tuple[str, ...] = KINDS,
    learnt: Learnt | None = None,
) -> list[DieReading]:
    """Numbered readings (d10, d10p, d20) of the dice the pip reader found and the numbered reader's
    detector did not: its top-face net and classifier read each such die from the pip reader's box,
    and a reading is kept when the classifier is at least `reader.weak_floor` sure (a weak
    detector peak's rule).  The pip reader has never seen a numbered die, and reads one it alone
    finds as a d6, sometimes surely (on the validation windows a d20 as a 3 at 0.96): `merge` then
    drops that d6 reading for the numbered one.

    On the TRAIN-generator validation windows (training/numbered/MODELS.md, session 7) the pip reader
    alone found 29 dice, and this read 2 of them right that were wrong before, and none wrong that
    were right.  `view`: as `NumberedReader.locate`'s, for a window of a larger frame."""
    from vision.numbered.reader import Found

    sizes = {id(r): _size(r) for r in (*d6, *numbered)}
    lone = [r for r in d6 if not any(_near(r, o, sizes) for o in numbered)]
    if not lone:
        return []
    # score 0: kept only when the classifier is at least weak_floor sure (NumberedReader.readings)
    found = [Found(r.center, sizes[id(r)], sizes[id(r)], 0.0, r.center) for r in lone]
    got = reader.read_at(image_bgr, found, palette, nadir, quads=False, view=view, kinds=kinds, learnt=learnt)
    return [r for r in got if r.kind != "d6"]


@dataclass(frozen=True)
class NumberedDice(Reader):
    """The numbered reader as a `vision.reading.Reader`: the dice of `kinds` in a frame (with d6 among
    them, the pip-d6 reader reads the d6 beside it: `read_all`; else `read_numbered`), a die the
    table's learnt set `learnt` knows read as its face.  The `view` tells it the point below the
    camera (`View.nadir`), where the dice's top faces lean from; `where`: the vision.where steps.
    `reader`: the numbered reader to use (None: the default one).  `disputed`: how sure a pip reading
    on a spot the numbered reader reads as another kind may be (`merge`; 1.0: as before issue 29).

    Kinds narrow, never hide (issue 29 item 3): with fewer than every kind, a die that reading every
    kind would keep is read as one of `kinds` and asked (`NumberedReader.narrow`), and so is a die
    only the pip-d6 reader finds (`lone_pips`; it is run for that, as reading every kind runs it)."""

    kinds: tuple[str, ...] = KINDS
    learnt: Learnt | None = None
    reader: NumberedReader | None = None
    disputed: float = DISPUTED
    #: the kind the table's knowledge settles for a numbered die, (image, reading) -> kind or None
    #: (`vision.numbered.table_kind.settle`, `controller.kind_at_table`; None: the reader's kind)
    kind_of: Any = None

    def examine(
        self,
        image: np.ndarray,
        palette: Palette | None = None,
        where: Sequence[WhereStep] | None = None,
        view: View | None = None,
    ) -> Examined:
        from vision.image_check import check_bgr
        from vision.numbered.reader import default_reader, still_copies

        reader = self.reader or default_reader()
        nadir = view.nadir() if view is not None else None
        rejected: list[Rejected] = []
        steps = tuple(where or ())
        kinds = parse_kinds(self.kinds)
        image = check_bgr(image)
        copies = still_copies(image)
        # pip d6 beside numbered dice: the pip reader stays the authority on d6; at a table of
        # numbered dice alone its dice are read again as the table's kinds (never hidden)
        hide = reader.narrow != "relabel"
        again: set[tuple[float, float]] = set()
        pips = (
            read_pips(image, palette, copies.video, steps, rejected, again)
            if "d6" in kinds or not hide
            else []
        )
        if "d6" in kinds:
            got = add_numbered(
                image,
                pips,
                palette,
                nadir,
                reader,
                copies,
                kinds,
                self.learnt,
                steps,
                rejected,
                disputed=self.disputed,
                again=again,
            )
        else:
            got = reader.read(
                image,
                palette,
                nadir,
                copies=copies if reader.copy_stills else None,
                kinds=kinds,
                learnt=self.learnt,
                where=steps,
                rejected=rejected,
            )
            if pips:
                got += lone_pips(image, pips, got, reader, palette, nadir, kinds, self.learnt, steps)
                got.sort(key=lambda r: (r.center[1], r.center[0]))
        if self.kind_of is not None:  # the kind from the table's dice and their sizes (issue 43 item 5)
            from vision.numbered.table_kind import settle

            got = settle(self.kind_of, reader, image, got, kinds)
        return Examined(got, rejected)


def lone_pips(
    image_bgr: np.ndarray,
    pips: list[DieReading],
    numbered: list[DieReading],
    reader: NumberedReader,
    palette: Palette | None = None,
    nadir: tuple[float, float] | None = None,
    kinds: tuple[str, ...] = KINDS,
    learnt: Learnt | None = None,
    where: Sequence[WhereStep] = (),
) -> list[DieReading]:
    """The dice only the pip-d6 reader found (none of `numbered` on them), at a table of numbered
    `kinds` alone: each read by the numbered reader at the pip reader's box (`second_look`'s way) as
    one of `kinds`; a die it does not read so is still kept, as the table's kind, and asked
    (`reader.narrowed`): reading every kind would have kept it as a d6.  A die the table's learnt set
    `learnt` knows is read as its face (`reader.learnt_verdict`), as `NumberedReader.candidates` reads it."""
    from vision.numbered.learnt import LearntReading
    from vision.numbered.reader import Found, learnt_verdict, narrowed, still_copies, verdict

    sizes = {id(r): _size(r) for r in (*pips, *numbered)}
    lone = [r for r in pips if not any(_near(r, o, sizes) for o in numbered)]
    if not lone:
        return []
    copies = still_copies(image_bgr) if reader.copy_stills else None
    k = copies.k if copies is not None else 1.0
    work = copies.work if copies is not None else image_bgr
    found = [
        Found(
            (r.center[0] / k, r.center[1] / k),
            sizes[id(r)] / k,
            sizes[id(r)] / k,
            0.0,
            (r.center[0] / k, r.center[1] / k),
        )
        for r in lone
    ]
    n = None if nadir is None else (nadir[0] / k, nadir[1] / k)
    located = reader.locate(work, found, None, n)
    crops = reader.crops(work, located)
    probs = reader.classify(crops)
    matches: list[Any] = [None] * len(crops)
    if learnt is not None:  # each set on the crop it was learnt with (`DiceSet.crop`)
        from vision.numbered.die_crop import die_crop, empty_of

        empty = empty_of(where)  # each die cut from the frame itself, on its outline (`read_at`'s way)
        own = (
            [
                die_crop(image_bgr, (f.box_center[0] * k, f.box_center[1] * k), max(f.w, f.h) * k, empty)
                for f in located
            ]
            if "die" in learnt.crops
            else None
        )
        matches = reader.learnt_matches(crops, learnt, die_crops=own, image=work, found=located, scale=k)
    out: list[DieReading] = []
    for r, f, p, m in zip(lone, located, probs, matches, strict=True):
        # the die's box as the numbered reader's readings give it (its crop: `crops_of`), and what the
        # pip reader's reading carries over
        carried: dict[str, Any] = {
            "center": (f.center[0] * k, f.center[1] * k),
            "quad": box_quad((f.box_center[0] * k, f.box_center[1] * k), f.w * k, f.h * k),
            "colour": r.colour,
            "colour_near": r.colour_near,
            "box": r.box,
            "look": r.look,
        }
        if learnt is not None and m is not None:
            classifier = verdict(p, reader.reject_threshold, kinds)
            v = learnt_verdict(
                m.kind or learnt.kind, m, classifier, reader.trust_support, reader.trust_margin
            )
            name = m.set_name or learnt.name
            out.append(
                LearntReading(
                    kind=v.kind,
                    value=v.value,
                    confidence=v.confidence,
                    dice_set=name,
                    rival=m.rival,
                    **carried,
                )
            )
            continue
        v = narrowed(p, kinds)
        out.append(DieReading(kind=v.kind, value=v.value, confidence=v.confidence, **carried))
    return out


@dataclass(frozen=True)
class PipDice(Reader):
    """The pip-d6 reader at a table of pip d6 alone (`vision.reader.DiceReader`), as a
    `vision.reading.Reader`, each die it reads surely checked by the numbered classifier at its box
    (`doubted`): a die of a kind the table does not read (a d20 showing 4 read as a d6's two pips at
    0.91, issue 43) is read no surer than `disputed`, so the table asks; it is never scored as a d6.
    `reader`: the numbered reader whose classifier looks (None: the default one).  ``lone_median``
    (LONE_MEDIAN; None: off): a photo with no empty table to compare with (no `EMPTY_STEPS` step)
    whose readings' median confidence is under this shows no dice (`alone`): every reading is
    rejected, saying so (issue 46: coins and printed signs read as unsure pips).  ``at_box``
    (D6_AT_BOX; None: every die checked at its top face and turns, as before issue 46 item 4): a die
    the classifier's first upright look at its box takes for a d6 that surely is not checked further
    (`d6_shares`)."""

    pips: Reader
    reader: NumberedReader | None = None
    disputed: float = DISPUTED
    lone_median: float | None = LONE_MEDIAN
    at_box: float | None = D6_AT_BOX

    def examine(
        self,
        image: np.ndarray,
        palette: Palette | None = None,
        where: Sequence[WhereStep] | None = None,
        view: View | None = None,
    ) -> Examined:
        from vision.numbered.reader import default_reader

        seen = self.pips.examine(image, palette, where, view)
        steps = where if where is not None else getattr(self.pips, "where", ())
        if self.lone_median is not None and not any(getattr(s, "name", "") in EMPTY_STEPS for s in steps):
            seen = alone(seen, self.lone_median)
        if not any(r.confidence > self.disputed for r in seen.readings):
            return seen
        reader = self.reader or default_reader()
        got = doubted(image, seen.readings, reader, None, self.disputed, at_box=self.at_box)
        return Examined(got, seen.rejected)


def alone(seen: Examined, median: float = LONE_MEDIAN) -> Examined:
    """A lone photo's pip-d6 readings (`PipDice`'s ``lone_median``): none when their median
    confidence is under `median` (each then rejected, saying why), else as they are.  The dice the
    symbol-face step kept as questions (`Examined.found_again`, always unsure) are left out of the
    median, so the rule weighs the pip readings it was chosen on; a photo with only those keeps none."""
    if not seen.readings:
        return seen
    pips = [r.confidence for i, r in enumerate(seen.readings) if i not in seen.found_again]
    m = float(np.median(pips or [r.confidence for r in seen.readings]))
    if m >= median:
        return seen
    why = (
        f"a lone photo (no empty table) whose readings are mostly unsure (median confidence {m:.2f} "
        f"< {median:g}): no dice"
    )
    out = [
        Rejected(r.center, _size(r), _size(r), LONE_STEP, why, r.value, r.confidence) for r in seen.readings
    ]
    return Examined([], [*seen.rejected, *out])
