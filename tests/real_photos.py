"""The one skip marker for tests that read the shared real photos (``../shared/fixtures/real``).

    needs_real = real_photos("d20_lurig/labels.csv")

    @needs_real
    def test_...

A test so marked is skipped, naming the folder and what is missing, only where the photos are absent
(a clone without ``../shared`` beside it); wherever they are, it runs.
"""

from __future__ import annotations

import pytest

from training.numbered.real import default_root

#: the shared real photos (``../shared/fixtures/real``, looked for beside the repo and above it)
REAL = default_root()


def real_photos(*wanted: str) -> pytest.MarkDecorator:
    """Skip unless every path of ``wanted`` (relative to :data:`REAL`) is there."""
    if not wanted:
        raise ValueError("real_photos: name at least one file or folder of the real photos it needs")
    missing = [w for w in wanted if not (REAL / w).exists()]
    return pytest.mark.skipif(
        bool(missing),
        reason=f"the shared real photos are not at {REAL} (missing: {', '.join(missing)}; ../shared absent)",
    )
