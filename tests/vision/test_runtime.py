"""The ONNX runtime seam: onnxruntime by default, OpenCV's dnn module as the fallback, same answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from vision_helpers import draw_row

from hardware.drawn import felt
from vision.reader import MODELS, DiceReader
from vision.runtime import Model


def test_both_backends_give_the_same_readings(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnxruntime")
    table = felt(480, 640, (60, 110, 40), np.random.default_rng(3))
    draw_row(table, [1, 4, 6, 2])
    fast = DiceReader()
    monkeypatch.setenv("DICETABLE_ONNX_BACKEND", "cv2")
    slow = DiceReader()
    assert Model(MODELS / "d6_classifier.onnx").backend == "cv2.dnn"
    a = sorted(fast.read(table), key=lambda r: r.center[0])
    b = sorted(slow.read(table), key=lambda r: r.center[0])
    assert [r.value for r in a] == [r.value for r in b] == [1, 4, 6, 2]
    for x, y in zip(a, b, strict=True):
        assert x.center == pytest.approx(y.center, abs=0.5)
        assert x.confidence == pytest.approx(y.confidence, abs=0.02)


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nothing\.onnx is missing"):
        Model(tmp_path / "nothing.onnx")


def _corner_net(calls: list[int]):
    """A stand-in classifier: two classes, logits the blue level of the crop's top-left and
    top-right pixels (so turning the crop changes the answer); counts the crops it is given."""

    def net(x: np.ndarray) -> np.ndarray:
        calls.append(len(x))
        return np.stack([x[:, 0, 0, 0], x[:, 0, 0, -1]], axis=1) * 20.0

    return net


def _crops() -> np.ndarray:
    c = np.zeros((3, 4, 4, 3), np.uint8)
    c[0, 0, 0] = 255  # sure upright: class 0
    c[1, 0, 0], c[1, 0, 3] = 128, 120  # unsure upright
    c[2, 0, 3] = 255  # sure upright: class 1
    return c


def test_softmax_turned_reads_only_the_unsure_crops_again() -> None:
    from vision.runtime import softmax, softmax_turned

    calls: list[int] = []
    crops = _crops()
    p = softmax_turned(_corner_net(calls), crops, 4, sure=0.9)
    assert calls == [3, 3]  # all upright, then crop 1 at 3 quarter turns
    up = softmax(lo(crops))
    np.testing.assert_allclose(p[[0, 2]], up[[0, 2]], rtol=1e-6)
    turned = [np.rot90(crops[1], k) for k in range(4)]
    logits = np.array([[t[0, 0, 0], t[0, 3, 0]] for t in turned], np.float32) / 255 * 20
    np.testing.assert_allclose(p[1], softmax(logits).mean(0), rtol=1e-5)
    assert np.allclose(p.sum(1), 1.0)


def lo(c: np.ndarray) -> np.ndarray:
    """The stand-in net's logits for crops `c`."""
    return np.stack([c[:, 0, 0, 0], c[:, 0, 3, 0]], 1).astype(np.float32) / 255 * 20


def test_softmax_turned_every_crop_at_even_turns_without_sure() -> None:
    from vision.runtime import softmax, softmax_turned

    calls: list[int] = []
    crops = _crops()
    p = softmax_turned(_corner_net(calls), crops, 2, sure=None)
    assert calls == [3, 3]  # upright and half a turn, every crop
    half = np.rot90(crops, 2, axes=(1, 2))
    np.testing.assert_allclose(p, (softmax(lo(crops)) + softmax(lo(half))) / 2, rtol=1e-5)
    calls.clear()
    np.testing.assert_allclose(softmax_turned(_corner_net(calls), crops, 1, sure=None), softmax(lo(crops)))
    assert calls == [3]


def test_a_frames_arrays_reuse_the_memory_the_last_frames_were_freed_from() -> None:
    """keep_freed_memory (issue 32): a frame-sized array made again after one was freed touches no
    fresh pages (glibc would otherwise give each its own pages and the kernel zero every one again)."""
    import resource

    from vision.runtime import keep_freed_memory

    if not keep_freed_memory():
        pytest.skip("not glibc: malloc's thresholds cannot be set")
    assert keep_freed_memory()  # once a process; asked again, still kept

    def faults_of_a_frame() -> int:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        a = np.empty((960, 1280, 3), np.float32)  # 14 MiB, a float copy of a 1280x960 frame
        a.fill(1.0)
        del a
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

    faults_of_a_frame()
    pages = 960 * 1280 * 3 * 4 // 4096
    assert faults_of_a_frame() < pages // 10


def test_a_table_that_reads_frames_keeps_freed_memory() -> None:
    from controller.config import VisionSection
    from controller.perceive import FrameOnly, Perceiver
    from vision import runtime

    Perceiver.of(FrameOnly(lambda image: []), VisionSection())
    assert runtime._kept is not None  # asked once the table's reading setup is made


def _blas_threads() -> int | None:
    """How many threads the loaded OpenBLAS splits a product over (None: no OpenBLAS found)."""
    import ctypes
    from pathlib import Path

    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    libs = {line.split()[-1] for line in maps.splitlines() if "openblas" in line.lower()}
    for path in sorted(p for p in libs if p.startswith("/")):
        lib = ctypes.CDLL(path)
        for name in ("openblas_get_num_threads", "scipy_openblas_get_num_threads64_"):
            getter = getattr(lib, name, None)
            if getter is not None:
                getter.restype = ctypes.c_int
                return int(getter())
    return None


def test_a_table_that_reads_frames_runs_numpy_products_on_one_thread() -> None:
    """one_blas_thread (issue 32): OpenBLAS's threads spun on the tumble check's small products
    (~150 ms of CPU a demo throw on two threads, 25 on one); a table's process keeps one."""
    from controller.config import VisionSection
    from controller.perceive import FrameOnly, Perceiver
    from vision import runtime

    if _blas_threads() is None:
        pytest.skip("numpy's BLAS is not an OpenBLAS this process can see")
    Perceiver.of(FrameOnly(lambda image: []), VisionSection())
    assert _blas_threads() == 1
    assert runtime.one_blas_thread()  # once a process; asked again, still told
    a = np.random.default_rng(1).random((169, 709), np.float32)
    b = np.random.default_rng(2).random((48, 709), np.float32)
    np.testing.assert_allclose(a @ b.T, a.astype(np.float64) @ b.T.astype(np.float64), rtol=1e-5)
