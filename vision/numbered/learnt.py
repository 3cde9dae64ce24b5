"""A set of a table's own dice, learnt at the table (`dicetable learn-dice`): the faces the table saw,
each named by a person, and how the reader reads a die of the set by likeness to them.

A set is one kind and one look (a colour of die): every crop the person confirmed, embedded
(`vision.numbered.embed`) upright, with its face.  A die's crop is read as the face of the stored
crop it is most like (at the crop's best turn) when that likeness is at least MATCH and beats the
most alike crop of any other face by MARGIN; else the set says nothing and the classifier reads the
die as before.  A reading made so is a `LearntReading`: its JSON says `"learnt": "<set name>"`.

File (JSON, one set a file, written by `dicetable learn-dice confirm`):
{"format": FORMAT, "name", "kind", "colour", "embedder": digest of the embedding net,
 "crop": "box" or "die" (the crop it was learnt with, `DiceSet.crop`; absent: "box"),
 "faces": [{"value", "features": [[...], ...]}, ...]}
A set that keeps its crops' pixels (`DiceSet.pixels`, issue 44: `learn-dice see`'s die crops) is
written as FORMAT_PIXELS, each face also with "pixels": [base64 text of each crop's
`template.SIDE` x `template.SIDE` x 3 colour pixels, `template.encode`], aligned with its "features";
it reads a small die by the embedding's likeness mixed with the pixels' (`vision.numbered.template`).
A set without pixels is written as FORMAT, as before, and a FORMAT file reads as it always did.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np

from vision.numbered import die_head, template
from vision.numbered.die_head import DieHead
from vision.numbered.embed import likeness
from vision.numbered.labels import KINDS, VALUES
from vision.reading import DieReading

FORMAT = "dicetable-dice-set/1"
#: a set that keeps its crops' pixels (`DiceSet.pixels`): FORMAT's fields, each face with "pixels" too
FORMAT_PIXELS = "dicetable-dice-set/2"
#: crops embedded at several turns (N x T x D), or such embeddings by crop ("box", "die": `DiceSet.crop`)
Turned: TypeAlias = "np.ndarray | Mapping[str, np.ndarray]"
# The likeness a crop needs to its nearest stored crop, and by how much that must beat the nearest
# stored crop of another face: set once before any figure was measured, not tuned (on any set);
# figures in benchmarks/vision_numbered_learnt.py (MODELS.md, issue 20 item 4).
MATCH = 0.80
MARGIN = 0.02
#: the crops a set may be learnt with (`DiceSet.crop`)
CROPS = ("box", "die")
#: a roster's dice (issue 44 item 4): a die is one entry's when its nearest stored crop of that entry
#: is this much more alike than the nearest of any entry of another kind, owner or colour
#: (`LearntSets.match`); else the two are disputed and the die is asked.  Set to MARGIN before any
#: figure was measured, not tuned (benchmarks/roster_read.py measures it).
ENTRY_MARGIN = 0.02


@dataclass(frozen=True)
class Match:
    """A crop read by a learnt set: the face, its likeness to the nearest stored crop, and how much
    more alike that is than the nearest crop of another face; the set's kind and name, and its
    `support`: how many stored crops of that face are at least MATCH alike and MARGIN more alike
    than the nearest crop of any other face."""

    value: int
    likeness: float
    margin: float
    kind: str = ""
    set_name: str = ""
    support: int = 1
    #: the set's `trust` (a set of the referee's answers at this table)
    trust: bool = False
    #: each face of the set and its nearest stored crop's likeness (`reader.learnt_face` weighs them
    #: with the OCR head's evidence)
    faces: tuple[int, ...] = ()
    likenesses: tuple[float, ...] = ()
    #: a roster's dice (`LearntSets` of entries, `DiceSet.entry`): the entry (a die of another kind,
    #: owner or colour) as alike as this set's within ENTRY_MARGIN, "" when none: the die is asked
    rival: str = ""
    #: a roster's dice: how much more alike the die is to this entry's nearest stored crop than to
    #: any other entry's (1.0: no other entry)
    entry_gap: float = 1.0
    #: the set's `calibrated` (a roster entry's: the face's confidence is `vision.numbered.trust`'s)
    calibrated: bool = False
    #: read by the embedding's likeness mixed with the pixels' (`vision.numbered.template`): `likeness`,
    #: `margin`, `support` and `likenesses` are the mixed likeness's, and `trusted` asks the template's
    #: rule (`template.trusted`)
    template: bool = False
    #: the embedding's own view of the face (`template` reads only): its likeness to the face's nearest
    #: stored crop less its likeness to the nearest stored crop of any other face (negative: the
    #: embedding alone finds another face nearer)
    embedding_gap: float = 0.0
    #: how many stored crops of the face the set keeps (taught from that many rolls)
    taught: int = 1
    #: the die cut again (`template.cut_again`, `reader.NumberedReader.read_at`): at each further cut,
    #: its likeness to each face of the set (aligned with `faces`), for `reader.cuts_agree`
    cuts: tuple[tuple[float, ...], ...] = ()

    @property
    def clear(self) -> bool:
        """Whether the nearest face beats every other face's nearest crop by MARGIN."""
        return self.margin >= MARGIN

    def trusted(self, support: int, margin: float) -> bool:
        """Whether the set alone may read the die surely (`reader.learnt_verdict`): a set that may be
        trusted (`DiceSet.trust`), at least `support` stored crops of the face alike, the nearest
        `margin` over every other face's."""
        if self.template:  # the mixed likeness's own rule (`vision.numbered.template`)
            return self.trust and template.trusted(self.support, self.margin, self.embedding_gap, self.taught)
        return self.trust and self.support >= support and self.margin >= margin

    @property
    def cut_again(self) -> bool:
        """Whether a small die's template match is cut again (`template.cut_again`): a set that may be
        trusted, not sure by `trusted`'s margin, but within `template.CUT_MARGIN` of it."""
        return (
            self.template
            and self.trust
            and template.cut_again(self.support, self.margin, self.embedding_gap, self.taught)
        )


@dataclass(frozen=True)
class DiceSet:
    """One learnt set: its name, kind and colour, the embedder it was learnt with, and each stored
    crop's face (`values`, N) and upright embedding (`features`, N x D)."""

    name: str
    kind: str
    colour: str
    embedder: str
    values: np.ndarray
    features: np.ndarray
    #: whether a face it knows well may be read surely without the classifier (`Match.trusted`): the
    #: referee's answers at this table (controller.corrections.RefereeLearning), not a learn-dice set
    #: (a set learnt from another die's frames read surely wrong: benchmarks/RESULTS.md, issue 29)
    trust: bool = False
    #: a roster entry's set (issue 44 item 4): who the die is, "owner/colour" (`controller.roster`);
    #: "" for a set that is no one die's (a learn-dice set, the referee's answers of no entry).  Not in
    #: the file: the roster keeps it.
    entry: str = ""
    #: the crop its crops were cut as (issue 44 item 2), and a die is matched with: "box" (round the top
    #: face, the detector's box: `NumberedReader.crops`) or "die" (centred, scaled and turned on the
    #: die's own outline: `vision.numbered.die_crop`)
    crop: str = "box"
    #: a roster entry's set read with the calibrated confidence (`vision.numbered.trust`, issue 44
    #: item 4); not in the file: the roster says so (`controller.roster.entry_set`)
    calibrated: bool = False
    #: each stored crop's colour pixels (N x `template.SIDE` x `template.SIDE` x 3 uint8, aligned with
    #: `values`; issue 44), or None: a small die is then read by the embedding alone, as before
    pixels: np.ndarray | None = field(default=None, compare=False, repr=False)
    #: the taught rolls as the OCR head's recogniser saw them (issue 44, `vision.numbered.die_head`):
    #: each roll's face (M) and its head views (M x V x D, `die_head.pooled`), or None: read as before.
    #: Answers added later (`plus`) have none: the rolls taught with `learn-dice` are kept.
    head_values: np.ndarray | None = field(default=None, compare=False, repr=False)
    head_views: np.ndarray | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind: expected one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.crop not in CROPS:
            raise ValueError(f"crop: expected one of {', '.join(CROPS)}, got {self.crop!r}")
        bad = sorted({int(v) for v in self.values} - set(VALUES[self.kind]))
        if bad:
            raise ValueError(
                f"faces of the {self.kind} set {self.name!r}: a {self.kind} shows "
                f"{VALUES[self.kind][0]}..{VALUES[self.kind][-1]}, got {bad}"
            )
        if not len(self.values) or len(self.values) != len(self.features):
            raise ValueError(
                f"dice set {self.name!r}: expected one or more confirmed crops, each with its face, "
                f"got {len(self.values)} faces for {len(self.features)} crops"
            )
        if self.pixels is not None:
            side = template.SIDE
            if self.pixels.shape != (len(self.values), side, side, 3) or self.pixels.dtype != np.uint8:
                raise ValueError(
                    f"dice set {self.name!r}: expected {side}x{side}x3 uint8 pixels for each of its "
                    f"{len(self.values)} crops, got shape {self.pixels.shape} {self.pixels.dtype}"
                )
        if (self.head_values is None) != (self.head_views is None):
            raise ValueError(f"dice set {self.name!r}: expected the head views' faces and views together")
        if self.head_values is not None and self.head_views is not None:
            hv = np.asarray(self.head_views)
            bad = sorted({int(v) for v in self.head_values} - set(VALUES[self.kind]))
            if hv.ndim != 3 or len(hv) != len(self.head_values) or not len(hv) or bad:
                raise ValueError(
                    f"dice set {self.name!r}: expected head views (rolls x views x features) for each of "
                    f"{len(self.head_values)} taught rolls of a {self.kind}, got shape {hv.shape}"
                    + (f" and faces {bad}" if bad else "")
                )

    @cached_property
    def die_head(self) -> DieHead | None:
        """The set's own reader on the OCR recogniser's features (`vision.numbered.die_head`), or None."""
        if self.head_values is None or self.head_views is None:
            return None
        return DieHead.fit(self.head_values, self.head_views)

    @property
    def faces(self) -> list[int]:
        return sorted({int(v) for v in self.values})

    @property
    def crops(self) -> tuple[str, ...]:
        """The crops a die is cut as to be matched with this set (`crop`)."""
        return (self.crop,)

    def own(self, turned: Turned) -> np.ndarray:
        """The embeddings of the crop this set was learnt with (``turned``: one crop's, or each crop's
        by name)."""
        if isinstance(turned, Mapping):
            return turned[self.crop] if self.crop in turned else turned["box"]
        return turned

    def nearest(self, turned: Turned) -> np.ndarray:
        """Each crop's likeness (N x T x D, at T turns) to its nearest stored crop of this set (N)."""
        sims = likeness(self.own(turned), self.features)
        return sims.max(1) if sims.shape[1] else np.zeros(len(turned), np.float32)

    def mixed(self, turned: Turned) -> tuple[np.ndarray, np.ndarray | None]:
        """Each crop's likeness to each stored crop by the embedding (N x S), and where a crop is read
        by the mix with the pixels' likeness (`vision.numbered.template`), that mix (N x S, NaN rows
        for the others; None: none is).  A crop is read so when the set keeps pixels and ``turned``
        gives its templates (``"pixels"``, N x T x P, `template.turned`) and marks it small
        (``"small"``, N: a box under `embed.SMALL_SIDE` px)."""
        sims = likeness(self.own(turned), self.features)
        if (
            self.pixels is None
            or not template.ENABLED
            or not isinstance(turned, Mapping)
            or "pixels" not in turned
            or "small" not in turned
        ):
            return sims, None
        small = np.asarray(turned["small"], bool)
        if not small.any():
            return sims, None
        kept = template.likeness(np.asarray(turned["pixels"])[small], template.stored(self.pixels))
        mix = np.full(sims.shape, np.nan, np.float32)
        mix[small] = (1 - template.WEIGHT) * sims[small] + template.WEIGHT * kept
        return sims, mix

    def per_face(self, turned: Turned) -> np.ndarray:
        """N x F: each crop's likeness to each face's nearest stored crop (`faces`), by the mix with the
        pixels' likeness where `mixed` reads it so, else by the embedding."""
        sims, mix = self.mixed(turned)
        rows = np.where(np.isnan(mix[:, :1]), sims, mix) if mix is not None else sims
        return np.stack([rows[:, self.values == f].max(1) for f in self.faces], 1)

    def match(self, turned: Turned, margin: float = MARGIN) -> list[Match | None]:
        """For each crop (N x T x D, embedded at T turns; or such embeddings by crop, `crop`): the face
        it shows when it is one of this set's (at least MATCH alike, and the nearest face `margin`
        over any other's), else None.  A small crop of a set that keeps pixels (`mixed`): by the
        mixed likeness, at least `template.MATCH` alike and `margin` over any other face's, and at
        least MATCH alike to a stored crop by the embedding."""
        sims, mix = self.mixed(turned)
        faces = self.faces
        masks = [self.values == f for f in faces]
        out: list[Match | None] = []
        for n, emb_row in enumerate(sims):
            by_template = mix is not None and not np.isnan(mix[n, 0])
            row = mix[n] if by_template and mix is not None else emb_row
            least = template.MATCH if by_template else MATCH
            best = int(np.argmax(row))
            value = int(self.values[best])
            same = self.values == value
            other = row[~same]
            nearest_other = float(other.max()) if len(other) else 0.0
            gap = float(row[best]) - nearest_other
            ok = row[best] >= least and gap >= margin and float(emb_row.max()) >= MATCH
            support = int(np.count_nonzero(row[same] >= max(least, nearest_other + MARGIN)))
            per_face = tuple(float(row[m].max()) for m in masks)
            emb_other = emb_row[~same]
            emb_gap = float(emb_row[same].max()) - (float(emb_other.max()) if len(emb_other) else 0.0)
            match = Match(
                value,
                float(row[best]),
                gap,
                self.kind,
                self.name,
                support,
                self.trust,
                (*faces,),
                per_face,
                calibrated=self.calibrated,
                template=by_template,
                embedding_gap=emb_gap,
                taught=int(np.count_nonzero(same)),
            )
            out.append(match if ok else None)
        return out

    def plus(
        self,
        values: np.ndarray,
        features: np.ndarray,
        name: str | None = None,
        pixels: np.ndarray | None = None,
    ) -> DiceSet:
        """This set with more confirmed crops (`values`, N; `features`, N x D upright embeddings;
        `pixels`, their pixels: kept when this set keeps pixels too, else the set keeps none)."""
        both = self.pixels is not None and pixels is not None
        return DiceSet(
            name or self.name,
            self.kind,
            self.colour,
            self.embedder,
            np.concatenate([self.values, np.asarray(values, np.int64)]),
            np.concatenate([self.features, np.asarray(features, np.float32).reshape(len(values), -1)]),
            self.trust,
            self.entry,
            self.crop,
            self.calibrated,
            np.concatenate([self.pixels, np.asarray(pixels, np.uint8)]) if both else None,
            head_values=self.head_values,
            head_views=self.head_views,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT if self.pixels is None else FORMAT_PIXELS,
            "name": self.name,
            "kind": self.kind,
            "colour": self.colour,
            "embedder": self.embedder,
            "crop": self.crop,
            "faces": [
                {
                    "value": v,
                    "features": [[round(float(x), 5) for x in f] for f in self.features[self.values == v]],
                }
                for v in self.faces
            ],
        }
        if self.pixels is not None:
            for face in out["faces"]:
                face["pixels"] = [template.encode(p) for p in self.pixels[self.values == face["value"]]]
        if self.head_values is not None and self.head_views is not None:
            out["head"] = {
                "values": [int(v) for v in self.head_values],
                "views": [die_head.encode(v) for v in self.head_views],
            }
        return out

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json()), encoding="utf-8")


def set_from_json(data: Any) -> DiceSet:
    """A set from its JSON form (`DiceSet.to_json`: a set file's content, or a roster entry's faces).
    Raises KeyError, TypeError or ValueError on anything else."""
    if not isinstance(data, dict) or data.get("format") not in (FORMAT, FORMAT_PIXELS):
        got_format = data.get("format") if isinstance(data, dict) else data
        raise ValueError(f"format {FORMAT!r} (or {FORMAT_PIXELS!r}, with pixels), got {got_format!r}")
    with_pixels = data["format"] == FORMAT_PIXELS
    values, feats, pixels = [], [], []
    for face in data["faces"]:
        for f in face["features"]:
            values.append(int(face["value"]))
            feats.append(np.asarray(f, np.float32))
        if with_pixels:
            got = [template.decode(p) for p in face["pixels"]]
            if len(got) != len(face["features"]):
                raise ValueError(
                    f"face {face['value']!r}: expected pixels for each of its {len(face['features'])} "
                    f"crops, got {len(got)}"
                )
            pixels += got
    if len({f.shape for f in feats}) > 1 or any(f.ndim != 1 for f in feats):
        raise ValueError("features all of one length")
    head_values = head_views = None
    if data.get("head") is not None:  # the taught rolls' head views (`vision.numbered.die_head`)
        head = data["head"]
        views = [die_head.decode(t) for t in head["views"]]
        if len(views) != len(head["values"]) or len({v.shape for v in views}) != 1:
            raise ValueError(
                f"head: expected views of one shape for each of its {len(head['values'])} rolls, "
                f"got {len(views)}"
            )
        head_values, head_views = np.array([int(v) for v in head["values"]], np.int64), np.stack(views)
    return DiceSet(
        str(data["name"]),
        str(data["kind"]),
        str(data.get("colour", "")),
        str(data["embedder"]),
        np.array(values, np.int64),
        np.stack(feats) if feats else np.zeros((0, 0), np.float32),
        crop=str(data.get("crop", "box")),  # a set saved before issue 44 item 2: the box crop
        pixels=np.stack(pixels) if with_pixels and pixels else None,
        head_values=head_values,
        head_views=head_views,
    )


def load_set(path: Path, embedder: str | None = None) -> DiceSet:
    """A set saved by `DiceSet.save`; `embedder`: the digest of the embedding net that will read with
    it (a set learnt with another net is refused).  Raises ValueError naming the file and what was
    expected."""
    try:
        got = set_from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise ValueError(
            f"dice set {str(path)!r}: expected a JSON file from 'dicetable learn-dice confirm' ({e})"
        ) from None
    if embedder is not None and got.embedder != embedder:
        raise ValueError(
            f"dice set {str(path)!r} was learnt with embedding net {got.embedder}, this reader's is "
            f"{embedder}: learn the set again ('dicetable learn-dice see' and 'confirm')"
        )
    return got


@dataclass(frozen=True)
class LearntSets:
    """Several learnt sets read together (a table whose game throws d10s and d20s, each with its
    set): a crop is read by the set whose match is the most alike."""

    sets: tuple[DiceSet, ...]

    def __post_init__(self) -> None:
        if not self.sets:
            raise ValueError("learnt sets: expected one or more sets")

    @property
    def name(self) -> str:
        return "+".join(s.name for s in self.sets)

    @property
    def kind(self) -> str:
        return self.sets[0].kind

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(s.kind for s in self.sets)

    @property
    def crops(self) -> tuple[str, ...]:
        return tuple(sorted({s.crop for s in self.sets}))

    def match(self, turned: Turned, margin: float = MARGIN) -> list[Match | None]:
        """Each crop's match by the set whose match is the most alike; for a roster's dice (sets with
        an `entry`), its `rival`: an entry of another kind, owner or colour whose nearest stored crop
        is within ENTRY_MARGIN as alike as the matching entry's (the die is asked: which die is it?)."""
        per = [s.match(turned, margin) for s in self.sets]
        entries = [i for i, s in enumerate(self.sets) if s.entry]
        near = [self.sets[i].nearest(turned) for i in entries] if entries else []
        out: list[Match | None] = []
        for n, ms in enumerate(zip(*per, strict=True)):
            best = max(
                (i for i, m in enumerate(ms) if m is not None),
                key=lambda i: ms[i].likeness,
                default=None,
            )
            if best is None:
                out.append(None)
                continue
            m = ms[best]
            assert m is not None
            mine = self.sets[best]
            if mine.entry:
                who = (mine.kind, mine.entry)
                rivals = [
                    (float(near[j][n]), self.sets[i].name)
                    for j, i in enumerate(entries)
                    if (self.sets[i].kind, self.sets[i].entry) != who
                ]
                closest = max(rivals, default=(0.0, ""))
                if closest[1]:
                    m = replace(m, entry_gap=m.likeness - closest[0])
                if closest[1] and closest[0] > m.likeness - ENTRY_MARGIN:
                    m = replace(m, rival=closest[1])
            out.append(m)
        return out


#: a learnt set as the reader reads with it: one set, or several of different kinds
Learnt = DiceSet | LearntSets


@dataclass(frozen=True, kw_only=True)
class LearntReading(DieReading):
    """A reading made by likeness to a learnt set (`dice_set`: the set's name), not by the classifier.
    `faces`, `likenesses`: the set's faces and the die's likeness to each (`Match`; not in the JSON),
    for the OCR head's evidence to be weighed with (`reader.learnt_with_ocr`); empty: not weighed.
    `trusted`: the set alone was sure of it (`Match.trusted`)."""

    dice_set: str
    faces: tuple[int, ...] = field(default=(), compare=False)
    likenesses: tuple[float, ...] = field(default=(), compare=False)
    trusted: bool = field(default=False, compare=False)
    #: the roster's entry as alike as `dice_set`'s (`Match.rival`): which die it is is disputed, asked
    rival: str = field(default="", compare=False)
    #: a roster die's evidence about its face (`vision.numbered.trust.evidence` without the OCR head's),
    #: and whether its confidence is the calibrated one (`Match.calibrated`); not in the JSON
    evidence: tuple[tuple[str, float], ...] = field(default=(), compare=False)
    calibrated: bool = field(default=False, compare=False)
    #: the die cut again: its likeness to each of `faces` at each further cut (`Match.cuts`)
    cuts: tuple[tuple[float, ...], ...] = field(default=(), compare=False)
    #: a template read (`Match.template`): the embedding's own gap for the set's nearest face
    #: (`Match.embedding_gap`), for `template.contradicted`; None: not a template read
    embedding_gap: float | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        out = {**super().to_json(), "learnt": self.dice_set}
        from vision.numbered import trust

        if trust.RECORD and self.evidence and self.faces and self.value in self.faces:
            out["trust"] = trust.features(self.faces, self.likenesses, dict(self.evidence), self.value)
        return {**out, "rival": self.rival} if self.rival else out
