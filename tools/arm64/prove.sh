#!/usr/bin/env bash
# Prove dicetable on arm64 (a Raspberry Pi's 64-bit OS) from an x86 machine: a Debian Bookworm arm64
# root made by debootstrap from this machine's own Debian mirror, run under qemu-user-static through
# the kernel's binfmt_misc. Inside it, a fresh copy of the repository runs the README's first command
# (./dev.sh demo --no-serve --json: a venv, aarch64 wheels from PyPI, the recorded Dice Hunter game)
# and then the test suite's quick non-browser part (ARM64_TESTS=full: every non-browser test, with
# the system packages they drive).
#
#   sudo tools/arm64/prove.sh [ROOTFS_DIR] [OUT_DIR]
#
# Needs root, debootstrap, qemu-user-static and binfmt-support (apt-get install them); the aarch64
# handler must be registered (update-binfmts --enable qemu-aarch64). Writes OUT_DIR/versions.txt,
# demo.json, demo.log, tests.log and times.txt. Slow: every arm64 instruction is emulated.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-/var/tmp/dicetable-arm64}
out=$(mkdir -p "${2:-$here/benchmarks/results/arm64}" && cd "${2:-$here/benchmarks/results/arm64}" && pwd)
say() { printf '==> %s\n' "$*" >&2; }

[ "$(id -u)" = 0 ] || { echo "error: run as root (debootstrap and chroot need it)" >&2; exit 1; }
for tool in debootstrap chroot; do
  command -v $tool >/dev/null || { echo "error: $tool missing: apt-get install debootstrap" >&2; exit 1; }
done
[ -x /usr/bin/qemu-aarch64-static ] || { echo "error: apt-get install qemu-user-static binfmt-support" >&2; exit 1; }
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  update-binfmts --enable qemu-aarch64 || {
    echo "error: cannot register the aarch64 binfmt handler (is binfmt_misc mounted?)" >&2; exit 1; }
fi
# this machine's own Debian mirror (never a hard-coded host)
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -1)
[ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)

if [ ! -x "$root/usr/bin/python3" ]; then
  say "debootstrap arm64 bookworm into $root from $mirror"
  start=$(date +%s)
  debootstrap --arch=arm64 --variant=minbase \
    --include=python3,python3-venv,python3-pip,ca-certificates,libgl1,libglib2.0-0${ARM64_PICAMERA:+,python3-numpy} \
    bookworm "$root" "$mirror"
  echo "debootstrap: $(( $(date +%s) - start )) s" >> "$out/times.txt"
fi

cleanup() { for m in proc sys dev; do umount -R -l "$root/$m" 2>/dev/null || true; done; }
trap cleanup EXIT
mount -t proc proc "$root/proc"
# no /sys: the host's is an x86 machine's, and onnxruntime's cpuinfo, reading its CPU topology as an
# arm64 machine's, crashes the emulated process on import (SIGSEGV); without it onnxruntime warns
# "cpuinfo_initialize failed" and runs
mount --rbind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/pip.conf"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt" 2>/dev/null || true

inside() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
  PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_DEFAULT_TIMEOUT=120 bash -c "$1"; }

# ARM64_PICAMERA=before|after: the Pi's camera stack (issue 42). Raspberry Pi OS's python3-picamera2
# imports python3-simplejpeg, a C extension built against the system's numpy 1.24; a venv made with
# --system-site-packages that installs numpy 2 puts numpy 2 first, and the import dies of
# "numpy.dtype size changed". Here: Debian's python3-numpy (1.24.2, as on the Pi) and, beside it in
# /usr/lib/python3/dist-packages, simplejpeg 1.6.6 (PyPI's aarch64 cp311 wheel, built against numpy
# 1.x), and tools/arm64/picamera2_standin (Debian has no picamera2: a stand-in that imports numpy and
# simplejpeg as picamera2 does, its frames the Dice Hunter demo's JPEGs decoded by simplejpeg).
#   before: ARM64_BEFORE=REV's install (a venv made with --system-site-packages as dev.sh makes it on
#           a Pi, then ./dev.sh demo), which shows the failure;
#   after:  this checkout's HEAD in the same place, the venv kept, ./dev.sh demo again, then the camera
#           read through `dicetable record --camera picam`.
# Writes OUT/picamera/{before,after}-*.txt and .json.
if [ -n "${ARM64_PICAMERA:-}" ]; then
  pc="$out/picamera"
  mkdir -p "$pc"
  inside 'dpkg -s python3-numpy >/dev/null 2>&1 || { apt-get update -q && apt-get install -y -q python3-numpy; }' >> "$pc/setup.log" 2>&1
  inside 'python3 -c "import simplejpeg" 2>/dev/null || python3 -m pip install -q --break-system-packages --no-deps \
    --target /usr/lib/python3/dist-packages simplejpeg==1.6.6' >> "$pc/setup.log" 2>&1
  rm -rf "$root/usr/lib/python3/dist-packages/picamera2"
  cp -r "$here/tools/arm64/picamera2_standin/picamera2" "$root/usr/lib/python3/dist-packages/picamera2"
  inside 'cd /tmp && /usr/bin/python3 -c "import numpy, simplejpeg, picamera2; print(\"system python3:\", numpy.__version__, \"numpy,\", simplejpeg.__version__, \"simplejpeg, picamera2 stand-in imports\")"' \
    > "$pc/system.txt" 2>&1 || true
  demo() {  # ./dev.sh demo, tried again when qemu crashes the install (as below)
    local try
    for try in 1 2 3 4 5 6; do
      inside 'cd /opt/dicetable && ./dev.sh demo --no-serve --json' > "$pc/$1-demo.json" 2>> "$pc/$1-demo.log" && return 0
      say "try $try failed (see $pc/$1-demo.log); again"
    done
    return 1
  }
  frames=/opt/dicetable/tests/fixtures/sessions/dice-hunter-demo
  probe() {  # what the venv imports, and the camera read as `dicetable record` reads it
    {
      echo "\$ .venv/bin/python -c 'import numpy; print(numpy.__version__)'"
      inside 'cd /opt/dicetable && .venv/bin/python -c "import numpy; print(numpy.__version__)"' 2>&1
      echo "\$ .venv/bin/python -c 'import simplejpeg'   # in the venv's own process"
      inside 'cd /opt/dicetable && .venv/bin/python -c "import simplejpeg; print(\"imports\")" 2>&1 | tail -1'
      echo "\$ PICAMERA2_STANDIN_FRAMES=$frames .venv/bin/dicetable record --camera picam --frames 5 --format png --out /tmp/picam-$1"
      inside "rm -rf /tmp/picam-$1; cd /opt/dicetable && PICAMERA2_STANDIN_FRAMES=$frames timeout 900 .venv/bin/dicetable record --camera picam --frames 5 --format png --out /tmp/picam-$1 2>&1 | tail -5; echo \"exit \${PIPESTATUS[0]}\""
    } > "$pc/$1-camera.txt" 2>&1
  }
  if [ "$ARM64_PICAMERA" = before ]; then
    rev=${ARM64_BEFORE:?"ARM64_BEFORE=REV: the revision whose install shows the failure"}
    say "today's install ($rev) on the Pi's camera stack"
    rm -rf "$root/opt/dicetable"
    git clone -q --no-hardlinks "$here" "$root/opt/dicetable" && git -C "$root/opt/dicetable" checkout -q "$rev"
    inside 'cd /opt/dicetable && python3 -m venv --system-site-packages .venv'  # as dev.sh makes it on a Pi
    start=$(date +%s)
    demo before || true
    echo "picamera before ($rev): demo $(( $(date +%s) - start )) s" >> "$out/times.txt"
    probe before
  else
    say "the fixed install ($(git -C "$here" rev-parse --short HEAD)) on the Pi's camera stack"
    mv "$root/opt/dicetable/.venv" "$root/opt/venv.kept"
    rm -rf "$root/opt/dicetable"
    git clone -q --no-hardlinks "$here" "$root/opt/dicetable"
    mv "$root/opt/venv.kept" "$root/opt/dicetable/.venv"
    start=$(date +%s)
    demo after || true
    echo "picamera after ($(git -C "$here" rev-parse --short HEAD)): demo $(( $(date +%s) - start )) s" >> "$out/times.txt"
    probe after
    # the frames as the venv received them from the camera worker, against the demo's JPEGs decoded
    inside "cd /opt/dicetable && .venv/bin/python -c '
import cv2, numpy as np, sys
from pathlib import Path
src = sorted(Path(\"$frames\").glob(\"*.jpg\"))[:5]
got = sorted(Path(\"/tmp/picam-after\").glob(\"*.png\"))
def same(g, s):  # the stand-in puts the 800x600 demo frame in the corner of a black 1280x960 one
    a, b = cv2.imread(str(g)), cv2.imread(str(s))
    h, w = b.shape[:2]
    return a.shape == (960, 1280, 3) and np.array_equal(a[:h, :w], b) and not a[h:].any() and not a[:, w:].any()
ok = len(got) == 5 and all(same(g, s) for g, s in zip(got, src))
print(len(got), \"frames recorded through the worker;\", \"each the stand-in frame, pixel for pixel\" if ok else \"NOT the stand-in frames\")
'" >> "$pc/after-camera.txt" 2>&1 || true
    inside '/opt/dicetable/.venv/bin/python -m pip freeze 2>/dev/null' > "$pc/after-freeze.txt" || true
  fi
  cat "$pc/system.txt" "$pc/$ARM64_PICAMERA-camera.txt"
  exit 0
fi

if [ "${ARM64_RESUME:-0}" != 1 ]; then
  say "a fresh clone of the repository at $(git -C "$here" rev-parse --short HEAD)"
  # ARM64_KEEP_VENV=1 keeps the arm64 venv an earlier run installed (dev.sh reinstalls it when
  # pyproject.toml changed): the install under emulation takes minutes and qemu now and then crashes it
  [ "${ARM64_KEEP_VENV:-0}" = 1 ] && [ -d "$root/opt/dicetable/.venv" ] && mv "$root/opt/dicetable/.venv" "$root/opt/venv.kept"
  rm -rf "$root/opt/dicetable"
  git clone -q --no-hardlinks "$here" "$root/opt/dicetable"  # a clone, as a Pi owner's: the benchmarks name its revision
  [ -d "$root/opt/venv.kept" ] && mv "$root/opt/venv.kept" "$root/opt/dicetable/.venv"
  # the shared rules and real photos beside it, where the tests look for them (../shared)
  rm -rf "$root/opt/shared" && [ -d "$here/../shared" ] && cp -r "$here/../shared" "$root/opt/shared"
fi

if [ "${ARM64_RESUME:-0}" != 1 ]; then
  {
    echo "host: $(uname -m), qemu: $(/usr/bin/qemu-aarch64-static --version | head -1)"
    echo "inside: $(inside 'uname -m; . /etc/os-release; echo $PRETTY_NAME; python3 --version' | tr '\n' ' ')"
  } > "$out/versions.txt"

  say "./dev.sh demo --no-serve --json on arm64"
  start=$(date +%s)
  # qemu-user (7.2) now and then crashes a pip process (SIGSEGV in the emulator, not in pip); dev.sh only
  # stamps a finished install, so a second try carries on where the first stopped
  for try in 1 2 3 4 5 6 7 8; do
    if inside 'cd /opt/dicetable && ./dev.sh demo --no-serve --json' > "$out/demo.json" 2>> "$out/demo.log"; then
      break
    fi
    say "try $try failed (see $out/demo.log); again"
  done
  echo "demo (install + game, $try tries): $(( $(date +%s) - start )) s" >> "$out/times.txt"
  inside '/opt/dicetable/.venv/bin/python -m pip list 2>/dev/null | grep -iE "^(numpy|opencv|onnxruntime|fastapi|gpiozero|pyserial) "' \
    >> "$out/versions.txt" || true
fi

if [ "${ARM64_TESTS:-quick}" = full ]; then
  # the whole non-browser suite: the system packages the tests drive (all but chromium, as
  # dev.sh's ensure_system_packages installs them), the test extra, then every test not marked browser
  if [ "${ARM64_RESUME:-0}" != 1 ]; then
    say "system packages the tests drive, on arm64"
    start=$(date +%s)
    inside 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      git mosquitto ffmpeg systemd poppler-utils fonts-noto-cjk fontconfig python3-gi python3-gst-1.0 \
      gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-good' > "$out/apt.log" 2>&1 ||
      echo "apt: exit $?" >> "$out/times.txt"
    echo "apt (system packages the tests drive): $(( $(date +%s) - start )) s" >> "$out/times.txt"
    for try in 1 2 3 4 5 6 7 8; do  # the test extra (and git: the benchmarks name their revision)
      inside 'cd /opt/dicetable && .venv/bin/python -m pip install -q -e ".[test]"' >> "$out/tests-full.log" 2>&1 && break
    done
    rm -rf "$out/claims" && : > "$out/tests-summary.txt"
  fi
  jobs=${ARM64_JOBS:-2}
  say "the whole non-browser suite on arm64, a pytest per test file, $jobs at once (progress: $out/tests-summary.txt)"
  start=$(date +%s)
  # qemu-user 7.2 now and then dies of a SIGSEGV of its own (exit 139, "qemu: uncaught target signal
  # 11") in a long multi-threaded Python process: one pytest per file, and a file whose pytest the
  # emulator killed is run again (up to 3 times); a test that fails is never retried.  Each worker
  # claims a file by making its directory under claims/ (ARM64_RESUME=1 goes on where a run stopped:
  # a claimed file is not run again); the benchmarks' smoke runs, the longest file, first
  mkdir -p "$out/tests" "$out/claims"
  files=$(cd "$root/opt/dicetable" && { echo tests/benchmarks/test_smoke.py; find tests -name 'test_*.py' | sort; } | awk '!seen[$0]++')
  run_file() {
    local f=$1 log rc try
    log="$out/tests/$(echo "$f" | tr / _).log"
    for try in 1 2 3; do
      rc=0
      inside "cd /opt/dicetable && DICETABLE_SMOKE_TIMEOUT=3600 timeout 5400 .venv/bin/python -m pytest -q -rfE -p no:cacheprovider \
        -m 'not browser' $f" > "$log" 2>&1 || rc=$?
      [ $rc = 139 ] || grep -q "qemu: uncaught target signal" "$log" || break
    done
    # exit 5: every test of the file is a browser test (deselected)
    echo "$f rc=$rc tries=$try $(grep -E '(passed|failed|error|deselected|skipped)' "$log" | tail -1)" >> "$out/tests-summary.txt"
  }
  worker() {
    local f
    for f in $files; do
      mkdir "$out/claims/$(echo "$f" | tr / _)" 2>/dev/null || continue
      run_file "$f"
    done
  }
  for j in $(seq "$jobs"); do worker & done
  wait
  echo "full non-browser tests: $(( $(date +%s) - start )) s" >> "$out/times.txt"
  awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(passed|failed|skipped|deselected|errors?)/) n[$i] += $(i-1) }
       END { for (k in n) printf "%s %d  ", k, n[k]; print "" }' "$out/tests-summary.txt" | tee -a "$out/times.txt"
  grep -v " rc=0 \| rc=5 " "$out/tests-summary.txt" || true
  tail -1 "$out/tests-full.log"
  cat "$out/demo.json"
  exit 0
fi

say "the quick non-browser tests on arm64"
start=$(date +%s)
# the test runner alone (the test extra's linters and browser driver are not what is proven here)
inside 'cd /opt/dicetable && .venv/bin/python -m pip install -q "pytest>=8,<10" "hypothesis>=6,<7" "httpx>=0.27,<1" &&
  .venv/bin/python -m pytest -q -p no:cacheprovider -m "not browser and not broker and not slow" \
  tests/engine tests/calibration tests/hardware/test_frames.py tests/hardware/test_buttons.py \
  tests/hardware/test_leds.py tests/hardware/test_secret.py tests/controller/test_eventlog.py \
  tests/controller/test_config.py' > "$out/tests.log" 2>&1 || echo "tests: exit $?" >> "$out/times.txt"
echo "tests: $(( $(date +%s) - start )) s" >> "$out/times.txt"
tail -1 "$out/tests.log"
cat "$out/demo.json"
