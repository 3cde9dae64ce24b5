"""A command's own peak memory (issue 47): ``measured(args)`` runs it and says how many MB it held.

The peak a parent reads from ``wait4`` is not the child's alone: Linux carries the memory the
process had before ``exec`` into the peak (``signal->maxrss``), and a child of pytest starts as a copy
of pytest, which may hold a gigabyte by then.  So the command is started by a small process of its
own (``_WATCH``, a bare Python that holds a few MB), which waits for it and prints its peak.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = "\n@@peak-kb="

#: the watcher: starts ARGS, passes SIGINT on, prints the command's peak (kB) and exits with its code
_WATCH = r"""
import os, signal, subprocess, sys
proc = subprocess.Popen(sys.argv[1:])
signal.signal(signal.SIGINT, lambda *a: os.kill(proc.pid, signal.SIGINT))
while True:
    try:
        _, status, usage = os.wait4(proc.pid, 0)
        break
    except InterruptedError:
        continue
sys.stdout.flush()
sys.stderr.write("\n@@peak-kb=%d\n" % usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


def measured(*args: str, stop_after: float | None = None) -> tuple[int, str, int, bool]:
    """``dicetable ARGS`` from the repository root (interrupted with SIGINT after ``stop_after`` s):
    (exit code, stdout and stderr, the command's own peak memory in MB, whether it still ran when
    interrupted)."""
    proc = subprocess.Popen(
        [sys.executable, "-S", "-c", _WATCH, sys.executable, "-m", "controller", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    alive = True
    if stop_after is not None:
        time.sleep(stop_after)
        alive = proc.poll() is None
        if alive:
            proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=300)
    text, mark, peak = out.rpartition(MARK)
    assert mark, f"the watcher said no peak:\n{out[-2000:]}"
    return proc.returncode, text, int(peak.split()[0]) // 1024, alive
