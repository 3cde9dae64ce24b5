"""Make an int8 models folder (onnxruntime static quantization, QDQ, per channel), to compare.

    nice -n 10 .venv/bin/python training/quantize.py --out DIR [--models vision/models]
        [--only NAME.onnx ...] [--photos 40] [--windows 120] [--cache PKL] [--hires-cache PKL]

DIR gets every model of --models under its own name: the quantized ones (all, or --only) as int8,
the rest copied as they are, so the benchmarks read it like any models folder
(`benchmarks/vision_d6.py --models DIR`, `benchmarks/vision_numbered.py --models vision/models DIR`).
The activations' ranges are calibrated on what each net sees while the readers read TRAIN data
only: the byler_d6 train photos (`training/dataset.py`'s split) for the d6 nets, and
TRAIN-generator windows of `training/render/numbered/scenes.py` (seeds [7, i], the numbered
detector's own training windows; rendered unless --cache names their pickle) pasted into
1280x960 frames for the numbered nets.  Nothing held out is used.

Side-by-side figures, and why the committed models stay float: `benchmarks/results/quantized.md`.
"""

from __future__ import annotations

import argparse
import pickle
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.runtime import Model  # noqa: E402

D6 = ("d6_detector.onnx", "d6_classifier.onnx")
# numbered_backbone.onnx (the opt-in classifier) is calibrated and quantized in place of
# numbered_classifier.onnx with --backbone: the reader then runs it (NumberedReader(backbone=True)).
NUMBERED = (
    "numbered_detector.onnx",
    "numbered_topface.onnx",
    "numbered_classifier.onnx",
    "numbered_backbone.onnx",
)
MAX_BATCHES = 400  # calibration inputs kept per net (each a whole batch the reader ran)


class Recorder:
    """Stands in for a reader's Model: runs it and keeps the inputs it was given."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.inputs: list[np.ndarray] = []

    def __call__(self, x: np.ndarray) -> np.ndarray:
        if len(self.inputs) < MAX_BATCHES:
            self.inputs.append(np.ascontiguousarray(x, np.float32).copy())
        return self.model(x)


def record(
    reader: object, attrs: dict[str, str], frames: Iterator[np.ndarray]
) -> dict[str, list[np.ndarray]]:
    """Read every frame with `reader`, its models swapped for recorders; file name -> inputs seen."""
    recs = {}
    for attr in attrs:
        model = getattr(reader, attr)
        if model is None:
            continue
        recs[attr] = Recorder(model)
        setattr(reader, attr, recs[attr])
    for i, frame in enumerate(frames, 1):
        reader.read(frame)  # type: ignore[attr-defined]
        print(f"\r  calibration frames read: {i}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    for attr, rec in recs.items():
        setattr(reader, attr, rec.model)
    return {attrs[a]: r.inputs for a, r in recs.items()}


def byler_train(n: int) -> Iterator[np.ndarray]:
    from training.dataset import load_byler, split_of

    root = ROOT.parent / "shared" / "fixtures" / "real"
    photos = [p for p in load_byler(root) if split_of(p.path) == "train"]
    step = max(1, len(photos) // n)
    for photo in photos[::step][:n]:
        img = cv2.imread(str(photo.path))
        if img is not None:
            yield img


def _windows(n: int, cache: Path | None, render: Callable[[int], np.ndarray], what: str) -> list[np.ndarray]:
    if cache is not None and cache.is_file():
        return [w[0] for w in pickle.loads(cache.read_bytes())[:n]]
    wins = []
    for i in range(n):
        wins.append(render(i))
        print(f"\r  rendering {what}: {i + 1}/{n}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return wins


def _video_window(i: int) -> np.ndarray:
    from training.render.numbered.scenes import window

    return window(np.random.default_rng([7, i]), 384)[0]  # the numbered detector's training windows


def _still_window(i: int) -> np.ndarray:
    from training.render.numbered.scenes import die_window

    rng = np.random.default_rng([13, i])  # the classifier's high-resolution training windows
    scale = float(rng.uniform(1.5, 3.0))
    return die_window(rng, round(112 * scale), scale)[0]


def numbered_frames(n: int, cache: Path | None, hires_cache: Path | None) -> Iterator[np.ndarray]:
    """TRAIN windows pasted into frames as the reader gets them: 1280x960 frames of six 384-px
    windows (video), then 3456x2592 frames of twelve die-centred windows cut from stills."""
    video = _windows(n * 2, cache, _video_window, "video windows")
    for k in range(0, len(video), 6):
        frame = np.full((960, 1280, 3), 128, np.uint8)
        for j, w in enumerate(video[k : k + 6]):
            y, x = 480 * (j // 3), 426 * (j % 3)
            frame[y : y + 384, x : x + 384] = w
        yield frame
    still = _windows(n, hires_cache, _still_window, "still windows")
    for k in range(0, len(still), 12):
        frame = np.full((2592, 3456, 3), 128, np.uint8)
        for j, w in enumerate(still[k : k + 12]):
            y, x = 864 * (j // 4) + 100, 864 * (j % 4) + 100
            frame[y : y + w.shape[0], x : x + w.shape[1]] = w
        yield frame


def quantize(src: Path, dst: Path, inputs: list[np.ndarray]) -> None:
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if not inputs:
        raise SystemExit(f"{src.name}: no calibration inputs were recorded (did the reader run it?)")
    model = Model(src)
    name = model._ort.get_inputs()[0].name

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.it = iter([{name: x} for x in inputs])

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.it, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        quantize_static(
            str(pre),
            str(dst),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
    print(f"  wrote {dst} ({dst.stat().st_size / 1e6:.2f} MB) from {len(inputs)} calibration batches")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=Path, default=ROOT / "vision" / "models")
    ap.add_argument("--out", type=Path, required=True, help="the models folder to write (not --models)")
    ap.add_argument("--photos", type=int, default=40, help="byler train photos read for the d6 nets")
    ap.add_argument("--windows", type=int, default=120, help="TRAIN windows (x2) for the numbered nets")
    ap.add_argument("--cache", type=Path, help="pickle of the numbered detector's training windows")
    ap.add_argument("--hires-cache", type=Path, help="pickle of the numbered classifier's still windows")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="quantize only these model files")
    ap.add_argument(
        "--backbone",
        action="store_true",
        help="the numbered reader runs numbered_backbone.onnx "
        "(calibrated in place of numbered_classifier.onnx)",
    )
    args = ap.parse_args()
    cv2.setNumThreads(1)
    out = args.out
    if out.resolve() == args.models.resolve():
        raise SystemExit(f"--out {out}: must not be the models folder it reads (its float files stay)")
    out.mkdir(parents=True, exist_ok=True)
    jobs: list[tuple[tuple[str, ...], Callable[[], dict[str, list[np.ndarray]]]]] = []
    if all((args.models / f).is_file() for f in D6):
        from vision.reader import DiceReader

        def d6() -> dict[str, list[np.ndarray]]:
            reader = DiceReader(args.models / D6[0], args.models / D6[1])
            print("d6 nets: reading byler_d6 train photos", file=sys.stderr)
            return record(reader, {"_det": D6[0], "_cls": D6[1]}, byler_train(args.photos))

        jobs.append((D6, d6))
    if all((args.models / f).is_file() for f in NUMBERED[::2]):
        from vision.numbered.reader import NumberedReader

        def numbered() -> dict[str, list[np.ndarray]]:
            reader = NumberedReader(models=args.models, backbone=args.backbone)
            print("numbered nets: reading TRAIN-generator windows", file=sys.stderr)
            attrs = {"_det": NUMBERED[0], "_top": NUMBERED[1], "_cls": reader.classifier_file}
            return record(reader, attrs, numbered_frames(args.windows, args.cache, args.hires_cache))

        jobs.append((NUMBERED, numbered))
    if not jobs:
        raise SystemExit(f"--models {args.models}: no d6_*.onnx or numbered_*.onnx models found there")
    written: set[str] = set()
    for names, run in jobs:
        written.update(names)
        wanted = [f for f in names if not args.only or f in args.only]
        seen = run() if wanted else {}
        for fname in names:
            if fname in wanted and fname in seen:
                quantize(args.models / fname, out / fname, seen[fname])
            elif (args.models / fname).is_file():
                shutil.copyfile(args.models / fname, out / fname)
    # the rest of the folder as it is (the not-a-die net and its settings, the oblique classifier, the
    # numbered embedder and nadir top-face net...): the int8 folder reads like the float one
    for src in sorted(args.models.iterdir()):
        if src.suffix in (".onnx", ".json") and src.name not in written:
            shutil.copyfile(src, out / src.name)


if __name__ == "__main__":
    main()
