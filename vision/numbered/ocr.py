"""The OCR value head (issue 29): a numbered die's value read by a text recogniser trained on real
images, never on the project's renders.

The recogniser is PP-OCRv6's small text-line model (`PP-OCRv6_rec_small.onnx`, CTC over 18,708
characters), the ONNX file the `rapidocr` 3.x wheel ships in its `models` folder; it runs here on the
project's own runtime (vision.runtime.Model, onnxruntime on one thread), with rapidocr's code unused.

A die's top face, found by the numbered reader (its centre and size), is cut square at each of
`shares` of the die's box (SHARES: two scales, as the box's size says little of the numeral's) and
`angles` evenly spaced turns (ANGLES, 12: every 30 degrees, so a d20's 120-degree triangle turns and
the quarter turns are among them, and a numeral at any angle is within 15 degrees of one), each
`SIDE` x `SIDE` pixels; the recogniser reads them all in one batch (24 crops a die, ~44 ms on one
core; `OcrHead.fast()` reads 6 crops with an int8 copy of the recogniser, within 10 ms, at a cost in
values read right: benchmarks/RESULTS.md, "the OCR head's cost").  Each turn's per-step
probabilities are kept for the blank, the ten digits and the marks under a 6 or a 9 (`.`, `,`, `_`);
everything else the recogniser could read (letters, other symbols) counts against every value.
For each legal value of the die's kind (d6 1-6, d10 0-9, d10p 00-90, d20 1-20) the exact CTC
probability that the recogniser reads that numeral (a 6 or 9 with or without its mark) is summed
over the ways to align it (`ctc_scores`); a value's evidence is its best view's probability (of every
turn at every scale).

The value is the value with the most evidence.  Its confidence is calibrated (`CALIBRATION`, a
logistic fit on the TRAIN split of the real photos, `benchmarks/vision_numbered_ocr.py --fit`): the
probability that a reading with these features is right, so a reading at or above the table's
asking threshold is scored unasked and everything else is asked.  A 6 read upside down is a 9:
without its mark the two have the same evidence and the reading is asked.

A die under MIN_SIDE (a small learnt die, issue 44 item 4) is read with the recogniser's last
projection refitted (SMALL_HEAD, `SmallHead`: the blank's, the digits' and the marks' logits each
group scaled and shifted, fitted on real ~60 px d20s with motion blur of the TRAIN set-ups only by
training/numbered/ocr_small_head.py) and its own calibration; the body of the net is the wheel's, and
a larger die is read exactly as before (benchmarks/ocr_small.py, RESULTS.md "the OCR head refitted
for small dice").
"""

from __future__ import annotations

import importlib.util
import json
import logging
import math
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from vision.numbered.crop import MARGIN, crop_die
from vision.numbered.labels import CLASSES, KIND_SLICES, KINDS
from vision.reading import DieReading
from vision.runtime import Int8Unavailable, Model, file_sha256, int8_model

log = logging.getLogger(__name__)

REC_FILE = "PP-OCRv6_rec_small.onnx"
SIDE = 48  # the recogniser's input height (fixed by the net); the crops are square
#: turns read per die, evenly spaced.  Issue 29 session 14 tried 8 (every 45 degrees, 16 crops a die,
#: 30 ms instead of 44): on the d20_lurig TRAIN set-ups (kinds d20, 290 dice) it read 229 values right
#: against 233, and no calibration of it is sure of any train reading without one sure and wrong
#: (benchmarks/RESULTS.md, "the OCR head's cost"): 12 stays
ANGLES = 12
#: crop side / the reader's die box side (the reader's classifier crop is 0.65), one batch of turns
#: each.  Session 12 read 0.3 alone.  Why two (issue 29, session 13): on real photos the box says
#: little of the numeral's size (a far die's box is far larger than the die; a near die's numeral
#: overflows 0.3 while its neighbours' are whole in the crop), and of the single shares 0.15-0.4 none
#: is best on every set-up.  Chosen on the d20_lurig TRAIN set-ups at the table's scale, kinds d20
#: (d20_color, d20_off-angle: 290 dice found): 0.3 alone reads 216 values right, 0.4 alone 219, the
#: best view of 0.3 and 0.4 233 (of 0.2 and 0.3: 204; of all five shares 0.15-0.4: 212; six turns a
#: scale: 214 or 234 by where the turns start, so twelve).  The price: twice the recogniser's passes.
SHARES: tuple[float, ...] = (0.3, 0.4)
#: the head within the issue's 10 ms a die on one core (`OcrHead.fast()`): the int8 recogniser (0.66 of
#: the float's time), one share and six turns: 6 crops instead of 24.  Chosen on the d20_lurig TRAIN
#: set-ups, kinds d20 (290 dice): of the single shares 0.35 reads most right at six turns (216 averaged
#: over where the turns start; 0.3: 210, 0.4: 210); float, 0.35 x 6 costs 12 ms a die.  Its
#: calibration fitted on the same split (`benchmarks/vision_numbered_ocr.py --fit`: wrong readings
#: weighted 12, the least weight under which no train reading is sure and wrong; none is then sure,
#: so the fast head alone asks every die, and beside the classifier adds no sureness)
FAST_CALIBRATION: tuple[float, ...] = (-2.2874, 0.3721, 0.8316, 0.1218, 3.2536)
FAST: dict[str, object] = {"angles": 6, "shares": (0.35,), "quantized": True, "calibration": FAST_CALIBRATION}
#: the recogniser's last projection refitted for a die under MIN_SIDE (`training/numbered/ocr_small_head.py`):
#: the rows of the blank, the digits and the marks, from the 120 features of each step, on real ~60 px
#: d20s with motion blur (the d20_lurig TRAIN set-ups only); with the calibration fitted with it.  None
#: (or a file for another recogniser, or no `onnx` package to expose the features): as the wheel's
SMALL_HEAD: Path | None = Path(__file__).with_name("ocr_small_head.json")
#: the recogniser's last transformer block, final layer norm and kept projection rows fine-tuned for a
#: die under MIN_SIDE (`training/numbered/ocr_small_body.py`: the tuned initializers by name, patched
#: into the wheel's graph at load, `SmallBody`).  None: none ships.  Tried in session 21 (real TRAIN
#: set-ups + rendered d20s of all 20 faces): cross-validated across the train set-ups it read more
#: right than the refitted rows, but held out fewer (d20_top 146 -> 124 of 195, d20_wood 148 -> 136 of
#: 314, 12 wood readings wrong at >= 0.8): it learnt the faces the train set-ups show (benchmarks/RESULTS.md,
#: "a fuller refit of the OCR recogniser")
SMALL_BODY: Path | None = None
#: the wheel's initializers SMALL_BODY replaces (besides the kept columns of PROJECTION)
SMALL_BODY_TENSORS: tuple[str, ...] = (
    *(f"helper.reshape.{i}" for i in range(4, 10)),
    *(f"linear_{i}.{k}_0" for i in range(4, 8) for k in "wb"),
)
#: the recogniser's tensor the last projection reads (steps x 120 features) and its weights' names
FEATURES, PROJECTION = "p2o.pd_op.transpose.8.0", ("linear_8.w_0", "linear_8.b_0")
#: the activations' ranges of the int8 recogniser (`training/numbered/ocr_int8.py`, TRAIN crops only)
INT8_RANGES = Path(__file__).with_name("ocr_rec_int8_ranges.json")
MARKS = "._,"  # the mark that tells a 6 from a 9 (dot or bar), read after the numeral
#: the legal values of each numbered kind, as their numerals are written on the die
VALUES: dict[str, tuple[int, ...]] = {
    "d6": tuple(range(1, 7)),
    "d10": tuple(range(10)),
    "d10p": tuple(range(0, 100, 10)),
    "d20": tuple(range(1, 21)),
}
#: logistic calibration of the confidence: weights of (1, top evidence, log top evidence,
#: runner-up / top evidence, share of views agreeing); fitted by benchmarks/vision_numbered_ocr.py --fit
#: on the TRAIN split (d20_lurig's d20_color and d20_off-angle set-ups at the table's scale, SHARES),
#: wrong readings weighted 12: the least weight under which no train reading is wrong at >= 0.8 (session
#: 12, one share 0.3: (-2.049, -1.533, 2.487, -0.899, 5.582), weighted 24)
CALIBRATION: tuple[float, ...] = (-2.2994, 0.612, 0.6316, -1.2556, 4.2727)


def numeral(kind: str, value: int) -> str:
    """How `value` is written on a die of `kind` (a percentile d10's 0 is "00")."""
    return f"{value:02d}" if kind == "d10p" else str(value)


def rapidocr_models() -> Path:
    """The `models` folder of the installed rapidocr wheel (found without importing rapidocr)."""
    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "ocr head: the rapidocr package is not installed (expected rapidocr 3.x, which ships "
            f"{REC_FILE}): pip install 'rapidocr>=3,<4'"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def onnx_metadata(path: Path) -> dict[str, str]:
    """An ONNX file's metadata_props (ModelProto field 14), read from its protobuf without onnx."""
    data = path.read_bytes()
    out: dict[str, str] = {}

    def varint(i: int) -> tuple[int, int]:
        shift = n = 0
        while True:
            b = data[i]
            n |= (b & 0x7F) << shift
            i += 1
            if b < 0x80:
                return n, i
            shift += 7

    def fields(lo: int, hi: int) -> list[tuple[int, int, int]]:
        """(field number, start, end) of the length-delimited fields in data[lo:hi]."""
        got, i = [], lo
        while i < hi:
            key, i = varint(i)
            wire = key & 7
            if wire == 0:
                _, i = varint(i)
            elif wire == 1:
                i += 8
            elif wire == 5:
                i += 4
            elif wire == 2:
                n, i = varint(i)
                got.append((key >> 3, i, i + n))
                i += n
            else:
                raise ValueError(f"{path}: not an ONNX model (protobuf wire type {wire})")
        return got

    for num, lo, hi in fields(0, len(data)):
        if num == 14:
            kv = {k: data[a:b].decode("utf-8") for k, a, b in fields(lo, hi)}
            out[kv.get(1, "")] = kv.get(2, "")
    return out


class SmallHeadUnavailable(RuntimeError):
    """The refitted projection for small dice cannot be used here (its file is missing, bad or for
    another recogniser, or the `onnx` package or onnxruntime is missing): the wheel's is read."""


class _TwoOutputs:
    """The recogniser with the features its last projection reads as a second output (the graph's
    FEATURES tensor exposed with the `onnx` package, run by onnxruntime on one thread).  Thread-safe."""

    def __init__(self, rec: Path, patch: dict[str, np.ndarray] | None = None) -> None:
        """`patch`: initializers replaced by name (`SmallBody`), each of the wheel's shape."""
        if os.environ.get("DICETABLE_ONNX_BACKEND", "").lower() == "cv2":
            raise SmallHeadUnavailable("DICETABLE_ONNX_BACKEND=cv2: the features need onnxruntime")
        try:
            import onnx
            import onnxruntime as ort
        except ImportError as e:
            raise SmallHeadUnavailable(
                f"exposing {rec.name}'s features needs onnx and onnxruntime ({e})"
            ) from None
        model = onnx.load(str(rec))
        if not any(FEATURES in n.output for n in model.graph.node):
            raise SmallHeadUnavailable(f"{rec}: has no tensor {FEATURES!r} (expected PP-OCRv6's recogniser)")
        if patch:
            from onnx import numpy_helper

            inits = {i.name: i for i in model.graph.initializer}
            for name, value in patch.items():
                old = inits[name]
                if tuple(old.dims) != value.shape:
                    raise SmallHeadUnavailable(
                        f"{rec}: {name} is {tuple(old.dims)}, the patch's {value.shape} (expected the same)"
                    )
                old.CopyFrom(numpy_helper.from_array(np.asarray(value, np.float32), name))
        model.graph.output.append(onnx.helper.make_tensor_value_info(FEATURES, onnx.TensorProto.FLOAT, None))
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        so.log_severity_level = 3
        self._ort = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        self._input = self._ort.get_inputs()[0].name
        self._lock = threading.Lock()

    def both(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """N x T x C per-step probabilities and N x T x 120 features of N x 3 x SIDE x SIDE inputs."""
        with self._lock:
            p, f = self._ort.run(None, {self._input: np.ascontiguousarray(x, np.float32)})
        return np.asarray(p), np.asarray(f)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.both(x)[0]


@dataclass(frozen=True)
class SmallHead:
    """The recogniser's last projection refitted for small dice (SMALL_HEAD): each kept class's logit
    (blank, the digits, the marks: the head's 14 columns) moved by ``features @ delta + bias``, the
    other 18,696 classes' left as they are, and the confidence's calibration fitted with it."""

    delta: np.ndarray  # 120 x 14
    bias: np.ndarray  # 14
    calibration: tuple[float, ...]
    net: _TwoOutputs

    @classmethod
    def load(cls, path: Path, rec: Path) -> SmallHead:
        """The refit in `path` (JSON: source_sha256, delta, bias, calibration) for the recogniser `rec`;
        SmallHeadUnavailable when it is missing, bad, or was fitted on another file."""
        try:
            spec = json.loads(path.read_text(encoding="utf-8"))
            want = str(spec["source_sha256"])
            delta = np.asarray(spec["delta"], np.float32)
            bias = np.asarray(spec["bias"], np.float32)
            calibration = tuple(float(w) for w in spec["calibration"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SmallHeadUnavailable(
                f"{path}: expected the small head's JSON (source_sha256, delta, bias, calibration): {e}"
            ) from None
        n = 1 + 10 + len(MARKS)
        if delta.shape != (120, n) or bias.shape != (n,) or len(calibration) != 5:
            raise SmallHeadUnavailable(
                f"{path}: expected delta 120 x {n}, bias {n} and 5 calibration weights, got "
                f"{delta.shape}, {bias.shape} and {len(calibration)}"
            )
        got = file_sha256(rec)
        if got != want:
            raise SmallHeadUnavailable(
                f"{rec}: its SHA-256 {got[:12]} is not the file {path.name} was fitted on"
            )
        return cls(delta, bias, calibration, _TwoOutputs(rec))

    def adjust(self, steps: np.ndarray, feats: np.ndarray) -> np.ndarray:
        """Per-step probabilities (N x T x 15: the kept classes, then everything else) as the refitted
        projection gives them from the same step's features (N x T x 120)."""
        move = np.exp(np.clip(feats @ self.delta + self.bias, -30.0, 30.0))
        kept = steps[..., :-1] * move
        out = np.concatenate([kept, steps[..., -1:]], -1)
        return np.asarray(out / np.maximum(out.sum(-1, keepdims=True), 1e-30), np.float32)


@dataclass(frozen=True)
class SmallBody:
    """The recogniser's last transformer block, final layer norm and kept projection rows fine-tuned for
    small dice (SMALL_BODY, `training/numbered/ocr_small_body.py`): the wheel's graph with those
    initializers replaced, read for a die under MIN_SIDE, with the confidence's calibration fitted
    with it."""

    calibration: tuple[float, ...]
    net: _TwoOutputs

    @classmethod
    def load(cls, path: Path, rec: Path, cols: np.ndarray) -> SmallBody:
        """The refit in `path` (.npz: source_sha256, calibration, columns, kept_w, kept_b and each of
        SMALL_BODY_TENSORS) for the recogniser `rec` whose kept classes are `cols`; SmallHeadUnavailable
        when it is missing, bad, or was fitted on another file."""
        want = ["source_sha256", "calibration", "columns", "kept_w", "kept_b", *SMALL_BODY_TENSORS]
        try:
            with np.load(path, allow_pickle=False) as z:
                spec = {k: np.asarray(z[k]) for k in want}
        except (OSError, ValueError, KeyError, EOFError) as e:
            raise SmallHeadUnavailable(
                f"{path}: expected the small body's .npz ({', '.join(want[:5])} and the tuned tensors): {e}"
            ) from None
        n = len(cols)
        calibration = tuple(float(w) for w in spec["calibration"].ravel())
        if (
            spec["kept_w"].shape != (120, n)
            or spec["kept_b"].shape != (n,)
            or len(calibration) != 5
            or not np.array_equal(spec["columns"], cols)
        ):
            raise SmallHeadUnavailable(
                f"{path}: expected kept_w 120 x {n}, kept_b {n}, 5 calibration weights and the columns "
                f"{cols.tolist()}, got {spec['kept_w'].shape}, {spec['kept_b'].shape}, {len(calibration)} "
                f"and {spec['columns'].tolist()}"
            )
        got = file_sha256(rec)
        if got != str(spec["source_sha256"]):
            raise SmallHeadUnavailable(
                f"{rec}: its SHA-256 {got[:12]} is not the file {path.name} was tuned on"
            )
        try:
            import onnx
            from onnx import numpy_helper
        except ImportError as e:
            raise SmallHeadUnavailable(f"patching {rec.name} needs onnx ({e})") from None
        inits = {i.name: i for i in onnx.load(str(rec)).graph.initializer}
        w, b = (numpy_helper.to_array(inits[k]).copy() for k in PROJECTION)
        w[:, cols] = spec["kept_w"]
        b[cols] = spec["kept_b"]
        patch = {k: spec[k] for k in SMALL_BODY_TENSORS}
        patch.update({PROJECTION[0]: w, PROJECTION[1]: b})
        return cls(calibration, _TwoOutputs(rec, patch))


@dataclass(frozen=True)
class OcrValue:
    """The head's reading of one die: its value, the calibrated confidence, and each legal value's
    evidence (`VALUES[kind]` order)."""

    kind: str
    value: int
    confidence: float
    evidence: tuple[float, ...]
    features: tuple[float, ...]
    #: the recogniser's features of each of the die's `OcrHead.views` (views x 120, averaged over the
    #: steps: `vision.numbered.die_head.pooled`) where the small head read it; None otherwise
    views: np.ndarray | None = field(default=None, compare=False, repr=False)


class OcrHead:
    """PP-OCRv6's recogniser over a die's top face at `angles` turns (see the module's docstring).

    `rec`: the recogniser's ONNX file (default: the rapidocr wheel's); `calibration`: the logistic
    weights of the confidence (CALIBRATION); `quantized`: read an int8 copy of the recogniser, built
    from it on this machine at first use (`vision.runtime.int8_model`, ranges INT8_RANGES, measured on
    the wheel's file), or the float file where it cannot be built (`self.quantized` says which is
    read).  `small_head`: the refitted projection and calibration a die under MIN_SIDE is read with
    (True: SMALL_HEAD as it is when the head is made; None or False, the int8 recogniser, or a file
    that does not fit: the wheel's projection and
    `calibration` for every die; `self.small` says whether it is used).  `small_body`: the fine-tuned
    last block a die under MIN_SIDE is read with instead (True: SMALL_BODY; `self.body`), which
    supersedes `small_head`; a file that cannot be used is named in a warning and `small_head` is read.
    `OcrHead.fast()`: the head within the issue's 10 ms a die (FAST)."""

    def __init__(
        self,
        rec: Path | None = None,
        angles: int = ANGLES,
        shares: Sequence[float] = SHARES,
        calibration: tuple[float, ...] = CALIBRATION,
        quantized: bool = False,
        small_head: Path | bool | None = True,
        small_body: Path | bool | None = True,
    ) -> None:
        if not 1 <= angles <= 72:
            raise ValueError(f"ocr angles: expected 1 to 72 turns a die, got {angles!r}")
        shares = tuple(shares)
        if not shares or not all(0.05 <= s <= 1.5 for s in shares):
            raise ValueError(f"ocr shares: expected 0.05 to 1.5 of the die's box each, got {shares!r}")
        if len(calibration) != 5:
            raise ValueError(f"ocr calibration: expected 5 weights, got {len(calibration)}")
        path = rec or rapidocr_models() / REC_FILE
        if not path.is_file():
            raise FileNotFoundError(f"ocr head: {path} is missing (expected PP-OCR's recogniser ONNX file)")
        chars = onnx_metadata(path).get("character", "").splitlines()
        want = [str(d) for d in range(10)] + list(MARKS)
        missing = [c for c in want if c not in chars]
        if missing:
            raise ValueError(f"{path}: its character list lacks {missing} (expected a PP-OCR recogniser)")
        # the net's classes: 0 the CTC blank, then the character list in order
        self._cols = np.array([0] + [1 + chars.index(c) for c in want], np.int64)
        net = path
        self.quantized = False
        if quantized:
            try:
                net = int8_model(path, INT8_RANGES)
                self.quantized = True
            except Int8Unavailable as e:
                log.warning("ocr head: reading the float recogniser: %s", e)
        self.small: SmallHead | None = None
        self.body: SmallBody | None = None
        small_file = SMALL_HEAD if small_head is True else small_head or None
        body_file = SMALL_BODY if small_body is True else small_body or None
        if body_file is not None and not quantized:
            try:
                self.body = SmallBody.load(body_file, path, self._cols)
                small_file = None  # the body's refit supersedes the last rows' alone
            except SmallHeadUnavailable as e:
                log.warning("ocr head: a small die is read without the refitted body: %s", e)
        if small_file is not None and not self.quantized and not quantized:
            try:
                self.small = SmallHead.load(small_file, path)
            except SmallHeadUnavailable as e:
                log.warning("ocr head: a small die is read as a large one: %s", e)
        self._net = Model(net) if self.small is None else self.small.net
        self.file = path.name
        self.angles = angles
        self.shares = shares
        self.calibration = tuple(float(w) for w in calibration)
        self._labels = {kind: _labels(kind) for kind in VALUES}
        #: a die of a kind whose top face is cut from a camera at an angle (issue 44): (frame, its top
        #: face's centre, its side, its kind) -> (that face warped as if seen from above, its centre
        #: there), or None where not (`vision.numbered.die_crop.TopFaces`); None: read where it is
        self.rectify: Any = None

    @classmethod
    def fast(cls, rec: Path | None = None) -> OcrHead:
        """The head within 10 ms a die on one core (FAST: int8, one share, six turns), at a cost in
        values read right (benchmarks/RESULTS.md, "the OCR head's cost")."""
        return cls(rec, **FAST)  # type: ignore[arg-type]

    @property
    def views(self) -> int:
        """Crops read a die: `angles` turns at each of `shares`."""
        return self.angles * len(self.shares)

    def crops(self, image: np.ndarray, center: tuple[float, float], side: float) -> np.ndarray:
        """The `views` SIDE x SIDE crops round `center`: the square of `side` * share at `angles` turns,
        for each of `shares` in turn."""
        out = np.empty((self.views, SIDE, SIDE, 3), np.uint8)
        for k in range(self.views):
            f = SIDE / max(1.0, side * self.shares[k // self.angles])
            a = 2 * math.pi * (k % self.angles) / self.angles
            c, s = math.cos(a) * f, math.sin(a) * f
            m = np.array([[c, s, 0.0], [-s, c, 0.0]])
            m[:, 2] = SIDE / 2 - m[:, :2] @ np.asarray(center, np.float64)
            out[k] = cv2.warpAffine(
                image, m, (SIDE, SIDE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
        return out

    def steps(self, crops: np.ndarray, small: np.ndarray | None = None) -> np.ndarray:
        """N x T x 15 per-step probabilities (blank, 0-9, the marks, anything else) of N crops; the
        crops where `small` (N bools) is set are read with the refitted projection (`self.small`)."""
        return self.steps_features(crops, small)[0]

    def steps_features(
        self, crops: np.ndarray, small: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """`steps`, and the N x T x 120 features the recogniser's last projection read where the
        small head's net gave them (None otherwise)."""
        x = np.empty((len(crops), 3, SIDE, SIDE), np.float32)
        np.multiply(crops.transpose(0, 3, 1, 2), np.float32(2 / 255), out=x, casting="unsafe")
        x -= 1.0
        if self.body is not None and small is not None and small.any():
            # a small die's crops through the refitted body only, the others through the wheel's
            mine = self.body.net(x[small])
            p = np.empty((len(x), *mine.shape[1:]), np.float32)
            p[small] = mine
            if not small.all():
                p[~small] = self._net(x[~small])
            feats = None
        elif self.small is None:
            p, feats = self._net(x), None
        else:
            p, feats = self.small.net.both(x)
        kept = p[:, :, self._cols]
        rest = np.clip(1.0 - kept.sum(2, keepdims=True), 0.0, 1.0)
        out = np.concatenate([kept, rest], 2)
        if self.small is not None and feats is not None and small is not None and small.any():
            out[small] = self.small.adjust(out[small], feats[small])
        return out, feats

    def read(self, image: np.ndarray, dice: list[tuple[tuple[float, float], float, str]]) -> list[OcrValue]:
        """Each die of `dice` (top face centre, the die's box side in pixels, its kind) read from a BGR
        uint8 frame, all dice in one batch."""
        for _, _, kind in dice:
            if kind not in VALUES:
                raise ValueError(
                    f"ocr head: kind {kind!r} has no numerals (expected one of {sorted(VALUES)})"
                )
        if not dice:
            return []
        crops = np.concatenate([self.small_crops(*self._seen(image, c, s, kind), s) for c, s, kind in dice])
        small = np.repeat([s < MIN_SIDE for _, s, _ in dice], self.views)
        got, feats = self.steps_features(crops, small)
        steps = got.reshape(len(dice), self.views, -1, len(self._cols) + 1)
        out = [self.value(kind, st, small=s < MIN_SIDE) for (_, s, kind), st in zip(dice, steps, strict=True)]
        if feats is None:
            return out
        # each small die's views as the recogniser saw them (a roster die's own reader, `die_head`)
        views = np.asarray(feats, np.float32).reshape(len(dice), self.views, feats.shape[1], -1).mean(2)
        return [
            replace(o, views=v) if s < MIN_SIDE else o
            for o, v, (_, s, _) in zip(out, views, dice, strict=True)
        ]

    def _seen(
        self, image: np.ndarray, center: tuple[float, float], side: float, kind: str
    ) -> tuple[np.ndarray, tuple[float, float]]:
        """Where `read` cuts a die: its top face warped as if seen from above (`rectify`), or the frame."""
        got = self.rectify(image, center, side, kind) if self.rectify is not None else None
        return got if got is not None else (image, center)

    def small_crops(self, image: np.ndarray, center: tuple[float, float], side: float) -> np.ndarray:
        """`crops`, but a die whose box is under MIN_SIDE is first magnified MAGNIFY times (cubic) round
        its centre: a small die's numeral is a few pixels, and the head reads it so more often right
        (benchmarks/ocr_small.py)."""
        if side >= MIN_SIDE or MAGNIFY == 1.0:
            return self.crops(image, center, side)
        r = math.ceil(side * max(self.shares) * 0.75) + 4
        cx, cy = round(center[0]), round(center[1])
        pad = cv2.copyMakeBorder(image, r, r, r, r, cv2.BORDER_REPLICATE)
        roi = pad[cy : cy + 2 * r + 1, cx : cx + 2 * r + 1]
        big = cv2.resize(roi, None, fx=MAGNIFY, fy=MAGNIFY, interpolation=cv2.INTER_CUBIC)
        at = ((center[0] - cx + r) * MAGNIFY, (center[1] - cy + r) * MAGNIFY)
        return self.crops(big, at, side * MAGNIFY)

    def value(self, kind: str, steps: np.ndarray, small: bool = False) -> OcrValue:
        """A die's reading from its views' per-step probabilities (views x T x 15); `small`: read with
        the refitted projection, its confidence by its own calibration."""
        s = ctc_scores(steps, *self._labels[kind])  # views x values
        evidence = s.max(0)
        order = np.argsort(-evidence)
        top, second = float(evidence[order[0]]), float(evidence[order[1]])
        agree = float(np.mean(s.argmax(1) == order[0]))
        feats = (top, math.log(top + 1e-6), second / (top + 1e-9), agree)
        return OcrValue(
            kind,
            VALUES[kind][int(order[0])],
            confidence(feats, self._small_calibration() if small else self.calibration),
            tuple(float(e) for e in evidence),
            feats,
        )

    def _small_calibration(self) -> tuple[float, ...]:
        """A die under MIN_SIDE's calibration: the refitted body's, the refitted rows', or the wheel's."""
        if self.body is not None:
            return self.body.calibration
        return self.small.calibration if self.small is not None else self.calibration

    def read_kinds(
        self, image: np.ndarray, dice: list[tuple[tuple[float, float], float]], kinds: Sequence[str]
    ) -> list[dict[str, OcrValue]]:
        """Each die of `dice` (top face centre, the die's box side in pixels) read once from a BGR uint8
        frame and scored against the numerals of each of `kinds` (the same recogniser steps: one
        batch, a CTC scoring a kind): each die's reading as each kind (`joint`)."""
        bad = [k for k in kinds if k not in VALUES]
        if bad:
            raise ValueError(f"ocr head: kinds {bad!r} have no numerals (expected some of {sorted(VALUES)})")
        if not dice:
            return []
        crops = np.concatenate([self.crops(image, c, s) for c, s in dice])
        steps = self.steps(crops).reshape(len(dice), self.views, -1, len(self._cols) + 1)
        return [{k: self.value(k, st) for k in kinds} for st in steps]


def confidence(features: tuple[float, ...], weights: tuple[float, ...]) -> float:
    """The logistic calibration: P(right) of a reading with these features."""
    z = weights[0] + sum(w * f for w, f in zip(weights[1:], features, strict=True))
    return float(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))))


def fit_calibration(
    samples: list[tuple[tuple[float, ...], bool]], wrong_weight: float, l2: float = 1e-2
) -> np.ndarray:
    """The confidence's logistic weights (bias first) fitted to readings' (features, right) by Newton's
    method, wrong readings weighted `wrong_weight` (benchmarks/vision_numbered_ocr.py --fit fits
    CALIBRATION, training/numbered/ocr_small_head.py the small head's)."""
    x = np.array([(1.0, *f) for f, _ in samples])
    y = np.array([float(ok) for _, ok in samples])
    sw = np.where(y > 0, 1.0, wrong_weight)
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -50, 50)))
        g = x.T @ (sw * (p - y)) + l2 * w
        hess = (x * (sw * p * (1 - p))[:, None]).T @ x + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, g)
    return w


def _labels(kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The CTC label rows of `kind`'s numerals (blank-interleaved, padded), each row's length, and
    which value each row spells (a 6 or 9 has a row with each mark too).  Columns of the per-step
    probabilities: 0 blank, 1-10 the digits, 11.. the marks."""
    rows: list[list[int]] = []
    owner: list[int] = []
    for j, v in enumerate(VALUES[kind]):
        digits = [1 + int(ch) for ch in numeral(kind, v)]
        spellings = [digits]
        if v in (6, 9):
            spellings += [[*digits, 11 + m] for m in range(len(MARKS))]
        for sp in spellings:
            lab = [0]
            for c in sp:
                lab += [c, 0]
            rows.append(lab)
            owner.append(j)
    width = max(len(r) for r in rows)
    labels = np.array([r + [0] * (width - len(r)) for r in rows], np.int64)
    return labels, np.array([len(r) for r in rows], np.int64), np.array(owner, np.int64)


def ctc_scores(steps: np.ndarray, labels: np.ndarray, lengths: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """angles x values: the CTC probability that each turn's per-step probabilities (angles x T x K)
    read each value (the sum over its spellings), by the forward algorithm over every turn and
    spelling at once."""
    a_n, t_n, _ = steps.shape
    r_n, width = labels.shape
    emit = steps[:, :, labels]  # angles x T x rows x width
    idx = np.arange(width)
    valid = idx[None, :] < lengths[:, None]
    prev2 = np.zeros((r_n, width), bool)
    prev2[:, 2:] = (labels[:, 2:] != 0) & (labels[:, 2:] != labels[:, :-2])
    alpha = np.zeros((a_n, r_n, width))
    alpha[:, :, 0] = emit[:, 0, :, 0]
    alpha[:, :, 1] = emit[:, 0, :, 1]
    for t in range(1, t_n):
        b = alpha.copy()
        b[:, :, 1:] += alpha[:, :, :-1]
        b[:, :, 2:] += np.where(prev2[:, 2:], alpha[:, :, :-2], 0.0)
        alpha = b * emit[:, t] * valid
    end = np.take_along_axis(alpha, (lengths - 1)[None, :, None].repeat(a_n, 0), 2)[:, :, 0]
    end += np.take_along_axis(alpha, (lengths - 2)[None, :, None].repeat(a_n, 0), 2)[:, :, 0]
    onehot = owner[:, None] == np.arange(int(owner.max()) + 1)[None, :]  # spellings x values
    return np.asarray(end @ onehot, np.float64)


#: the head reads a die whose box is at least this many pixels in the frame it reads; a smaller one
#: keeps the classifier's reading.  The smallest box of the real d20s it was chosen and calibrated on
#: (d20_lurig TRAIN set-ups at the table's scale, a 3456x2592 still) is 106 px: below it the head is
#: unmeasured on real dice, and on the renders' 1280x960 video frames (boxes 35-60 px, the numeral 8-12
#: px once cut) it reads many values the classifier reads right (the held-out scenes' d20 values 100 ->
#: 94.4 %: tests/vision_numbered/test_numbered_scenes.py)
MIN_SIDE = 100.0
#: ... but a die a learnt set (a roster's entry) knows is weighed with the head's evidence from this box
#: side (`reader.NumberedReader.weighs_learnt`): the head does not override the set there, its evidence
#: only helps choose among the faces the set was taught (`reader.learnt_face`), and how sure the face
#: is comes from the small-die rule (`trust`, "alone").  Measured on the d20_lurig set-ups shrunk to a
#: ~60 px die with a 5 px motion blur (benchmarks/ocr_small.py; issue 44 item 4): see RESULTS.md
LEARNT_MIN_SIDE = 40.0
#: the weight of the head's evidence beside a learnt set's likeness for a die under MIN_SIDE (None: the
#: reader's, `reader.LEARNT_OCR`, 0.08, chosen on large dice where the head reads better).  Chosen on the
#: d20_lurig TRAIN set-ups as a two-dice roster at ~60 px with blur (benchmarks/learnt_floor.py --floor 40
#: --small-weight W --train ... --die-px 60 --blur --step 1; d20_color + d20_off-angle, 199 later rolls):
#: values right 0.08: 149, 0.04: 153, 0.02: 155, 0.01: 154, 0 (the set's nearest face): 145; read
#: unasked 47 / 48 / 51 / 52 / 52, none silent.  Tried after a held-out run at 0.08 had d20_wood lose
#: (benchmarks/RESULTS.md): disclosed there
LEARNT_SMALL_WEIGHT: float | None = 0.02
#: a die under MIN_SIDE is magnified this many times (cubic) before its crops are cut (`small_crops`):
#: on the d20_lurig TRAIN set-ups at ~60 px with blur (benchmarks/ocr_small.py) the head's value among
#: the faces each set-up shows was right 254 of 403 as the crops are warped, 275 magnified x2 cubic
MAGNIFY = 2.0
#: the kinds the head re-reads by default: a d6 is a pip die unless the table says its d6 are numerals
OCR_KINDS = ("d10", "d10p", "d20")


class Classifier(Protocol):
    """What `reread` needs of the numbered reader: its classifier and the side of its input."""

    crop_side: int

    def classify(self, crops: list[np.ndarray]) -> np.ndarray: ...


def _cut(image: np.ndarray, center: tuple[float, float], side: float, out: int) -> np.ndarray:
    """The classifier's crop round `center` (as the reader cuts it), from the few pixels round it."""
    r = int(side * 0.75) + 4
    x0, y0 = max(0, int(center[0]) - r), max(0, int(center[1]) - r)
    roi = image[y0 : max(0, int(center[1]) + r + 1), x0 : max(0, int(center[0]) + r + 1)]
    if roi.size == 0:
        roi, x0, y0 = image, 0, 0
    return crop_die([roi], (center[0] - x0, center[1] - y0), side, out=out)


def _head_dice(readings: Sequence[DieReading], ocr_kinds: Iterable[str]) -> tuple[list[int], list[float]]:
    """The readings the head reads again (a kind it reads, not a learnt set's face, a box at least
    MIN_SIDE pixels) and each one's side in pixels (the larger extent of its quad)."""
    kinds = set(ocr_kinds)
    idx, sides = [], []
    for i, r in enumerate(readings):
        if r.kind not in kinds or r.kind not in VALUES or getattr(r, "dice_set", None) is not None:
            continue
        q = np.asarray(r.quad, np.float64)
        side = float(max(np.ptp(q[:, 0]), np.ptp(q[:, 1])))
        if side >= MIN_SIDE:
            idx.append(i)
            sides.append(side)
    return idx, sides


def kind_probs(
    reader: Classifier, image: np.ndarray, readings: Sequence[DieReading], idx: list[int], sides: list[float]
) -> np.ndarray:
    """The classifier's softmax (one row per reading of `idx`, `sides` their box sides in pixels) read
    again at each reading's box, cut from `image` as the reader cuts it."""
    crops = [
        _cut(image, readings[i].center, side * MARGIN, reader.crop_side)
        for i, side in zip(idx, sides, strict=True)
    ]
    return np.asarray(reader.classify(crops))


def _kind_shares(
    reader: Classifier,
    image: np.ndarray,
    readings: Sequence[DieReading],
    idx: list[int],
    sides: list[float],
    kinds: tuple[str, ...],
) -> list[float]:
    """For each reading of `idx`, the classifier's share of its kind among the table's `kinds` (1 at a
    table of one kind): how sure the die is of its kind, whatever its numeral."""
    live = [k for k in kinds if k in KIND_SLICES]
    if len(live) <= 1:
        return [1.0] * len(idx)
    shares = []
    for i, p in zip(idx, kind_probs(reader, image, readings, idx, sides), strict=True):
        total = sum(float(p[KIND_SLICES[k]].sum()) for k in live)
        shares.append(float(p[KIND_SLICES[readings[i].kind]].sum()) / max(total, 1e-9))
    return shares


def reread(
    reader: Classifier,
    head: OcrHead,
    image: np.ndarray,
    readings: list[DieReading],
    kinds: tuple[str, ...] = KINDS,
    ocr_kinds: tuple[str, ...] = OCR_KINDS,
    joint_kind: bool = True,
) -> tuple[list[DieReading], list[OcrValue | None]]:
    """The numbered reader's `readings` of a BGR uint8 frame (as `reader.read(image, kinds=kinds)`
    gives them) with each die of `ocr_kinds` re-read by the head: its value is the head's.  Its
    confidence is the head's, times the classifier's share of the die's kind among `kinds` when the
    table reads more than one kind (a die whose kind is in doubt is asked, whatever its numeral).
    A die a learnt set read (a LearntReading) keeps its learnt face.  Also each reading's OcrValue
    (None where the head did not read it).  `NumberedReader(ocr=True)` reads this way.  At a table of
    more than one kind (`joint_kinds`) the kind is read with the numeral (`joint`; `joint_kind` False:
    the classifier's, as before session 14)."""
    if joint_kind and joint_kinds(kinds, ocr_kinds):
        return joint(reader, head, image, readings, kinds, ocr_kinds, heads_value=True)
    idx, sides = _head_dice(readings, ocr_kinds)
    out: list[DieReading] = list(readings)
    values: list[OcrValue | None] = [None] * len(readings)
    if not idx:
        return out, values
    kind_share = _kind_shares(reader, image, readings, idx, sides, kinds)
    got = head.read(
        image, [(readings[i].center, side, readings[i].kind) for i, side in zip(idx, sides, strict=True)]
    )
    for i, v, share in zip(idx, got, kind_share, strict=True):
        out[i] = replace(readings[i], value=v.value, confidence=v.confidence * share)
        values[i] = v
    return out, values


#: a die they read differently is asked (at most this sure), the two values its candidates
DISAGREED = 0.5
#: the head's evidence for the classifier's value at least this share of its best: the head cannot
#: tell them apart, and the classifier's value is the first candidate (`second_opinion`).  A rendered
#: d10's 9 with no mark (tests/fixtures/numbered_still, Die-angler's bob) reads 0.996 as a 9 and 0.975
#: as a 6; on the d20_lurig TRAIN set-ups 0.95 costs 1 value of 290 against none (0.9: 2, 0.5: 13)
TIED = 0.95
#: the classifier at least this sure, and surer than the head: its value is the first candidate.  On
#: the d20_lurig TRAIN set-ups no disagreement has the classifier this sure (0.7: 1 value of 290 lost);
#: on the held-out renders (1280x960 frames, dice ~35-60 px) the head reads many numerals wrong that
#: the classifier reads surely right (tests/vision_numbered/test_numbered_scenes.py: d10 values 98.8 ->
#: 92.8 % with the head's value always first)
CLASSIFIER_FIRST = 0.8


@dataclass(frozen=True, kw_only=True)
class CandidateReading(DieReading):
    """A die the classifier and the OCR head read differently (`second_opinion`): asked, with both
    values to choose from (the surer first)."""

    candidates: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "candidates": list(self.candidates)}


def second_opinion(
    reader: Classifier,
    head: OcrHead,
    image: np.ndarray,
    readings: list[DieReading],
    kinds: tuple[str, ...] = KINDS,
    ocr_kinds: tuple[str, ...] = OCR_KINDS,
    joint_kind: bool = True,
) -> tuple[list[DieReading], list[OcrValue | None]]:
    """The numbered reader's `readings` with the OCR head as a second opinion on each die of
    `ocr_kinds` (issue 29: the head beside the classifier, `NumberedReader(ocr="second")`, the default
    reader's way): where the head reads the classifier's value the die is as sure as the surer of the
    two; where it reads another value the die is asked (at most DISAGREED) with both as its candidates
    (`CandidateReading`), the head's value first.  The kind stays the classifier's; a die a learnt set
    read keeps its face.

    The head's value first, not the surer's (as until session 13): chosen on the d20_lurig TRAIN
    set-ups at the table's scale, kinds d20 (d20_color, d20_off-angle: 404 photos), where the head's
    value is right for 216 dice, the surer of the two for 156 (the classifier's own value: 82); the
    classifier's sure values on real dice are often a neighbour face's.  The classifier's value is
    first where the head's evidence for it is within TIED of its own best (a 6 and a 9 with no mark,
    say), or where the classifier is at least CLASSIFIER_FIRST sure and surer than the head.

    At a table of more than one kind an agreement is as sure as the classifier alone: the kind is the
    classifier's and the head cannot check it.  The first run with every kind read a numeral d6 of
    d20_imac1844 as a d10 2 (the classifier sure of the kind, 0.97 of its probability, unsure of the
    value), the head read its "2" surely: scored unasked as a d10 (RESULTS.md, "Issue 29: the OCR head
    by default"); counting the head's confidence times the kind's share (as `reread`) left it sure.

    Agreement alone is not sure: with an agreement read at 0.9 the real held-out d20s were read
    surely wrong 5 of 195 times (d20_top) and 10 of 288 (d20_wood), both readers taking a neighbour
    face's numeral (benchmarks/RESULTS.md, issue 29 session 12).

    At a table of more than one kind (`joint_kinds`) the kind is no longer the classifier's alone: the
    kind and the value are read together (`joint`; `joint_kind` False: as before session 14)."""
    if joint_kind and joint_kinds(kinds, ocr_kinds):
        return joint(reader, head, image, readings, kinds, ocr_kinds)
    idx, sides = _head_dice(readings, ocr_kinds)
    out: list[DieReading] = list(readings)
    values: list[OcrValue | None] = [None] * len(readings)
    if not idx:
        return out, values
    got = head.read(
        image, [(readings[i].center, side, readings[i].kind) for i, side in zip(idx, sides, strict=True)]
    )
    one_kind = len([k for k in kinds if k in KIND_SLICES]) == 1
    for i, v in zip(idx, got, strict=True):
        r = readings[i]
        values[i] = v
        if v.value == r.value and not one_kind:  # the kind in doubt: as sure as the classifier
            out[i] = r
            continue
        out[i] = _opinion(r, r.kind, r.value, r.confidence, v)
    return out, values


def _opinion(
    r: DieReading,
    kind: str,
    value: int,
    sure: float,
    v: OcrValue,
    heads_value: bool = False,
    share: float = 1.0,
) -> DieReading:
    """`r` read as `kind` with the classifier's `value` (`sure` of it) and the head's reading `v` of that
    kind (`second_opinion`'s rule); its confidence times `share` (how sure the kind is: `joint`).
    `heads_value`: the head's value always first (`reread`'s way)."""
    fields = {k: getattr(r, k) for k in ("center", "quad", "colour", "cocked", "colour_near", "box", "look")}
    if v.value == value:
        return DieReading(**fields, kind=kind, value=value, confidence=max(sure, v.confidence) * share)
    if heads_value:
        return DieReading(**fields, kind=kind, value=v.value, confidence=v.confidence * share)
    # the head's value first (see second_opinion), unless it cannot tell the classifier's from it
    theirs = VALUES[v.kind].index(value) if value in VALUES[v.kind] else None
    tied = theirs is not None and v.evidence[theirs] >= TIED * max(v.evidence)
    surer = sure >= CLASSIFIER_FIRST and sure > v.confidence
    first, second = (value, v.value) if tied or surer else (v.value, value)
    confidence = min(max(sure, v.confidence), DISAGREED) * share
    return CandidateReading(
        **fields, kind=kind, value=first, confidence=confidence, candidates=(first, second)
    )


#: the classifier's kind probability is weighed in the joint choice at this power (`joint`): under 1
#: it counts for less than the numeral (on real dice it is often wrong: of the held-out d20_top d20s
#: read with every kind, 38 of 65 as another kind).  Chosen on the TRAIN split (d20_lurig's d20_color and
#: d20_off-angle set-ups read at any scale, every kind, as benchmarks/vision_numbered_scale.py reads
#: them): kinds right of the 124 d20s found: 0.25: 85, 0.5: 85, 1: 82, 2: 78, the classifier's kind
#: alone (as before): 70; values right 68, 68, 66, 63 and 58.  0.5 rather than 0.25: the classifier's
#: kind of a real d10 (no real d10 photos to check) counts for more.
KIND_POWER = 0.5
#: the least evidence a face of pips gives of being pips (`joint`): a d6's evidence is the larger of
#: this and the head's best single digit (0-9), as the recogniser reads a face of pips as a digit, often
#: surely (real pip d6 close-ups, d6_gray_tomitomi3: faces of 2, 3 and 6 pips read as digits at
#: 0.9-0.99).  So a numbered reader's d6 is read as another kind only for a numeral of two digits (a
#: d20's 13, a percentile d10's 70), and a die of another kind is a d6 only as the classifier says.  On
#: the TRAIN split (d20_lurig's d20_color and d20_off-angle, every kind at any scale) the joint reading
#: gets 85 of the 124 found d20s' kinds right (the classifier alone: 70; with PIP_EVIDENCE alone a d6's
#: evidence: 94, but then real pip d6 faces are read as d10s and d20s at a Die-angler table).
PIP_EVIDENCE = 0.05


def joint_kinds(kinds: Sequence[str], ocr_kinds: Sequence[str] = OCR_KINDS) -> tuple[str, ...]:
    """The kinds a die's numeral is weighed against at a table of `kinds` (`joint`): those the head
    reads (`ocr_kinds`), and d6 (as pips) when the table has d6; () at a table of one kind, or of no
    kind the head reads (a d6 table, `--kinds d20`: read as before)."""
    read = tuple(k for k in KINDS if k in kinds and k in ocr_kinds and k in VALUES)
    cands = read + (("d6",) if "d6" in kinds and "d6" not in read else ())
    return cands if read and len(cands) >= 2 else ()


def joint(
    reader: Classifier,
    head: OcrHead,
    image: np.ndarray,
    readings: list[DieReading],
    kinds: tuple[str, ...] = KINDS,
    ocr_kinds: tuple[str, ...] = OCR_KINDS,
    heads_value: bool = False,
) -> tuple[list[DieReading], list[OcrValue | None]]:
    """A numbered die's kind and value read together at a table of more than one kind (`joint_kinds`):
    `second_opinion`'s (`heads_value`: `reread`'s) reading with the kind chosen from the classifier and
    the numeral both (issue 29, session 14).

    A numeral says much of its die: 11-19 are only on a d20, "00" and 30-90 only on a percentile d10, 0
    only on a d10, and a face of pips shows none.  Each die of the joint kinds (a numbered reader's d6
    too, at a table with d6) is read by the head once, its steps scored against each kind's numerals
    (`OcrHead.read_kinds`); the classifier is read again at its box (`kind_probs`) for its share q of
    each of the table's kinds.  The kind is the one with the most of q ** KIND_POWER times the head's
    best evidence for a numeral of that kind (a d6's: its best single digit, at least PIP_EVIDENCE: a
    face of pips reads as a digit); its value is read as `second_opinion` reads it, the classifier's
    value its likeliest of that kind.

    The confidence is that reading's times the numeral's share of the kind: the kind's best evidence
    over the sum of every joint kind's, without the classifier, which is often surely wrong of a real
    die's kind.  A numeral several kinds have ("7": a d10's or a d20's; "10": a
    d20's or a percentile d10's) is at most half sure of its kind, and asked; a die read sure is one
    whose numeral only its kind has.  On the TRAIN split no reading was sure and wrong (0 of 126, every
    kind at any scale); the one silent error of the held-out d20_top there before (a d20's 1 read as
    the 7 of the face beside it, a d10 at 0.90 the classifier alone) is asked.  A die whose kind the
    joint reading calls a d6 keeps the reader's reading (a d6 the pip reader reads; another kind asked,
    at most DISAGREED)."""
    cands = joint_kinds(kinds, ocr_kinds)
    idx, sides = _head_dice(readings, tuple(k for k in cands if k in VALUES))
    out: list[DieReading] = list(readings)
    values: list[OcrValue | None] = [None] * len(readings)
    if not idx:
        return out, values
    numerals = tuple(k for k in cands if k in ocr_kinds)
    pips = "d6" in cands and "d6" not in numerals
    scored = numerals + (("d10",) if pips and "d10" not in numerals else ())  # a d10's: single digits
    probs = kind_probs(reader, image, readings, idx, sides)
    got = head.read_kinds(image, [(readings[i].center, s) for i, s in zip(idx, sides, strict=True)], scored)
    live = [k for k in kinds if k in KIND_SLICES]
    for i, p, by_kind in zip(idx, probs, got, strict=True):
        r = readings[i]
        total = max(sum(float(p[KIND_SLICES[k]].sum()) for k in live), 1e-9)
        evidence = {k: max(by_kind[k].evidence) for k in numerals}
        if pips:  # a face of pips reads as any single digit (PIP_EVIDENCE)
            evidence["d6"] = max(PIP_EVIDENCE, max(by_kind["d10"].evidence))
        by_kind = {k: by_kind[k] for k in numerals}
        q = {k: float(p[KIND_SLICES[k]].sum()) / total for k in evidence}
        kind = max(evidence, key=lambda k: (q[k] ** KIND_POWER * evidence[k], k == r.kind))
        if kind not in by_kind:  # pips: the reader's reading, another kind asked
            if r.kind in by_kind:
                share = evidence[r.kind] / max(sum(evidence.values()), 1e-12)
                got_r = _opinion(r, r.kind, r.value, r.confidence, by_kind[r.kind], heads_value, share)
                out[i] = _capped(got_r, DISAGREED)
                values[i] = by_kind[r.kind]
            continue
        share = evidence[kind] / max(sum(evidence.values()), 1e-12)
        if kind == r.kind:
            value, sure = r.value, r.confidence
        else:  # the classifier's likeliest value of the joint kind
            s = KIND_SLICES[kind]
            j = s.start + int(np.argmax(p[s]))
            value, sure = CLASSES[j][1], float(p[j])
        out[i] = _opinion(r, kind, value, sure, by_kind[kind], heads_value, share)
        values[i] = by_kind[kind]
    return out, values


def _capped(r: DieReading, most: float) -> DieReading:
    return r if r.confidence <= most else replace(r, confidence=most)
