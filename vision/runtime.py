"""Run the vision models' ONNX files on the CPU: onnxruntime, or OpenCV's dnn module without it.

onnxruntime runs these small convolutional nets two to three times faster than
cv2.dnn on one core (benchmarks/results/vision_d6.md), so it is the default; the
cv2.dnn path stays for machines where onnxruntime has no wheel. Set
DICETABLE_ONNX_BACKEND=cv2 to force the fallback.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np


class Model:
    """One ONNX network with a single input and a single output. Thread-safe."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        if not path.is_file():
            raise FileNotFoundError(f"vision model {path} is missing: reinstall dicetable or retrain it")
        self.path = path
        self._lock = threading.Lock()
        self._ort: Any = None
        self._net: Any = None
        if os.environ.get("DICETABLE_ONNX_BACKEND", "").lower() != "cv2":
            try:
                import onnxruntime as ort
            except ImportError:
                ort = None
            if ort is not None:
                so = ort.SessionOptions()
                so.intra_op_num_threads = threads
                so.inter_op_num_threads = 1
                so.log_severity_level = 3
                self._ort = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
                self._input = self._ort.get_inputs()[0].name
        if self._ort is None:
            self._net = cv2.dnn.readNetFromONNX(str(path))

    @property
    def backend(self) -> str:
        return "onnxruntime" if self._ort is not None else "cv2.dnn"

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, np.float32)
        with self._lock:
            if self._ort is not None:
                return np.asarray(self._ort.run(None, {self._input: x})[0])
            self._net.setInput(x)
            return np.asarray(self._net.forward())
