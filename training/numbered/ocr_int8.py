"""Measure the activations' ranges the OCR head's int8 recogniser is built with (issue 29), on TRAIN
crops only.

    nice -n 10 .venv/bin/python -m training.numbered.ocr_int8 [--crops 512] [--out PATH]

Reads the d20_lurig TRAIN set-ups (d20_color, d20_off-angle; never d20_top, d20_wood or d20_imac1844)
at the table's scale with the numbered reader told the dice are d20s, cuts each die's head crops as
session 13's head cut them (12 turns x SHARES), and runs onnxruntime's percentile calibration (each
activation's range: its 0.01 to 99.99 percentiles) of the rapidocr wheel's `PP-OCRv6_rec_small.onnx`
(converted to opset INT8_OPSET, as the build does) on `--crops` of them drawn at random (seed 0).
Chosen on the same TRAIN dice (290; session 13's 24 views a die: the float file reads 233 values
right): percentile ranges of 2048 crops 229-230 (the fast head's 6 views: 217-221), MinMax of all
6960 crops 223 (214), MinMax of 512 crops 223-233 by the draw; only the convolutions are int8 (every
node: 219).  Writes `vision/numbered/ocr_rec_int8_ranges.json`: the float file's SHA-256 and
onnxruntime's calibration cache.  The int8 file itself is built from
the installed wheel's model on each machine at first use (`vision.runtime.int8_model`); needs the
`onnx` package.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from training.numbered.real import HELD_OUT_GROUPS, TABLE_SCALE, at_table, default_root, load_lurig  # noqa: E402
from vision.numbered.ocr import INT8_RANGES, REC_FILE, OcrHead, _head_dice, rapidocr_models  # noqa: E402
from vision.numbered.reader import NumberedReader  # noqa: E402
from vision.runtime import INT8_OPSET, file_sha256  # noqa: E402

#: the die is the reading nearest the crop's centre within this share of the crop's width (as
#: benchmarks/vision_numbered_ocr.py finds it)
CENTRE_SHARE = 0.3


def train_crops(real: Path) -> np.ndarray:
    """The head's crops (N x SIDE x SIDE x 3) of every TRAIN die the reader finds (kinds d20)."""
    reader = NumberedReader(die_floor=0.0, ocr=False)
    head = OcrHead(angles=12, quantized=False)
    out = []
    for p in load_lurig(real):
        if p.group in HELD_OUT_GROUPS:
            continue
        img = cv2.imread(str(p.path))
        if img is None:
            raise SystemExit(f"{p.path}: not an image (expected a d20_lurig crop)")
        frame = at_table(img)
        got = reader.read(frame, kinds=("d20",))
        c = (frame.shape[1] / 2, frame.shape[0] / 2)
        near = sorted(got, key=lambda r: math.dist(r.center, c))
        if not near or math.dist(near[0].center, c) > CENTRE_SHARE * img.shape[1] * TABLE_SCALE:
            continue
        idx, sides = _head_dice(near[:1], ("d20",))
        if idx:
            out.append(head.crops(frame, near[0].center, sides[0]))
    return np.concatenate(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, default=default_root())
    ap.add_argument("--crops", type=int, default=2048)
    ap.add_argument("--out", type=Path, default=INT8_RANGES)
    args = ap.parse_args(argv)
    import onnx
    from onnx import version_converter
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    crops = train_crops(args.real)
    rng = np.random.default_rng(0)
    sel = crops[np.sort(rng.choice(len(crops), min(args.crops, len(crops)), replace=False))]
    x = sel.transpose(0, 3, 1, 2).astype(np.float32) * np.float32(2 / 255) - 1.0
    print(f"{len(crops)} train crops, {len(sel)} calibrate", file=sys.stderr)

    class Reader(CalibrationDataReader):  # type: ignore[misc,unused-ignore]
        def __init__(self) -> None:
            self.batches = iter([{"x": x[i : i + 32]} for i in range(0, len(x), 32)])

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    src = rapidocr_models() / REC_FILE
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        model = version_converter.convert_version(onnx.load(str(src)), INT8_OPSET)
        onnx.save(model, str(t / "float.onnx"))
        quantize_static(
            str(t / "float.onnx"),
            str(t / "int8.onnx"),
            Reader(),
            quant_format=QuantFormat.QDQ,
            op_types_to_quantize=["Conv"],
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibration_cache_path=str(t / "ranges.json"),
            calibrate_method=CalibrationMethod.Percentile,
            extra_options={"CalibPercentile": 99.99},
        )
        ranges = json.loads((t / "ranges.json").read_text(encoding="utf-8"))
    spec = {"source": REC_FILE, "source_sha256": file_sha256(src), "crops": len(sel), "ranges": ranges}
    args.out.write_text(json.dumps(spec, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
