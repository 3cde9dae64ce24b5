"""What a learn-dice session was told is not the die, at the place it lay (issue 44).

`dicetable learn-dice see` reads every frame as the table does; what it finds that is not the die
being taught (a relay board at the frame's edge, a keyboard's key, a LED that was off in the empty
table) becomes a group too, and the person names it ``-`` (not one of the set's dice).  `confirm
--config` keeps those crops: each one's place in the camera's frame and its look (the embedding of
its crop, `vision.numbered.embed`), in ``<roster>.not-dice.json`` beside the table's roster.  When
the table reads a frame (`controller.perceive.Perceiver`), a reading that none of the roster's dice
matched and that lies where such a crop lay (its centre within NEAR of the reading's side) and
looks like it (ALIKE or more at its best turn), or, where the file keeps what lay at each crop's
place, that lies in such a place (COVER of its box) whose part under it still looks as it did then
(PLACE_ALIKE), is the thing the person said is not a die: it is left out (listed with the rejected
candidates).  A die thrown onto that place is not alike to it
(a die's crop and a relay board's are far apart), so it is read as before.

The file: {"format": "dicetable-not-dice/1", "embedder": digest, "crop": "box" or "die" (the
session's, `DiceSet.crop`: each reading is cut so to be compared), "width": the
frames' width in pixels, "seen": [{"centre": [x, y], "features": [...], "side": px, "place":
base64 of a PATCH x PATCH BGR patch}, ...]} (side and place: files written since, on every crop or
none); the newest KEEP
crops are kept.  A file the table cannot use (another embedding net, a bad file) is logged and
left out: the table reads as without it.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.numbered.learnt import CROPS

log = logging.getLogger("dicetable.not_dice")

FORMAT = "dicetable-not-dice/1"
#: a reading this alike to a crop named "not the die" at its place is that thing: as alike as two
#: crops `see` groups as one face (`controller.learn_dice.LINK`).  Chosen on the train set-up
#: d20_off-angle of benchmarks/learnt_cli.py (no empty table): the relay board's die-centred crops
#: left at 0.9 were 0.857-0.898 alike to those named `-` at its place (its LEDs changed)
ALIKE = 0.85
#: ... at its place: the crop's centre within this share of the reading's side
NEAR = 0.5
#: the newest crops kept
KEEP = 400
#: ... or, where the file keeps what lay at each crop's place (its ``place`` patch), a reading that
#: lies in such a place (COVER) is that thing when the place's part under the reading's box still looks
#: this much as it did (`_alike`, the light's level left out): a die thrown there covers that part.
#: The embedding of a crop cut on the reading's outline varies with a relay board's LEDs and the peak
#: it is read at (d20_wood's phantoms were 0.71-0.76 alike to the crops named `-` at their place, a
#: die's crops 0.75), and a board read only once a learnt set knows a look like it (d20_wood: its
#: label, 33 px from every crop named `-`, read as a 7 in 11 of 55 frames) was never offered to be
#: named.  Chosen on the train set-up d20_off-angle of benchmarks/learnt_cli.py (no empty table, 23
#: crops named `-`; 30 later frames, readings of 60-90 px on a grid over the board): the board's
#: 0.999 in the median, >= 0.85 in 95 % of them; one of the set's 16 taught dice laid there instead:
#: 0.768 at most (>= 0.7 in 1.2 %): so 0.85
PLACE_ALIKE = 0.85
#: ... a reading is in such a place when this share of its box lies in the place's square or more
COVER = 0.5
#: the patch's side, pixels (`vision.numbered.die_crop.PIXEL_SIDE`)
PATCH = 32


def patch_of(text: str) -> np.ndarray:
    """A place's patch from its base64 bytes (PATCH x PATCH x 3 uint8); ValueError when it is not one."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, AttributeError) as e:
        raise ValueError(f"place: expected base64 bytes ({e})") from None
    if len(raw) != PATCH * PATCH * 3:
        raise ValueError(f"place: expected {PATCH}x{PATCH}x3 bytes, got {len(raw)}")
    return np.frombuffer(raw, np.uint8).reshape(PATCH, PATCH, 3).copy()


def path_for(roster: Path) -> Path:
    """The not-dice file beside the roster at ``roster`` (``t.roster.json`` -> ``t.roster.not-dice.json``)."""
    name = roster.name[: -len(".json")] if roster.name.endswith(".json") else roster.name
    return roster.with_name(name + ".not-dice.json")


@dataclass(frozen=True)
class NotDice:
    """Crops named "not the die" in learn-dice sessions (see the module's doc)."""

    embedder: str
    width: int
    centres: np.ndarray  # N x 2, frame pixels at `width`
    features: np.ndarray  # N x D upright embeddings
    #: the crop they were cut as (`vision.numbered.learnt.CROPS`: the session's, `DiceSet.crop`)
    crop: str = "box"
    #: each crop's reading's box side (N) and what lay at its place (N x PATCH x PATCH x 3 uint8);
    #: None in a file written before them (the embeddings alone then)
    sides: np.ndarray | None = None
    patches: np.ndarray | None = None

    def to_json(self) -> dict[str, Any]:
        seen: list[dict[str, Any]] = [
            {
                "centre": [round(float(x), 1), round(float(y), 1)],
                "features": [round(float(v), 5) for v in f],
            }
            for (x, y), f in zip(self.centres, self.features, strict=True)
        ]
        if self.sides is not None and self.patches is not None:
            for s, side, patch in zip(seen, self.sides, self.patches, strict=True):
                s["side"] = round(float(side), 1)
                s["place"] = base64.b64encode(np.ascontiguousarray(patch, np.uint8).tobytes()).decode("ascii")
        return {
            "format": FORMAT,
            "embedder": self.embedder,
            "crop": self.crop,
            "width": self.width,
            "seen": seen,
        }

    @classmethod
    def from_json(cls, data: Any, source: str) -> NotDice:
        """Raises ValueError naming ``source`` and the field."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{source}: expected a JSON object with format {FORMAT!r}")
        try:
            seen = data["seen"]
            width = int(data["width"])
            centres = np.array([s["centre"] for s in seen], np.float64).reshape(-1, 2)
            features = np.array([s["features"] for s in seen], np.float32)
            embedder = str(data["embedder"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(
                f"{source}: expected width, embedder and seen (centre, features) ({e})"
            ) from None
        if width <= 0 or len(features) != len(centres) or (len(features) and features.ndim != 2):
            raise ValueError(f"{source}: expected a positive width and one centre and features a crop")
        crop = data.get("crop", "box")
        if crop not in CROPS:
            raise ValueError(f"{source}: crop: expected one of {', '.join(CROPS)}, got {crop!r}")
        sides = patches = None
        if seen and all(isinstance(s, dict) and "side" in s and "place" in s for s in seen):
            try:
                sides = np.array([float(s["side"]) for s in seen], np.float64)
                patches = np.stack([patch_of(s["place"]) for s in seen])
            except (TypeError, ValueError) as e:
                raise ValueError(
                    f"{source}: seen: expected each side a number and place a patch ({e})"
                ) from None
            if not np.all(sides > 0):
                raise ValueError(f"{source}: seen: expected each side positive")
        return cls(embedder, width, centres, features.reshape(len(centres), -1), str(crop), sides, patches)

    def plus(self, other: NotDice) -> NotDice:
        """``other``'s crops after this one's (the newest KEEP); ``other`` alone when the two cannot
        be joined (another embedding net or frame width)."""
        if (
            other.embedder != self.embedder
            or other.crop != self.crop
            or other.width != self.width
            or (
                len(self.features)
                and len(other.features)
                and self.features.shape[1] != other.features.shape[1]
            )
        ):
            return other
        centres = np.concatenate([self.centres, other.centres])[-KEEP:]
        features = np.concatenate([self.features.reshape(len(self.centres), -1), other.features])[-KEEP:]
        sides = patches = None
        if (  # both keep their places: so does the join
            self.sides is not None
            and self.patches is not None
            and other.sides is not None
            and other.patches is not None
        ):
            sides = np.concatenate([self.sides, other.sides])[-KEEP:]
            patches = np.concatenate([self.patches, other.patches])[-KEEP:]
        return NotDice(self.embedder, self.width, centres, features, self.crop, sides, patches)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".part")
        tmp.write_text(json.dumps(self.to_json()), encoding="utf-8")
        tmp.replace(path)

    def drop(
        self,
        image: np.ndarray,
        readings: Sequence[Mapping[str, Any]],
        reader: Any,
        empty: np.ndarray | None = None,
        where: Sequence[Any] = (),
    ) -> list[bool]:
        """For each reading (dicts in ``image``'s pixels): whether it is a thing named not the die
        here (see the module's doc).  ``reader``: the numbered reader whose crops and embedding net
        the crops were made with (`NumberedReader.crops_of`, `embedder`), each cut as the session
        cut it (``empty``, ``where``: the empty table and the frame's where-steps, as `see` gives
        them)."""
        from vision.numbered.embed import likeness

        out = [False] * len(readings)
        if not len(self.centres):
            return out
        k = image.shape[1] / self.width
        centres = self.centres * k
        seen_now: dict[int, np.ndarray] = {}  # each named place's patch in this frame, cut once
        for i, r in enumerate(readings):
            if r.get("die") is not None or r.get("center") is None or not r.get("quad"):
                continue  # one of the roster's dice, or a reading with no place
            q = np.asarray(r["quad"], np.float64).reshape(-1, 2)
            side = max(float(np.ptp(q[:, 0])), float(np.ptp(q[:, 1])), 4.0)
            if self._still_there(image, (float(r["center"][0]), float(r["center"][1])), side, k, seen_now):
                out[i] = True
                continue
            near = [j for j, c in enumerate(centres) if math.dist(c, r["center"]) <= NEAR * side]
            if not near:
                continue
            crop = reader.crops_of(image, [r], self.crop, empty, where)
            like = likeness(reader.embedder().embed(crop, 4), self.features[near])
            out[i] = bool(like.size and float(like.max()) >= ALIKE)
        return out

    def _still_there(
        self,
        image: np.ndarray,
        centre: tuple[float, float],
        side: float,
        k: float,
        now: dict[int, np.ndarray],
    ) -> bool:
        """Whether a reading (its box ``side`` px round ``centre``, ``image``'s pixels, ``k`` times
        the file's) lies, COVER of its box or more, in a place named not the die whose part under
        the box still looks as it did then (PLACE_ALIKE): the same pixels of the camera's frame, so a
        relay board found at another peak, or read only once a learnt set knows its look, is still
        that board, while a die thrown there covers that part."""
        if self.sides is None or self.patches is None:
            return False
        from vision.numbered.die_crop import place_patch

        h = side / 2
        for j, ((cx, cy), s) in enumerate(zip(self.centres * k, self.sides * k, strict=True)):
            x0, y0 = max(centre[0] - h, cx - s / 2), max(centre[1] - h, cy - s / 2)
            x1, y1 = min(centre[0] + h, cx + s / 2), min(centre[1] + h, cy + s / 2)
            if x1 <= x0 or y1 <= y0 or (x1 - x0) * (y1 - y0) < COVER * side * side:
                continue
            f = PATCH / s  # the box's part in the place's patch (PATCH px for s)
            u0, v0 = math.floor((x0 - cx + s / 2) * f), math.floor((y0 - cy + s / 2) * f)
            u1, v1 = math.ceil((x1 - cx + s / 2) * f), math.ceil((y1 - cy + s / 2) * f)
            u0, v0, u1, v1 = max(0, u0), max(0, v0), min(PATCH, u1), min(PATCH, v1)
            if u1 - u0 < 4 or v1 - v0 < 4:
                continue
            if j not in now:
                now[j] = place_patch(image, (float(cx), float(cy)), float(s))
            if _alike(now[j][v0:v1, u0:u1], self.patches[j][v0:v1, u0:u1]) >= PLACE_ALIKE:
                return True
        return False


def _alike(a: np.ndarray, b: np.ndarray) -> float:
    """Two equal BGR patches' likeness whatever the light's level: each as its brightness and half its
    colour, each less its mean, unit length; their dot product (-1..1; 0 for a flat patch)."""
    out = []
    for p in (a, b):
        v = p.reshape(-1, 3).astype(np.float64)
        lum = v.mean(axis=1, keepdims=True)
        v = np.concatenate([lum, 0.5 * (v - lum)], axis=1)
        v = (v - v.mean(axis=0)).ravel()
        n = float(np.linalg.norm(v))
        if n < 1e-6:
            return 0.0
        out.append(v / n)
    return float(out[0] @ out[1])


def load_not_dice(roster: Path, embedder: str) -> NotDice | None:
    """The not-dice file beside the roster at ``roster``, when there is one the table can use (made
    with the embedding net ``embedder``); None otherwise (a bad file or another net: logged)."""
    path = path_for(roster)
    if not path.is_file():
        return None
    try:
        got = NotDice.from_json(json.loads(path.read_text(encoding="utf-8")), str(path))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValueError) as e:
        log.warning("%s: not used (the table reads as without it)", e)
        return None
    if got.embedder != embedder:
        log.warning(
            "%s: made with embedding net %s, not this reader's %s: not used", path, got.embedder, embedder
        )
        return None
    return got
