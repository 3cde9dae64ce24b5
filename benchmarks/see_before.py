"""Session 21's `learn-dice see` grouping, kept for before-and-after runs (issue 44, session 22).

Its own module so that benchmarks/learn_groups.py, learnt_render20.py and learnt_cli_small.py can
all import it without importing each other.
"""

from __future__ import annotations

import numpy as np

#: session 21's `group_faces` (before purity first, issue 44 session 22): average linkage at 0.88, the
#: OCR head's readings of two values at >= 0.7 kept apart, then groups whose sure readings are one
#: value joined at >= 0.6 alike, with or without the camera's view
SESSION21 = {"link": 0.88, "sure": 0.7, "ocr_link": 0.6}


def session21(
    boxed: np.ndarray,
    own: np.ndarray | None = None,
    ocr: list[tuple[int, float] | None] | None = None,
    link: float = SESSION21["link"],
    looks: np.ndarray | None = None,
    top: bool = False,
) -> list[int]:
    """Session 21's `learn_dice.group_faces` (SESSION21), its arguments as today's (``top`` unused):
    the "before" way here and in benchmarks/learnt_render20.py's "... (see before)" ways."""
    from controller.learn_dice import LOOK_APART, _linked, _numbered
    from vision.numbered.embed import likeness

    n = len(boxed)
    if n == 0:
        return []
    sims = likeness(boxed, boxed[:, 0])
    if own is not None:
        sims = (sims + likeness(own, own[:, 0])) / 2
    sims = np.maximum(sims, sims.T).astype(np.float64)
    sure = np.array([o is not None and o[1] >= SESSION21["sure"] for o in ocr or [None] * n])
    value = np.array([o[0] if o is not None else -1 for o in ocr or [None] * n])
    apart = sure[:, None] & sure[None, :] & (value[:, None] != value[None, :])
    if looks is not None:
        lab = np.asarray(looks, np.float64).reshape(n, 3)
        apart |= np.linalg.norm(lab[:, None] - lab[None, :], axis=2) >= LOOK_APART
    groups = _linked(sims, link, apart if apart.any() else None)
    while True:
        best: tuple[float, int, int] | None = None
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                va = {int(value[i]) for i in groups[a] if sure[i]}
                vb = {int(value[i]) for i in groups[b] if sure[i]}
                if len(va) != 1 or va != vb:
                    continue
                m = float(sims[np.ix_(groups[a], groups[b])].mean())
                if m >= SESSION21["ocr_link"] and (best is None or m > best[0]):
                    best = (m, a, b)
        if best is None:
            break
        _, a, b = best
        groups[a] = groups[a] + groups.pop(b)
    return _numbered(groups, n)
