"""Symbol faces on pip d6 (issue 46 item 3): never read silently as pips; found and asked.

    nice -n 10 .venv/bin/python -m benchmarks.vision_symbol_faces [--scenes N] [--out FILE.md] [--smoke]

Through the table's read path for pip d6 (`controller.perceive.reader_for`'s reader, as
`dicetable read IMAGE` reads a lone photo: `vision.numbered.combined.PipDice` over
`vision.reader.DiceReader`), in one run: "before (main)" (``symbol_dice=False``: a die the classifier
or the verifier calls "not a die" is dropped), "symbol dice found (default)" (such a candidate that
shows a die's square top face of one colour, the size of the dice read, is kept and asked:
`vision.pipcheck.found_again`), and "and the pip check (opt-in)" (`vision.pipcheck.Judged()`: a sure
reading whose face shows marks that are not pips is asked; off by default, its cost below).

Symbol faces: each labelled die whose top face carries one is **silent** (read at or above the asking
threshold, as any value), **asked** (read below it) or **not found** (no reading on its box).
* Real first: the 31 symbol faces found by eye in `epanemu_d6_oblique` (``REAL_SYMBOLS``: 20 "BICYCLE"
  word faces with one pip, 9 "G" logo faces, 2 engraved numerals "1"; photos CC BY 4.0,
  Epanemu/GameDiceRecognition, see its README and LICENSE.txt).
* Renders: `training.render.symbols` scenes of the held-out seed with the held-out designs (crown,
  heart, a word, a scrawl, a disc logo, a numeral: never used to tune the check).
Pip faces beside them (the check's cost): byler_d6 held-out (labels as corrected by
benchmarks/byler_label_corrections.csv), epanemu_d6_oblique's other dice, the renders' pip faces:
read right, read right and sure (unasked), silent (sure and wrong); and the real photos with no dice
(negatives/): readings on them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks import harness
from benchmarks.harness import REAL, RESULTS, imread, markdown_table, match_boxes, run_header, truth_of
from benchmarks.vision_d6_budget import ASK, epanemu
from training.dataset import apply_corrections
from training.render.symbols import HELDOUT_DESIGNS, HELDOUT_SEED, make_scene
from training.render.synthetic import DIE_COLOURS
from vision.crops import Pyramid
from vision.numbered.combined import PipDice
from vision.pipcheck import Judged
from vision.reader import DiceReader
from vision.symbolfaces import NamedFaces, SymbolFaces, crop_at

#: the symbol faces of epanemu_d6_oblique, by photo number and box index in its label file
#: (found by eye on contact sheets of every die labelled 1, the value those faces were given)
REAL_SYMBOLS: dict[str, tuple[str, ...]] = {
    "BICYCLE word and pip": tuple(
        f"{n}.0"
        for n in (8, 9, 15, 23, 39, 43, 44, 47, 60, 63, 70, 88, 93, 110, 118, 138, 141, 147, 159, 160)
    ),
    "G logo": ("379.5", "380.11", "381.2", "382.4", "383.11", "384.14", "385.1", "438.0", "442.8"),
    "engraved numeral 1": ("385.11", "385.12"),
}


#: the real faces the referee names for the "named" reader: one G logo and one BICYCLE face (both
#: asked by the default reader), named 1 (their label); the other faces of those dice are measured
REAL_NAMED = ("380.11", "118.0")


def real_named_faces(
    read: Callable[[np.ndarray], Any], photos: Sequence[tuple[str, np.ndarray, list[Any]]]
) -> SymbolFaces:
    """The REAL_NAMED faces as the table keeps them once the referee names them (value 1)."""
    faces = []
    for key in REAL_NAMED:
        n, j = key.split(".")
        for name, img, truth in photos:
            if name != f"dice_{n}_jpg.jpg":
                continue
            found = read(img)
            k = match_boxes([b for b, _ in truth], [r.center for r in found])[int(j)]
            if k is not None:
                faces.append((1, crop_at(Pyramid(img), found[k].center, found[k].quad)))
    return SymbolFaces.of(faces)


def real_symbol_keys() -> dict[tuple[str, int], str]:
    """(image file name, box index) -> the symbol's kind."""
    out = {}
    for kind, ids in REAL_SYMBOLS.items():
        for i in ids:
            n, j = i.split(".")
            out[(f"dice_{n}_jpg.jpg", int(j))] = kind
    return out


@dataclass
class Tally:
    """One reader on one set: symbol faces silent / asked / not found; pip faces read right."""

    symbols: int = 0
    silent_sym: int = 0
    asked_sym: int = 0
    missed_sym: int = 0
    pips: int = 0
    right: int = 0
    right_sure: int = 0
    silent: int = 0
    #: a reader with named faces: a symbol face read surely as its own value is read by name
    named: bool = False
    by_name: int = 0
    photos: int = 0
    phantoms: int = 0
    silent_of: list[str] = field(default_factory=list)

    def add(
        self,
        name: str,
        found: Sequence[Any],
        truth: Sequence[tuple[Any, int]],
        symbol: Sequence[Any],
        unnamed: Sequence[Any] = (),
    ) -> None:
        """One photo's readings ``found``; ``unnamed``: the same reader's without named faces (a
        symbol face it read surely already is not read by name)."""
        m = match_boxes([b for b, _ in truth], [d.center for d in found]) if truth else []
        m0 = match_boxes([b for b, _ in truth], [d.center for d in unnamed]) if truth and unnamed else []
        self.photos += 1
        self.phantoms += len(found) - sum(i is not None for i in m)
        for j, ((_, v), i) in enumerate(zip(truth, m, strict=True)):
            d = None if i is None else found[i]
            if symbol[j]:
                self.symbols += 1
                if d is None:
                    self.missed_sym += 1
                elif (
                    d.confidence >= ASK
                    and self.named
                    and d.value == v
                    and (not m0 or m0[j] is None or unnamed[m0[j]].confidence < ASK)
                ):
                    self.by_name += 1
                elif d.confidence >= ASK:
                    self.silent_sym += 1
                    self.silent_of.append(f"{name}#{j} {symbol[j]} read {d.value} at {d.confidence:.2f}")
                else:
                    self.asked_sym += 1
                continue
            self.pips += 1
            if d is not None and d.value == v:
                self.right += 1
                self.right_sure += d.confidence >= ASK
            elif d is not None and d.confidence >= ASK:
                self.silent += 1

    def row(self, set_name: str, reader: str) -> list[str]:
        def pc(a: int, b: int) -> str:
            return f"{100 * a / b:.2f} % ({a}/{b})" if b else "-"

        return [
            set_name,
            reader,
            str(self.symbols),
            str(self.silent_sym) if self.symbols else "-",
            str(self.asked_sym) if self.symbols else "-",
            str(self.missed_sym) if self.symbols else "-",
            str(self.by_name) if self.named else "-",
            str(self.pips),
            pc(self.right, self.pips),
            pc(self.right_sure, self.pips),
            str(self.silent) if self.pips else "-",
            f"{self.phantoms} in {self.photos}",
        ]


HEAD = [
    "set",
    "reader",
    "symbol faces",
    "silent",
    "asked",
    "not found",
    "read right by name",
    "pip faces",
    "read right",
    "right and sure",
    "silent (pips)",
    "phantoms (readings on no labelled die)",
]


#: the first render of the held-out seed the referee's named faces come from (the measured ones are 0..)
NAMING = 1000


def name_faces(read: Callable[[np.ndarray], Any], scenes: int) -> SymbolFaces:
    """The faces a referee names: in renders NAMING.. of the held-out seed, the first die asked of
    each held-out design and colour, named its face's value (its crop as the table keeps it)."""
    want = {(d, c) for d in HELDOUT_DESIGNS for c in DIE_COLOURS}
    faces: list[tuple[int, np.ndarray]] = []
    for i in range(NAMING, NAMING + scenes):
        img, truth = make_scene(i, HELDOUT_SEED, HELDOUT_DESIGNS)
        found = read(img)
        m = match_boxes([tuple(d["box_px"]) for d in truth["dice"]], [r.center for r in found])
        pyr = Pyramid(img)
        for d, k in zip(truth["dice"], m, strict=True):
            key = (d["symbol"], d["colour"])
            if key in want and k is not None and found[k].confidence < ASK:
                faces.append((d["value"], crop_at(pyr, found[k].center, found[k].quad)))
                want.discard(key)
        if not want:
            break
    return SymbolFaces.of(faces)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--scenes", type=int, default=60, help="rendered scenes (held-out seed and designs)")
    ap.add_argument("--out", type=Path, help="the report's file (default results/vision_symbol_faces.md)")
    harness.add_smoke(ap)
    args = ap.parse_args(argv)
    if args.out is None and not args.smoke:
        args.out = RESULTS / "vision_symbol_faces.md"
    cv2.setNumThreads(1)
    readers: dict[str, Callable[[np.ndarray], Any]] = {
        "before (main)": PipDice(DiceReader(symbol_dice=False)).read,
        "symbol dice found (default)": PipDice(DiceReader()).read,
        "and the pip check (opt-in)": PipDice(DiceReader(pip_check=Judged())).read,
    }
    sets: list[tuple[str, list[tuple[str, np.ndarray, list[Any], list[Any]]]]] = []
    keys = real_symbol_keys()
    ep = epanemu(args.real)
    if args.smoke:
        ep = [e for e in ep if any(k[0] == e[0] for k in keys)][:2]
    sets.append(
        (
            "epanemu_d6_oblique (CC BY 4.0, Epanemu/GameDiceRecognition)",
            [(n, img, t, [keys.get((n, j)) for j in range(len(t))]) for n, img, t in ep],
        )
    )
    real = {s.name: s for s in harness.real_sets(args.real)}
    if "byler_d6" in real:
        byler = real["byler_d6"]
        items = [i for i in byler.items if byler.split(i, None) == "held-out"]  # type: ignore[arg-type]
        items, _ = apply_corrections(items, harness.ROOT / "benchmarks" / "byler_label_corrections.csv")
        if args.smoke:
            items = items[:2]
        rows = []
        for it in items:
            img = imread(it.path)
            t = truth_of(it, img)
            rows.append((it.path.name, img, t, [None] * len(t)))
        sets.append(("byler_d6 held-out", rows))
    if "negatives (no dice)" in real:
        neg = real["negatives (no dice)"].items[: 2 if args.smoke else None]
        sets.append(("negatives (real, no dice)", [(i.path.name, imread(i.path), [], []) for i in neg]))
    scenes = 2 if args.smoke else args.scenes
    rendered = []
    for i in range(scenes):
        img, truth = make_scene(i, HELDOUT_SEED, HELDOUT_DESIGNS)
        t = [(tuple(d["box_px"]), d["value"]) for d in truth["dice"]]
        rendered.append((f"scene {i}", img, t, [d["symbol"] for d in truth["dice"]]))
    sets.append((f"renders, held-out designs (seed {HELDOUT_SEED})", rendered))
    # the referee names one die of each held-out design and colour, asked in other renders (scenes
    # from NAMING on): the table reads with those faces (vision.symbolfaces.NamedFaces)
    faces = name_faces(readers["symbol dice found (default)"], 2 if args.smoke else 80)
    with_names = NamedFaces(PipDice(DiceReader()), faces)
    real_faces = real_named_faces(readers["symbol dice found (default)"], ep)
    real_names = NamedFaces(PipDice(DiceReader()), real_faces)

    table = []
    notes = []
    for set_name, photos in sets:
        these = dict(readers)
        if set_name.startswith("renders"):
            these[f"named ({len(faces.faces)} faces named in other renders)"] = with_names.read
        if set_name.startswith("epanemu"):
            these[f"named ({len(real_faces.faces)} faces named: {', '.join(REAL_NAMED)})"] = real_names.read
        tallies = {r: Tally(named=r.startswith("named")) for r in these}
        for name, img, t, sym in photos:
            base = None
            for r, read in these.items():
                found = read(img)
                base = found if r == "symbol dice found (default)" else base
                tallies[r].add(name, found, t, sym, base if r.startswith("named") else ())
        for r, tally in tallies.items():
            table.append(tally.row(set_name, r))
            notes += [f"- {set_name}, {r}: {s}" for s in tally.silent_of]
    text = "\n".join(
        [
            "# Symbol faces on pip d6 (issue 46 item 3)",
            "",
            run_header(argv, "benchmarks.vision_symbol_faces"),
            "",
            f"Asking threshold {ASK:g}. Symbol faces: silent = read at or above it (any value).",
            "",
            *markdown_table(HEAD, table),
            "",
            "Symbol faces read silently:",
            "",
            *(notes or ["- none"]),
            "",
        ]
    )
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
