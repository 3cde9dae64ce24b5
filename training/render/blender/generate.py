"""Render numbered dice (d10, percentile d10, d20) with Blender: thrown with rigid-body physics,
real materials, light and camera, on real-photo backdrops; PNG frames, crops and exact JSON truth.

Runs in its own venv (Blender's `bpy` wheel wants Python 3.11 and numpy < 2; see README.md):

    PYTHONPATH=$PWD nice -n 15 /work/bpyvenv/bin/python -m training.render.blender.generate \\
        --out /tmp/blender_dice --seed 20 --frames 30

It imports nothing of the project but `dice_geometry` (pure Python), so the project's numpy-2 code
never loads next to bpy.  Every random choice of frame i comes from `random.Random(f"{seed}:{i}")`
and is written into that frame's JSON and the crops' labels.csv, so a subset (say, only inked
dice) can be picked after rendering.  Cycles runs on one CPU thread with a fixed seed, so a frame
is the same image on the same machine and bpy version (across CPUs or versions it may differ in
the last bits of the path tracer and denoiser; the physics, labels and boxes do not).

The value up is derived exactly: after the throw settles, the die's rotation turns the solid's
face normals (dice_geometry) and the one nearest straight up is the face read; a die whose top
face is more than FLAT_DEG off level (leaning on another die) is labelled cocked and not cropped.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import random
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from training.render.blender.dice_geometry import FLAT_DEG, KINDS, SHAPES, Shape, numeral

ROOT = Path(__file__).resolve().parents[3]
REAL = ROOT.parent / "shared" / "fixtures" / "real"
#: negatives/ is split by source (training/dataset.py NEGATIVE_HELD_OUT_SOURCES): these are held
#: out and never used as a backdrop.  Kept as a copy here: this file may not import the project.
NEGATIVE_HELD_OUT_SOURCES = ("skimage_", "easyocr_")

#: Debian's fonts-dejavu-core / fonts-dejavu-extra and fonts-liberation; Blender's own font is
#: always there.  Bold and regular faces of sans, serif, condensed and mono shapes.
FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationMono-Bold.ttf",
)
BUILTIN_FONT = "<builtin>"

MATERIALS = ("opaque", "marbled", "translucent", "metallic")
DIE_COLOURS = {  # linear-ish RGB of common dice plastics
    "white": (0.80, 0.80, 0.78),
    "ivory": (0.75, 0.68, 0.50),
    "black": (0.02, 0.02, 0.02),
    "red": (0.60, 0.03, 0.03),
    "orange": (0.85, 0.25, 0.02),
    "yellow": (0.85, 0.65, 0.05),
    "green": (0.05, 0.35, 0.08),
    "teal": (0.02, 0.30, 0.30),
    "blue": (0.03, 0.08, 0.55),
    "purple": (0.25, 0.04, 0.40),
    "pink": (0.80, 0.25, 0.40),
    "grey": (0.25, 0.25, 0.25),
    "brown": (0.25, 0.10, 0.04),
}
METAL_COLOURS = {
    "silver": (0.85, 0.85, 0.85),
    "gold": (0.90, 0.65, 0.25),
    "copper": (0.85, 0.45, 0.30),
    "gunmetal": (0.30, 0.30, 0.32),
}
INK_COLOURS = {
    "white": (0.85, 0.85, 0.85),
    "black": (0.01, 0.01, 0.01),
    "gold": (0.80, 0.55, 0.15),
    "red": (0.60, 0.02, 0.02),
    "silver": (0.60, 0.60, 0.62),
}


@dataclass
class DieSpec:
    """One die's random choices (written into the frame's JSON)."""

    kind: str
    material: str
    colour: str
    colour2: str | None
    inked: bool
    ink: str | None
    font: str
    mark: str  # "dot" or "bar": how 6 and 9 are told apart
    size: float  # circumradius (d20) or ring radius (d10), in scene units (1 unit ~ 10 mm)
    bevel: float
    depth: float  # engraving depth
    text_scale: float
    roughness: float
    coat: float  # clear-coat weight (its roughness follows the body's)
    xy: tuple[float, float]
    drop: float
    quat: tuple[float, float, float, float]


@dataclass
class FrameSpec:
    """A frame's random choices besides the dice."""

    seed: str
    dice: list[DieSpec]
    backdrop: str  # a negatives/ file name, or "plain:<colour>"
    backdrop_scale: float
    backdrop_rot: float
    world_colour: tuple[float, float, float]
    world_strength: float
    sun: dict[str, float] | None
    areas: list[dict[str, float]]
    cam_distance: float
    cam_tilt_deg: float
    cam_azimuth_deg: float
    cam_roll_deg: float
    view_width: float
    blur_sigma: float
    noise_sigma: float
    jpeg_quality: int
    exposure_bias: float  # stops off the auto-exposure (negative: darker)
    extra: dict[str, Any] = field(default_factory=dict)


# -- the random choices (pure Python: seeded, reproducible, testable without bpy) ----------------


def fonts_available() -> list[str]:
    found = [p for p in FONT_CANDIDATES if Path(p).is_file()]
    return [*found, BUILTIN_FONT]


def backdrops_available(real: Path = REAL) -> list[Path]:
    folder = real / "negatives" / "images"
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{folder}: no real-photo backdrops (expected the shared fixtures beside the repo); "
            "pass --plain-backdrops to render on plain cloth colours only"
        )
    return sorted(
        p for p in folder.iterdir() if p.is_file() and not p.name.startswith(NEGATIVE_HELD_OUT_SOURCES)
    )


def _unit_quat(rng: random.Random) -> tuple[float, float, float, float]:
    """A uniformly random rotation (Shoemake)."""
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    return (
        a * math.sin(2 * math.pi * u2),
        a * math.cos(2 * math.pi * u2),
        b * math.sin(2 * math.pi * u3),
        b * math.cos(2 * math.pi * u3),
    )


def choose_frame(seed: int, index: int, args: argparse.Namespace, backdrops: list[Path]) -> FrameSpec:
    rng = random.Random(f"{seed}:{index}")
    kinds = args.kinds
    n = rng.randint(args.min_dice, args.max_dice)
    fonts = fonts_available()
    dice: list[DieSpec] = []
    placed: list[tuple[float, float]] = []
    for _ in range(n):
        kind = rng.choice(kinds)
        material = rng.choice(args.materials)
        if material == "metallic":
            colour, colour2 = rng.choice(sorted(METAL_COLOURS)), None
        else:
            colour = rng.choice(sorted(DIE_COLOURS))
            colour2 = (
                rng.choice(sorted(c for c in DIE_COLOURS if c != colour)) if material == "marbled" else None
            )
        inked = rng.random() < args.inked
        ink = None
        if inked:
            dark = colour in ("white", "ivory", "yellow", "silver", "gold", "pink", "orange")
            ink = rng.choice(["black", "red", "black"] if dark else ["white", "gold", "white", "silver"])
        for _try in range(50):
            xy = (rng.uniform(-3.5, 3.5), rng.uniform(-3.5, 3.5))
            if all(math.dist(xy, q) > 3.0 for q in placed):
                break
        placed.append(xy)
        dice.append(
            DieSpec(
                kind=kind,
                material=material,
                colour=colour,
                colour2=colour2,
                inked=inked,
                ink=ink,
                font=rng.choice(fonts),
                mark=rng.choice(["dot", "bar"]),
                size=rng.uniform(0.9, 1.1),
                bevel=rng.uniform(0.02, 0.07),
                depth=rng.uniform(0.02, 0.04),
                text_scale=rng.uniform(0.85, 1.0),
                roughness=rng.uniform(0.15, 0.5) if material != "metallic" else rng.uniform(0.2, 0.45),
                coat=rng.uniform(0.0, 0.3),
                xy=xy,
                drop=rng.uniform(1.5, 4.0),
                quat=_unit_quat(rng),
            )
        )
    if backdrops and rng.random() < args.photo_backdrop:
        backdrop = rng.choice(backdrops).name
    else:
        backdrop = "plain:" + rng.choice(["felt_green", "felt_blue", "wood", "white", "grey", "black", "red"])
    sun = None
    if rng.random() < 0.7:
        sun = {
            "strength": rng.uniform(1.5, 4.0),
            "elevation_deg": rng.uniform(25, 68),
            "azimuth_deg": rng.uniform(0, 360),
            "angle_deg": rng.uniform(0.5, 25),
            "warmth": rng.uniform(-0.15, 0.15),
        }
    areas = [
        {
            "distance": rng.uniform(12, 30),
            # mostly off the mirror angle of a camera looking down (a lamp's glare on the top
            # faces hides their numerals); a steep light still glares now and then, as at a table
            "elevation_deg": rng.uniform(20, 62),
            "azimuth_deg": rng.uniform(0, 360),
            "size": rng.uniform(1, 6),
            "irradiance": rng.uniform(0.5, 4.0) if sun else rng.uniform(2.0, 6.0),
            "warmth": rng.uniform(-0.2, 0.2),
        }
        for _ in range(rng.randint(0 if sun else 1, 2))
    ]
    grey = rng.uniform(0.3, 1.0)
    tint = rng.uniform(-0.1, 0.1)
    return FrameSpec(
        seed=f"{seed}:{index}",
        dice=dice,
        backdrop=backdrop,
        backdrop_scale=rng.uniform(0.5, 2.0),
        backdrop_rot=rng.uniform(0, 360),
        world_colour=(grey * (1 + tint), grey, grey * (1 - tint)),
        world_strength=rng.uniform(0.15, 0.8),
        sun=sun,
        areas=areas,
        cam_distance=rng.uniform(15, 60),
        cam_tilt_deg=rng.uniform(0, args.max_tilt) if rng.random() < 0.8 else 0.0,
        cam_azimuth_deg=rng.uniform(0, 360),
        cam_roll_deg=rng.uniform(0, 360),
        view_width=rng.uniform(7, 13),
        blur_sigma=rng.choice([0.0, rng.uniform(0.3, 1.2)]),
        noise_sigma=rng.uniform(0, 6),
        jpeg_quality=rng.randint(35, 95),
        exposure_bias=rng.uniform(-1.0, 0.4),
    )


def level_irradiance(spec: FrameSpec) -> float:
    """Irradiance on the level table from the sky, the sun and the area lights (scene units)."""
    e = math.pi * spec.world_strength * sum(spec.world_colour) / 3
    if spec.sun:
        e += spec.sun["strength"] * math.sin(math.radians(spec.sun["elevation_deg"]))
    e += sum(a["irradiance"] * math.sin(math.radians(a["elevation_deg"])) for a in spec.areas)
    return e


def auto_exposure(spec: FrameSpec) -> float:
    """A camera's auto-exposure, in stops: a white die's level face (albedo 0.8) lands at 0.85 of
    full scale, then `exposure_bias` off that.  Without it a white die lit from above clips white
    and its inked numeral is lost (seen in the first test renders)."""
    return math.log2(0.85 * math.pi / (0.8 * level_irradiance(spec))) + spec.exposure_bias


# -- Blender -----------------------------------------------------------------------------------


class Studio:
    """One Blender scene rebuilt per frame."""

    def __init__(self, args: argparse.Namespace) -> None:
        import bpy

        self.bpy = bpy
        self.args = args
        self._fonts: dict[str, Any] = {}
        self._glyphs: dict[
            tuple[str, str, str], tuple[list[tuple[float, float, float]], list[tuple[int, ...]]]
        ] = {}

    # scene ---------------------------------------------------------------------------------
    def reset(self) -> Any:
        bpy = self.bpy
        bpy.ops.wm.read_factory_settings(use_empty=True)
        self._fonts.clear()
        scene = bpy.context.scene
        scene.render.engine = "CYCLES"
        scene.cycles.device = "CPU"
        scene.cycles.samples = self.args.samples
        scene.cycles.use_adaptive_sampling = False
        scene.cycles.use_denoising = True
        scene.cycles.max_bounces = 6
        scene.cycles.transmission_bounces = 6
        scene.cycles.transparent_max_bounces = 4
        scene.render.threads_mode = "FIXED"
        scene.render.threads = self.args.threads
        scene.render.resolution_x, scene.render.resolution_y = self.args.width, self.args.height
        scene.render.resolution_percentage = 100
        scene.render.image_settings.file_format = "PNG"
        scene.render.image_settings.color_mode = "RGB"
        scene.view_settings.view_transform = "AgX" if self.args.agx else "Standard"
        scene.render.fps = 24
        return scene

    def font(self, name: str) -> Any:
        if name not in self._fonts:
            self._fonts[name] = self.bpy.data.fonts.load(name) if name != BUILTIN_FONT else None
        return self._fonts[name]

    def glyph(
        self, font: str, text: str, mark: str
    ) -> tuple[list[tuple[float, float, float]], list[tuple[int, ...]]]:
        """The numeral as a closed mesh, centred, cap height 1, z in [-1, 1]; with its 6./9. mark."""
        key = (font, text, mark)
        if key in self._glyphs:
            return self._glyphs[key]
        bpy = self.bpy
        marked = text in ("6", "9")
        body = text + "." if marked and mark == "dot" else text
        cu = bpy.data.curves.new("numeral", type="FONT")
        cu.body = body
        f = self.font(font)
        if f is not None:
            cu.font = f
        cu.size = 1.0
        cu.extrude = 1.0
        cu.resolution_u = 4
        cu.align_x = "CENTER"
        ob = bpy.data.objects.new("numeral", cu)
        bpy.context.scene.collection.objects.link(ob)
        dg = bpy.context.evaluated_depsgraph_get()
        me = bpy.data.meshes.new_from_object(ob.evaluated_get(dg))
        verts = [tuple(v.co) for v in me.vertices]
        polys = [tuple(p.vertices) for p in me.polygons]
        bpy.data.objects.remove(ob)
        bpy.data.curves.remove(cu)
        bpy.data.meshes.remove(me)
        if not verts:
            raise ValueError(f"font {font!r} drew nothing for {body!r}")
        if marked and mark == "bar":
            xs = [v[0] for v in verts]
            ys = [v[1] for v in verts]
            w, h, y0 = max(xs) - min(xs), max(ys) - min(ys), min(ys)
            cx = (max(xs) + min(xs)) / 2
            x0, x1, b0, b1 = cx - 0.4 * w, cx + 0.4 * w, y0 - 0.24 * h, y0 - 0.12 * h
            base = len(verts)
            verts += [(x, y, z) for z in (-1.0, 1.0) for y in (b0, b1) for x in (x0, x1)]
            q = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
            polys += [tuple(base + i for i in quad) for quad in q]
        xs = [v[0] for v in verts]
        ys = [v[1] for v in verts]
        zs = [v[2] for v in verts]
        cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
        h = max(ys) - min(ys)
        z0, z1 = min(zs), max(zs)
        out = [((x - cx) / h, (y - cy) / h, -1 + 2 * (z - z0) / (z1 - z0)) for x, y, z in verts]
        self._glyphs[key] = (out, polys)
        return self._glyphs[key]

    def material(self, name: str, spec: DieSpec, ink: bool) -> Any:
        bpy = self.bpy
        mat = bpy.data.materials.new(name)
        mat.use_nodes = True
        nt = mat.node_tree
        bsdf = nt.nodes["Principled BSDF"]
        if ink:
            bsdf.inputs["Base Color"].default_value = (*INK_COLOURS[spec.ink or "white"], 1.0)
            bsdf.inputs["Roughness"].default_value = 0.5
            if spec.ink in ("gold", "silver"):
                bsdf.inputs["Metallic"].default_value = 0.8
            return mat
        rgb = METAL_COLOURS[spec.colour] if spec.material == "metallic" else DIE_COLOURS[spec.colour]
        bsdf.inputs["Base Color"].default_value = (*rgb, 1.0)
        bsdf.inputs["Roughness"].default_value = spec.roughness
        if spec.material == "metallic":
            bsdf.inputs["Metallic"].default_value = 1.0
        elif spec.material == "translucent":
            bsdf.inputs["Transmission Weight"].default_value = 0.9
            bsdf.inputs["IOR"].default_value = 1.5
            bsdf.inputs["Roughness"].default_value = min(spec.roughness, 0.2)
        elif spec.material == "marbled":
            tex = nt.nodes.new("ShaderNodeTexNoise")
            tex.inputs["Scale"].default_value = 1.5
            tex.inputs["Detail"].default_value = 8.0
            tex.inputs["Distortion"].default_value = 3.0
            coord = nt.nodes.new("ShaderNodeTexCoord")
            nt.links.new(coord.outputs["Object"], tex.inputs["Vector"])
            ramp = nt.nodes.new("ShaderNodeValToRGB")
            ramp.color_ramp.elements[0].position = 0.42
            ramp.color_ramp.elements[0].color = (*rgb, 1.0)
            ramp.color_ramp.elements[1].position = 0.58
            ramp.color_ramp.elements[1].color = (*DIE_COLOURS[spec.colour2 or "white"], 1.0)
            nt.links.new(tex.outputs["Fac"], ramp.inputs["Fac"])
            nt.links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
        if spec.material != "metallic":
            bsdf.inputs["Coat Weight"].default_value = spec.coat
            bsdf.inputs["Coat Roughness"].default_value = spec.roughness / 2
        return mat

    def die(self, i: int, spec: DieSpec) -> Any:
        """The die as one mesh: the solid, bevelled, numerals engraved (ink in the grooves)."""
        bpy = self.bpy
        shape = SHAPES[spec.kind]
        me = bpy.data.meshes.new(f"die{i}")
        me.from_pydata(
            [tuple(spec.size * c for c in v) for v in shape.vertices], [], [list(f) for f in shape.faces]
        )
        me.update()
        body = self.material(f"body{i}", spec, ink=False)
        ink = self.material(f"ink{i}", spec, ink=True) if spec.inked else body
        me.materials.append(body)
        ob = bpy.data.objects.new(f"die{i}", me)
        bpy.context.scene.collection.objects.link(ob)
        cverts, cfaces = self.cutters(shape, spec)
        cm = bpy.data.meshes.new(f"cut{i}")
        cm.from_pydata(cverts, [], cfaces)
        cm.update()
        cm.materials.append(ink)
        cut = bpy.data.objects.new(f"cut{i}", cm)
        bpy.context.scene.collection.objects.link(cut)
        bev = ob.modifiers.new("bevel", "BEVEL")
        bev.width = spec.bevel * spec.size
        bev.segments = 3
        bev.limit_method = "ANGLE"
        boo = ob.modifiers.new("engrave", "BOOLEAN")
        boo.operation = "DIFFERENCE"
        boo.solver = "EXACT"
        boo.object = cut
        boo.material_mode = "TRANSFER"
        dg = bpy.context.evaluated_depsgraph_get()
        baked = bpy.data.meshes.new_from_object(ob.evaluated_get(dg))
        ob.modifiers.clear()
        ob.data = baked
        bpy.data.meshes.remove(me)
        bpy.data.objects.remove(cut)
        bpy.data.meshes.remove(cm)
        return ob

    def cutters(self, shape: Shape, spec: DieSpec) -> tuple[list[tuple[float, ...]], list[tuple[int, ...]]]:
        """Every face's numeral as a solid reaching `depth` into the face and a little out of it."""
        verts: list[tuple[float, ...]] = []
        faces: list[tuple[int, ...]] = []
        for f in range(len(shape.faces)):
            gv, gf = self.glyph(spec.font, numeral(spec.kind, shape.values[f]), spec.mark)
            xs = [v[0] for v in gv]
            ys = [v[1] for v in gv]
            w, h = max(xs) - min(xs), max(ys) - min(ys)  # h == 1
            r = shape.inradius(f) * spec.size
            # cap height a share of the face's inradius, and the block's half-diagonal inside it
            s = spec.text_scale * min(1.15 * r / h, 0.98 * r / math.hypot(w / 2, h / 2))
            x, y, z = shape.label_frame(f)
            c = tuple(spec.size * k for k in shape.label_centre(f))
            d0, d1 = -spec.depth * spec.size, 0.05 * spec.size
            base = len(verts)
            for gx, gy, gz in gv:
                u, v, t = s * gx, s * gy, d0 + (gz + 1) / 2 * (d1 - d0)
                verts.append(tuple(c[k] + u * x[k] + v * y[k] + t * z[k] for k in range(3)))
            faces += [tuple(base + i for i in p) for p in gf]
        return verts, faces

    def backdrop(self, spec: FrameSpec, size: float) -> Any:
        bpy = self.bpy
        me = bpy.data.meshes.new("backdrop")
        h = size / 2
        me.from_pydata([(-h, -h, 0), (h, -h, 0), (h, h, 0), (-h, h, 0)], [], [(0, 1, 2, 3)])
        uv = me.uv_layers.new(name="UVMap")
        for loop, co in zip(uv.data, [(0, 0), (1, 0), (1, 1), (0, 1)], strict=True):
            loop.uv = co
        ob = bpy.data.objects.new("backdrop", me)
        bpy.context.scene.collection.objects.link(ob)
        ob.rotation_euler = (0, 0, math.radians(spec.backdrop_rot))
        mat = bpy.data.materials.new("backdrop")
        mat.use_nodes = True
        nt = mat.node_tree
        bsdf = nt.nodes["Principled BSDF"]
        bsdf.inputs["Roughness"].default_value = 0.8
        if spec.backdrop.startswith("plain:"):
            rgb = {
                "felt_green": (0.03, 0.15, 0.05),
                "felt_blue": (0.03, 0.06, 0.2),
                "wood": (0.35, 0.18, 0.07),
                "white": (0.75, 0.75, 0.72),
                "grey": (0.2, 0.2, 0.2),
                "black": (0.015, 0.015, 0.015),
                "red": (0.35, 0.03, 0.03),
            }[spec.backdrop[6:]]
            noise = nt.nodes.new("ShaderNodeTexNoise")
            noise.inputs["Scale"].default_value = 40.0
            ramp = nt.nodes.new("ShaderNodeValToRGB")
            ramp.color_ramp.elements[0].color = (*(0.7 * k for k in rgb), 1.0)
            ramp.color_ramp.elements[1].color = (*rgb, 1.0)
            nt.links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
            nt.links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
        else:
            img = bpy.data.images.load(str(REAL / "negatives" / "images" / spec.backdrop))
            tex = nt.nodes.new("ShaderNodeTexImage")
            tex.image = img
            tex.extension = "MIRROR"
            mapping = nt.nodes.new("ShaderNodeMapping")
            coord = nt.nodes.new("ShaderNodeTexCoord")
            w, hh = img.size
            # one image spans backdrop_scale x the view width, keeping the photo's aspect
            reps = size / (spec.backdrop_scale * spec.view_width)
            mapping.inputs["Scale"].default_value = (reps, reps * w / max(hh, 1), 1.0)
            nt.links.new(coord.outputs["UV"], mapping.inputs["Vector"])
            nt.links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
            nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        me.materials.append(mat)
        return ob

    def lights(self, spec: FrameSpec, target: tuple[float, float]) -> None:
        bpy = self.bpy
        scene = bpy.context.scene
        world = bpy.data.worlds.new("world")
        world.use_nodes = True
        bg = world.node_tree.nodes["Background"]
        bg.inputs["Color"].default_value = (*spec.world_colour, 1.0)
        bg.inputs["Strength"].default_value = spec.world_strength
        scene.world = world
        scene.view_settings.exposure = auto_exposure(spec)

        def tint(w: float) -> tuple[float, float, float]:
            return (1 + w, 1.0, 1 - w)

        def direction(elev: float, azim: float) -> tuple[float, float, float]:
            e, a = math.radians(elev), math.radians(azim)
            return (math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e))

        from mathutils import Vector

        if spec.sun:
            ld = bpy.data.lights.new("sun", "SUN")
            ld.energy = spec.sun["strength"]
            ld.angle = math.radians(spec.sun["angle_deg"])
            ld.color = tint(spec.sun["warmth"])
            ob = bpy.data.objects.new("sun", ld)
            scene.collection.objects.link(ob)
            d = Vector(direction(spec.sun["elevation_deg"], spec.sun["azimuth_deg"]))
            ob.rotation_euler = d.to_track_quat("Z", "Y").to_euler()
        for k, a in enumerate(spec.areas):
            ld = bpy.data.lights.new(f"area{k}", "AREA")
            ld.size = a["size"]
            # irradiance at the dice ~ power / (pi d^2) for a small Lambertian emitter
            ld.energy = a["irradiance"] * math.pi * a["distance"] ** 2
            ld.color = tint(a["warmth"])
            ob = bpy.data.objects.new(f"area{k}", ld)
            scene.collection.objects.link(ob)
            d = Vector(direction(a["elevation_deg"], a["azimuth_deg"]))
            ob.location = Vector((target[0], target[1], 0.0)) + d * a["distance"]
            ob.rotation_euler = d.to_track_quat("Z", "Y").to_euler()

    def camera(self, spec: FrameSpec, target: tuple[float, float]) -> Any:
        bpy = self.bpy
        from mathutils import Euler, Vector

        cd = bpy.data.cameras.new("camera")
        cd.sensor_fit = "HORIZONTAL"
        cd.sensor_width = 36.0
        cd.lens = 36.0 * spec.cam_distance / spec.view_width
        cd.clip_start = 0.1
        cd.clip_end = 1000.0
        ob = bpy.data.objects.new("camera", cd)
        bpy.context.scene.collection.objects.link(ob)
        t, a = math.radians(spec.cam_tilt_deg), math.radians(spec.cam_azimuth_deg)
        d = Vector((math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)))
        ob.location = Vector((target[0], target[1], 0.0)) + d * spec.cam_distance
        q = d.to_track_quat("Z", "Y")
        q = q @ Euler((0, 0, math.radians(spec.cam_roll_deg))).to_quaternion()
        ob.rotation_euler = q.to_euler()
        bpy.context.scene.camera = ob
        return ob

    # physics -------------------------------------------------------------------------------
    def throw(self, dice: list[Any], specs: list[DieSpec]) -> int:
        """Drop the dice onto the table with Bullet, step until they rest, freeze the poses.
        Returns the frames simulated."""
        bpy = self.bpy
        from mathutils import Quaternion

        scene = bpy.context.scene
        bpy.ops.rigidbody.world_add()
        rbw = scene.rigidbody_world
        rbw.substeps_per_frame = 20
        rbw.solver_iterations = 20
        end = 240
        rbw.point_cache.frame_start = 1
        rbw.point_cache.frame_end = end
        gm = bpy.data.meshes.new("ground")
        h = 200.0
        # Bullet's box shape is centred on the object's origin: a slab 1 thick whose top is z = 0
        gv = [(x, y, z) for z in (-0.5, 0.5) for y in (-h, h) for x in (-h, h)]
        gq = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
        gm.from_pydata(gv, [], gq)
        ground = bpy.data.objects.new("ground", gm)
        scene.collection.objects.link(ground)
        ground.hide_render = True
        ground.location = (0.0, 0.0, -0.5)
        for ob, kind in ((ground, "PASSIVE"), *((d, "ACTIVE") for d in dice)):
            bpy.context.view_layer.objects.active = ob
            ob.select_set(True)
            bpy.ops.rigidbody.object_add(type=kind)
            ob.select_set(False)
            rb = ob.rigid_body
            rb.collision_shape = "BOX" if kind == "PASSIVE" else "CONVEX_HULL"
            rb.use_margin = True
            rb.collision_margin = 0.002
            rb.friction = 0.6
            rb.restitution = 0.3
        for ob, s in zip(dice, specs, strict=True):
            ob.rotation_mode = "QUATERNION"
            ob.rotation_quaternion = Quaternion(s.quat)
            ob.location = (s.xy[0], s.xy[1], 1.2 * s.size + s.drop)
        still = 0
        last: list[Any] = []
        frame = 1
        for frame in range(1, end + 1):
            scene.frame_set(frame)
            now = [ob.matrix_world.copy() for ob in dice]
            if last and all(
                (a.translation - b.translation).length < 1e-4
                and max(abs(a[i][j] - b[i][j]) for i in range(3) for j in range(3)) < 1e-4
                for a, b in zip(now, last, strict=True)
            ):
                still += 1
                if still >= 12:
                    break
            else:
                still = 0
            last = now
        poses = [ob.matrix_world.copy() for ob in dice]
        rbw.enabled = False
        for ob in (ground, *dice):
            bpy.context.view_layer.objects.active = ob
            ob.select_set(True)
            bpy.ops.rigidbody.object_remove()
            ob.select_set(False)
        for ob, m in zip(dice, poses, strict=True):
            ob.matrix_world = m
        return frame

    # one frame ------------------------------------------------------------------------------
    def frame(self, spec: FrameSpec, png: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        bpy = self.bpy
        from bpy_extras.object_utils import world_to_camera_view
        from mathutils import Vector

        scene = self.reset()
        scene.cycles.seed = random.Random(spec.seed).randrange(1 << 30)
        t0 = time.monotonic()
        dice = [self.die(i, s) for i, s in enumerate(spec.dice)]
        t_build = time.monotonic() - t0
        frames = self.throw(dice, spec.dice)
        t_sim = time.monotonic() - t0 - t_build
        centres = [ob.matrix_world.translation for ob in dice]
        target = (sum(c.x for c in centres) / len(centres), sum(c.y for c in centres) / len(centres))
        spread = max(math.dist((c.x, c.y), target) for c in centres)
        spec.view_width = max(spec.view_width, 2 * spread + 4.0)
        self.backdrop(spec, size=8 * spec.view_width).location = (target[0], target[1], 0.0)
        self.lights(spec, target)
        cam = self.camera(spec, target)
        bpy.context.view_layer.update()
        W, H = scene.render.resolution_x, scene.render.resolution_y
        cam_pos = cam.matrix_world.translation

        def px(co: Any) -> tuple[float, float]:
            p = world_to_camera_view(scene, cam, co)
            return (p.x * W, (1 - p.y) * H)

        truths: list[dict[str, Any]] = []
        for i, (ob, s) in enumerate(zip(dice, spec.dice, strict=True)):
            shape = SHAPES[s.kind]
            m = ob.matrix_world
            rot = [[m[r][c] for c in range(3)] for r in range(3)]
            f, tilt = shape.up_face(rot)
            pts = [px(m @ v.co) for v in ob.data.vertices]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            box = [min(xs), min(ys), max(xs), max(ys)]
            top = [px(m @ Vector(tuple(s.size * k for k in shape.vertices[v]))) for v in shape.faces[f]]
            centre = px(m @ Vector(tuple(s.size * k for k in shape.centroid(f))))
            truths.append(
                {
                    "index": i,
                    "kind": s.kind,
                    "value": shape.values[f],
                    "face": f,
                    "tilt_deg": round(tilt, 3),
                    "cocked": tilt > FLAT_DEG,
                    "box": [round(b, 2) for b in box],
                    "top_centre": [round(c, 2) for c in centre],
                    "top_polygon": [[round(c, 2) for c in p] for p in top],
                    "inside": box[0] >= 0 and box[1] >= 0 and box[2] <= W and box[3] <= H,
                    "camera_distance": round((m.translation - cam_pos).length, 3),
                    "world_matrix": [[round(m[r][c], 6) for c in range(4)] for r in range(4)],
                    "spec": asdict(s),
                }
            )
        for t in truths:  # occluded: a nearer die's box covers over 15 % of this one's
            b = t["box"]
            area = max((b[2] - b[0]) * (b[3] - b[1]), 1e-6)
            cover = 0.0
            for o in truths:
                if o is t or o["camera_distance"] >= t["camera_distance"]:
                    continue
                ob_ = o["box"]
                iw = min(b[2], ob_[2]) - max(b[0], ob_[0])
                ih = min(b[3], ob_[3]) - max(b[1], ob_[1])
                if iw > 0 and ih > 0:
                    cover = max(cover, iw * ih / area)
            t["occluded"] = cover > 0.15
        scene.render.filepath = str(png)
        t1 = time.monotonic()
        bpy.ops.render.render(write_still=True)
        timing = {
            "build_s": round(t_build, 2),
            "physics_s": round(t_sim, 2),
            "physics_frames": frames,
            "render_s": round(time.monotonic() - t1, 2),
        }
        return truths, timing


# -- post-processing (numpy < 2 and Pillow in the Blender venv) ---------------------------------


def degrade(png: Path, spec: FrameSpec) -> Any:
    """Blur, sensor noise and a JPEG round trip, seeded by the frame."""
    import numpy as np
    from PIL import Image, ImageFilter

    img = Image.open(png).convert("RGB")
    if spec.blur_sigma > 0:
        img = img.filter(ImageFilter.GaussianBlur(spec.blur_sigma))
    a = np.asarray(img, np.float32)
    rng = np.random.default_rng(random.Random(spec.seed + ":noise").randrange(1 << 32))
    a = a + rng.normal(0.0, spec.noise_sigma, a.shape)
    img = Image.fromarray(np.clip(a + 0.5, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=spec.jpeg_quality)
    buf.seek(0)
    return Image.open(buf).convert("RGB")


def crop(img: Any, t: dict[str, Any], side_scale: float, out: int) -> Any:
    """A square round the top face's centre, side `side_scale` x the die box's longer side."""
    from PIL import Image

    b = t["box"]
    side = side_scale * max(b[2] - b[0], b[3] - b[1])
    cx, cy = t["top_centre"]
    box = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
    return img.transform((out, out), Image.Transform.EXTENT, box, Image.Resampling.BILINEAR)


def draw_boxes(img: Any, truths: list[dict[str, Any]]) -> Any:
    from PIL import ImageDraw

    img = img.copy()
    d = ImageDraw.Draw(img)
    for t in truths:
        ok = t["inside"] and not t["cocked"] and not t["occluded"]
        colour = (0, 255, 0) if ok else (255, 160, 0)
        d.rectangle(t["box"], outline=colour, width=2)
        d.polygon([tuple(p) for p in t["top_polygon"]], outline=(255, 0, 255))
        d.text((t["box"][0] + 2, t["box"][1] + 2), f"{t['kind']} {t['value']}", fill=colour)
    return img


CSV_FIELDS = (
    "file",
    "kind",
    "value",
    "frame",
    "die",
    "material",
    "colour",
    "inked",
    "ink",
    "font",
    "mark",
    "backdrop",
    "cam_tilt_deg",
    "blur_sigma",
    "noise_sigma",
    "jpeg_quality",
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    p.add_argument("--out", type=Path, required=True, help="output folder (frames/, crops/, labels.csv)")
    p.add_argument("--seed", type=int, default=20)
    p.add_argument("--frames", type=int, default=10)
    p.add_argument("--start", type=int, default=0, help="first frame index (to extend a run)")
    p.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    p.add_argument("--materials", nargs="+", default=list(MATERIALS), choices=MATERIALS)
    p.add_argument("--inked", type=float, default=0.75, help="share of dice with inked numerals")
    p.add_argument("--min-dice", type=int, default=1)
    p.add_argument("--max-dice", type=int, default=4)
    p.add_argument("--max-tilt", type=float, default=35.0, help="camera tilt from straight down, degrees")
    p.add_argument("--photo-backdrop", type=float, default=0.75, help="share of frames on a real photo")
    p.add_argument("--plain-backdrops", action="store_true", help="no real-photo backdrops")
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--height", type=int, default=384)
    p.add_argument("--samples", type=int, default=24)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--agx", action="store_true", help="AgX view transform instead of Standard")
    p.add_argument("--crop", type=int, default=64, help="crop side, pixels")
    p.add_argument("--crop-scale", type=float, default=1.0, help="crop side / die box's longer side")
    p.add_argument("--frame-format", choices=("png", "jpg", "none"), default="png")
    p.add_argument("--boxes", action="store_true", help="also write frames with the boxes drawn")
    args = p.parse_args(argv)
    if args.min_dice < 1 or args.max_dice < args.min_dice:
        p.error(f"--min-dice {args.min_dice} / --max-dice {args.max_dice}: need 1 <= min <= max")

    backdrops = [] if args.plain_backdrops else backdrops_available()
    out: Path = args.out
    for sub in ("frames", "crops", *(("boxes",) if args.boxes else ())):
        (out / sub).mkdir(parents=True, exist_ok=True)
    studio = Studio(args)
    import bpy

    labels = out / "labels.csv"
    new = not labels.exists()
    tmp = Path(tempfile.mkdtemp(prefix="blender_dice_"))
    n_crops = 0
    try:
        with labels.open("a", newline="") as fh:
            w = csv.DictWriter(fh, CSV_FIELDS)
            if new:
                w.writeheader()
            for i in range(args.start, args.start + args.frames):
                spec = choose_frame(args.seed, i, args, backdrops)
                png = tmp / f"{i:06d}.png"
                truths, timing = studio.frame(spec, png)
                img = degrade(png, spec)
                name = f"{i:06d}"
                if args.frame_format != "none":
                    img.save(out / "frames" / f"{name}.{args.frame_format}", quality=95)
                if args.boxes:
                    draw_boxes(img, truths).save(out / "boxes" / f"{name}.jpg", quality=85)
                for t in truths:
                    if not t["inside"] or t["cocked"] or t["occluded"]:
                        continue
                    s = spec.dice[t["index"]]
                    cf = f"{name}_{t['index']}_{t['kind']}_{t['value']}.png"
                    crop(img, t, args.crop_scale, args.crop).save(out / "crops" / cf)
                    n_crops += 1
                    w.writerow(
                        {
                            "file": f"crops/{cf}",
                            "kind": t["kind"],
                            "value": t["value"],
                            "frame": name,
                            "die": t["index"],
                            "material": s.material,
                            "colour": s.colour,
                            "inked": int(s.inked),
                            "ink": s.ink or "",
                            "font": Path(s.font).stem,
                            "mark": s.mark,
                            "backdrop": spec.backdrop,
                            "cam_tilt_deg": round(spec.cam_tilt_deg, 1),
                            "blur_sigma": round(spec.blur_sigma, 2),
                            "noise_sigma": round(spec.noise_sigma, 2),
                            "jpeg_quality": spec.jpeg_quality,
                        }
                    )
                fh.flush()
                gt = {
                    "seed": args.seed,
                    "frame": i,
                    "size": [args.width, args.height],
                    "bpy": bpy.app.version_string,
                    "timing": timing,
                    "exposure_stops": round(auto_exposure(spec), 3),
                    "spec": {k: v for k, v in asdict(spec).items() if k != "dice"},
                    "dice": truths,
                }
                (out / "frames" / f"{name}.json").write_text(json.dumps(gt, indent=1) + "\n")
                print(f"frame {name}: {len(truths)} dice, {timing}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    meta = {
        "command": "PYTHONPATH=$PWD nice -n 15 /work/bpyvenv/bin/python -m training.render.blender.generate "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "seed": args.seed,
        "bpy": bpy.app.version_string,
        "crops_written_this_run": n_crops,
    }
    (out / f"run_{args.start:06d}.json").write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
