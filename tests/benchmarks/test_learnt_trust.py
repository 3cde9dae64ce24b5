"""benchmarks/learnt_trust.py weighs a recorded small die's evidence as the reader does (issue 44): the
face from the set's likeness to each stored crop and the OCR head's evidence, and the template's sure
rule before (TRUST_SUPPORT crops alike) and after (one crop alike, the embedding agreeing), and the
check that the embedding and the head do not contradict it (`template.contradicted`), in seconds on a
hand-made record (the benchmark itself reads real frames through the CLI)."""

from __future__ import annotations

from typing import Any

from benchmarks.learnt_trust import derived, sure, tally


def _record(mix: list[float], emb: list[float], face: int = 17, head_value: int = 9) -> dict[str, Any]:
    e = {
        "values": [3, 3, 17, 17, 8, 8],
        "mix": mix,
        "emb": emb,
        "faces": [3, 8, 17],
        "head_evidence": [0.1, 0.1, 0.1],
        "head_value": head_value,
        "head_conf": 0.3,
        "weight": 0.02,
        "value": 17,
    }
    return {"face": face, "die": {"kind": "d20", "value": 17, "confidence": 0.5}, "evidence": e, "others": []}


def test_one_crop_alike_with_the_embedding_agreeing_is_sure_after_not_before() -> None:
    r = _record([0.70, 0.72, 0.90, 0.60, 0.71, 0.65], [0.85, 0.86, 0.92, 0.81, 0.84, 0.83])
    x = derived(r["evidence"])
    assert x is not None and x["face"] == x["nearest"] == 17
    assert x["support"] == 1 and x["taught"] == 2 and abs(x["gap"] - 0.18) < 1e-9
    assert not sure(x, before=True) and sure(x, before=False)
    c = tally([r])["counts"]
    assert c["before unasked"] == c["after unasked"] == 1 and c["after silent"] == 0
    # the same evidence for a die that showed 8: sure after, so a silent error is counted
    assert tally([{**r, "face": 8}])["counts"]["after silent"] == 1
    # the embedding alone nearer another face: asked, before and after
    y = derived(
        _record([0.70, 0.72, 0.90, 0.60, 0.71, 0.65], [0.85, 0.93, 0.92, 0.81, 0.84, 0.83])["evidence"]
    )
    assert y is not None and y["embedding_gap"] < 0 and not sure(y, before=False)
    # face 17 never taught: the set reads the die as 3 (0.72), 0.01 over 8's nearest crop: asked
    z = derived(r["evidence"], drop=17)
    assert z is not None and z["face"] == 3 and not sure(z, before=False)


def test_two_taught_crops_alike_contradicted_by_the_embedding_and_the_head_are_asked_after() -> None:
    """As d20_wood's 6 face-3 rolls read 7 (ends split, no empty table): two stored 7s alike, the
    embedding alone nearer a 3, the head giving 7 nothing: sure before, asked after."""
    r = _record([0.70, 0.66, 0.84, 0.83, 0.60, 0.62], [0.93, 0.90, 0.86, 0.85, 0.80, 0.81], face=3)
    e = {**r["evidence"], "head_evidence": [0.05, 0.01, 0.0], "value": 17}
    x = derived(e)
    assert x is not None and x["face"] == 17 and x["support"] == 2 and x["embedding_gap"] < 0
    assert sure(x, before=False, checked=False) and not sure(x, before=False)
    c = tally([{**r, "evidence": e}])["counts"]
    assert (c["before silent"], c["after silent"]) == (1, 0)
    # the head giving 17 some evidence: sure after too
    y = derived({**e, "head_evidence": [0.05, 0.01, 0.05]})
    assert y is not None and sure(y, before=False)
