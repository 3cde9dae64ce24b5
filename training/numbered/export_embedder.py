"""Make vision/models/numbered_embedder.onnx: the numbered classifier cut before its last layer.

Its output is the classifier's penultimate features (the global average of its last convolution,
one vector a crop), which `dicetable learn-dice` uses to tell a table's own faces apart
(vision/numbered/embed.py).  The weights are the classifier's own, unchanged: run this again
whenever numbered_classifier.onnx changes (a learnt set records the embedder's digest and is
refused by another one).

    /work/main/.venv/bin/python -m training.numbered.export_embedder

Needs `onnx` (the `train` extra).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import onnx
from onnx import helper

MODELS = Path(__file__).resolve().parents[2] / "vision" / "models"
FEATURES = "/body/body.10/Flatten_output_0"  # the input of the classifier's last Gemm


def export(classifier: Path, out: Path) -> None:
    cut = onnx.load(str(classifier))
    if FEATURES not in {o for n in cut.graph.node for o in n.output}:
        raise ValueError(f"{classifier}: expected a tensor {FEATURES!r}, the classifier's last features")
    # Drop what follows the features (the last layer) and its weights; the features are the output.
    keep = []
    for n in cut.graph.node:
        keep.append(n)
        if FEATURES in n.output:
            break
    used = {i for n in keep for i in n.input}
    del cut.graph.node[:]
    cut.graph.node.extend(keep)
    inits = [t for t in cut.graph.initializer if t.name in used]
    del cut.graph.initializer[:]
    cut.graph.initializer.extend(inits)
    del cut.graph.output[:]
    cut.graph.output.append(helper.make_tensor_value_info(FEATURES, onnx.TensorProto.FLOAT, ["n", None]))
    onnx.checker.check_model(cut)
    onnx.save(cut, str(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--classifier", type=Path, default=MODELS / "numbered_classifier.onnx")
    ap.add_argument("--out", type=Path, default=MODELS / "numbered_embedder.onnx")
    a = ap.parse_args()
    export(a.classifier, a.out)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
