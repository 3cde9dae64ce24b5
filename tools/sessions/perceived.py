"""Write (or check) what the table's perception step reads on every frame the five demo sessions read.

    python tools/sessions/perceived.py            # write tests/fixtures/sessions/perceived.json
    python tools/sessions/perceived.py --check    # compare this checkout's readings with it

Each demo session is played as ``dicetable demo --no-serve`` plays it; every call of the table's
`controller.perceive.Perceiver.perceive` (early reads included) is noted: the frame's file, the empty
table the motion gate had (the recorded frame it copied), the call's arguments and the whole reading
set it gave (`ReadingSet.to_json` and the candidates rejected, with why).  The fixture pins what the
perception step reads, so that work on its cost (issue 32) cannot change a reading unnoticed:
``tests/controller/test_perceived.py`` reads the same frames with the same arguments and compares.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = ROOT / "tests" / "fixtures" / "sessions"
OUT = SESSIONS / "perceived.json"
DEMOS = ("dice-fighter", "die-angler", "dicetar-wars", "nozoku-dice", "dice-hunter")


def _digest(image: Any) -> str:
    return hashlib.sha1(image.tobytes()).hexdigest()


def _frames(folder: Path) -> dict[str, str]:
    """Each recorded frame's pixels (a digest of them) -> its file name."""
    import cv2

    out: dict[str, str] = {}
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() in (".jpg", ".jpeg", ".png"):
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is not None:
                out.setdefault(_digest(img), p.name)
    return out


def reading(out: Any) -> dict[str, Any]:
    """A reading set as the fixture keeps it (rejected candidates included, with why)."""
    got = out.to_json()
    got["rejected"] = [r.to_json() for r in out.rejected]
    got["board_problem"] = out.board_problem
    got["pose_found"] = out.pose_found
    return json.loads(json.dumps(got))


def play(game: str) -> list[dict[str, Any]]:
    """Every perceive call of one demo session's play."""
    from controller.demo import run_demo, session_dir

    folder = session_dir(game)
    files = _frames(folder)
    calls: list[dict[str, Any]] = []

    def observe(table: Any) -> None:
        per = table.perceiver
        inner = per.perceive

        def perceive(image: Any, **kw: Any) -> Any:
            out = inner(image, **kw)
            empty = per.where._given
            args = {k: (sorted(v) if isinstance(v, (set, frozenset)) else v) for k, v in kw.items()}
            calls.append(
                {
                    "frame": files[_digest(image)],
                    "empty": None if empty is None else files[_digest(empty)],
                    "args": json.loads(json.dumps(args)),
                    "read": reading(out),
                }
            )
            return out

        per.perceive = perceive

    with tempfile.TemporaryDirectory() as tmp:
        run_demo(game, db=Path(tmp) / "demo.sqlite3", serve=False, quiet=True, observe=observe)
    return calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the fixture instead of writing it")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    got = {game: play(game) for game in DEMOS}
    if not args.check:
        OUT.write_text(json.dumps(got, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {OUT} ({sum(len(v) for v in got.values())} reading sets)")
        return
    want = json.loads(OUT.read_text(encoding="utf-8"))
    bad = [
        f"{game} #{i}"
        for game in DEMOS
        for i, (a, b) in enumerate(zip(got[game], want.get(game, []), strict=False))
        if a != b
    ]
    bad += [game for game in DEMOS if len(got[game]) != len(want.get(game, []))]
    print("unchanged" if not bad else f"changed: {', '.join(bad)}")
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
