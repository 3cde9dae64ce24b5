"""Run the vision models' ONNX files on the CPU: onnxruntime, or OpenCV's dnn module without it.

onnxruntime runs these small convolutional nets two to three times faster than
cv2.dnn on one core (benchmarks/results/vision_d6.md), so it is the default; the
cv2.dnn path stays for machines where onnxruntime has no wheel. Set
DICETABLE_ONNX_BACKEND=cv2 to force the fallback.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import json
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import platformdirs

log = logging.getLogger(__name__)

#: glibc's mallopt parameters (malloc.h)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: arrays up to this size come from the heap, not from fresh pages of their own (glibc's limit on 64-bit)
MMAP_THRESHOLD = 32 << 20
#: freed memory the heap keeps for the next frame's arrays, at most
TRIM_THRESHOLD = 64 << 20
_kept: bool | None = None
_kept_lock = threading.Lock()


def keep_freed_memory() -> bool:
    """Keep the memory a frame's arrays were freed from for the next frame's (glibc only; once a
    process; True when it is kept).

    A perception step makes a few hundred arrays of up to a frame's size.  glibc gives each array
    over 128 KiB pages of its own and hands them back when it is freed, and hands the heap's free top
    back beyond 128 KiB: every frame then touches fresh pages again, and the kernel zeroes each
    (page faults, counted as the process's CPU).  Raising both thresholds (``mallopt``) keeps that
    memory in the heap between frames: on the Dice Fighter demo frames the empty table's comparison
    takes 7 ms a frame instead of 22, the whole step ~18 % less (benchmarks/RESULTS.md, issue 32).
    The numbers computed are the same; the process holds up to TRIM_THRESHOLD of freed memory."""
    global _kept
    with _kept_lock:
        if _kept is None:
            _kept = False
            if sys.platform.startswith("linux"):
                try:
                    mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
                except (OSError, AttributeError):  # not glibc (musl has no mallopt)
                    return False
                mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
                # 32 MiB is glibc's largest mmap threshold on 64-bit; 512 KiB on 32-bit
                mmap = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) or mallopt(M_MMAP_THRESHOLD, 512 << 10)
                if mmap == 1:
                    _kept = mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
        return _kept


#: OpenBLAS's thread-count setters, as the builds numpy ships or a distribution's name them
_BLAS_SETTERS = (
    "openblas_set_num_threads",
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
)
_one_blas: bool | None = None


def _loaded_blas() -> list[str]:
    """The OpenBLAS libraries this process has loaded (Linux: /proc/self/maps; elsewhere none)."""
    try:
        maps = Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    paths = {line.split(maxsplit=5)[-1] for line in maps.splitlines() if "openblas" in line.lower()}
    return sorted(p for p in paths if p.startswith("/") and ".so" in p)


def one_blas_thread() -> bool:
    """Run numpy's matrix products (OpenBLAS) on the calling core alone (once a process; True when
    a BLAS was told).

    The products a table computes are small (the tumble check's face against a window of places:
    hundreds by dozens): OpenBLAS splits each over every core and its threads wait for work
    spinning, so on the demo's throws the tumble check cost ~150 ms of CPU a throw with two
    threads, 25 with one (benchmarks/RESULTS.md, issue 32), on a Pi's four cores more.  One thread
    computes the same numbers (a product is split by rows and columns, never along its sums)."""
    global _one_blas
    with _kept_lock:
        if _one_blas is None:
            import numpy  # noqa: F401  (loads numpy's BLAS, if it has not been)

            _one_blas = False
            for path in _loaded_blas():
                try:
                    lib = ctypes.CDLL(path)
                except OSError:
                    continue
                for name in _BLAS_SETTERS:
                    setter = getattr(lib, name, None)
                    if setter is not None:
                        setter.argtypes, setter.restype = [ctypes.c_int], None
                        setter(1)
                        _one_blas = True
                        break
        return _one_blas


#: the opset an int8 model is written at (per-channel QuantizeLinear/DequantizeLinear need 13 or more)
INT8_OPSET = 17


class Int8Unavailable(RuntimeError):
    """An int8 model cannot be built here (the `onnx` package is missing, or the ranges were measured
    on another file); the float model is read instead."""


def cache_dir() -> Path:
    """Where models built on this machine are kept: $DICETABLE_CACHE_DIR or the user cache directory."""
    env = os.environ.get("DICETABLE_CACHE_DIR")
    return Path(env) if env else Path(platformdirs.user_cache_dir("dicetable"))


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def int8_model(src: Path, ranges: Path, op_types: tuple[str, ...] = ("Conv",)) -> Path:
    """An int8 copy of the float ONNX model `src` (onnxruntime static quantization, QDQ, weights per
    channel, activations uint8, only the `op_types` nodes), built on this machine the first time it is
    asked for and kept in `cache_dir()/models`.

    `ranges` (JSON: `source_sha256`, the SHA-256 of the float file they were measured on, and `ranges`,
    onnxruntime's calibration cache of each tensor's range) holds the activations' ranges, measured
    once on training images (nothing is downloaded or measured here).  The file is written whole under
    a temporary name and renamed (two processes building at once each leave a whole file); a
    `.sha256` file beside it holds its checksum, and a copy whose checksum differs is built again.
    Raises Int8Unavailable (the float model is then the one to read) when the `onnx` package or
    onnxruntime's quantization tools are missing, or `ranges` were measured on another file."""
    try:
        spec = json.loads(ranges.read_text(encoding="utf-8"))
        want, tensors = str(spec["source_sha256"]), spec["ranges"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Int8Unavailable(
            f"{ranges}: expected the int8 ranges JSON (source_sha256, ranges): {e}"
        ) from None
    got = file_sha256(src)
    if got != want:
        raise Int8Unavailable(
            f"{src}: its SHA-256 {got[:12]} is not the file {ranges.name} was measured on ({want[:12]})"
        )
    import onnxruntime as ort

    key = hashlib.sha256(
        json.dumps([got, tensors, list(op_types), INT8_OPSET, ort.__version__], sort_keys=True).encode()
    ).hexdigest()[:16]
    folder = cache_dir() / "models"
    out = folder / f"{src.stem}.int8-{key}.onnx"
    summed = out.with_name(out.name + ".sha256")
    try:
        if out.is_file() and summed.read_text(encoding="utf-8").strip() == file_sha256(out):
            return out
    except OSError:
        pass
    try:
        import onnx
        from onnx import version_converter
        from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    except ImportError as e:
        raise Int8Unavailable(
            f"building {out.name} needs the onnx package ({e}): pip install 'onnx>=1.16,<2'"
        ) from None
    try:  # the method the ranges were measured by (onnxruntime checks the cache was made by it)
        method = CalibrationMethod[str(tensors["calibration_method"]["value"]).split(".")[-1]]
    except (KeyError, TypeError) as e:
        raise Int8Unavailable(
            f"{ranges}: expected onnxruntime's calibration cache under 'ranges' ({e})"
        ) from None
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".build-") as tmp:
        t = Path(tmp)
        (t / "ranges.json").write_text(json.dumps(tensors), encoding="utf-8")
        model = onnx.load(str(src))
        if max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")) < INT8_OPSET:
            model = version_converter.convert_version(model, INT8_OPSET)
        onnx.save(model, str(t / "float.onnx"))
        try:
            quantize_static(
                str(t / "float.onnx"),
                str(t / "int8.onnx"),
                None,
                quant_format=QuantFormat.QDQ,
                op_types_to_quantize=list(op_types),
                per_channel=True,
                activation_type=QuantType.QUInt8,
                weight_type=QuantType.QInt8,
                calibration_cache_path=str(t / "ranges.json"),
                calibrate_method=method,
            )
        except TypeError as e:  # an onnxruntime without calibration_cache_path (before 1.2x)
            raise Int8Unavailable(
                f"building {out.name}: this onnxruntime cannot quantize from saved ranges ({e})"
            ) from None
        (t / "int8.sha256").write_text(file_sha256(t / "int8.onnx") + "\n", encoding="utf-8")
        os.replace(t / "int8.onnx", out)
        os.replace(t / "int8.sha256", summed)
    for old in folder.glob(f"{src.stem}.int8-*"):  # earlier builds (other ranges or onnxruntime)
        if old.name not in (out.name, summed.name):
            old.unlink(missing_ok=True)
    log.info("built %s from %s", out, src.name)
    return out


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


def blob(crops: np.ndarray) -> np.ndarray:
    """N x H x W x 3 uint8 images as the nets' N x 3 x H x W float32 input, scaled to [0, 1] (the
    same numbers as cv2.dnn.blobFromImages, at a twentieth of its cost on one core)."""
    src = np.asarray(crops).transpose(0, 3, 1, 2)
    # written straight into a C-ordered array: astype would keep the transposed layout, and the
    # runtime would copy it once more into the order the net reads (same numbers either way)
    x = np.empty(src.shape, np.float32)
    np.multiply(src, np.float32(1.0 / 255.0), out=x, casting="unsafe")
    return x


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of an N x C array of logits, float32."""
    e = np.exp(logits - logits.max(1, keepdims=True))
    return np.asarray(e / e.sum(1, keepdims=True), np.float32)


def softmax_turned(
    net: Callable[[np.ndarray], np.ndarray], crops: np.ndarray, turns: int, sure: float | None = None
) -> np.ndarray:
    """A classifier's softmax for each of N x S x S x 3 BGR uint8 `crops`, averaged over quarter turns.

    Every crop is read upright.  With `sure`, only the crops read less surely than that (top class
    probability) are read again, turned 1 .. turns-1 quarter turns; without it every crop is read at
    `turns` evenly spaced turns (2: upright and half a turn).  A symbol lying at any angle is read at
    the angles the network reads best as well."""
    p = softmax(net(blob(crops)))
    if turns <= 1 or not len(crops):
        return p
    if sure is None:
        step = 4 // turns
        more_idx = np.arange(len(crops))
        ks = range(step, 4, step)
    else:
        more_idx = np.nonzero(p.max(1) < sure)[0]
        ks = range(1, turns)
    if not len(more_idx):
        return p
    more = np.concatenate([np.rot90(crops[more_idx], k, axes=(1, 2)) for k in ks])
    q = softmax(net(blob(more)))
    p[more_idx] = (p[more_idx] + q.reshape(len(ks), len(more_idx), -1).sum(0)) / (len(ks) + 1)
    return p
