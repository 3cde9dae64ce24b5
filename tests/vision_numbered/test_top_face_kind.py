"""`learn-dice see` cuts each die as the set's kind, as `read` cuts a learnt set's die (issue 44): at 60 px
the classifier calls most readings of a real tilted d20 d6 or d10 (13 of 16 taught crops of the proxy's
d20_off-angle), so a crop cut by the reading's own kind was not cut on the top face while `read` (by the
set's kind) was: with `[vision] camera_tilt_deg` stated, the proxy's own learn frames fell 100 -> 50 %
(benchmarks/learnt_cli_small.py --ways after,view, RESULTS "the stated view on real tilted d20s")."""

from __future__ import annotations

import numpy as np

from tests.vision_numbered.test_top_face import _red, _scene
from vision.numbered.reader import NumberedReader
from vision.oblique import Tilt


def test_crops_of_cuts_the_set_kind_on_its_top_face() -> None:
    frame, table, _, _ = _scene((1.5, 2.0), 17.0)
    ys, xs = np.nonzero(np.any(frame != table, axis=2))
    x0, x1, y0, y1 = float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max())
    quad = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    # the classifier misread the d20's kind, as it does at 60 px
    misread = {"kind": "d6", "value": 3, "center": [(x0 + x1) / 2, (y0 + y1) / 2], "quad": quad}
    reader = NumberedReader(ocr=False)
    reader.top_view = Tilt(45.0, 90.0)
    for crop in ("die", "face"):
        taught = reader.crops_of(frame, [misread], crop, table, at_peak=False, kind="d20")[0]
        assert _red(taught), crop  # the top face, as `read` cuts a d20 set's die
        # by the reading's own kind (a d6: no solid known) it is cut on the whole outline, as before
        assert not _red(reader.crops_of(frame, [misread], crop, table, at_peak=False)[0]), crop
