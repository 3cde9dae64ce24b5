"""Hardware-edge measurements: motion-gate settle latency, and LED frame rate at 115200 baud.

Run from the repo root:

    nice -n 10 .venv/bin/python -m benchmarks.hardware [--write]

1. Settle latency: the recorded sequences of tests/fixtures/motion (drawn by
   make_sequences.py, with ground truth in truth.json) go through
   vision.motion.MotionGate; for every throw (settled_now) and nudge (changed)
   the latency is the time of the frame that reported it minus the true time
   the dice came to rest.  Also the gate's own t_rest error and its cost per frame.
2. LED frame rate for a 16x16 matrix at 115200 baud: computed (bytes per frame x
   10 bits / baud) and measured by sending frames for a few seconds through the
   emulated port with UART timing (emu://...?wire=1), counting frames the
   receiver decoded.  Also the software ceiling through a real pty (no UART).

``--write`` stores the report in benchmarks/results/hardware.md.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time

import numpy as np

from benchmarks import harness
from benchmarks.harness import ROOT, add_smoke, markdown_table, run_header, write
from hardware import patterns
from hardware.frames import RecordedSource
from hardware.leds import open_matrix
from hardware.ledwire import FrameDecoder, frame_bytes, max_frame_rate
from hardware.protocol_emu import receiver
from vision.motion import MotionGate

MOTION = ROOT / "tests" / "fixtures" / "motion"
RESULTS = harness.RESULTS / "hardware.md"
#: --smoke: motion sequences, seconds of LED frames
SMOKE_SEQUENCES, SMOKE_SECONDS = 1, 0.3


def settle_latency(settle_s: float, limit: int | None = None) -> tuple[list[str], list[float]]:
    truth = json.loads((MOTION / "truth.json").read_text())
    rows, latencies = [], []
    for name, t in list(truth.items())[:limit]:
        frames = list(RecordedSource(MOTION / name))
        for step, fps_label in ((1, "15 fps"), (2, "7.5 fps")):
            gate = MotionGate(settle_s=settle_s)
            got = []
            cost = 0.0
            for f in frames[::step]:
                t0 = time.perf_counter()
                u = gate.update(f.image_bgr, f.t)
                cost += time.perf_counter() - t0
                if u.settled_now or u.changed:
                    got.append(("settled_now" if u.settled_now else "changed", f.t, u.t_rest))
            expected = t["events"]
            ok = [g[0] for g in got] == [e["event"] for e in expected]
            for (event, t_report, t_rest), e in zip(got, expected, strict=False):
                lat = t_report - e["t_rest"]
                if step == 1:
                    latencies.append(lat)
                rows.append(
                    f"| {name} | {fps_label} | {event} | {e['t_rest']:.3f} | {t_report:.3f} | "
                    f"{lat * 1000:.0f} | {((t_rest or 0) - e['t_rest']) * 1000:+.0f} |"
                )
            per_frame = cost / max(1, len(frames[::step])) * 1000
            rows.append(
                f"| {name} | {fps_label} | events {'as expected' if ok else 'WRONG: ' + str(got)} "
                f"| | | | gate {per_frame:.1f} ms/frame |"
            )
    return rows, latencies


def led_rate_emulated(protocol: str, seconds: float = 3.0) -> tuple[float, int, int]:
    url = f"emu://bench-{protocol}?wire=1"
    rec = receiver(url)
    rec.reset()
    m = open_matrix(url, 16, 16, protocol=protocol, baud=115200)
    frames = patterns.scrolling_text(16, 16, "DICETABLE 0123456789")
    sent = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        sent += m.show(frames[sent % len(frames)])
    elapsed = time.perf_counter() - t0
    m.close()
    return rec.frames / elapsed, sent, rec.frames


def led_rate_pty(seconds: float = 1.0) -> float:
    master, slave = os.openpty()
    decoder = FrameDecoder("pty bench")
    stop = threading.Event()

    def drain() -> None:
        while not stop.is_set():
            try:
                decoder.feed(os.read(master, 65536))
            except OSError:
                return

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    m = open_matrix(os.ttyname(slave), 16, 16, baud=115200, max_fps=None)
    m.frame_interval = 0.0  # no pacing: measure what the software alone can push
    frame = patterns.number(16, 16, 42)
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        m.show(frame)
        n += 1
    elapsed = time.perf_counter() - t0
    time.sleep(0.2)
    stop.set()
    m.close()
    os.close(slave)
    os.close(master)
    return decoder.frames / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="store the report in benchmarks/results/hardware.md")
    ap.add_argument("--settle", type=float, default=0.4, help="MotionGate settle_s (default 0.4)")
    add_smoke(ap)
    args = ap.parse_args()
    seconds = SMOKE_SECONDS if args.smoke else None

    rows, lat = settle_latency(args.settle, SMOKE_SEQUENCES if args.smoke else None)
    lines = [
        "# Hardware edge: measurements",
        "",
        run_header(),
        f"## Motion gate: settle latency (settle_s = {args.settle} s)",
        "",
        "Sequences: tests/fixtures/motion (drawn, seeded; 320x240 JPEG, 15 fps with jitter; every second "
        "frame for 7.5 fps).  Latency = time of the frame reporting the event - true time the dice came "
        "to rest; t_rest error = the gate's t_rest - the truth.",
        "",
        *markdown_table(
            [
                "sequence",
                "rate",
                "event",
                "true rest (s)",
                "reported at (s)",
                "latency (ms)",
                "t_rest error (ms)",
            ],
            [],
        ),
        *rows,
        "",
        f"At 15 fps: mean latency {np.mean(lat) * 1000:.0f} ms, max {np.max(lat) * 1000:.0f} ms over "
        f"{len(lat)} events.  settle_s ({args.settle * 1000:.0f} ms) is the floor by design; a figure "
        "below it means the gate saw the dice at rest one frame before the generator's nominal stop (the "
        "last ease-out step moves a die by less than a pixel at the gate's 160 px working width).",
        "",
        "## LED matrix: frame rate, 16x16 at 115200 baud",
        "",
        "| protocol | bytes/frame | computed fps (baud / (bytes x 10)) "
        "| measured fps (emu:// with UART timing) | frames sent / decoded |",
        "|---|---|---|---|---|",
    ]
    for protocol in ("adalight", "tpm2"):
        fps, sent, decoded = led_rate_emulated(protocol, *([seconds] if seconds else []))
        lines.append(
            f"| {protocol} | {frame_bytes(protocol, 256)} | {max_frame_rate(protocol, 256, 115200):.2f} "
            f"| {fps:.2f} | {sent} / {decoded} |"
        )
    pty = led_rate_pty(*([seconds] if seconds else []))
    lines += [
        "",
        f"Software ceiling through a real pty (no UART, pacing off, Adalight): {pty:.0f} frames/s decoded, "
        "so the serial line, not the encoder, bounds the rate.  LedMatrix paces frames to the computed rate.",
        "",
    ]
    write("\n".join(lines), RESULTS if args.write else None)


if __name__ == "__main__":
    main()
