"""How near each later roll of the real proxy is to a taught one, and the proxy's figures by that nearness
(issue 44: a more honest real figure for a die thrown anew).

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m benchmarks.real_nearness --train \
        --cache /tmp/learnt_trust --out benchmarks/results/real_nearness.md

The real proxy (`benchmarks.learnt_cli`, `learnt_cli_small`) teaches a d20_lurig set-up's die from the
first half of each face's clip and reads the second half of the SAME clip (`learnt_cli.split`).  Each
face in each set-up is one clip of one die turning on a platform (d20_color, d20_off-angle, d20_top) or
filmed by hand (d20_wood), so many later frames are near-copies of a taught one; the hidden test throws
the die anew each roll.  This benchmark measures, for every later frame, how near it is to the nearest
frame taught of its face, on the photos themselves (the reader plays no part):

- "pixels": 1 - the best normalised correlation of the die's grey crop (centred on the die as
  `learnt_cli.die_size` measures it, the crop CROP sides wide, SIZE px, inside a circle) with a taught
  crop of the same face turned by any multiple of TURN_STEP degrees (the reader turns crops too: an
  in-plane turn alone is not a new look); 0 is the same picture;
- "turn": the turn (degrees, 0-180) of that best match: the die's in-plane pose against the taught one;
- "gap": frames (upstream numbering) to the nearest taught frame of its clip;
- "embedding": 1 - the reader's own embedding likeness to the nearest stored crop of its face (from
  `benchmarks.learnt_trust`'s records; the reader's view, so not independent of what it reads).

The proxy's figures come from `benchmarks.learnt_trust`'s records: the same CLI session as the proxy's
"after" way (`learn-dice see`/`confirm --config`, `read --config --json`, the die 60 px with a 5 px blur
in the 1280x720 table; collected when not cached, ``--cache``).  Each set-up's later frames are cut into
quarters by "pixels" (nearest quarter first); the held-out set-ups (d20_top, d20_wood) are pooled after
being cut one by one (so each quarter holds each set-up's own share).  ``--split ends`` teaches from the
first quarter of each clip and reads its last quarter instead (`learnt_cli.SPLITS`).  Value right: the
die's reading is the labelled face; unasked: right at >= SURE; silent: a reading at >= SURE that is wrong
or a phantom, per 200 frames.  ``--train`` adds the train set-ups (d20_off-angle, d20_color).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks import learnt_cli, learnt_trust
from benchmarks.harness import REAL, DieTally, add_smoke, imread, markdown_table, run_header, share, write
from training.numbered.real import Lurig, load_lurig

#: the crop round the die, in the die's measured sides, and its size (px); the circle kept
CROP = 1.1
SIZE = 48
RADIUS = 0.45
#: the turns a taught crop is tried at (degrees)
TURN_STEP = 10
QUARTERS = ("nearest quarter", "second", "third", "least near quarter")
SURE = learnt_cli.SURE


@dataclass(frozen=True)
class Near:
    """A later frame's nearness to the taught frames of its face."""

    frame: str  # the proxy's frame name (`learnt_cli.shots`: group_face_frame.png)
    pixels: float  # 1 - the best correlation with a taught crop of its face, turned
    turn: float  # degrees, 0-180: the turn of that best match
    still: float  # 1 - the correlation with the nearest taught crop unturned
    gap: int  # frames to the nearest taught frame of its clip (-1: none taught from its clip)
    other: float  # as ``pixels``, to the nearest taught crop of ANOTHER face (nan: no other face taught)


def name(x: Lurig) -> str:
    """The proxy's frame name of a d20_lurig photo (`learnt_cli.shots`)."""
    return f"{x.group}_{x.face:02d}_{x.frame:04d}.png"


def mask(size: int = SIZE) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    c = (size - 1) / 2
    return np.asarray(np.hypot(xx - c, yy - c) <= RADIUS * size, bool)


def crop(photo: np.ndarray, centre: tuple[float, float], side: float, turn: float = 0.0) -> np.ndarray:
    """The die's grey crop, SIZE px square, centred on ``centre``, CROP sides wide, turned ``turn``
    degrees (about the die's centre)."""
    k = SIZE / (CROP * side)
    m = cv2.getRotationMatrix2D(centre, turn, k)
    m[:, 2] += np.array([(SIZE - 1) / 2, (SIZE - 1) / 2]) - np.asarray(centre, np.float64)
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY) if photo.ndim == 3 else photo
    out = cv2.warpAffine(grey, m, (SIZE, SIZE), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, np.float32)


def unit(c: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The crop's pixels inside the circle, zero mean and unit length (for correlation)."""
    v = c[keep].astype(np.float64)
    v -= v.mean()
    return v / max(float(np.linalg.norm(v)), 1e-9)


#: a photo as `nearness` takes it: (name, photo, the die's centre, its side, frame, clip, face)
Photo = tuple[str, np.ndarray, tuple[float, float], float, int, str, int]


def nearness(later: list[Photo], taught: list[Photo]) -> list[Near]:
    """Each later crop's nearness to the taught crops of its face (and to those of the other faces)."""
    keep = mask()
    turns = list(range(0, 360, TURN_STEP))
    bank = np.stack([unit(crop(p, c, s, t), keep) for _, p, c, s, _, _, _ in taught for t in turns])
    faces = np.array([x[6] for x in taught])
    out = []
    for nm, photo, centre, side, frame, clip, face in later:
        v = unit(crop(photo, centre, side), keep)
        corr = (bank @ v).reshape(len(taught), len(turns))
        own, rest = corr[faces == face], corr[faces != face]
        if not len(own):
            continue
        i, j = np.unravel_index(int(np.argmax(own)), own.shape)
        turn = float(turns[int(j)])
        gaps = [abs(frame - x[4]) for x in taught if x[5] == clip]
        out.append(
            Near(
                frame=nm,
                pixels=1.0 - float(own[i, j]),
                turn=min(turn, 360.0 - turn),
                still=1.0 - float(own[:, 0].max()),
                gap=min(gaps) if gaps else -1,
                other=1.0 - float(rest.max()) if len(rest) else float("nan"),
            )
        )
    return out


def measure(group: str, split: str, smoke: bool = False) -> tuple[dict[str, Near], dict[str, Near]]:
    """The nearness of every later frame of ``group`` (the proxy's frames: `learnt_cli.split`): in the
    photos themselves, and as the proxy's camera sees them (the die laid at `learnt_cli.DIE_PX` px with its
    motion blur and noise by `learnt_cli.lay`, with the proxy's own seeds: the frames `read` is given)."""
    items = [x for x in load_lurig(REAL) if x.group == group]
    if smoke:  # one clip
        clips = sorted({x.clip for x in items})[:1]
        items = [x for x in items if x.clip in clips]
    taught, later = learnt_cli.split(items, learnt_cli.ROLLS, 1, learnt_cli.SPLITS[split])
    sizes = learnt_cli.sizes(items)
    empty = learnt_cli.empty_table(learnt_cli.table_colour(items))

    def photo(x: Lurig) -> Photo:
        (c, side) = sizes[x.path]
        return name(x), imread(x.path), c, side, x.frame, x.clip, x.face

    def seen(x: Lurig, seed: int) -> Photo:
        rng = np.random.default_rng([seed, x.frame, x.face])  # as `learnt_cli.shots` lays it
        frame, centre = learnt_cli.lay(imread(x.path), sizes[x.path], empty, rng)
        return name(x), frame, centre, float(learnt_cli.DIE_PX), x.frame, x.clip, x.face

    own = {n.frame: n for n in nearness([photo(x) for x in later], [photo(x) for x in taught])}
    camera = nearness(
        [seen(x, learnt_cli.SEED + 1) for x in later], [seen(x, learnt_cli.SEED) for x in taught]
    )
    return own, {n.frame: n for n in camera}


def renders(folder: Path, limit: int | None = None) -> list[Near]:
    """The 20-face renders' later throws (`benchmarks.learnt_render20`'s frames, each die thrown anew), as
    the camera sees them, against the rolls taught of their face: the die's centre and side as rendered."""
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))

    def shot(r: dict[str, Any]) -> Photo:
        c = (float(r["centre"][0]), float(r["centre"][1]))
        return r["file"], imread(folder / r["file"]), c, float(r["side_px"]), -1, r["file"], int(r["value"])

    taught = [shot(r) for r in truth["rolls"] if r["part"] == "learn"]
    later = [r for r in truth["rolls"] if r["part"] != "learn"]
    return nearness([shot(r) for r in (later if limit is None else later[:limit])], taught)


def embedding(record: dict[str, Any]) -> float | None:
    """1 - the reader's embedding likeness of the read die to the nearest stored crop of its true face
    (None: the reader recorded no learnt evidence for it, or stored no crop of that face)."""
    e = record.get("evidence")
    if not e or "emb" not in e:
        return None
    same = [s for s, v in zip(e["emb"], e["values"], strict=True) if v == record["face"]]
    return 1.0 - max(same) if same else None


def score(records: list[dict[str, Any]]) -> DieTally:
    """The proxy's tally of ``records`` (`learnt_trust`'s, one a later frame)."""
    t = DieTally()
    for r in records:
        d = r["die"]
        read = (
            None
            if d is None
            else (d["kind"] == "d20" and d["value"] == r["face"], float(d["confidence"] or 0))
        )
        t.score(read, [float(c or 0.0) for c in r["others"]], SURE)
    return t


def quarters(records: list[dict[str, Any]], key: Any) -> list[list[dict[str, Any]]]:
    """``records`` sorted by ``key`` (nearest first) and cut into four quarters as even as they go;
    records whose key is None are left out."""
    have = sorted((r for r in records if key(r) is not None), key=key)
    n = len(have)
    return [have[round(i * n / 4) : round((i + 1) * n / 4)] for i in range(4)]


def render_records(folder: Path, table: Path, cache: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The renders' later throws read through `read --config` with a table `learnt_render20` taught and
    kept (``table``: its ``--keep`` folder's table, holding table.toml and data/; copied first, so the
    kept one is left as it was): records as `learnt_trust`'s (frame, face, die, others), cached."""
    import shutil

    out = (
        cache / f"renders_{folder.name}_{table.parent.name}_{table.name}{'' if limit is None else limit}.json"
    )
    if out.exists():
        return list(json.loads(out.read_text(encoding="utf-8")))
    if not (table / "table.toml").is_file():
        raise SystemExit(
            f"--render-tables {table}: expected a learnt_render20 --keep table (table.toml, data/)"
        )
    work = cache / out.stem
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(table, work)
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    shots = [
        learnt_cli.Shot(folder / r["file"], int(r["value"]), (float(r["centre"][0]), float(r["centre"][1])))
        for r in truth["rolls"]
        if r["part"] != "learn"
    ][:limit]
    seen: list[tuple[Any, Any, list[Any]]] = []
    env = {"DICETABLE_DATA_DIR": str(work / "data")}
    learnt_cli.read(work / "table.toml", shots, env, learnt_cli.Counts(), seen)
    records = [
        {
            "frame": str(shot.path.relative_to(folder)),
            "face": shot.face,
            "die": None if die is None else {k: die.get(k) for k in ("kind", "value", "confidence")},
            "others": [d.get("confidence") for d in dice if d is not die],
        }
        for shot, die, dice in seen
    ]
    out.write_text(json.dumps(records), encoding="utf-8")
    return records


def by_quarter(label: str, records: list[dict[str, Any]], cam: dict[str, Near]) -> list[list[Any]]:
    """Rows of ``records`` (later throws) by quarter of their camera nearness, and those nearer another
    face's taught roll."""
    out = [row([label, "all"], records, {}, cam)]
    key = lambda r: cam[r["frame"]].pixels if r["frame"] in cam else None  # noqa: E731
    out += [row([label, q], part, {}, cam) for q, part in zip(QUARTERS, quarters(records, key), strict=True)]
    out.append(row([label, UNLIKE], [r for r in records if nearer_other(cam.get(r["frame"]))], {}, cam))
    return out


def _median(values: list[float], places: int = 3) -> str:
    return f"{np.median(values):.{places}f}" if values else "-"


def row(label: list[Any], rs: list[dict[str, Any]], near: dict[str, Near], cam: dict[str, Near]) -> list[Any]:
    """A row of the table: the records' tally beside their nearness (photo, camera, embedding)."""
    t = score(rs)
    ns = [near[r["frame"]] for r in rs if r["frame"] in near]
    cs = [cam[r["frame"]] for r in rs if r["frame"] in cam]
    emb = [e for e in (embedding(r) for r in rs) if e is not None]
    return [
        *label,
        t.frames,
        _median([n.pixels for n in ns]),
        _median([n.other for n in ns if not np.isnan(n.other)]),
        _median([n.turn for n in ns], 0),
        _median([float(n.gap) for n in ns if n.gap >= 0], 0),
        _median([n.pixels for n in cs]),
        _median([n.other for n in cs if not np.isnan(n.other)]),
        _median(emb),
        share(t.right, t.frames, places=1),
        share(t.unasked, t.frames, places=1),
        f"{200 * t.silent / max(1, t.frames):.2f}",
    ]


HEAD = (
    "set-up",
    "table",
    "later frames",
    "frames",
    "photo: own face",
    "photo: other faces",
    "turn °",
    "gap (frames)",
    "camera: own face",
    "camera: other faces",
    "embedding: own face",
    "value right",
    "read unasked",
    "silent / 200",
)
#: the later frames no nearer a taught roll of their own face than one of another face, as the camera
#: sees them (what a look-alike match cannot tell apart: most of the renders' throws)
UNLIKE = "camera: nearer another face's taught roll"


def nearer_other(n: Near | None) -> bool:
    return n is not None and not np.isnan(n.other) and n.other <= n.pixels


#: the quarters' nearness (``--by``)
BY = ("photo", "camera", "embedding")


def tables(
    records: dict[tuple[str, str], list[dict[str, Any]]],
    near: dict[str, dict[str, Near]],
    cam: dict[str, dict[str, Near]],
    by: str,
) -> list[list[Any]]:
    """The rows: each set-up and table, all its later frames then its quarters by ``by`` (`BY`); then the
    held-out set-ups pooled, quarter by quarter (each cut on its own first)."""
    rows: list[list[Any]] = []
    pooled: dict[tuple[str, int], list[dict[str, Any]]] = {}
    every: dict[str, list[dict[str, Any]]] = {}
    for (group, variant), rs in records.items():
        mine = {"photo": near[group], "camera": cam[group]}.get(by)

        def key(r: dict[str, Any], mine: dict[str, Near] | None = mine) -> float | None:
            if mine is None:
                return embedding(r)
            n = mine.get(r["frame"])
            return None if n is None else n.pixels

        label = f"{group} ({'held out' if group in learnt_cli.HELD_OUT else 'train'})"
        rows.append(row([label, variant, "all"], rs, near[group], cam[group]))
        for i, part in enumerate(quarters(rs, key)):
            rows.append(row([label, variant, QUARTERS[i]], part, near[group], cam[group]))
            if group in learnt_cli.HELD_OUT:
                pooled.setdefault((variant, i), []).extend(part)
        unlike = [r for r in rs if nearer_other(cam[group].get(r["frame"]))]
        rows.append(row([label, variant, UNLIKE], unlike, near[group], cam[group]))
        if group in learnt_cli.HELD_OUT:
            pooled.setdefault((variant, len(QUARTERS)), []).extend(unlike)
        if group in learnt_cli.HELD_OUT:
            every.setdefault(variant, []).extend(rs)
    photos = {k: v for d in near.values() for k, v in d.items()}
    seen = {k: v for d in cam.values() for k, v in d.items()}
    for variant, rs in every.items():
        rows.append(row(["held out, pooled", variant, "all"], rs, photos, seen))
        for i, q in enumerate((*QUARTERS, UNLIKE)):
            rows.append(row(["held out, pooled", variant, q], pooled[(variant, i)], photos, seen))
    return rows


def spread(label: str, ns: list[Near]) -> list[Any]:
    """A row of the camera-view comparison: how near later frames are to a taught one of their face."""
    own = [n.pixels for n in ns]
    other = [n.other for n in ns if not np.isnan(n.other)]
    closer = sum(nearer_other(n) for n in ns)
    q = np.percentile(own, [25, 50, 75]) if own else [float("nan")] * 3
    return [label, len(ns), *(f"{v:.3f}" for v in q), _median(other), share(closer, len(other), places=1)]


SPREAD_HEAD = (
    "later frames of",
    "frames",
    "own face: 25 %",
    "median",
    "75 %",
    "other faces: median",
    "nearer another face's taught roll",
)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", action="store_true", help="the train set-ups (d20_off-angle, d20_color) too")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/learnt_trust"), help="learnt_trust's records")
    ap.add_argument(
        "--split", choices=tuple(learnt_cli.SPLITS), default="halves", help="the frames taught, read"
    )
    ap.add_argument("--by", choices=BY, default="photo", help="the quarters' nearness")
    ap.add_argument(
        "--renders",
        type=Path,
        nargs="*",
        default=[],
        help="20-face render folders (learnt_render20's) to compare the camera's nearness with",
    )
    ap.add_argument(
        "--render-tables",
        type=Path,
        nargs="*",
        default=[],
        help="a learnt_render20 --keep table (table.toml, data/) a --renders folder, reading its throws",
    )
    ap.add_argument("--out", type=Path, default=None)
    add_smoke(ap)
    a = ap.parse_args(argv)
    if a.render_tables and len(a.render_tables) != len(a.renders):
        ap.error(
            f"--render-tables: expected one a --renders folder ({len(a.renders)}), got {len(a.render_tables)}"
        )
    for folder in a.renders:
        if not (folder / "truth.json").is_file():
            ap.error(f"--renders {folder}: expected a folder of composed renders with truth.json")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    t0 = time.perf_counter()
    a.cache.mkdir(parents=True, exist_ok=True)
    groups = list(learnt_cli.HELD_OUT) + (list(learnt_trust.TRAIN) if a.train else [])
    variants = learnt_cli.VARIANTS[:1] if a.smoke else learnt_cli.VARIANTS
    records: dict[tuple[str, str], list[dict[str, Any]]] = {}
    near: dict[str, dict[str, Near]] = {}
    cam: dict[str, dict[str, Near]] = {}
    for group in groups[:1] if a.smoke else groups:
        near[group], cam[group] = measure(group, a.split, a.smoke)
        for variant, has_empty in variants:
            got = learnt_trust.cached(group, has_empty, a.cache, a.smoke, learnt_cli.ROLLS, a.split)
            records[(group, variant)] = [r for r in got if r["frame"] in near[group]] if a.smoke else got
            missing = [r["frame"] for r in records[(group, variant)] if r["frame"] not in near[group]]
            if missing or not records[(group, variant)]:
                raise SystemExit(
                    f"{group}, {variant}: expected learnt_trust's records (--cache {a.cache}) of the frames "
                    f"measured here (split {a.split}); {len(missing)} records name frames not measured, "
                    f"e.g. {missing[:2]}"
                )
    rows = tables(records, near, cam, a.by)
    compare = [spread(f"real {g}, split {a.split}", list(c.values())) for g, c in cam.items()]
    rendered = {f: renders(f, 3 if a.smoke else None) for f in a.renders}
    compare += [spread(f"renders {f} (thrown anew)", ns) for f, ns in rendered.items()]
    read_renders: list[list[Any]] = []
    for f, table in zip(a.renders, a.render_tables, strict=False):
        cam_f = {n.frame: n for n in rendered[f]}
        got = [r for r in render_records(f, table, a.cache, 3 if a.smoke else None) if r["frame"] in cam_f]
        read_renders += by_quarter(f"renders {f.name}", got, cam_f)
    teach, read = learnt_cli.SPLITS[a.split]
    text = [
        "# The real proxy's later rolls by how near they are to a taught roll (issue 44)",
        "",
        run_header(),
        "",
        f"Split: `{a.split}` (each clip's first {teach:.0%} taught, {learnt_cli.ROLLS} rolls a face; its "
        f"last {read:.0%} read); quarters by {a.by} nearness (1 - the best correlation with a taught crop "
        f"of the face, turned); {time.perf_counter() - t0:.0f} s.",
        "",
        *markdown_table(HEAD, rows),
        "",
        "How near the later frames are as the camera sees them (the die ~60 px with its motion blur), real "
        "proxy and renders:",
        "",
        *markdown_table(SPREAD_HEAD, compare),
    ]
    if read_renders:
        text += [
            "",
            "RENDERS, not photos: the 20-face renders' later throws (each thrown anew), read with the table "
            "`learnt_render20` taught and kept, by quarter of their camera nearness:",
            "",
            *markdown_table(("renders", "later throws", *HEAD[3:]), read_renders),
        ]
    write("\n".join(text) + "\n", a.out)


if __name__ == "__main__":
    main()
