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


def parse_kinds(spec: str | object) -> tuple[str, ...]:
    """The kinds a table reads, from "d6,d10,d10p,d20" (any subset, any order) or a list of names;
    raises ValueError naming the input and the kinds there are."""
    names = spec.split(",") if isinstance(spec, str) else spec
    try:
        got = [str(n).strip().lower() for n in names]  # type: ignore[attr-defined]
    except TypeError:
        raise ValueError(f"kinds: expected a list of {', '.join(KINDS)}, got {spec!r}") from None
    bad = [n for n in got if n not in KINDS]
    if bad or not got:
        raise ValueError(
            f"kinds: expected one or more of {', '.join(KINDS)} separated by commas, got {spec!r}"
            + (f" ({', '.join(map(repr, bad))} is not a kind)" if bad else "")
        )
    return tuple(k for k in KINDS if k in got)
