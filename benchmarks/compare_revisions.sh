#!/usr/bin/env bash
# Run the d6, numbered, geometry and live benchmarks on two revisions of this repository in one run,
# one after the other (so both see the same machine and load), for a side-by-side comparison.
#
#   benchmarks/compare_revisions.sh REV_A REV_B OUT_DIR
#   BENCHES="live" benchmarks/compare_revisions.sh REV_A REV_B OUT_DIR   (only these, by name)
#
# Each revision is checked out into a temporary worktree beside this one (so ../shared resolves),
# and run with its own benchmark scripts (python -m benchmarks.NAME) and this checkout's .venv. OUT_DIR gets
# NAME_A.md / NAME_B.md per benchmark (A and B are the short hashes) and the logs.
set -euo pipefail
[ $# -eq 3 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
py="$here/.venv/bin/python"
out=$(mkdir -p "$3" && cd "$3" && pwd)
trees=()
cleanup() { for t in "${trees[@]}"; do git -C "$here" worktree remove --force "$t" 2>/dev/null || true; done; }
trap cleanup EXIT
for rev in "$1" "$2"; do
  short=$(git -C "$here" rev-parse --short "$rev")
  tree="$here/../.compare-$short"
  git -C "$here" worktree add -q --detach "$tree" "$rev"
  trees+=("$tree")
done
for bench in "vision_d6 --out" "vision_numbered --out" "geometry --split test --markdown" "live --out"; do
  name=${bench%% *}
  [ -z "${BENCHES:-}" ] || [[ " $BENCHES " == *" $name "* ]] || continue
  for tree in "${trees[@]}"; do
    short=${tree##*.compare-}
    echo "==> $name at $short" >&2
    # shellcheck disable=SC2086  # $bench is the module and its options, split on purpose
    (cd "$tree" && PYTHONPATH="$tree" nice -n 5 "$py" -m benchmarks.$bench "$out/${name}_$short.md" \
      > "$out/${name}_$short.log" 2>&1) || { echo "error: $name at $short failed, see $out/${name}_$short.log" >&2; exit 1; }
  done
done
echo "wrote $out" >&2
