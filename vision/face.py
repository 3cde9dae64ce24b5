"""The top face's outline and body colour, found classically around a detected die."""

from __future__ import annotations

import cv2
import numpy as np


def body_labs(crops: list[np.ndarray]) -> np.ndarray:
    """Median Lab colour of the middle of each die crop (N x 3); pips are a minority there."""
    if not crops:
        return np.zeros((0, 3), np.float64)
    h, w = crops[0].shape[:2]
    mids = np.stack([c[h // 4 : h - h // 4, w // 4 : w - w // 4] for c in crops])
    n, mh, mw = mids.shape[:3]
    lab = cv2.cvtColor(mids.reshape(n * mh, mw, 3).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    lab = lab.reshape(n, mh * mw, 3)
    # Pips sit at one end of the lightness range: keep the two thirds of pixels nearest the median L.
    dev = np.abs(lab[..., 0] - np.median(lab[..., 0], axis=1, keepdims=True))
    keep = np.argsort(dev, axis=1)[:, : max(1, (mh * mw * 2) // 3)]
    kept = np.take_along_axis(lab, keep[..., None], axis=1)
    return np.asarray(np.median(kept, axis=1), np.float64)


#: the die's colour is read from the middle of its crop, this share of the crop's side off each
#: edge (the crop is the detector's box grown by vision.crops.MARGIN: 0.2 keeps 0.72 of the box)
COLOUR_EDGE = 0.2
#: and from the pixels nearest the body's colour: this share of them, found by trimming three times
COLOUR_KEEP = 0.35
#: False: the die's colour as before issue 30 (`body_labs`); benchmarks compare the two
COLOUR_BY_MODE = True


def body_colour_labs(crops: list[np.ndarray]) -> np.ndarray:
    """The Lab colour of each die crop's body, for naming it (N x 3).

    With ``COLOUR_BY_BODY`` (issue 45) the die is first told from what lies round it
    (:func:`die_pixels`): its silhouette, pips and glints left out, so a black die with white pips on
    white paper is read from its black plastic, its top face and sides alike.  Then, or when the die
    cannot be told from its surroundings (a die the colour of the table), the colour shared by most
    of the die: starting from the median, each of three rounds keeps the pixels nearest the estimate
    in Lab (``COLOUR_KEEP`` of them) and takes their median.  Pips (of any colour, light or dark),
    glints and the swirls of a marbled die are minorities and drop out, where the median of each
    channel would mix them in.
    """
    if not COLOUR_BY_MODE:
        return body_labs(crops)
    if not crops:
        return np.zeros((0, 3), np.float64)
    if COLOUR_BY_BODY:
        return np.stack([_body_colour_one(c) for c in crops])
    return _middle_mode(crops)


#: False: the body's colour from the middle of the crop as in issue 30 (benchmarks compare the two)
COLOUR_BY_BODY = True
#: the crop's outer ring, this share of its side, is what lies round the die
RING = 0.1
#: ... when this share of it or more is one colour (within DIE_DIST of its median)
RING_PLAIN = 0.6
#: a pixel this far (Lab, lightness halved) from the surroundings' colour is the die's
DIE_DIST = 14.0
#: a die's silhouette covers at least / at most this share of its crop, else it is not told apart
DIE_MIN_SHARE, DIE_MAX_SHARE = 0.12, 0.9
#: a die whose crop's centre (this share of its side) looks like what lies round it, this much of it
#: or more (a pip at the centre is less), is the colour of it, e.g. a white die on white paper
CENTRE, SAME_AS_ROUND = 0.3, 0.6
#: pips and glints: a group of the die's pixels this far from the rest (Lab, lightness halved), and
#: at most this share of the die, is left out of its colour
PIP_GAP, PIP_SHARE = 16.0, 0.42
#: the smaller group is the top face when it holds more than this share of the die's pixels in the
#: crop's centre (``CENTRE``); False: issue 45 item 3's rule alone (benchmarks compare the two)
TOP_HELD = 0.6
#: ... and is at least this share of the die (a face, not pips or a glint), and lighter than the rest
#: by this much (Lab lightness): a light face over its shaded sides
TOP_SHARE, TOP_LIGHTER = 0.25, 20.0
TOP_FACE_FIRST = True
#: a die's look (`die_looks`, what a table's learnt colours compare) takes the larger group of its
#: pixels for its body, never the top-face rule's lighter group at the crop's centre: a learnt look is
#: compared with the die's own sightings, not a palette's names, and the rule took a pip that fills the
#: centre of a crop cut tight round the die's top (the detector's box on its upper half) for the
#: die's face, naming a black die with white pips white (issue 44 item 5, seventh round: chosen on
#: the train photos, `benchmarks/colours_roster.py --ways`)
LOOK_TOP_FACE = False


#: pips the colour of the surroundings are seen as such when they are at least this share of the die
PIP_MIN = 0.02


def die_pixels(crop_bgr: np.ndarray) -> np.ndarray | None:
    """The Lab pixels (K x 3) of a die crop's body (`die_parts`'s body); None when the die cannot be
    told from its surroundings."""
    parts = die_parts(crop_bgr)
    return None if parts is None else parts[0]


def die_parts(crop_bgr: np.ndarray, top_face: bool = True) -> tuple[np.ndarray, np.ndarray | None] | None:
    """The Lab pixels (K x 3) of a die crop's body: the silhouette round the crop's centre that differs
    from the crop's outer ring (what lies round the die), holes (pips) filled to find it, then only
    what differs from the surroundings (white pips on white paper drop out) and not a small group
    far lighter or darker than the rest (pips, glints).  With them, the pixels left out as pips and
    glints (None when none were).  None when the die cannot be told from its surroundings.
    ``top_face`` False: the larger group is the body even where the lighter one holds the crop's
    centre (``TOP_HELD``), as a die's look takes it (``LOOK_TOP_FACE``)."""
    lab = cv2.cvtColor(crop_bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    h, w = lab.shape[:2]
    r = max(1, round(RING * min(h, w)))
    ring = np.concatenate(
        [
            lab[:r].reshape(-1, 3),
            lab[-r:].reshape(-1, 3),
            lab[r:-r, :r].reshape(-1, 3),
            lab[r:-r, -r:].reshape(-1, 3),
        ]
    )
    bg = np.median(ring, axis=0)
    rd = ring - bg
    if float(np.mean((0.5 * rd[:, 0]) ** 2 + rd[:, 1] ** 2 + rd[:, 2] ** 2 <= DIE_DIST**2)) < RING_PLAIN:
        return None  # what lies round the die is no one colour (another die, the die itself): not told apart
    d = lab - bg
    dist = np.sqrt((0.5 * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
    differs = (dist > DIE_DIST).astype(np.uint8)
    # the die's top face lies at the crop's centre: when most of the centre looks like the surroundings,
    # the die is their colour (a white die on white paper; its pips and shaded sides are what differs)
    ch, cw = max(1, round(CENTRE * h / 2)), max(1, round(CENTRE * w / 2))
    if float(differs[h // 2 - ch : h // 2 + ch, w // 2 - cw : w // 2 + cw].mean()) < 1.0 - SAME_AS_ROUND:
        return None
    k = max(3, (min(h, w) // 12) | 1)
    closed = cv2.morphologyEx(differs, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, comp, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    if n < 2:
        return None
    # the component nearest the crop's centre among the large ones
    cy, cx = h / 2, w / 2
    best, best_d = 0, float("inf")
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < 0.04 * h * w:
            continue
        ys, xs = np.nonzero(comp == i)
        dd = float(np.min((ys - cy) ** 2 + (xs - cx) ** 2))
        if dd < best_d:
            best, best_d = i, dd
    if best == 0 or best_d > (0.2 * min(h, w)) ** 2:
        return None
    sil = (comp == best).astype(np.uint8)
    # fill the holes (pips the closing did not join): the silhouette's outer outline, filled
    outline, _ = cv2.findContours(sil, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(sil)
    cv2.drawContours(filled, outline, -1, 1, -1)
    share = float(filled.mean())
    if not DIE_MIN_SHARE <= share <= DIE_MAX_SHARE:
        return None
    inner = cv2.erode(filled, np.ones((3, 3), np.uint8)) > 0
    if not inner.any():
        return None
    # the die's own pixels are those that differ from its surroundings (white pips on white paper drop out)
    px = lab[inner & (differs > 0)]
    # pips the colour of the surroundings (white pips on white paper): inside the die, not differing
    like_round = lab[inner & (differs == 0)]
    dropped: np.ndarray | None = like_round if len(like_round) >= PIP_MIN * len(px) else None
    # pips and glints: a minority far from the rest in Lab (lightness halved), two means apart
    if len(px) >= 16:
        pts = (px * np.array([0.5, 1.0, 1.0], np.float32)).astype(np.float32)
        lbl, centres = _two_means(pts)
        small = lbl.ravel() == int(np.argmin(np.bincount(lbl.ravel(), minlength=2)))
        gap = float(np.linalg.norm(centres[0] - centres[1]))
        if gap >= PIP_GAP:
            # the top face lies at the crop's centre: a group that holds most of the centre's die
            # pixels is the top face, never dropped as pips (a light die's top face on a print, its
            # shaded sides the larger group, is named by its face, not its sides: issue 45 item 1)
            centre = np.zeros((h, w), bool)
            centre[h // 2 - ch : h // 2 + ch, w // 2 - cw : w // 2 + cw] = True
            at_centre = centre[inner & (differs > 0)]
            lighter = float(centres[int(np.argmin(np.bincount(lbl.ravel(), minlength=2)))][0]) - float(
                centres[int(np.argmax(np.bincount(lbl.ravel(), minlength=2)))][0]
            )
            small_top = (
                bool(at_centre.any())
                and float(small[at_centre].mean()) > TOP_HELD
                and small.mean() >= TOP_SHARE
                and 2.0 * lighter >= TOP_LIGHTER
            )
            if small_top and TOP_FACE_FIRST and top_face:
                px = px[small]
            elif small.mean() <= PIP_SHARE:
                px, dropped = (
                    px[~small],
                    (px[small] if dropped is None else np.concatenate([px[small], dropped])),
                )
    return (px, dropped) if len(px) >= 8 else None


#: a die's look also keeps the share of its pixels by hue (issue 44 item 5, third round): a pixel of
#: HUE_CHROMA chroma (Lab) or more counts in the HUE_BINS hue sectors, a greyer one by its lightness
#: (below, between, above GREY_CUTS): a blue/black swirl showing its black top keeps the blue share of
#: its sides, which its body's colour and percentiles lose among the black.  Every step is soft (a
#: pixel shared between the two nearest sectors, between hued and grey within HUE_CHROMA / 2 of it,
#: between two lightness bins within GREY_SOFT of a cut): a pastel die near the chroma limit, an
#: ivory one, is not counted now as hued, now as grey
HUE_BINS, HUE_CHROMA, GREY_CUTS, GREY_SOFT = 12, 6.0, (35.0, 65.0), 5.0
#: the shares of one set of pixels: hue sectors, then grey by lightness
SHARES = HUE_BINS + len(GREY_CUTS) + 1
#: a die's look of one crop: body Lab (3), the spread of its body (9), its pips' Lab (3), the shares
#: of all its pixels (pips and glints too: SHARES) and of its body's (SHARES)
HUED_SIZE = 15 + 2 * SHARES
#: a die's look (fourth round): the look of its crop as it is (HUED_SIZE, what rosters of the third
#: round keep), then the look of its crop cut to the die (`die_cut`)
LOOK_SIZE = 2 * HUED_SIZE


def die_looks(crops: list[np.ndarray]) -> np.ndarray:
    """Each die crop's look (N x LOOK_SIZE), for naming it among dice the table learnt (`vision.looks`):
    its body's Lab (as `body_colour_labs`), the 10th, 50th and 90th percentiles of its body pixels'
    lightness, a and b (the spread of its plastic: a blue/black swirl showing its black top keeps the
    blue of its sides in its upper percentiles, a smoke die its red tint), its pips' Lab (the body's
    own when no pips stand out: a black die with white pips and a smoke die with red pips differ
    there), then the share of the die's pixels by hue (`hue_shares`) of all of it and of its body (a
    swirl's blue side counted even where the two-means took it for pips): HUED_SIZE numbers of the
    crop as it is, then the same of the crop cut to the die (`die_cut`: a neighbour's corner in the
    crop left out).  The crops are taken as they are: balance them by the light first
    (`vision.palette.Palette.balance_bgr`)."""
    if not crops:
        return np.zeros((0, LOOK_SIZE), np.float64)
    return np.stack([np.concatenate([_look_one(c), _look_one(die_cut(c))]) for c in crops])


#: `die_cut`: the crop is the die's box grown by this (`vision.crops.MARGIN`: the reader's and the
#: roster's crops, `controller.roster.die_look`), so the die lies in its middle 1 / CUT_MARGIN
CUT_MARGIN = 1.2
CUT_SAME = True


def die_cut(crop_bgr: np.ndarray) -> np.ndarray:
    """The die's crop with all but the die painted the colour of what lies round it (issue 44 item 5,
    fourth round): the pixels that differ from the colour most of the crop's outer ring shares (the
    table; a neighbour there is a minority, unlike `die_parts`'s median), kept only inside the die's
    box (the crop's middle 1 / CUT_MARGIN: a neighbour's corner beyond it is cut off), closed, the
    region nearest the centre filled (`die_mask`).  The crop as it is when no such region lies near the
    centre."""
    found = die_mask(crop_bgr)
    if found is None:
        return crop_bgr
    die, bg = found
    round_bgr = cv2.cvtColor(bg.astype(np.float32).reshape(1, 1, 3), cv2.COLOR_Lab2BGR).reshape(3)
    out = crop_bgr.copy()
    out[die == 0] = np.clip(np.rint(255.0 * round_bgr), 0, 255).astype(np.uint8)
    return out


def die_mask(crop_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """`die_cut`'s die: its mask (H x W, 1 on the die) and the Lab colour of what lies round it; None
    when the die is the colour of what lies round it or no region lies near the crop's centre."""
    lab = cv2.cvtColor(crop_bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    h, w = lab.shape[:2]
    r = max(1, round(RING * min(h, w)))
    ring = np.zeros((h, w), bool)
    ring[:r], ring[-r:], ring[:, :r], ring[:, -r:] = True, True, True, True
    bg = _mode(lab[ring])
    d = lab - bg
    differs = (np.sqrt((0.5 * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2) > DIE_DIST).astype(np.uint8)
    ch, cw = max(1, round(CENTRE * h / 2)), max(1, round(CENTRE * w / 2))
    if (
        CUT_SAME
        and float(differs[h // 2 - ch : h // 2 + ch, w // 2 - cw : w // 2 + cw].mean()) < 1.0 - SAME_AS_ROUND
    ):
        return None  # the die is the colour of what lies round it (as `die_parts`): not cut
    e = round(h * (1 - 1 / CUT_MARGIN) / 2), round(w * (1 - 1 / CUT_MARGIN) / 2)
    inside = np.zeros((h, w), np.uint8)
    inside[e[0] : h - e[0], e[1] : w - e[1]] = 1
    k = max(3, (min(h, w) // 12) | 1)
    closed = cv2.morphologyEx(
        differs & inside, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    n, comp, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    best, best_d = 0, float("inf")
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < 0.04 * h * w:
            continue
        ys, xs = np.nonzero(comp == i)
        dd = float(np.min((ys - h / 2) ** 2 + (xs - w / 2) ** 2))
        if dd < best_d:
            best, best_d = i, dd
    if best == 0 or best_d > (0.2 * min(h, w)) ** 2:
        return None
    outline, _ = cv2.findContours((comp == best).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    die = np.zeros((h, w), np.uint8)
    cv2.drawContours(die, outline, -1, 1, -1)
    return die, bg


def hue_shares(lab: np.ndarray) -> np.ndarray:
    """The share of the Lab pixels ``lab`` (K x 3) in each of HUE_BINS hue sectors (sector 0 centred
    on +a*, turning towards +b*), then of the greyer ones by lightness (GREY_CUTS), each pixel shared
    softly (see HUE_BINS): SHARES numbers summing to 1 (all 0 for no pixels)."""
    lab = np.asarray(lab, np.float64).reshape(-1, 3)
    out = np.zeros(SHARES, np.float64)
    if not len(lab):
        return out
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    hued = np.clip((chroma - 0.5 * HUE_CHROMA) / HUE_CHROMA, 0.0, 1.0)
    pos = (np.arctan2(lab[:, 2], lab[:, 1]) % (2 * np.pi)) / (2 * np.pi) * HUE_BINS
    low = np.floor(pos)
    up = pos - low
    np.add.at(out, low.astype(int) % HUE_BINS, hued * (1.0 - up))
    np.add.at(out, (low.astype(int) + 1) % HUE_BINS, hued * up)
    grey = 1.0 - hued
    # above each cut (softly): a pixel's share of a lightness bin is being above the cut below it and
    # not above the one above it (the cuts lie more than 2 GREY_SOFT apart)
    above = [np.ones(len(lab))]
    above += [np.clip((lab[:, 0] - cut) / (2 * GREY_SOFT) + 0.5, 0.0, 1.0) for cut in GREY_CUTS]
    above.append(np.zeros(len(lab)))
    for i in range(len(GREY_CUTS) + 1):
        out[HUE_BINS + i] = float((grey * above[i] * (1.0 - above[i + 1])).sum())
    return out / len(lab)


def _look_one(crop: np.ndarray) -> np.ndarray:
    parts = die_parts(crop, LOOK_TOP_FACE) if COLOUR_BY_BODY else None
    if parts is not None:
        px, pips = parts
    else:  # not told apart: the middle of the crop, split into the body and what lies far from it
        h, w = crop.shape[:2]
        a, b = round(h * COLOUR_EDGE), round(w * COLOUR_EDGE)
        lab = cv2.cvtColor(crop[a : h - a, b : w - b].astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
        lab = lab.reshape(-1, 3)
        d = lab - _mode(lab)
        far = np.sqrt((0.5 * d[:, 0]) ** 2 + d[:, 1] ** 2 + d[:, 2] ** 2) > PIP_GAP
        px, pips = (lab[~far], lab[far]) if far.mean() <= PIP_SHARE and (~far).sum() >= 8 else (lab, None)
    body = _mode(px)
    spread = np.percentile(px, [10, 50, 90], axis=0).T.ravel()
    pip = np.median(pips, axis=0) if pips is not None and len(pips) >= 3 else body
    every = px if pips is None else np.concatenate([px, pips])
    return np.concatenate([body, spread, pip, hue_shares(every), hue_shares(px)]).astype(np.float64)


def _two_means(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two means of ``pts`` (N x 3, float32): labels (N x 1) and centres (2 x 3).  Started the same way
    every time - from the median and from the mean of the farthest fifth of the points - not from
    OpenCV's shared random state, with which one die's colour depended on what had run before
    (5.6 % of the labelled real dice changed colour with the random seed)."""
    c0 = np.median(pts, axis=0)
    d0 = np.linalg.norm(pts - c0, axis=1)
    c1 = pts[d0 >= np.percentile(d0, 80)].mean(axis=0)
    init = (np.linalg.norm(pts - c1, axis=1) < d0).astype(np.int32).reshape(-1, 1)
    if init.min() == init.max():  # every point nearer one start: the farthest starts the other group
        init[int(np.argmax(d0))] = 1 - init[0]
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 0.5)
    _, lbl, centres = cv2.kmeans(pts, 2, init, crit, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    return lbl, centres


def _mode(lab: np.ndarray) -> np.ndarray:
    """The colour most of ``lab`` (K x 3) shares: three rounds of keeping the nearest COLOUR_KEEP."""
    est = np.median(lab, axis=0)
    keep = max(1, int(len(lab) * COLOUR_KEEP))
    for _ in range(3):
        near = np.argsort(((lab - est) ** 2).sum(-1))[:keep]
        est = np.median(lab[near], axis=0)
    return np.asarray(est, np.float64)


def _body_colour_one(crop: np.ndarray) -> np.ndarray:
    px = die_pixels(crop)
    if px is None:
        return np.asarray(_middle_mode([crop])[0], np.float64)
    return _mode(px)


def _middle_mode(crops: list[np.ndarray]) -> np.ndarray:
    h, w = crops[0].shape[:2]
    a, b = round(h * COLOUR_EDGE), round(w * COLOUR_EDGE)
    mids = np.stack([c[a : h - a, b : w - b] for c in crops])
    n, mh, mw = mids.shape[:3]
    lab = cv2.cvtColor(mids.reshape(n * mh, mw, 3).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    lab = lab.reshape(n, mh * mw, 3)
    est = np.median(lab, axis=1, keepdims=True)
    keep = max(1, int(mh * mw * COLOUR_KEEP))
    for _ in range(3):
        near = np.argsort(((lab - est) ** 2).sum(-1), axis=1)[:, :keep]
        est = np.median(np.take_along_axis(lab, near[..., None], axis=1), axis=1, keepdims=True)
    return np.asarray(est[:, 0], np.float64)


def body_lab(crop_bgr: np.ndarray) -> np.ndarray:
    """Median Lab colour of the middle of one die crop."""
    return np.asarray(body_labs([crop_bgr])[0], np.float64)


#: segmenting the top face: lightness counts this much against colour.  Shading darkens the
#: sides of a die seen off-axis far more than it changes their hue, so lightness must count
#: fully here (unlike colour naming) or the sides join the top face and the outline grows.
FACE_L_WEIGHT = 2.0
FACE_MAX_DIST = 18.0
#: the region round a die is shrunk to at most this many pixels a side: one pixel of it is
#: about 1.5 % of a die, finer than the 3 % a die's top face grows by per level of a stack
FACE_WORK = 96


def face_quad(
    image: np.ndarray, center: tuple[float, float], w: float, h: float, lab: np.ndarray
) -> tuple[np.ndarray, float] | None:
    """Rotated outline of the die's top face (4x2 float, clockwise from top-left) and its aspect ratio.

    The top face is the connected region round ``center`` within ``FACE_MAX_DIST`` of the body
    colour ``lab`` (L weighted by ``FACE_L_WEIGHT``), pips closed in.  None when the body cannot be
    told from its surroundings (e.g. a die the colour of the table).
    """
    side = 1.4 * max(w, h)
    x0, y0 = int(max(0, center[0] - side / 2)), int(max(0, center[1] - side / 2))
    x1, y1 = int(min(image.shape[1], center[0] + side / 2)), int(min(image.shape[0], center[1] + side / 2))
    if x1 - x0 < 6 or y1 - y0 < 6:
        return None
    k = min(1.0, FACE_WORK / max(x1 - x0, y1 - y0))
    region = (
        cv2.resize(image[y0:y1, x0:x1], None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        if k < 1
        else image[y0:y1, x0:x1]
    )
    # 8-bit Lab is much faster; it stores L * 255 / 100 and a, b offset by 128.
    rl = cv2.cvtColor(np.ascontiguousarray(region), cv2.COLOR_BGR2Lab).astype(np.float32)
    dl = (rl[..., 0] * (100 / 255) - float(lab[0])) * FACE_L_WEIGHT
    dist2 = dl * dl + (rl[..., 1] - (float(lab[1]) + 128)) ** 2 + (rl[..., 2] - (float(lab[2]) + 128)) ** 2
    mask = (dist2 < FACE_MAX_DIST**2).astype(np.uint8)
    ks = max(3, round(0.25 * max(w, h) * k) | 1)
    # zero margin: OpenCV's closing treats outside the region as set, which grows a face that
    # reaches the region's edge
    mask = cv2.copyMakeBorder(mask, ks, ks, ks, ks, cv2.BORDER_CONSTANT, value=0)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ks, ks)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    mask = np.ascontiguousarray(mask[ks:-ks, ks:-ks])
    _, labels = cv2.connectedComponents(mask, connectivity=4)
    cx, cy = int((center[0] - x0) * k), int((center[1] - y0) * k)
    cy, cx = min(max(cy, 0), labels.shape[0] - 1), min(max(cx, 0), labels.shape[1] - 1)
    lab_id = labels[cy, cx]
    if lab_id == 0:
        return None
    # pixel centres: a run of n pixels covers n pixels, but its centres span only n - 1
    # (the region's outer boundary pixels have the same minimum-area rectangle as all its pixels)
    contours, _ = cv2.findContours(
        (labels == lab_id).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE
    )
    pts = np.concatenate(contours).reshape(-1, 2).astype(np.float32) + 0.5
    (rx, ry), (rw, rh), angle = cv2.minAreaRect(pts)
    rw, rh = rw + 1.0, rh + 1.0
    area_ratio = (rw * rh) / max(1e-6, (w * k) * (h * k))
    if not 0.25 <= area_ratio <= 1.5:  # the detector's box may hold the sides and shadow too
        return None
    quad = cv2.boxPoints(((rx, ry), (rw, rh), angle)) / k + np.array([x0, y0], np.float32)
    # Order clockwise starting from the corner nearest the top-left.
    c = quad.mean(0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    quad = quad[np.argsort(ang)]
    start = int(np.argmin(quad[:, 0] + quad[:, 1]))
    quad = np.roll(quad, -start, axis=0)
    return quad, max(rw, rh) / max(1e-6, min(rw, rh))
