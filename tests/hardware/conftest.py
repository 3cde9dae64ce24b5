"""Make ``hardware``/``engine`` resolve to the project's packages, not to the test folders of the same name.

pytest puts ``tests/`` and ``tests/hardware/`` on sys.path (rootdir conftest, prepend import mode), where
``tests/hardware`` and ``tests/engine`` would shadow the real packages as namespace packages.  Putting the
repository root first keeps the imports right whatever order the suite runs in.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if sys.path[0] != ROOT:
    sys.path.insert(0, ROOT)
for name in ("hardware", "engine"):
    mod = sys.modules.get(name)
    if mod is not None and getattr(mod, "__file__", None) is None:  # a namespace package from tests/
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
