"""The numbered reader's classes: 'not a die', then every (kind, value) a top face can show."""

from __future__ import annotations

KINDS = ("d6", "d10", "d10p", "d20")
VALUES: dict[str, tuple[int, ...]] = {
    "d6": (1, 2, 3, 4, 5, 6),
    "d10": tuple(range(10)),
    "d10p": tuple(range(0, 100, 10)),
    "d20": tuple(range(1, 21)),
}
#: Class 0 is "not a die"; class i >= 1 is CLASSES[i] = (kind, value).
CLASSES: tuple[tuple[str, int], ...] = (("none", 0), *((k, v) for k in KINDS for v in VALUES[k]))
INDEX: dict[tuple[str, int], int] = {c: i for i, c in enumerate(CLASSES)}
#: For each kind, the class indices of its values (to sum a kind's probability).
KIND_SLICES: dict[str, slice] = {}
_start = 1
for _k in KINDS:
    KIND_SLICES[_k] = slice(_start, _start + len(VALUES[_k]))
    _start += len(VALUES[_k])
