"""One picture of the board (issue 45): the frame the dice were read from, each die outlined in its
colour with its id, colour and owner, value, the zones it touches, its support ("on the board", "on die
r3.1", "asked", "off the board") and the points it scores, and the board's zones outlined from the
calibration (the board's pose in that frame).

The display serves it as ``/api/board.png`` (`Table.board_png`, on the camera page) and ``dicetable read
--explain`` writes it beside its text.  It shows what the camera read and nothing else: no secret
selection is ever drawn.  The points follow DICETAR WARS' rule (`engine.dicetar_wars`): face x the
lowest multiplier of the zones under the bottom of the die's stack, x STACK_FACTOR once when stacked, 0
off any zone or off the board; a die whose support is asked scores "?" until the referee answers."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from engine.dicetar_wars import STACK_FACTOR

#: the kinds of question (`engine.core.Question.kind`) that ask what a die rests on
STACK_QUESTIONS = ("stack", "stacked", "support")

#: drawing colours (BGR): the zones' lines and names, the board's outline, a candidate rejected
ZONE, OUTLINE, REJECTED = (0, 200, 255), (255, 255, 255), (40, 40, 230)


@dataclass(frozen=True)
class DieFacts:
    """What the picture says of one die."""

    id: str
    kind: str
    value: int
    colour: str | None
    owner: str | None
    zones: tuple[str, ...]
    support: str  # "on the board" | "on die r3.1" | "asked" | "off the board", ", under r3.2" when hidden
    multiplier: int | None  # the multiplier applied (the bottom die's for a stack)
    points: int | None  # None: not scored (no scoring board, or its support is asked)
    stacked: bool
    asked: bool  # the table asks about this die (unsure, or its support)
    placed: bool  # placed on a board (a table with a board and calibration): its zones are known
    quad: tuple[tuple[float, float], ...]
    center: tuple[float, float]

    def lines(self, scoring: bool) -> list[str]:
        """The die's label, three short lines."""
        who = f" {self.owner}" if self.owner else ""
        face = str(self.value) if self.kind == "d6" else f"{self.kind}:{self.value}"
        head = f"{'? ' if self.asked else ''}{self.id} {self.colour or '?'}{who} = {face}"
        if self.support == "off the board":
            where = "off the board"
        elif self.zones:
            where = "+".join(self.zones) + (f" x{self.multiplier}" if scoring and self.multiplier else "")
        else:
            where = "no zone"
        if not scoring and not self.placed:  # no board: where it lies says nothing but a stack
            return [head] + ([self.support] if self.support != "on the board" else [])
        if not scoring:
            return [head, where, self.support]
        if self.points is None:
            score = "score ?"
        elif self.multiplier is None:
            score = "0"
        else:
            score = f"{self.value}x{self.multiplier}" + (f"x{STACK_FACTOR}" if self.stacked else "")
            score += f"={self.points}"
        return [head, where, f"{self.support}: {score}"]


def support_of(dice: Sequence[Mapping[str, Any]], i: int, support_asked: Sequence[str] = ()) -> str:
    """Where die ``i`` rests, in words; "asked" when the table asks what it rests on (its reading says
    so, or it is in ``support_asked``: the ids of a question about stacks)."""
    d = dice[i]
    if d.get("support") == "asked" or d.get("support_hidden") or str(d.get("id")) in support_asked:
        return "asked"
    below = d.get("rests_on")
    if isinstance(below, int) and not isinstance(below, bool) and 0 <= below < len(dice):
        where = f"on die {dice[below].get('id', below)}"
    elif d.get("field_status") == "off":
        where = "off the board"
    else:
        where = "on the board"
    if (
        d.get("hidden") and d.get("under") is not None
    ):  # remembered from an earlier throw (calibration.memory)
        where += f", under {d['under']}"
    return where


def _bottom(dice: Sequence[Mapping[str, Any]], i: int) -> tuple[int, bool]:
    """The index of the die at the bottom of die ``i``'s stack, and whether ``i`` is stacked."""
    seen = {i}
    j = i
    while True:
        below = dice[j].get("rests_on")
        if (
            not isinstance(below, int)
            or isinstance(below, bool)
            or not 0 <= below < len(dice)
            or below in seen
        ):
            return j, j != i
        seen.add(below)
        j = below


def die_facts(
    dice: Sequence[Mapping[str, Any]],
    multipliers: Mapping[str, int] | None = None,
    owners: Mapping[str, str] | None = None,
    asked_ids: Sequence[str] = (),
    support_asked: Sequence[str] = (),
) -> list[DieFacts]:
    """Each die's facts from its reading (`Reading.to_json`); ``multipliers``: the scoring zones' (a
    DICETAR WARS board's), None when the game scores no zones; ``owners``: colour -> player;
    ``asked_ids``: the dice the table asks about; ``support_asked``: those whose support it asks."""
    out = []
    colour_owner = {c.lower(): p for c, p in (owners or {}).items()}
    for i, d in enumerate(dice):
        support = support_of(dice, i, support_asked)
        b, stacked = _bottom(dice, i)
        bottom = dice[b]
        mult: int | None = None
        points: int | None = None
        if multipliers is not None:
            known = [multipliers[z] for z in bottom.get("zones") or () if z in multipliers]
            if bottom.get("field_status") != "off" and known:
                mult = min(known)
            asked = support == "asked" or (stacked and support_of(dice, b, support_asked) == "asked")
            if not asked:
                points = 0 if mult is None else int(d["value"]) * mult * (STACK_FACTOR if stacked else 1)
        colour = d.get("colour")
        quad = tuple((float(p[0]), float(p[1])) for p in d.get("quad") or ())
        center = d.get("center") or (np.mean(quad, axis=0).tolist() if quad else (0.0, 0.0))
        out.append(
            DieFacts(
                id=str(d.get("id", i)),
                kind=str(d.get("kind", "d6")),
                value=int(d["value"]),
                colour=None if colour is None else str(colour),
                owner=None if colour is None else colour_owner.get(str(colour).lower()),
                zones=tuple(str(z) for z in d.get("zones") or ()),
                support=support,
                multiplier=mult,
                points=points,
                stacked=stacked,
                asked=bool(d.get("unsure")) or str(d.get("id")) in asked_ids or support == "asked",
                placed="field_status" in d or "zones" in d,
                quad=quad,
                center=(float(center[0]), float(center[1])),
            )
        )
    return out


@dataclass(frozen=True)
class DrawnLabel:
    """A die's label as drawn: its lines, the box it fills (x0, y0, x1, y1) and the die it names."""

    id: str
    lines: tuple[str, ...]
    box: tuple[int, int, int, int]
    anchor: tuple[int, int]


@dataclass(frozen=True)
class Picture:
    """The drawn picture and what was drawn on it."""

    image: np.ndarray
    labels: tuple[DrawnLabel, ...]
    zones: tuple[str, ...]  # the zones outlined

    def png(self) -> bytes:
        ok, buf = cv2.imencode(".png", self.image, [cv2.IMWRITE_PNG_COMPRESSION, 6])
        if not ok:
            raise ValueError("the board picture could not be encoded as PNG")
        return bytes(buf.tobytes())


@dataclass(frozen=True)
class ZoneOutline:
    """A zone's rings in the picture's pixels, its name and multiplier, and where its name goes."""

    name: str
    multiplier: int | None
    rings: tuple[np.ndarray, ...]
    label_at: tuple[float, float]


def zone_outlines(board: Any, calibration: Any, pose: Any, size: tuple[int, int]) -> list[ZoneOutline]:
    """The board's outline (name "") and each zone of ``board`` (a `calibration.board.BoardLayout`)
    projected into an image ``size`` (W, H) of the camera seeing the board at ``pose``."""
    cal = calibration.for_image(*size)

    def project(ring: Any) -> np.ndarray:
        pts = np.asarray(ring, np.float64)[:, :2]
        flat = np.column_stack([pts, np.zeros(len(pts))])
        return np.asarray(pose.project(flat, cal), np.float64)

    out = [ZoneOutline("", None, (project(board.outline),), (0.0, 0.0))]
    for z in board.zones:
        at = project(np.asarray([z.region.label_point()]))[0]
        out.append(
            ZoneOutline(z.name, z.multiplier, tuple(project(r) for r in z.region.rings()), (at[0], at[1]))
        )
    return out


def _bgr(colour: str | None) -> tuple[int, int, int]:
    from vision.palette import DEFAULT_BGR, MORE_BGR

    known = {**DEFAULT_BGR, **MORE_BGR}
    v = known.get((colour or "").lower())
    if v is None:
        return (200, 200, 200)
    return (int(v[0]), int(v[1]), int(v[2]))


def _die_box(f: DieFacts, s: float) -> tuple[int, int, int, int]:
    """The die's box in the picture (x0, y0, x1, y1): its quad's, or a small one at its centre."""
    if len(f.quad) >= 3:
        q = np.asarray(f.quad)
        x0, y0 = np.floor(q.min(0))
        x1, y1 = np.ceil(q.max(0))
        return int(x0), int(y0), int(x1), int(y1)
    cx, cy, r = round(f.center[0]), round(f.center[1]), round(10 * s)
    return cx - r, cy - r, cx + r, cy + r


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _place(
    size: tuple[int, int],
    w: int,
    h: int,
    die: tuple[int, int, int, int],
    taken: list[tuple[int, int, int, int]],
    step: int,
) -> tuple[int, int, int, int]:
    """A box ``w`` x ``h`` near the die's box ``die``, inside the image, overlapping no box of
    ``taken`` where there is such a place (the least overlapping one otherwise)."""
    width, height = size
    cx, cy = (die[0] + die[2]) // 2, (die[1] + die[3]) // 2
    best, best_cost = None, math.inf
    for ring in range(0, 8):
        gap = step + ring * step * 3
        spots = [
            (cx - w // 2, die[1] - gap - h),  # above
            (cx - w // 2, die[3] + gap),  # below
            (die[2] + gap, cy - h // 2),  # right
            (die[0] - gap - w, cy - h // 2),  # left
            (die[2] + gap, die[1] - gap - h),
            (die[0] - gap - w, die[1] - gap - h),
            (die[2] + gap, die[3] + gap),
            (die[0] - gap - w, die[3] + gap),
        ]
        for x, y in spots:
            x = min(max(0, x), width - w)
            y = min(max(0, y), height - h)
            box = (x, y, x + w, y + h)
            hits = sum(_overlaps(box, t) for t in taken)
            cost = hits * 1e6 + ring
            if cost < best_cost:
                best, best_cost = box, cost
            if hits == 0:
                return box
    assert best is not None
    return best


def draw(
    image: np.ndarray,
    facts: Sequence[DieFacts],
    zones: Sequence[ZoneOutline] = (),
    scoring: bool = False,
    rejected: Sequence[Mapping[str, Any]] = (),
    title: str | None = None,
) -> Picture:
    """The board picture on a copy of ``image`` (BGR): the zones, each die's outline in its colour and
    its label (`DieFacts.lines`) set beside it where it overlaps no other die or label, joined to the die
    by a line; ``rejected``: the candidates the reader rejected (`dicetable read --explain`), in red."""
    img: np.ndarray = np.ascontiguousarray(image, dtype=np.uint8).copy()
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    height, width = img.shape[:2]
    s = max(width, height) / 1280.0  # font and lines scaled to the image
    thick = max(1, round(1.5 * s))
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, max(0.4, 0.5 * s)  # never under ~9 px a letter
    die_boxes = [_die_box(f, s) for f in facts]
    # the zones, thin, each named in its top-left corner (inside it) unless a die lies there
    zs = max(0.35, 0.4 * s)
    for z in zones:
        for ring in z.rings:
            pts = np.round(ring).astype(np.int32)
            cv2.polylines(img, [pts], True, OUTLINE if not z.name else ZONE, max(1, thick - 1), cv2.LINE_AA)
        if z.name and z.rings:
            text = f"{z.name} x{z.multiplier}" if scoring and z.multiplier else z.name
            (tw, th), _ = cv2.getTextSize(text, font, zs, 1)
            ring = np.asarray(z.rings[0], np.float32)
            x0, y0 = ring.min(0)
            org = (round(x0 + 4 * s), round(y0 + 4 * s + th))
            corner = (float(org[0] + tw), float(org[1]))
            if cv2.pointPolygonTest(ring, corner, False) < 0 or cv2.pointPolygonTest(ring, org, False) < 0:
                org = (round(z.label_at[0] - tw / 2), round(z.label_at[1] + th / 2))
            box = (org[0], org[1] - th, org[0] + tw, org[1] + 2)
            if any(_overlaps(box, d) for d in die_boxes):
                continue
            cv2.putText(img, text, org, font, zs, (0, 0, 0), thick + 2, cv2.LINE_AA)
            cv2.putText(img, text, org, font, zs, ZONE, max(1, thick - 1), cv2.LINE_AA)
    for r in rejected:
        (cx, cy), (w, h) = r["center"], r["size"]
        p0, p1 = (round(cx - w / 2), round(cy - h / 2)), (round(cx + w / 2), round(cy + h / 2))
        cv2.rectangle(img, p0, p1, REJECTED, thick)
        cv2.putText(img, str(r.get("step", "")), (p0[0], p1[1] + round(14 * s)), font, zs, REJECTED, thick)
    # each die outlined in its colour (with a dark rim so that white and yellow show on the paper)
    for f, dbox in zip(facts, die_boxes, strict=True):
        if len(f.quad) >= 3:
            q = np.round(np.asarray(f.quad)).astype(np.int32)
            cv2.polylines(img, [q], True, (0, 0, 0), thick + 2, cv2.LINE_AA)
            cv2.polylines(img, [q], True, _bgr(f.colour), thick, cv2.LINE_AA)
        else:
            c = ((dbox[0] + dbox[2]) // 2, (dbox[1] + dbox[3]) // 2)
            cv2.circle(img, c, (dbox[2] - dbox[0]) // 2, _bgr(f.colour), thick, cv2.LINE_AA)
    taken = list(die_boxes)
    if title:
        (tw, th), base = cv2.getTextSize(title, font, scale, thick)
        pad = round(4 * s)
        box = (0, 0, min(width, tw + 2 * pad), th + base + 2 * pad)
        cv2.rectangle(img, box[:2], box[2:], (0, 0, 0), -1)
        cv2.putText(img, title, (pad, pad + th), font, scale, (255, 255, 255), thick, cv2.LINE_AA)
        taken.append(box)
    labels = []
    pad = max(2, round(3 * s))
    for f, dbox in zip(facts, die_boxes, strict=True):
        lines = f.lines(scoring)
        sizes = [cv2.getTextSize(t, font, scale, thick) for t in lines]
        line_h = max(th + base for (_, th), base in sizes) + pad
        w = max(tw for (tw, _), _ in sizes) + 2 * pad
        h = line_h * len(lines) + pad
        box = _place((width, height), w, h, dbox, taken, max(2, round(4 * s)))
        taken.append(box)
        # the label: dark, half see-through, edged in the die's colour, joined to the die
        sub = img[box[1] : box[3], box[0] : box[2]]
        sub[:] = (sub * 0.25).astype(np.uint8)
        colour = _bgr(f.colour)
        cv2.rectangle(img, box[:2], (box[2] - 1, box[3] - 1), colour, max(1, thick - 1))
        anchor = ((dbox[0] + dbox[2]) // 2, (dbox[1] + dbox[3]) // 2)
        near = (min(max(anchor[0], box[0]), box[2] - 1), min(max(anchor[1], box[1]), box[3] - 1))
        if not (dbox[0] <= near[0] <= dbox[2] and dbox[1] <= near[1] <= dbox[3]):
            edge = (min(max(near[0], dbox[0]), dbox[2]), min(max(near[1], dbox[1]), dbox[3]))
            cv2.line(img, near, edge, colour, max(1, thick - 1), cv2.LINE_AA)
        for k, t in enumerate(lines):
            y = box[1] + pad + line_h * (k + 1) - pad - sizes[k][1]
            ink = (80, 200, 255) if k == 0 and f.asked else (255, 255, 255)
            cv2.putText(img, t, (box[0] + pad, y), font, scale, ink, thick, cv2.LINE_AA)
        labels.append(DrawnLabel(f.id, tuple(lines), box, anchor))
    return Picture(img, tuple(labels), tuple(z.name for z in zones if z.name))


def geometry_zones(geometry: Any, image: np.ndarray, frame: np.ndarray | None = None) -> list[ZoneOutline]:
    """The board's zones in ``image``'s pixels from its pose (solved in ``frame`` when given, the
    picture's size being ``image``'s); none without a board and calibration or when the pose is not
    found."""
    if geometry is None:
        return []
    pose = geometry.pose(image if frame is None else frame)
    if pose is None:
        return []
    h, w = image.shape[:2]
    try:
        return zone_outlines(geometry.board, geometry.calibration, pose, (w, h))
    except (ValueError, cv2.error):
        return []


def table_png(table: Any) -> bytes | None:
    """The board picture of the table's latest settled frame (`Table.board_png`), as PNG; None before
    a frame is read.  Drawn once per reading set and its answers (kept on the table)."""
    with table._lock:
        jpeg, rs, question = table.frame, table.reading_set, table.question
        dice = [] if rs is None else [dict(d) for d in rs.dice]
        seq = 0 if rs is None else rs.seq
    if jpeg is None:
        return None
    # the dice a question is about ("count" is about the whole throw, not about one die)
    asked = tuple(question.readings) if question is not None and question.kind != "count" else ()
    on_what = asked if question is not None and question.kind in STACK_QUESTIONS else ()
    key = (seq, repr(dice), asked, id(jpeg))
    cached = getattr(table, "_board_png", None)
    if cached is not None and cached[0] == key:
        return bytes(cached[1])
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        return None
    from controller.perceive import player_colours

    game = table.game
    board = getattr(game, "board", None) if table.setup.game == "dicetar-wars" else None
    multipliers = dict(board.multipliers) if board is not None else None
    colours = player_colours(table.cfg, game.state)
    owners = {str(c): p for p, c in colours.items()}
    facts = die_facts(dice, multipliers, owners, asked, on_what)
    zones = geometry_zones(table.perceiver.geometry, image)
    title = f"throw {seq}: {len(facts)} dice"
    if multipliers is not None:
        total: dict[str, int] = {}
        for f in facts:
            if f.owner is not None and f.points is not None:
                total[f.owner] = total.get(f.owner, 0) + f.points
        if total:
            title += " scoring " + ", ".join(f"{p} {v}" for p, v in total.items())
    png = draw(image, facts, zones, scoring=multipliers is not None, title=title).png()
    table._board_png = (key, png)
    return png
