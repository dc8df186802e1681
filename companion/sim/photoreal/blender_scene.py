"""The Blender worker: builds a board and its frames from the JSON specs of `spec.py` and path-traces them.

Run by Blender's Python module in its own environment (`bpy` pins its own NumPy, so it does not share the
companion's); it imports nothing of the companion:

    python blender_scene.py JOB.json

JOB.json: {"out": DIR, "width": W, "height": H, "samples": N, "boards": [{"board": BOARD, "frames": [FRAME...]}]}.
Each frame is written as DIR/<board_id>-<frame>.png (16-bit, before camera effects) and a .raw.json beside it:
the playing area's corners and the hand's outline projected into the image, and the camera used. Units inside
Blender are metres; the specs are in millimetres. The playing area lies on z = 0, player 0 sits at -y.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
import zlib
from pathlib import Path

import bpy  # first: it makes bmesh, bpy_extras and mathutils importable
import bmesh
import numpy as np
from bpy_extras.object_utils import world_to_camera_view
from mathutils import Matrix, Vector

MM = 0.001


def linear(rgb) -> tuple[float, float, float, float]:
    """sRGB to the linear colour Blender shades with."""
    return tuple(((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in rgb) + (1.0,)


# -- materials -------------------------------------------------------------------------------------------------

def _bright(rgb) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def _ramp(nodes, links, fac_socket, a, b, pos=(0.0, 1.0)):
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].position, ramp.color_ramp.elements[1].position = pos
    ramp.color_ramp.elements[0].color, ramp.color_ramp.elements[1].color = linear(a), linear(b)
    links.new(fac_socket, ramp.inputs["Fac"])
    return ramp.outputs["Color"]


def _coords(nodes, links, scale):
    coord = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Scale"].default_value = (scale, scale, scale)
    links.new(coord.outputs["Object"], mapping.inputs["Vector"])
    return mapping.outputs["Vector"]


def material(name: str, spec: dict, rng: random.Random):
    """A board part's material: felt, leather, lacquer, vinyl, wood, inlaid, marble, cork, metal, printed, linen,
    suede, patterned, speckled, slate, burl, veneer, mosaic, enamel, tiles, dots, plaid."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    kind, (a, b), scale = spec["kind"], spec["colours"], spec["scale"]
    bsdf.inputs["Roughness"].default_value = spec["roughness"]
    colour = None
    bump_height = None
    vector = _coords(nodes, links, scale)
    if kind in ("wood", "inlaid"):
        wave = nodes.new("ShaderNodeTexWave")
        wave.inputs["Scale"].default_value = rng.uniform(2, 8)
        wave.inputs["Distortion"].default_value = rng.uniform(2, 10)
        wave.inputs["Detail"].default_value = 4
        wave.inputs["Detail Scale"].default_value = rng.uniform(0.5, 2)
        wave.bands_direction = rng.choice(["X", "Y"])
        links.new(vector, wave.inputs["Vector"])
        colour = _ramp(nodes, links, wave.outputs["Fac"], a, b, (0.2, 0.9))
        bsdf.inputs["Coat Weight"].default_value = rng.uniform(0, 0.8)
    elif kind == "marble":
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = rng.uniform(3, 9)
        noise.inputs["Detail"].default_value = 8
        noise.inputs["Distortion"].default_value = rng.uniform(2, 6)
        links.new(vector, noise.inputs["Vector"])
        colour = _ramp(nodes, links, noise.outputs["Fac"], a, b, (0.45, 0.6))
        bsdf.inputs["Coat Weight"].default_value = 0.7
    elif kind in ("cork", "leather", "felt"):
        tex = nodes.new("ShaderNodeTexVoronoi" if kind == "leather" else "ShaderNodeTexNoise")
        tex.inputs["Scale"].default_value = {"cork": 300, "leather": 400, "felt": 900}[kind] * rng.uniform(0.7, 1.3)
        links.new(vector, tex.inputs["Vector"])
        fac = tex.outputs["Distance" if kind == "leather" else "Fac"]
        bump_height = fac
        if kind == "cork":
            colour = _ramp(nodes, links, fac, a, b, (0.35, 0.65))
        if kind == "felt":
            bsdf.inputs["Sheen Weight"].default_value = 0.6
    elif kind == "linen":  # a weave: two fine wave patterns across each other
        weave = nodes.new("ShaderNodeMath")
        weave.operation = "MULTIPLY"
        for axis, socket in zip("XY", weave.inputs[:2]):
            wave = nodes.new("ShaderNodeTexWave")
            wave.bands_direction = axis
            wave.inputs["Scale"].default_value = rng.uniform(250, 500)
            wave.inputs["Distortion"].default_value = rng.uniform(0.5, 2)
            links.new(vector, wave.inputs["Vector"])
            links.new(wave.outputs["Fac"], socket)
        colour = _ramp(nodes, links, weave.outputs["Value"], a, b, (0.1, 0.9))
        bump_height = weave.outputs["Value"]
    elif kind == "suede":  # a nap: soft blotches and a fine bump
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = rng.uniform(20, 60)
        noise.inputs["Detail"].default_value = 6
        links.new(vector, noise.inputs["Vector"])
        colour = _ramp(nodes, links, noise.outputs["Fac"], a, b, (0.3, 0.75))
        fine = nodes.new("ShaderNodeTexNoise")
        fine.inputs["Scale"].default_value = 600
        links.new(vector, fine.inputs["Vector"])
        bump_height = fine.outputs["Fac"]
        bsdf.inputs["Sheen Weight"].default_value = 0.8
    elif kind == "patterned":  # a printed motif: a magic, checker or wave print in two near colours
        pick = rng.choice(["magic", "checker", "wave"])
        tex = nodes.new({"magic": "ShaderNodeTexMagic", "checker": "ShaderNodeTexChecker",
                         "wave": "ShaderNodeTexWave"}[pick])
        tex.inputs["Scale"].default_value = rng.uniform(3, 12) if pick != "checker" else rng.uniform(20, 80)
        links.new(vector, tex.inputs["Vector"])
        colour = _ramp(nodes, links, tex.outputs["Fac"], a, b, (0.3, 0.7))
    elif kind == "dots":  # polka dots, 3-60 mm, on a grid or scattered, crisp or a little soft
        cells = nodes.new("ShaderNodeTexVoronoi")
        cells.inputs["Scale"].default_value = rng.uniform(12, 120)
        cells.inputs["Randomness"].default_value = rng.choice([0.0, 0.0, rng.uniform(0.3, 1.0)])
        links.new(vector, cells.inputs["Vector"])
        radius = rng.uniform(0.12, 0.42)
        colour = _ramp(nodes, links, cells.outputs["Distance"], b, a, (radius, radius + rng.uniform(0.005, 0.05)))
        bump_height = cells.outputs["Distance"] if rng.random() < 0.3 else None
        bsdf.inputs["Coat Weight"].default_value = rng.uniform(0, 0.8)
    elif kind == "plaid":  # a tartan: stripes of two widths both ways over a ground, and a fine weave
        across = nodes.new("ShaderNodeMath")
        across.operation = "MAXIMUM"
        for axis, socket in zip("XY", across.inputs[:2]):
            wave = nodes.new("ShaderNodeTexWave")
            wave.bands_direction = axis
            wave.wave_profile = "SAW"
            wave.inputs["Scale"].default_value = rng.uniform(3, 12)
            links.new(vector, wave.inputs["Vector"])
            links.new(wave.outputs["Fac"], socket)
        stripe = rng.uniform(0.55, 0.85)
        colour = _ramp(nodes, links, across.outputs["Value"], a, b, (stripe, stripe + rng.uniform(0.01, 0.1)))
        fine = nodes.new("ShaderNodeTexWave")
        fine.inputs["Scale"].default_value = rng.uniform(250, 500)
        links.new(vector, fine.inputs["Vector"])
        bump_height = fine.outputs["Fac"]
        bsdf.inputs["Sheen Weight"].default_value = rng.uniform(0.2, 0.7)
    elif kind == "speckled":  # terrazzo-like chips in a ground
        cells = nodes.new("ShaderNodeTexVoronoi")
        cells.inputs["Scale"].default_value = rng.uniform(60, 200)
        cells.inputs["Randomness"].default_value = 1.0
        links.new(vector, cells.inputs["Vector"])
        colour = _ramp(nodes, links, cells.outputs["Distance"], b, a, (0.08, 0.16))
        bsdf.inputs["Coat Weight"].default_value = rng.uniform(0.3, 1.0)
    elif kind == "slate":  # polished stone: thin streaked veins (distorted bands), not marble's cloudy noise
        veins = nodes.new("ShaderNodeTexWave")
        veins.bands_direction = rng.choice(["X", "Y", "DIAGONAL"])
        veins.inputs["Scale"].default_value = rng.uniform(1.5, 5)
        veins.inputs["Distortion"].default_value = rng.uniform(8, 20)
        veins.inputs["Detail"].default_value = 8
        veins.inputs["Detail Scale"].default_value = rng.uniform(1, 3)
        links.new(vector, veins.inputs["Vector"])
        colour = _ramp(nodes, links, veins.outputs["Fac"], b, a, (rng.uniform(0.02, 0.06), rng.uniform(0.08, 0.18)))
        bsdf.inputs["Coat Weight"].default_value = rng.uniform(0.6, 1.0)
        bsdf.inputs["Coat Roughness"].default_value = rng.uniform(0.02, 0.1)
    elif kind in ("burl", "veneer"):  # figured wood: swirled rings (burl) or fine straight stripes (veneer)
        grain = nodes.new("ShaderNodeTexWave")
        grain.wave_type = "RINGS" if kind == "burl" else "BANDS"
        grain.bands_direction = rng.choice(["X", "Y"])
        grain.inputs["Scale"].default_value = rng.uniform(6, 16) if kind == "burl" else rng.uniform(15, 40)
        grain.inputs["Distortion"].default_value = rng.uniform(6, 14) if kind == "burl" else rng.uniform(0.5, 3)
        grain.inputs["Detail"].default_value = 6
        links.new(vector, grain.inputs["Vector"])
        colour = _ramp(nodes, links, grain.outputs["Fac"], a, b, (0.1, 0.9))
        bsdf.inputs["Coat Weight"].default_value = rng.uniform(0.3, 1.0)
    elif kind == "mosaic":  # tiles of two near colours set in grout
        cells = nodes.new("ShaderNodeTexVoronoi")
        cells.inputs["Scale"].default_value = rng.uniform(25, 70)
        links.new(vector, cells.inputs["Vector"])
        edges = nodes.new("ShaderNodeTexVoronoi")
        edges.feature = "DISTANCE_TO_EDGE"
        edges.inputs["Scale"].default_value = cells.inputs["Scale"].default_value
        links.new(vector, edges.inputs["Vector"])
        tiles = _ramp(nodes, links, cells.outputs["Color"], a, b, (0.3, 0.7))
        grout = nodes.new("ShaderNodeMix")
        grout.data_type = "RGBA"
        is_grout = nodes.new("ShaderNodeMath")
        is_grout.operation = "LESS_THAN"
        is_grout.inputs[1].default_value = rng.uniform(0.03, 0.08)
        links.new(edges.outputs["Distance"], is_grout.inputs[0])
        links.new(is_grout.outputs["Value"], grout.inputs["Factor"])
        links.new(tiles, grout.inputs["A"])
        grout.inputs["B"].default_value = linear([0.55, 0.53, 0.5] if _bright(a) < 0.5 else [0.2, 0.2, 0.2])
        colour = grout.outputs["Result"]
        bump_height = is_grout.outputs["Value"]
        bsdf.inputs["Coat Weight"].default_value = rng.uniform(0.4, 0.9)
    elif kind == "tiles":  # square or oblong tiles of two near shades in mortar, straight or staggered rows
        bricks = nodes.new("ShaderNodeTexBrick")
        bricks.offset = rng.choice([0.0, 0.5])
        bricks.inputs["Scale"].default_value = rng.uniform(12, 32)  # tiles 10-70 mm: near a checker
        bricks.inputs["Brick Width"].default_value = 0.5
        bricks.inputs["Row Height"].default_value = rng.uniform(0.25, 0.5)
        bricks.inputs["Mortar Size"].default_value = rng.uniform(0.01, 0.04)
        bricks.inputs["Color1"].default_value = linear(a)
        bricks.inputs["Color2"].default_value = linear(b)
        grey = [0.6, 0.58, 0.55] if _bright(a) < 0.5 else [0.15, 0.15, 0.15]
        t = rng.uniform(0.4, 1.0)  # mortar from a near shade of the tiles to a grey that stands out
        bricks.inputs["Mortar"].default_value = linear([x + (g - x) * t for x, g in zip(a, grey)])
        links.new(vector, bricks.inputs["Vector"])
        colour = bricks.outputs["Color"]
        bump_height = bricks.outputs["Fac"]
        bsdf.inputs["Coat Weight"].default_value = rng.uniform(0.3, 0.9)
    elif kind == "enamel":  # glossy paint crazed with fine cracks
        cracks = nodes.new("ShaderNodeTexVoronoi")
        cracks.feature = "DISTANCE_TO_EDGE"
        cracks.inputs["Scale"].default_value = rng.uniform(80, 200)
        links.new(vector, cracks.inputs["Vector"])
        colour = _ramp(nodes, links, cracks.outputs["Distance"], b, a, (0.0, 0.04))
        bsdf.inputs["Coat Weight"].default_value = 1.0
    elif kind == "lacquer":
        bsdf.inputs["Coat Weight"].default_value = 1.0
        bsdf.inputs["Coat Roughness"].default_value = 0.03
    elif kind == "metal":
        bsdf.inputs["Metallic"].default_value = 1.0
    if colour is not None:
        links.new(colour, bsdf.inputs["Base Color"])
    else:
        bsdf.inputs["Base Color"].default_value = linear(a)
    if bump_height is not None:
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = rng.uniform(0.1, 0.4)
        bump.inputs["Distance"].default_value = 0.0005
        links.new(bump_height, bump.inputs["Height"])
        links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


def surface_material(name: str, rgb, surface: dict, radius: float):
    """A checker set's surface drawn from continuous ranges (`spec._checker_surface`); `radius` is the checker's,
    in metres, for an inset disc."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = linear(rgb)
    bsdf.inputs["Roughness"].default_value = surface["roughness"]
    bsdf.inputs["Coat Weight"].default_value = surface["coat"]
    bsdf.inputs["Coat Roughness"].default_value = surface["coat_roughness"]
    bsdf.inputs["Sheen Weight"].default_value = surface["sheen"]
    bsdf.inputs["Metallic"].default_value = surface.get("metallic", 0.0)
    if surface["subsurface"]:  # milky plastic or bone: light spreads a millimetre or two under the surface
        bsdf.inputs["Subsurface Weight"].default_value = surface["subsurface"]
        bsdf.inputs["Subsurface Scale"].default_value = 0.002
        bsdf.inputs["Subsurface Radius"].default_value = (1.0, 0.6, 0.4)
    other = [min(1.0, c * surface["shade"] + (0.06 if surface["shade"] > 1 else 0.0)) for c in rgb]
    if surface["pattern"] == "disc":  # the top's middle another shade, out to a share of the radius
        coord = nodes.new("ShaderNodeTexCoord")
        flat = nodes.new("ShaderNodeVectorMath")
        flat.operation = "MULTIPLY"
        flat.inputs[1].default_value = (1.0, 1.0, 0.0)
        links.new(coord.outputs["Object"], flat.inputs[0])
        off_axis = nodes.new("ShaderNodeVectorMath")
        off_axis.operation = "LENGTH"
        links.new(flat.outputs["Vector"], off_axis.inputs[0])
        edge = surface["disc"] * radius
        links.new(_ramp(nodes, links, off_axis.outputs["Value"], other, rgb, (edge, edge * 1.03)),
                  bsdf.inputs["Base Color"])
    elif surface["pattern"] == "flakes":  # metal flakes in the resin: a few cells of a bright conductor
        vector = _coords(nodes, links, surface["scale"] * 2)
        cells = nodes.new("ShaderNodeTexVoronoi")
        links.new(vector, cells.inputs["Vector"])
        flake = nodes.new("ShaderNodeMath")
        flake.operation = "LESS_THAN"
        flake.inputs[1].default_value = 0.18
        links.new(cells.outputs["Distance"], flake.inputs[0])
        links.new(flake.outputs["Value"], bsdf.inputs["Metallic"])
        mix = nodes.new("ShaderNodeMix")
        mix.data_type = "RGBA"
        links.new(flake.outputs["Value"], mix.inputs["Factor"])
        mix.inputs["A"].default_value = linear(rgb)
        mix.inputs["B"].default_value = linear([min(1.0, c * 0.5 + 0.5) for c in rgb])
        links.new(mix.outputs["Result"], bsdf.inputs["Base Color"])
    elif surface["pattern"] != "none":
        vector = _coords(nodes, links, surface["scale"])
        if surface["pattern"] == "chips":
            texture = nodes.new("ShaderNodeTexVoronoi")
            texture.inputs["Randomness"].default_value = 1.0
            fac, pos = texture.outputs["Distance"], (0.1, 0.6)
        else:
            texture = nodes.new("ShaderNodeTexWave")
            texture.wave_type = "RINGS" if surface["pattern"] == "rings" else "BANDS"
            texture.inputs["Distortion"].default_value = surface["distortion"]
            texture.inputs["Detail"].default_value = 3
            fac, pos = texture.outputs["Fac"], (0.3, 0.8)
        links.new(vector, texture.inputs["Vector"])
        links.new(_ramp(nodes, links, fac, rgb, other, pos), bsdf.inputs["Base Color"])
    return mat


def checker_material(name: str, rgb, finish: str, rng: random.Random):
    """A checker set's finish: matte, glossy, satin, pearl (shimmering, coated), marble (veined), metal, wood
    (turned, with grain), stone (granite chips), translucent (glass or resin), swirl (two shades of cast resin)."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = linear(rgb)
    bsdf.inputs["Roughness"].default_value = {"matte": 0.55, "glossy": 0.12, "pearl": 0.22, "marble": 0.1,
                                               "metal": 0.28, "satin": 0.32, "wood": 0.4, "stone": 0.15,
                                               "translucent": 0.08, "swirl": 0.15}[finish]
    if finish in ("glossy", "pearl", "marble"):
        bsdf.inputs["Coat Weight"].default_value = 0.8
    if finish == "pearl":
        vector = _coords(nodes, links, rng.uniform(40, 90))
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Distortion"].default_value = 3
        links.new(vector, noise.inputs["Vector"])
        shade = [min(1.0, c * 1.15 + 0.05) for c in rgb]
        links.new(_ramp(nodes, links, noise.outputs["Fac"], [c * 0.8 for c in rgb], shade), bsdf.inputs["Base Color"])
        bsdf.inputs["Thin Film Thickness"].default_value = rng.uniform(250, 550)
        bsdf.inputs["Sheen Weight"].default_value = 0.4
    elif finish == "marble":
        vector = _coords(nodes, links, rng.uniform(30, 70))
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Detail"].default_value = 8
        noise.inputs["Distortion"].default_value = rng.uniform(3, 7)
        links.new(vector, noise.inputs["Vector"])
        vein = [c * 0.45 for c in rgb] if sum(rgb) > 1.5 else [min(1.0, c + 0.35) for c in rgb]
        links.new(_ramp(nodes, links, noise.outputs["Fac"], rgb, vein, (0.5, 0.56)), bsdf.inputs["Base Color"])
    elif finish == "metal":
        bsdf.inputs["Metallic"].default_value = 1.0
    elif finish == "translucent":  # glass or resin: light passes into it
        bsdf.inputs["Transmission Weight"].default_value = rng.uniform(0.5, 0.85)
        bsdf.inputs["IOR"].default_value = 1.5
    elif finish == "stone":  # granite: chips of a lighter and a darker shade, polished
        vector = _coords(nodes, links, rng.uniform(150, 400))
        chips = nodes.new("ShaderNodeTexVoronoi")
        chips.inputs["Randomness"].default_value = 1.0
        links.new(vector, chips.inputs["Vector"])
        links.new(_ramp(nodes, links, chips.outputs["Color"], [c * 0.6 for c in rgb],
                        [min(1.0, c * 1.2 + 0.08) for c in rgb], (0.2, 0.8)), bsdf.inputs["Base Color"])
        bsdf.inputs["Coat Weight"].default_value = 0.7
    elif finish == "swirl":  # cast resin: two shades of the set's colour swirled together, polished
        vector = _coords(nodes, links, rng.uniform(15, 45))
        swirl = nodes.new("ShaderNodeTexWave")
        swirl.wave_type = "BANDS"
        swirl.bands_direction = "DIAGONAL"
        swirl.inputs["Distortion"].default_value = rng.uniform(8, 20)
        swirl.inputs["Detail"].default_value = 4
        links.new(vector, swirl.inputs["Vector"])
        other = [c * 0.6 for c in rgb] if sum(rgb) > 1.5 else [min(1.0, c * 1.3 + 0.12) for c in rgb]
        links.new(_ramp(nodes, links, swirl.outputs["Fac"], rgb, other, (0.35, 0.75)), bsdf.inputs["Base Color"])
        bsdf.inputs["Coat Weight"].default_value = 0.8
    elif finish == "satin":
        bsdf.inputs["Coat Weight"].default_value = 0.3
        bsdf.inputs["Coat Roughness"].default_value = 0.25
    elif finish == "wood":
        vector = _coords(nodes, links, rng.uniform(20, 50))
        grain = nodes.new("ShaderNodeTexWave")
        grain.wave_type = "RINGS"
        grain.inputs["Distortion"].default_value = rng.uniform(1, 4)
        links.new(vector, grain.inputs["Vector"])
        links.new(_ramp(nodes, links, grain.outputs["Fac"], rgb, [c * 0.7 for c in rgb], (0.3, 0.9)),
                  bsdf.inputs["Base Color"])
    return mat


def plain(name: str, rgb, roughness: float = 0.5, **extra):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = linear(rgb)
    bsdf.inputs["Roughness"].default_value = roughness
    for key, value in extra.items():
        bsdf.inputs[key].default_value = value
    return mat


# -- meshes ----------------------------------------------------------------------------------------------------

def mesh_object(name, verts, faces, mat, collection, smooth_faces=None, materials=(), face_materials=None):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.materials.append(mat)
    for extra in materials:
        mesh.materials.append(extra)
    if smooth_faces is not None:
        mesh.polygons.foreach_set("use_smooth", smooth_faces)
    if face_materials is not None:
        mesh.polygons.foreach_set("material_index", face_materials)
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    collection.objects.link(obj)
    return obj


def box(name, x0, y0, z0, x1, y1, z1, mat, collection):
    v = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0), (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    f = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    return mesh_object(name, v, f, mat, collection)


def lathe(profile, segments=48):
    """Revolve a (radius, z, material, smooth) profile about the z axis: checkers and cups as turned objects."""
    verts, faces, smooth, mats = [], [], [], []
    for r, z, _, _ in profile:
        for s in range(segments):
            a = 2 * math.pi * s / segments
            verts.append((r * math.cos(a), r * math.sin(a), z))
    for i in range(len(profile) - 1):
        for s in range(segments):
            t = (s + 1) % segments
            faces.append((i * segments + s, i * segments + t, (i + 1) * segments + t, (i + 1) * segments + s))
            smooth.append(profile[i][3])
            mats.append(profile[i][2])
    return verts, faces, smooth, mats


def checker_profile(model: str, d: float, t: float, bevel: float):
    """A checker's cross-section from the bottom's centre out and up to the top's centre: flat (bevelled edges),
    grooved (concentric rings cut in the top), rimmed (a raised rim, a dished middle), ringed (an inlaid ring of
    the other material), domed (a low dome), stepped (a ledge round a raised middle), faceted (flat, turned with
    eight sides by the caller)."""
    r, b = d / 2, bevel * t
    p = [(0, 0, 0, False), (r - b, 0, 0, False)]
    for k in range(1, 4):  # the bottom edge's round-over
        a = math.pi / 2 * k / 4
        p.append((r - b + b * math.sin(a), b - b * math.cos(a), 0, True))
    p.append((r, b, 0, True))
    p.append((r, t - b, 0, True))
    for k in range(1, 4):
        a = math.pi / 2 * k / 4
        p.append((r - b + b * math.cos(a), t - b + b * math.sin(a), 0, True))
    p.append((r - b, t, 0, False))
    if model == "grooved":
        for g in (0.78, 0.55, 0.3):
            w, depth = 0.035 * d, 0.08 * t
            p += [(r * g + w, t, 0, False), (r * g + w * 0.5, t - depth, 0, True), (r * g, t, 0, False)]
    elif model == "rimmed":
        rim = 0.12 * r
        p += [(r - b - rim * 0.3, t + 0.06 * t, 0, True), (r - rim, t + 0.06 * t, 0, True),
              (r - rim * 1.4, t - 0.1 * t, 0, True), (r * 0.3, t - 0.14 * t, 0, False)]
    elif model == "domed":  # the top rises to a low dome
        for k in range(1, 6):
            x = 1 - k / 6
            p.append(((r - b) * x, t + 0.16 * t * (1 - x * x), 0, True))
    elif model == "stepped":  # a shoulder: the top's middle stands proud of a ledge
        p += [(r * 0.8, t, 0, False), (r * 0.8, t + 0.12 * t, 0, False), (r * 0.78, t + 0.14 * t, 0, True)]
    elif model == "ringed":
        p += [(r * 0.72, t, 0, False), (r * 0.72, t + 0.002 * t, 1, False), (r * 0.5, t + 0.002 * t, 1, False),
              (r * 0.5, t, 0, False)]
    p.append((0, p[-1][1], 0, False))
    return p


def die_mesh(size: float):
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=size)
    bmesh.ops.bevel(bm, geom=list(bm.edges) + list(bm.verts), offset=0.12 * size, segments=3, affect="EDGES")
    mesh = bpy.data.meshes.new("die")
    bm.to_mesh(mesh)
    bm.free()
    for poly in mesh.polygons:
        poly.use_smooth = True
    return mesh


PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
        5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)], 6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}
FACES = {1: Vector((0, 0, 1)), 6: Vector((0, 0, -1)), 2: Vector((1, 0, 0)), 5: Vector((-1, 0, 0)),
         3: Vector((0, 1, 0)), 4: Vector((0, -1, 0))}


# -- the scene -------------------------------------------------------------------------------------------------

class BoardScene:
    """One board in a room. The board's parts stay from frame to frame; the frame's parts (checkers, dice, cube,
    hand, props, lights, table) are made anew for each frame."""

    def __init__(self, board: dict, width: int, height: int, samples: int) -> None:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        self.board, self.g = board, board["geometry"]
        scene = self.scene = bpy.context.scene
        scene.render.engine = "CYCLES"
        scene.cycles.device = "CPU"
        scene.cycles.samples = samples
        scene.cycles.use_adaptive_sampling = True
        scene.cycles.use_denoising = True
        scene.cycles.max_bounces, scene.cycles.diffuse_bounces, scene.cycles.glossy_bounces = 3, 2, 2
        scene.cycles.transmission_bounces, scene.cycles.transparent_max_bounces = 2, 2
        scene.cycles.caustics_reflective = scene.cycles.caustics_refractive = False
        scene.render.resolution_x, scene.render.resolution_y = width, height
        scene.render.resolution_percentage = 100
        scene.render.image_settings.file_format = "PNG"
        scene.render.image_settings.color_depth = "16"
        scene.view_settings.view_transform = "Standard"  # a webcam's colours, not a film's
        scene.world = bpy.data.worlds.new("room")
        scene.world.use_nodes = True
        self.static = bpy.data.collections.new("board")
        scene.collection.children.link(self.static)
        # crc32, not hash(): a str's hash is salted per process, and a board must render the same from its seed
        self.rng = random.Random(zlib.crc32(board["board_id"].encode()))
        self._build_board()
        self.frame_parts = None

    # board coordinates: (u, v) mm from the playing area's top-left as player 0 sees it
    def world(self, u: float, v: float, z: float = 0.0) -> Vector:
        return Vector(((u - self.g["play_width"] / 2) * MM, (self.g["play_height"] / 2 - v) * MM, z * MM))

    def tray_right(self) -> bool:
        """Trays lie on player 0's home side."""
        return self.board["home_right"]

    def _build_board(self) -> None:
        g, m, rng = self.g, self.board["materials"], self.rng
        W, H, F = g["play_width"], g["play_height"], g["frame_width"]
        fh, tray = g["frame_height"], g["tray_width"]
        field = material("field", m["field"], rng)
        frame = material("frame", m["frame"], rng)
        bar = material("bar", m["bar"], rng) if m["bar"] else frame
        points = [material(f"point{i}", spec, rng) for i, spec in enumerate(m["points"])]
        col = self.static
        hw, hh = W / 2 * MM, H / 2 * MM
        box("field", -hw, -hh, -0.004, hw, hh, 0.0, field, col)
        # the frame: four rails, and trays (a lowered floor behind another rail) on the home side
        t, fz = F * MM, max(fh, 0.6) * MM
        left, right = -hw - t, hw + t
        if tray:
            tw = tray * MM
            if self.tray_right():
                box("tray floor", hw + t, -hh, -0.004, hw + t + tw, hh, fz * 0.35, frame, col)
                right = hw + 2 * t + tw
                box("tray rail", hw + t + tw, -hh, -0.004, right, hh, fz, frame, col)
                box("tray divider", hw + t, -0.006, fz * 0.35, hw + t + tw, 0.006, fz, frame, col)
            else:
                box("tray floor", -hw - t - tw, -hh, -0.004, -hw - t, hh, fz * 0.35, frame, col)
                left = -hw - 2 * t - tw
                box("tray rail", left, -hh, -0.004, -hw - t - tw, hh, fz, frame, col)
                box("tray divider", -hw - t - tw, -0.006, fz * 0.35, -hw - t, 0.006, fz, frame, col)
        # rails meet without overlapping: coplanar overlapping faces render black in Cycles
        box("rail left", -hw - t, -hh, -0.004, -hw, hh, fz, frame, col)
        box("rail right", hw, -hh, -0.004, hw + t, hh, fz, frame, col)
        box("rail near", left, -hh - t, -0.004, right, -hh, fz, frame, col)
        box("rail far", left, hh, -0.004, right, hh + t, fz, frame, col)
        box("base", left, -hh - t, -0.03, right, hh + t, -0.0045, frame, col)
        self.outline = [Vector((left, -hh - t, 0)), Vector((right, -hh - t, 0)), Vector((right, hh + t, 0)),
                        Vector((left, hh + t, 0))]
        half = 6 * g["point_width"]
        bx0 = (half - W / 2) * MM
        bz = max(g["bar_height"], 0.3) * MM
        box("bar", bx0, -hh, -0.004, bx0 + g["bar_width"] * MM, hh, bz, bar, col)
        self.bar_top = bz / MM
        # the points: triangles printed or inlaid on the field, alternating colours
        pw, base, length = g["point_width"], g["point_width"] * g["point_base"], g["point_length"]
        verts, faces, mats = [], [], []
        for row, (edge, sign) in enumerate(((0.0, 1.0), (H, -1.0))):
            for j in range(12):
                cx = pw * (j + 0.5) + (g["bar_width"] if j >= 6 else 0.0)
                n = len(verts)
                verts += [self.world(cx - base / 2, edge, 0.25)[:], self.world(cx + base / 2, edge, 0.25)[:],
                          self.world(cx, edge + sign * length, 0.25)[:]]
                faces.append((n, n + 1, n + 2) if sign < 0 else (n, n + 2, n + 1))
                mats.append((j + row) % 2)
        mesh_object("points", verts, faces, points[0], col, materials=[points[1]], face_materials=mats)

    # -- a frame -----------------------------------------------------------------------------------------------

    def _clear_frame(self) -> None:
        if self.frame_parts is not None:
            for obj in list(self.frame_parts.objects):
                bpy.data.objects.remove(obj, do_unlink=True)
            bpy.data.collections.remove(self.frame_parts)
            bpy.data.orphans_purge(do_recursive=True)
        self.frame_parts = bpy.data.collections.new("frame")
        self.scene.collection.children.link(self.frame_parts)

    def _checker_meshes(self):
        c, g, rng = self.board["checkers"], self.g, self.rng
        d, t = g["checker_diameter"] * MM, g["checker_thickness"] * MM
        out = []
        for i, rgb in enumerate(c["colours"]):
            def finished(name, colour, i=i):
                return (surface_material(name, colour, c["surfaces"][i], d / 2) if "surfaces" in c
                        else checker_material(name, colour, c["finish"], rng))

            # the draws in this order (the set's, the ring's colour, the ring's): earlier boards stay reproducible
            mat = finished(f"checker{i}", rgb)
            ring = finished(f"ring{i}", c["colours"][1 - i] if rng.random() < 0.5 else
                            [min(1.0, x * 0.7 + 0.2) for x in rgb])
            faceted = c["model"] == "faceted"  # an octagonal prism: turned with eight sides, none smoothed
            verts, faces, smooth, mats = lathe(checker_profile(c["model"], d, t, c["bevel"]), 8 if faceted else 48)
            if faceted:
                smooth = [False] * len(smooth)
            mesh = bpy.data.meshes.new(f"checker{i}")
            mesh.from_pydata(verts, [], faces)
            mesh.materials.append(mat)
            mesh.materials.append(ring)
            mesh.polygons.foreach_set("use_smooth", smooth)
            mesh.polygons.foreach_set("material_index", mats)
            mesh.update()
            out.append(mesh)
        return out

    def _place_checker(self, mesh, u, v, z, tilt_axis=None, tilt=0.0):
        obj = bpy.data.objects.new("checker", mesh)
        self.frame_parts.objects.link(obj)
        rot = Matrix.Rotation(self.rng.uniform(0, 2 * math.pi), 4, "Z")
        if tilt:
            rot = Matrix.Rotation(tilt, 4, tilt_axis) @ rot
        obj.matrix_world = Matrix.Translation(self.world(u, v, z)) @ rot

    def _checkers(self, frame: dict) -> None:
        g, st = self.g, frame["stacking"]
        rng = random.Random(st["seed"])
        d, t, pw = g["checker_diameter"], g["checker_thickness"], g["point_width"]
        W, H = g["play_width"], g["play_height"]
        meshes = self._checker_meshes()
        colour_of = (lambda owner: 0 if (owner == 0) == self.board["player0_light"] else 1)
        home_right = self.board["home_right"]
        step = d * st["gap"]
        for number, (owner, count) in enumerate(frame["points"], start=1):
            if not count:
                continue
            if number <= 12:
                j, top = (12 - number if home_right else number - 1), False
            else:
                j, top = (number - 13 if home_right else 24 - number), True
            cx = pw * (j + 0.5) + (g["bar_width"] if j >= 6 else 0.0)
            for i in range(count):
                tilt, z = 0.0, 0.0
                if st["style"] == "layered" or (st["style"] == "column" and count <= 5):
                    layer, slot, left = 0, i, 5
                    while slot >= left:
                        slot, layer, left = slot - left, layer + 1, max(1, left - 1)
                    along, z = g["edge_margin"] + d / 2 + (slot + layer / 2) * step, layer * t
                elif st["style"] == "tower":
                    along, z = g["edge_margin"] + d / 2 + (i % 5) * step, (i // 5) * t
                else:  # one long column, the checkers leaning on each other where they must overlap
                    room = H / 2 - g["edge_margin"] - d / 2 - 4
                    spacing = min(step, room / (count - 1))
                    along = g["edge_margin"] + d / 2 + i * spacing
                    if spacing < d and i:
                        tilt = math.atan2(t, spacing) * 0.8
                        z = d / 2 * math.sin(tilt)
                jitter = st["sloppy"] * d
                u = cx + rng.gauss(0, jitter)
                a = along + rng.gauss(0, jitter)
                v = a if top else H - a
                sign = 1 if top else -1
                self._place_checker(meshes[colour_of(owner)], u, v, z, "X", -sign * tilt)
        # the bar: each player's checkers from the middle out, player 0's in the far half
        bar_u = 6 * pw + g["bar_width"] / 2
        for player in (0, 1):
            for i in range(frame["bar"][player]):
                along = d * (0.75 + i * 1.02)
                v = H / 2 - along if player == 0 else H / 2 + along
                self._place_checker(meshes[colour_of(player)], bar_u + rng.gauss(0, 1), v, self.bar_top)
        # borne off: piles in the tray (player 0's the near one), or beside the board without trays
        tray = g["tray_width"]
        for player in (0, 1):
            n = frame["off"][player]
            for i in range(n):
                pile, level = divmod(i, 5)
                if tray:
                    x = W + g["frame_width"] + tray / 2 if home_right else -g["frame_width"] - tray / 2
                    z = g["frame_height"] * 0.35
                else:
                    x = W + g["frame_width"] + d * 0.8 if home_right else -g["frame_width"] - d * 0.8
                    z = -4
                along = d * (0.7 + pile * 1.05)
                v = H / 2 + along if player == 0 else H / 2 - along
                self._place_checker(meshes[colour_of(player)], x + rng.gauss(0, 1), v, z + level * t)

    def _dice_and_cube(self, frame: dict, rng: random.Random) -> list:
        g, dice = self.g, self.board["dice"]
        size = dice["size"]
        mesh = die_mesh(size * MM)
        body = plain("die", dice["colour"], 0.3, **{"Coat Weight": 0.5})
        pip_colour = [0.05, 0.05, 0.05] if sum(dice["colour"]) > 1.4 else [0.95, 0.95, 0.95]
        pip = plain("pip", pip_colour, 0.4)
        pw, W, H = g["point_width"], g["play_width"], g["play_height"]
        half = 6 * pw
        right = frame["roller"] == 0
        u0, u1 = (half + g["bar_width"] + size, W - size) if right else (size, half - size)
        v0, v1 = g["point_length"] + size * 0.6, H - g["point_length"] - size * 0.6
        if v1 <= v0:
            v0, v1 = H / 2 - size, H / 2 + size
        mesh.materials.append(body)
        bm = bmesh.new()
        bmesh.ops.create_uvsphere(bm, u_segments=12, v_segments=6, radius=size * 0.085 * MM)
        dot_mesh = bpy.data.meshes.new("pip")
        bm.to_mesh(dot_mesh)
        bm.free()
        dot_mesh.materials.append(pip)
        centres = []
        for value in frame["dice"]:
            for _ in range(30):
                u, v = rng.uniform(u0, u1), rng.uniform(v0, v1)
                if all((u - a) ** 2 + (v - b) ** 2 > (1.6 * size) ** 2 for a, b in centres):
                    break
            centres.append((u, v))
            die = bpy.data.objects.new("die", mesh)
            self.frame_parts.objects.link(die)
            turn = FACES[value].rotation_difference(Vector((0, 0, 1))).to_matrix().to_4x4()
            angle = rng.uniform(0, 2 * math.pi)
            pose, high = Matrix.Rotation(angle, 4, "Z") @ turn, size / 2
            lean = (frame.get("dice_lean") or [None, None])[len(centres) - 1]
            if lean:  # cocked: turned onto a bottom edge (parallel to a face), raised until that (bevelled) edge
                # touches the board
                axis = Vector((math.cos(angle), math.sin(angle), 0.0))
                pose = Matrix.Rotation(math.radians(lean["tilt"]), 4, axis) @ pose
                high = -min((pose @ vertex.co).z for vertex in mesh.vertices) / MM
            die.matrix_world = Matrix.Translation(self.world(u, v, high)) @ pose
            for face, normal in FACES.items():
                e1 = Vector((0, 0, 1)).cross(normal) if abs(normal.z) < 0.5 else Vector((1, 0, 0))
                e2 = normal.cross(e1)
                facing = Vector((0, 0, 1)).rotation_difference(normal).to_matrix().to_4x4()
                for a, b in PIPS[face]:
                    # a flattened dark sphere sunk into the face: a drilled and painted pip
                    local = normal * (size / 2 * 0.97) + (e1 * a + e2 * b) * (size * 0.27)
                    dot = bpy.data.objects.new("pip", dot_mesh)
                    self.frame_parts.objects.link(dot)
                    dot.matrix_world = (die.matrix_world @ Matrix.Translation(local * MM) @ facing
                                        @ Matrix.Diagonal((1.0, 1.0, 0.45, 1.0)))
        # the cube: on the bar's middle when the bar is free, else beside the board
        cube = self.board["dice"]["size"] * 1.55
        value = frame["cube"]["value"]
        if frame["cube"]["place"] == "bar" and not any(frame["bar"]):
            where = self.world(6 * pw + g["bar_width"] / 2, H / 2, self.bar_top + cube / 2)
        else:
            side = -1 if self.board["home_right"] else 1
            where = self.world(W / 2 + side * (W / 2 + g["frame_width"] + cube), H / 2 + rng.uniform(-40, 40), cube / 2)
        cmesh = die_mesh(cube * MM)
        cobj = bpy.data.objects.new("cube", cmesh)
        cobj.data.materials.append(plain("cube", [0.92, 0.9, 0.85], 0.35))
        self.frame_parts.objects.link(cobj)
        spin = Matrix.Rotation(rng.uniform(0, 2 * math.pi), 4, "Z")
        cobj.matrix_world = Matrix.Translation(where) @ spin
        ink = plain("ink", [0.05, 0.05, 0.05], 0.4)
        for face, text in ((Vector((0, 0, 1)), str(value)), (Vector((1, 0, 0)), str(value * 2 if value < 64 else 1)),
                           (Vector((0, -1, 0)), "32" if value != 32 else "4")):
            curve = bpy.data.curves.new("number", "FONT")
            curve.body, curve.size, curve.align_x, curve.align_y = text, cube * 0.5 * MM, "CENTER", "CENTER"
            curve.extrude = 0.0001
            num = bpy.data.objects.new("number", curve)
            num.data.materials.append(ink)
            self.frame_parts.objects.link(num)
            turn = Vector((0, 0, 1)).rotation_difference(face).to_matrix().to_4x4()
            num.matrix_world = cobj.matrix_world @ turn @ Matrix.Translation((0, 0, cube / 2 * 1.001 * MM))
        return centres

    def _hand(self, hand: dict) -> list:
        """An arm reaching over the board: forearm, palm, fingers. Returns its parts' vertices for the outline."""
        g = self.g
        W, H = g["play_width"], g["play_height"]
        skin = plain("skin", hand["skin"], 0.5, **{"Subsurface Weight": 0.15})
        side = hand["side"]
        # where the palm is, and the direction the arm comes from (unit vector in board mm, pointing out)
        if side in ("near", "far"):
            u = W * hand["along"]
            v = H * (1 - hand["reach"]) if side == "near" else H * hand["reach"]
            out = Vector((0, -1, 0)) if side == "near" else Vector((0, 1, 0))
        else:
            v = H * hand["along"]
            u = W * hand["reach"] if side == "left" else W * (1 - hand["reach"])
            out = Vector((-1, 0, 0)) if side == "left" else Vector((1, 0, 0))
        palm = self.world(u, v, hand["height"])
        parts = []
        forearm_len = 0.42
        centre = palm + out * (forearm_len / 2 + 0.05) + Vector((0, 0, 0.06))
        bpy.ops.mesh.primitive_cylinder_add(radius=0.036, depth=forearm_len, location=centre, vertices=20)
        arm = bpy.context.active_object
        arm.rotation_euler = out.to_track_quat("Z", "Y").to_euler()
        arm.rotation_euler.rotate_axis("X", math.radians(8))
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.05, location=palm, segments=20, ring_count=10)
        hand_obj = bpy.context.active_object
        hand_obj.scale = (1.0, 0.9, 0.45) if side in ("near", "far") else (0.9, 1.0, 0.45)
        parts += [arm, hand_obj]
        across = Vector((-out.y, out.x, 0))
        for k in range(4):
            tip = palm - out * 0.06 + across * (k - 1.5) * 0.018 + Vector((0, 0, -0.01))
            bpy.ops.mesh.primitive_cylinder_add(radius=0.008, depth=0.06, location=tip, vertices=12)
            finger = bpy.context.active_object
            finger.rotation_euler = out.to_track_quat("Z", "Y").to_euler()
            parts.append(finger)
        for obj in parts:
            for c in obj.users_collection:
                c.objects.unlink(obj)
            self.frame_parts.objects.link(obj)
            obj.data.materials.append(skin)
        bpy.context.view_layer.update()
        return parts

    def _props(self, frame: dict, rng: random.Random) -> None:
        """What else lies on a club table: a dice cup, a clock, a score sheet, a pen."""
        g = self.g
        W, H = g["play_width"], g["play_height"]
        margin = g["frame_width"] + g["tray_width"] + 40
        for prop in frame["props"]:
            side = rng.choice([-1, 1])
            u = W / 2 + side * (W / 2 + margin + rng.uniform(0, 80))
            v = rng.uniform(0.1, 0.9) * H
            where = self.world(u, v, 0)
            where.z = -0.03
            if prop == "cup":
                verts, faces, smooth, _ = lathe([(0, 0, 0, False), (0.032, 0, 0, True), (0.036, 0.085, 0, True),
                                                 (0.031, 0.085, 0, True), (0.028, 0.004, 0, True),
                                                 (0, 0.004, 0, False)])
                leather = {"kind": "leather", "colours": [[rng.random() * 0.4] * 3, [0, 0, 0]], "roughness": 0.5,
                           "scale": 1.0}
                obj = mesh_object("cup", verts, faces, material("cup", leather, rng), self.frame_parts, smooth)
                obj.location = where
                if rng.random() < 0.5:  # lying on its side
                    obj.rotation_euler = (math.pi / 2, 0, rng.uniform(0, 6.3))
                    obj.location.z += 0.036
            elif prop == "clock":
                obj = box("clock", -0.08, -0.04, 0, 0.08, 0.04, 0.06, plain("clock", [rng.random() * 0.3] * 3, 0.4),
                          self.frame_parts)
                obj.location = where
                obj.rotation_euler.z = rng.uniform(-0.4, 0.4)
                for k in (-1, 1):
                    face = box("display", k * 0.04 - 0.03, -0.0405, 0.02, k * 0.04 + 0.03, -0.04, 0.045,
                               plain("lcd", [0.7, 0.75, 0.65], 0.2), self.frame_parts)
                    face.parent = obj
            elif prop == "sheet":
                paper = material("paper", {"kind": "printed", "colours": [[0.95, 0.95, 0.92]] * 2, "roughness": 0.7,
                                           "scale": 1.0}, rng)
                obj = box("sheet", -0.074, -0.105, 0, 0.074, 0.105, 0.0004, paper, self.frame_parts)
                obj.location = where
                obj.rotation_euler.z = rng.uniform(-0.6, 0.6)
            else:
                verts, faces, smooth, _ = lathe([(0, 0, 0, False), (0.004, 0, 0, True), (0.004, 0.14, 0, True),
                                                 (0, 0.14, 0, False)], 12)
                obj = mesh_object("pen", verts, faces, plain("pen", [rng.random() for _ in range(3)], 0.3),
                                  self.frame_parts, smooth)
                obj.location = where + Vector((0, 0, 0.004))
                obj.rotation_euler = (math.pi / 2, 0, rng.uniform(0, 6.3))

    def _lights(self, frame: dict, rng: random.Random) -> None:
        world = self.scene.world.node_tree.nodes["Background"]
        world.inputs["Color"].default_value = linear([rng.uniform(0.5, 1.0)] * 3)
        world.inputs["Strength"].default_value = rng.uniform(0.05, 0.4)
        for i, spec in enumerate(frame["lights"]):
            light = bpy.data.lights.new(f"light{i}", "AREA")
            light.size = spec["size"]
            light.energy = spec["power"]
            light.color = spec["colour"]
            obj = bpy.data.objects.new(f"light{i}", light)
            self.frame_parts.objects.link(obj)
            az, el = math.radians(spec["azimuth"]), math.radians(spec["elevation"])
            direction = Vector((math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)))
            obj.location = direction * spec["distance"]
            obj.rotation_euler = (-obj.location).to_track_quat("-Z", "Y").to_euler()
        # the table under the board
        box("table", -1.5, -1.5, -0.06, 1.5, 1.5, -0.031, material("table", frame["table"], rng), self.frame_parts)

    def _camera(self, frame: dict) -> dict:
        spec = frame["camera"]
        cam_data = bpy.data.cameras.new("camera")
        cam_data.lens, cam_data.sensor_width = spec["focal"], 36
        cam = bpy.data.objects.new("camera", cam_data)
        self.frame_parts.objects.link(cam)
        self.scene.camera = cam
        yaw = math.radians(spec["azimuth"]) + (math.pi if self.board["from_player1"] else 0.0)
        rot = (Matrix.Rotation(yaw, 4, "Z") @ Matrix.Rotation(math.radians(spec["tilt"]), 4, "X")
               @ Matrix.Rotation(math.radians(spec["roll"]), 4, "Z"))
        target = Vector((0, 0, 0))
        distance = 1.0
        aspect = self.scene.render.resolution_x / self.scene.render.resolution_y
        for _ in range(5):  # frame the whole board: scale the distance, then re-centre the target
            cam.matrix_world = Matrix.Translation(target + (rot @ Vector((0, 0, distance, 0))).to_3d()) @ rot
            bpy.context.view_layer.update()
            pts = [world_to_camera_view(self.scene, cam, p) for p in self.outline]
            xs, ys = [p.x for p in pts], [p.y for p in pts]
            extent = max((max(xs) - min(xs)), (max(ys) - min(ys)))
            distance *= extent / spec["fill"]
            cx = (max(xs) + min(xs)) / 2 - 0.5 - spec["shift"][0]
            cy = (max(ys) + min(ys)) / 2 - 0.5 - spec["shift"][1]
            right = (rot @ Vector((1, 0, 0, 0))).to_3d()
            up = (rot @ Vector((0, 1, 0, 0))).to_3d()
            view_width = 2 * distance * math.tan(cam_data.angle_x / 2) if aspect >= 1 else distance
            target += right * cx * view_width + up * cy * view_width / aspect
        cam.matrix_world = Matrix.Translation(target + (rot @ Vector((0, 0, distance, 0))).to_3d()) @ rot
        bpy.context.view_layer.update()
        return {"distance": distance, "lens": spec["focal"]}

    def project(self, point: Vector) -> list[float]:
        p = world_to_camera_view(self.scene, self.scene.camera, point)
        return [p.x * self.scene.render.resolution_x, (1 - p.y) * self.scene.render.resolution_y]

    def _expose(self, corners: list, gain: float, out: Path) -> float:
        """A camera's auto-exposure: a tiny, rough render first, then the exposure that brings the playing area
        to about mid-grey (`gain` says how well the camera manages it)."""
        scene, cycles, settings = self.scene, self.scene.cycles, self.scene.render.image_settings
        saved = (cycles.samples, cycles.use_denoising, scene.render.resolution_percentage, settings.file_format,
                 settings.color_depth)
        scene.view_settings.exposure = 0.0
        cycles.samples, cycles.use_denoising, scene.render.resolution_percentage = 4, False, 10
        settings.file_format, settings.color_depth = "OPEN_EXR", "32"
        probe = out.with_suffix(".probe.exr")
        scene.render.filepath = str(probe)
        bpy.ops.render.render(write_still=True)
        image = bpy.data.images.load(str(probe))
        w, h = image.size
        pixels = np.empty(w * h * 4, np.float32)
        image.pixels.foreach_get(pixels)
        bpy.data.images.remove(image)
        probe.unlink()
        rgb = pixels.reshape(h, w, 4)[::-1, :, :3]  # Blender's rows run bottom-up
        xs = [c[0] * w / scene.render.resolution_x for c in corners]
        ys = [c[1] * h / scene.render.resolution_y for c in corners]
        x0, x1 = int(max(0, min(xs))), int(min(w, max(xs) + 1))
        y0, y1 = int(max(0, min(ys))), int(min(h, max(ys) + 1))
        board = rgb[y0:y1, x0:x1] if x1 > x0 and y1 > y0 else rgb
        level = float(np.median(board @ np.array([0.2126, 0.7152, 0.0722], np.float32)))
        (cycles.samples, cycles.use_denoising, scene.render.resolution_percentage, settings.file_format,
         settings.color_depth) = saved
        exposure = math.log2(0.18 * gain / max(level, 1e-4))
        scene.view_settings.exposure = exposure
        return round(exposure, 3)

    def render(self, frame: dict, out: Path) -> dict:
        self._clear_frame()
        rng = random.Random(frame["stacking"]["seed"] + 1)
        self._lights(frame, rng)
        self._checkers(frame)
        dice = self._dice_and_cube(frame, rng)
        self._props(frame, rng)
        camera = self._camera(frame)
        hand = []
        if frame["hand"]:
            for obj in self._hand(frame["hand"]):
                hand.append([self.project(obj.matrix_world @ v.co) for v in obj.data.vertices])
        g = self.g
        corners = [self.project(self.world(u, v)) for u, v in
                   ((0, 0), (g["play_width"], 0), (g["play_width"], g["play_height"]), (0, g["play_height"]))]
        started = time.perf_counter()
        exposure = self._expose(corners, frame["effects"]["gain"], out)
        self.scene.render.filepath = str(out.with_suffix(".png"))
        bpy.ops.render.render(write_still=True)
        raw = {"corners": corners, "hand_outline": hand, "dice_px": [self.project(self.world(u, v)) for u, v in dice],
               "camera": camera, "exposure": exposure, "render_seconds": round(time.perf_counter() - started, 2),
               "width": self.scene.render.resolution_x, "height": self.scene.render.resolution_y}
        out.with_suffix(".raw.json").write_text(json.dumps(raw))
        return raw


def main(job_path: str) -> int:
    job = json.loads(Path(job_path).read_text())
    out = Path(job["out"])
    out.mkdir(parents=True, exist_ok=True)
    for item in job["boards"]:
        board = item["board"]
        scene = BoardScene(board, job["width"], job["height"], job["samples"])
        for frame in item["frames"]:
            name = out / f"{board['board_id']}-{frame['frame_index']:02d}"
            if name.with_suffix(".raw.json").exists():  # rendered by an earlier run: rendering resumes
                continue
            raw = scene.render(frame, name)
            print(f"{name.name}: {raw['render_seconds']} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[-1]))
