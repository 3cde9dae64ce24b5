"""Named die body colours, matched in CIE Lab; loadable from a dict (e.g. `calibrate colours`).

A die's colour is named among the colours in play (:meth:`Palette.known`: the game's colours and
what is not a die) by a chroma-aware distance (:func:`chroma_distance`): hue counts most, chroma by
its ratio and lightness little, so a pastel rendering of a plastic and a saturated one get the same
name, and white wins only when the die's chroma is low next to the coloured dice in play.

Without a learnt palette the table names each die among the game's colours under its own
light: :meth:`Palette.balanced` takes the board's paper white and its markers' black as this
camera sees them (``calibration.boardlight``) and maps every die's colour to what it would be
under neutral light, relative to the paper, before it is compared with the typical plastic
colours.  The die's top face lies in the board's plane, so it is lit as the paper is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

# Typical body colours of plastic dice under white light (BGR). The five Die-angler
# colours, white and black, plus orange and pink, which four-colour sets such as
# Nozoku Dice's commonly use; a table can load its own measured palette instead.
DEFAULT_BGR: dict[str, tuple[int, int, int]] = {
    "red": (45, 40, 195),
    # a royal blue as cameras see blue plastic (Lab 38.6 17.9 -48.9, hue -70; issue 45 item 3, second
    # round: the nominal (170, 90, 30), hue -77, left real opaque blue dice, seen at -57..-64, half way
    # to purple at -40; chosen on the labelled train photos, keeping every pastel rendering its name)
    "blue": (171, 86, 57),
    "green": (70, 150, 40),
    "purple": (130, 50, 110),
    "yellow": (40, 200, 230),
    "orange": (30, 120, 235),
    "pink": (170, 120, 235),
    "white": (230, 230, 230),
    "black": (40, 40, 40),
}

#: More plastic colours a game or ``dicetable read --colours`` may name (nominal, under white light,
#: BGR): the default palette keeps its nine; these join only when they are in play (:meth:`Palette.known`).
MORE_BGR: dict[str, tuple[int, int, int]] = {
    # a jade teal (RGB 20, 128, 110): the green-blue marbled plastics sold as teal lie between
    # green and the web's teal (0, 128, 128); chosen on real train photos (issue 30 item 2, session 14)
    "teal": (110, 128, 20),
    "maroon": (50, 30, 120),
    "brown": (40, 90, 140),
    "grey": (128, 128, 128),
}
#: every colour name the table knows without a measured palette
KNOWN_COLOURS: tuple[str, ...] = (*DEFAULT_BGR, *MORE_BGR)


@dataclass(frozen=True)
class ChromaWeights:
    """The weights of :func:`chroma_distance`.

    ``l_weight``: how much lightness counts (exposure and shading move it most, and a pastel
    rendering is lighter); ``scale`` and ``floor``: the chroma ratio's (a pastel die has a fraction
    of its plastic's chroma: a ratio, not a difference; the floor sets how few units of chroma still
    count, so a dark purple's few are not a black's none).
    """

    l_weight: float = 0.45
    scale: float = 15.0
    floor: float = 3.0


#: the chroma-aware distance's weights, chosen on 297 dice of real byler_d6 train photos labelled by
#: eye (benchmarks/labels/d6_colours_train.csv and d6_colours_tune.csv; issue 30 item 2, session 14):
#: the most right from the reader's crop and the labelled box together, among the weights that keep
#: every pastel and saturated rendering of a game's plastic its name (tests/vision/test_palette_chroma.py)
#: and name no more of those photos' black dice otherwise among Die-angler's colours than before
CHROMA = ChromaWeights()
#: the weights before (session 13: lightness 0.3, the chroma ratio x20 with a floor of 5)
CHROMA_S13 = ChromaWeights(l_weight=0.3, scale=20.0, floor=5.0)

#: a die whose distance to its nearest colour is at least this share of its distance to the next
#: lies between the two (`Palette.near_two`): chosen on the real labelled photos
#: (benchmarks/colours_real.py, issue 45): half the wrongly named dice are this near their runner-up,
#: against 6 % of all dice among every colour of a photo (far fewer between two players' colours)
COLOUR_ASK_RATIO = 0.8

#: Linear reflectance of printed black ink relative to the paper (matte laser or inkjet black).
INK_BLACK = 0.03


def _to_linear(v: np.ndarray) -> np.ndarray:
    """sRGB 0..1 -> linear light."""
    v = np.clip(v, 0.0, None)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def _to_srgb(v: np.ndarray) -> np.ndarray:
    v = np.clip(v, 0.0, None)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def chroma_distance(lab: np.ndarray, ref: np.ndarray, weights: ChromaWeights = CHROMA) -> float:
    """How far a die's Lab colour is from a reference, hue first.

    Hue: the CIE ΔH (the chord between the two hues scaled by their chromas), so a small hue error
    on a grey costs nothing and on a vivid colour much; chroma: the log of the ratio of the two
    (with a floor), so a die half as saturated as its plastic is as near as one twice as
    saturated, and a grey is far from every colour; lightness: weighted down (``weights``).
    """
    c = float(np.hypot(lab[1], lab[2]))
    cr = float(np.hypot(ref[1], ref[2]))
    dh2 = max(0.0, float((lab[1] - ref[1]) ** 2 + (lab[2] - ref[2]) ** 2) - (c - cr) ** 2)
    dc = weights.scale * float(np.log((c + weights.floor) / (cr + weights.floor)))
    dl = weights.l_weight * float(lab[0] - ref[0])
    return float(np.sqrt(dl * dl + dc * dc + dh2))


def frame_light(image_bgr: np.ndarray) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """The light of a frame with no board to read it from: (white, black) as BGR 0..255, for
    :meth:`Palette.balanced`.

    Grey world over the frame's near-neutral pixels (its floor, tray or table: the pixels of
    little saturation, neither clipped nor in deep shadow) gives the light's colour; the brightest of
    them (98th percentile of their lightness) gives the white's level; black is the ink's share of
    that white, so balancing only scales each channel.  Raises ValueError for a frame with too few
    such pixels (a frame filled by one colour).
    """
    img = np.asarray(image_bgr)
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise ValueError(f"frame light: expected a BGR uint8 image, got {img.dtype} {img.shape}")
    step = max(1, -(-max(img.shape[:2]) // 200))  # about 200 samples a side: a statistic, not a picture
    small = img[::step, ::step]
    v = small.reshape(-1, 3).astype(np.float64) / 255.0
    hi, lo = v.max(axis=1), v.min(axis=1)
    ok = (hi < 0.98) & (hi > 0.08) & ((hi - lo) < 0.25 * hi + 0.02)
    if int(ok.sum()) < max(50, v.shape[0] // 50):
        raise ValueError("frame light: too few near-neutral pixels in the frame to estimate its light")
    lin = _to_linear(v[ok])
    cast = lin.mean(axis=0)
    cast = cast / float(cast.max())
    level = float(np.percentile(lin.max(axis=1) / cast.max(), 98))
    white_lin = np.clip(cast * level, 1e-3, 1.0)
    white = 255.0 * _to_srgb(white_lin)
    black = 255.0 * _to_srgb(white_lin * INK_BLACK)
    if not np.all(white - black >= 8.0):
        raise ValueError("frame light: the frame is too dark to estimate its light")
    return (
        (float(white[0]), float(white[1]), float(white[2])),
        (float(black[0]), float(black[1]), float(black[2])),
    )


def bgr_to_lab(bgr: tuple[float, float, float]) -> np.ndarray:
    px = np.array([[bgr]], np.float32) / 255.0
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0], np.float64)


@dataclass(frozen=True)
class Palette:
    """Reference colours by name, stored as Lab (L 0..100, a and b about -128..127)."""

    lab: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    lightness_weight: float = 0.5  # lighting changes L more than hue, so L counts less
    #: the board's paper white and ink black in this frame (BGR 0..255): colours are balanced by
    #: them before they are named (:meth:`balanced`); None: named as the camera sees them
    light: tuple[tuple[float, float, float], tuple[float, float, float]] | None = None
    #: "chroma": :func:`chroma_distance` (hue first); "lab": the Lab distance with lightness
    #: weighted by ``lightness_weight`` (the table's way before issue 30; benchmarks compare them)
    metric: str = "chroma"
    #: the chroma distance's weights (benchmarks name with the earlier ones, CHROMA_S13, beside)
    chroma: ChromaWeights = CHROMA

    @classmethod
    def default(cls) -> Palette:
        return cls.from_dict({name: {"bgr": list(v)} for name, v in DEFAULT_BGR.items()})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Palette:
        """{"red": {"bgr": [b, g, r]}} or {"red": {"lab": [L, a, b]}} or {"red": [b, g, r]}."""
        if not isinstance(data, Mapping) or not data:
            raise ValueError(
                f"palette: expected a non-empty mapping of colour name to BGR or Lab, got {data!r}"
            )
        lab: dict[str, tuple[float, float, float]] = {}
        for name, spec in data.items():
            if isinstance(spec, Mapping) and "lab" in spec:
                vals, space = spec["lab"], "lab"
            elif isinstance(spec, Mapping) and "bgr" in spec:
                vals, space = spec["bgr"], "bgr"
            else:
                vals, space = spec, "bgr"
            ok = isinstance(vals, list | tuple) and len(vals) == 3
            ok = ok and all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals)
            if not ok or not isinstance(name, str) or not name:
                raise ValueError(
                    f"palette entry {name!r}: expected three numbers as bgr [b, g, r] (0..255) "
                    f"or lab [L, a, b], got {spec!r}"
                )
            if space == "bgr":
                if not all(0 <= v <= 255 for v in vals):
                    raise ValueError(
                        f"palette entry {name!r}: bgr values must be within 0..255, got {vals!r}"
                    )
                lab[name] = tuple(float(x) for x in bgr_to_lab(tuple(vals)))  # type: ignore[assignment]
            else:
                lab[name] = (float(vals[0]), float(vals[1]), float(vals[2]))
        return cls(lab)

    @classmethod
    def known(cls, names: Iterable[str]) -> Palette:
        """The palette of ``names`` among the colours the table knows (`KNOWN_COLOURS`), those it
        does not know left out; the default palette when it knows none of them."""
        wanted = {n.lower() for n in names}
        refs = {k: v for k, v in {**DEFAULT_BGR, **MORE_BGR}.items() if k in wanted}
        if not refs:
            return cls.default()
        return cls.from_dict({name: {"bgr": list(v)} for name, v in refs.items()})

    @classmethod
    def parse_colours(cls, text: str, what: str = "--colours") -> tuple[str, ...]:
        """Colour names from a comma-separated list (e.g. ``--colours red,blue``); raises ValueError
        naming ``what`` and the known names for an unknown or empty one."""
        names = tuple(n.strip().lower() for n in str(text).split(","))
        bad = [n for n in names if n not in KNOWN_COLOURS]
        if not names or bad or any(not n for n in names):
            shown = ", ".join(repr(n) for n in bad) if bad else repr(text)
            raise ValueError(
                f"{what}: unknown colour {shown}; expected comma-separated names among "
                f"{', '.join(KNOWN_COLOURS)} (e.g. {what} red,blue)"
            )
        return tuple(dict.fromkeys(names))

    def only(self, names: Iterable[str]) -> Palette:
        """This palette cut down to ``names`` (those it has); itself when it has none of them.

        A table that knows which colours its dice come in names every die by the nearest of
        those: a red die under warm light is red, not orange or pink.
        """
        wanted = {n.lower() for n in names}
        lab = {k: v for k, v in self.lab.items() if k.lower() in wanted}
        return replace(self, lab=lab) if lab else self

    def balanced(self, white_bgr: Iterable[float], black_bgr: Iterable[float]) -> Palette:
        """This palette naming colours under the light in which the board's paper looks ``white_bgr``
        and its markers' ink ``black_bgr`` (BGR, 0..255; ``calibration.boardlight.board_light``).

        Each channel is mapped, in linear light, so that the paper becomes white and the ink its
        nominal black: a warm or cool light, a dim or bright exposure, a camera's own white
        balance are taken out, and a die is compared with the colours as they look on white paper.
        """
        white, black = tuple(float(v) for v in white_bgr), tuple(float(v) for v in black_bgr)
        if (
            len(white) != 3
            or len(black) != 3
            or not all(w - k >= 8.0 for w, k in zip(white, black, strict=True))
        ):
            raise ValueError(
                "palette light: expected the paper's white and the ink's black as BGR, white above "
                f"black in every channel, got white {white!r}, black {black!r}"
            )
        return replace(self, light=(white, black))

    def balanced_by_frame(self, image_bgr: np.ndarray) -> Palette:
        """This palette balanced by the frame's own light (:func:`frame_light`: grey world and the
        brightest near-neutral pixels), for a frame with no board; unchanged when it cannot be
        estimated."""
        try:
            white, black = frame_light(image_bgr)
        except ValueError:
            return self
        return self.balanced(white, black)

    def balance_lab(self, lab: np.ndarray) -> np.ndarray:
        """A Lab colour seen under this frame's light, as it would look under neutral light."""
        if self.light is None:
            return np.asarray(lab, np.float64)
        bgr = cv2.cvtColor(np.asarray(lab, np.float32).reshape(1, 1, 3), cv2.COLOR_Lab2BGR).reshape(3)
        w = _to_linear(np.asarray(self.light[0]) / 255.0)
        k = _to_linear(np.asarray(self.light[1]) / 255.0)
        lin = INK_BLACK + (_to_linear(bgr.astype(np.float64)) - k) / (w - k) * (1.0 - INK_BLACK)
        # a die lighter than the paper (or than the floor a frame's light was read from) keeps its
        # hue and chroma: scaled down into range, not clipped channel by channel
        lin = np.clip(lin, 0.0, None) / max(1.0, float(lin.max()))
        out = _to_srgb(lin).astype(np.float32).reshape(1, 1, 3)
        return np.asarray(cv2.cvtColor(out, cv2.COLOR_BGR2Lab).reshape(3), np.float64)

    def balance_bgr(self, image_bgr: np.ndarray) -> np.ndarray:
        """An image (a die's crop, BGR uint8) as it would look under neutral light: `balance_lab`'s
        mapping applied to every pixel; unchanged without a light."""
        if self.light is None:
            return image_bgr
        w = _to_linear(np.asarray(self.light[0]) / 255.0)
        k = _to_linear(np.asarray(self.light[1]) / 255.0)
        lin = INK_BLACK + (_to_linear(np.asarray(image_bgr, np.float64) / 255.0) - k) / (w - k) * (
            1.0 - INK_BLACK
        )
        lin = np.clip(lin, 0.0, None)
        lin = lin / np.maximum(1.0, lin.max(axis=-1, keepdims=True))
        return np.clip(np.rint(255.0 * _to_srgb(lin)), 0, 255).astype(np.uint8)

    def to_dict(self) -> dict[str, dict[str, list[float]]]:
        return {name: {"lab": [round(v, 2) for v in lab]} for name, lab in self.lab.items()}

    def describe(self, crops: list[np.ndarray]) -> np.ndarray:
        """What this palette names a die by, from each die's crop: its body's Lab
        (`vision.face.body_colour_labs`; a palette of learnt looks, `vision.looks`, takes more)."""
        from vision.face import body_colour_labs

        return body_colour_labs(crops)

    def describe_at(self, image: np.ndarray, boxes: list[Any], crops: list[np.ndarray]) -> np.ndarray:
        """What this palette names each die found in ``image`` by: `describe` of its classifier's crop
        (``crops``); a palette of learnt looks reads the die at the image's own pixels instead, cut
        at its detector's box (``boxes``, 4 corners each: `vision.looks.LearntPalette.describe_at`)."""
        return self.describe(crops)

    def looks_at(
        self, image: np.ndarray, boxes: list[Any], crops: list[np.ndarray]
    ) -> list[tuple[str, str | None, tuple[float, ...]]] | None:
        """For a reader that names a die by its body's colour (the numbered dice reader): each die's
        name, the colour it lies nearly as near (asked; None: clear) and the look it was named by, when
        this palette names dice by a look read at their detector's box (``boxes``: a palette of learnt
        looks, `vision.looks.LearntPalette.looks_at`, as the d6 reader names them); None: this palette
        names them by their body's colour, as that reader does (``crops``: its body crops)."""
        return None

    def nearest_lab(self, lab: np.ndarray) -> tuple[str, float]:
        """The closest colour name to a Lab value, and its weighted distance."""
        lab = self.balance_lab(lab)
        best, dist = "", float("inf")
        for name, ref in self.lab.items():
            if self.metric == "chroma":
                dd = chroma_distance(lab, np.asarray(ref), self.chroma)
            else:
                d = lab - np.asarray(ref)
                dd = float(np.sqrt((self.lightness_weight * d[0]) ** 2 + d[1] ** 2 + d[2] ** 2))
            if dd < dist:
                best, dist = name, dd
        return best, dist

    def near_two(self, lab: np.ndarray) -> tuple[str, str | None]:
        """The closest colour name to a Lab value, and the next closest when the die lies nearly as
        near it (its distance to the closest at least ``COLOUR_ASK_RATIO`` of its distance to the
        next): a die between two colours, whose owner a person must tell (issue 45)."""
        if self.metric != "chroma" or len(self.lab) < 2:
            return self.nearest_lab(lab)[0], None
        b = self.balance_lab(lab)
        ranked = sorted(
            (chroma_distance(b, np.asarray(ref), self.chroma), name) for name, ref in self.lab.items()
        )
        (d1, n1), (d2, n2) = ranked[0], ranked[1]
        return n1, (n2 if d1 >= COLOUR_ASK_RATIO * d2 else None)

    def nearest(self, bgr: tuple[float, float, float]) -> str:
        return self.nearest_lab(bgr_to_lab(bgr))[0]


#: the blue reference before issue 45 item 3's second round (BGR)
BLUE_I45: tuple[int, int, int] = (170, 90, 30)


def blue_before(palette: Palette) -> Palette:
    """``palette`` with the blue reference it had before issue 45 item 3's second round (benchmarks
    name with both in one run)."""
    if "blue" not in palette.lab:
        return palette
    lab = {**palette.lab, "blue": tuple(float(x) for x in bgr_to_lab(BLUE_I45))}
    return replace(palette, lab=lab)  # type: ignore[arg-type]


#: the teal reference before session 14 (the web's teal, RGB 0 128 128 nearly), BGR
TEAL_S13: tuple[int, int, int] = (128, 128, 20)


def session13(palette: Palette) -> Palette:
    """``palette`` naming as issue 30's session 13 did (its chroma weights, `CHROMA_S13`, and its
    teal reference), for benchmarks that measure the naming before and after in one run."""
    lab = dict(palette.lab)
    if "teal" in lab:
        lab["teal"] = tuple(float(x) for x in bgr_to_lab(TEAL_S13))  # type: ignore[assignment]
    return replace(palette, lab=lab, chroma=CHROMA_S13)
