#!/usr/bin/env bash
# dicetable's commands, for a fresh Debian / Raspberry Pi OS machine with Python 3.11+:
#
#   ./dev.sh demo    set up what the table needs, then play the recorded Dice Hunter demo
#                    and serve the live display on http://127.0.0.1:8000
#   ./dev.sh test    set everything up (including the system packages the tests
#                    drive: chromium, mosquitto, ffmpeg, GStreamer's RTSP server), then ruff, mypy, all tests
#   ./dev.sh lock    write requirements.lock again from pyproject.toml (--upgrade: the newest allowed)
#
# Anything after the command is passed on (e.g. ./dev.sh demo --no-serve --json).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
VENV=.venv

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "error: need root (or sudo) to run: $*" >&2; exit 1; fi
}

check_python() {
  if ! command -v "$PY" >/dev/null; then
    echo "error: $PY not found; dicetable needs Python 3.11 or newer" >&2; exit 1
  fi
  "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "error: $("$PY" --version) is too old; dicetable needs Python 3.11 or newer" >&2; exit 1; }
}

# ensure_venv [EXTRA]: the venv with dicetable's locked dependencies and dicetable itself (editable,
# --no-deps: every dependency comes from the lock, at its locked version, its hash checked).
# requirements.lock (./dev.sh lock) has the runtime packages, then the test extra's after a mark
# line: `demo` installs the runtime part only, so a first run shows the table without downloading
# the test tools; `test` (EXTRA=test) installs the whole lock. One stamp per extra, each the checksum
# of pyproject.toml and the lock it was installed from: an edited pyproject or a new lock installs
# again, and a venv made by `demo` gets the test tools at the first `test`.
LOCK=requirements.lock
TEST_MARK='# ---- the test extra'
# a Raspberry Pi: its camera (picamera2) and GPIO (lgpio) libraries come from Raspberry Pi OS's apt,
# built for its camera stack; the venv is made to see the system's packages for lgpio. picamera2 and
# its simplejpeg are built against the system's numpy 1.x and the venv has numpy 2 (the lock's, as
# OpenCV 5 requires): they run in /usr/bin/python3, a process of its own (hardware/picam_worker.py)
is_pi() { grep -qsa "Raspberry Pi" /proc/device-tree/model; }

ensure_pi_packages() {
  is_pi || return 0
  local missing=()
  /usr/bin/python3 -c "import picamera2" 2>/dev/null || missing+=(python3-picamera2)
  /usr/bin/python3 -c "import lgpio" 2>/dev/null || missing+=(python3-lgpio)
  if [ ${#missing[@]} -gt 0 ]; then
    say "a Raspberry Pi ($(tr -d '\0' < /proc/device-tree/model)): installing ${missing[*]}"
    as_root apt-get update -q
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q "${missing[@]}"
  fi
  if [ -f "$VENV/pyvenv.cfg" ] && ! grep -q "include-system-site-packages = true" "$VENV/pyvenv.cfg"; then
    say "$VENV cannot see the system's picamera2 and lgpio: making it again with --system-site-packages"
    rm -rf "$VENV"
  fi
}

ensure_venv() {
  local extra=${1:-}
  check_python
  ensure_pi_packages
  local venv_opts=()
  is_pi && venv_opts+=(--system-site-packages)
  if [ ! -x "$VENV/bin/python" ]; then
    say "creating the virtual environment $VENV"
    if ! "$PY" -m venv "${venv_opts[@]}" "$VENV" 2>/dev/null; then
      # Debian's python3 ships without ensurepip unless python3-venv is installed
      rm -rf "$VENV"
      ver=$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
      say "installing python$ver-venv (Debian splits venv out of python3)"
      as_root apt-get install -y -q "python$ver-venv" || as_root apt-get install -y -q python3-venv
      "$PY" -m venv "${venv_opts[@]}" "$VENV"
    fi
  fi
  local want stamp="$VENV/.installed${extra:+-$extra}" reqs=$LOCK
  want=$(cat pyproject.toml "$LOCK" | cksum)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    if [ -n "$extra" ]; then
      say "installing dicetable, its locked dependencies and the $extra tools into $VENV"
    else
      say "installing dicetable and its locked dependencies into $VENV"
      say "(the test tools come with ./dev.sh test)"
      reqs=$VENV/requirements-runtime.lock
      sed "/^$TEST_MARK/q" "$LOCK" > "$reqs"
    fi
    # --no-compile: Python compiles what it imports when it first does; pip compiling every file
    # of every package first cost a third of the install's time here (benchmarks/RESULTS.md)
    local pip=("$VENV/bin/python" -m pip install -q --no-compile --disable-pip-version-check)
    "${pip[@]}" --require-hashes -r "$reqs"
    "${pip[@]}" --no-deps -e .
    echo "$want" > "$stamp"
    # the extra's install is also the plain one
    [ -z "$extra" ] || echo "$want" > "$VENV/.installed"
  fi
}

ensure_system_packages() {
  local missing=()
  command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null || missing+=(mosquitto)
  # network cameras: an MJPEG stream served by ffmpeg, an RTSP stream by GStreamer's RTSP server
  command -v ffmpeg >/dev/null || missing+=(ffmpeg)
  command -v systemd-analyze >/dev/null || missing+=(systemd)  # checks the unit install-service writes
  command -v pdftoppm >/dev/null || missing+=(poppler-utils)  # reads back the PDFs board print writes
  fc-list "Noto Sans CJK JP" 2>/dev/null | grep -q . || missing+=(fonts-noto-cjk)  # Japanese on the display
  /usr/bin/python3 -c "import gi; gi.require_version('GstRtspServer', '1.0')" 2>/dev/null ||
    missing+=(python3-gi python3-gst-1.0 gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-good)
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing system packages the tests drive: ${missing[*]}"
    as_root apt-get update -q
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q "${missing[@]}"
  fi
}

cmd=${1:-help}
shift || true
case "$cmd" in
  demo)
    ensure_venv
    exec "$VENV/bin/dicetable" demo "$@"
    ;;
  test)
    ensure_venv test
    ensure_system_packages
    say "ruff"
    "$VENV/bin/ruff" check .
    say "mypy"
    "$VENV/bin/mypy"
    # the tests in parallel (pytest-xdist): one worker per core, each taking whole test files (a file's
    # module fixtures, a chromium or a model, start once), the files with slow tests first
    # (tests/conftest.py); `./dev.sh test -n 0` runs them in one process
    say "pytest"
    # the tests start hundreds of Python processes (the CLI, the benchmarks' smoke runs): each keeps
    # the modules it compiled (under .venv/pycache, none beside the sources) for the next, even where
    # the environment says PYTHONDONTWRITEBYTECODE (compiling every import again doubled a CLI test's
    # CPU time here: benchmarks/RESULTS.md)
    unset PYTHONDONTWRITEBYTECODE
    export PYTHONPYCACHEPREFIX="$PWD/$VENV/pycache"
    "$VENV/bin/pytest" -q -n auto --dist loadfile --no-loadscope-reorder --cov --cov-report=term:skip-covered "$@"
    say "engine coverage (must be >= 95 %)"
    "$VENV/bin/coverage" report --include='engine/*' --fail-under=95
    ;;
  lock)
    check_python
    exec "$PY" tools/lock.py "$@"
    ;;
  *)
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
    [ "$cmd" = help ] || exit 2
    ;;
esac
