"""Reads Meridian's point-cloud downloads with laspy (lazrs backend) and checks them against the
uploaded file: point count, coordinates within the scale, the classes the API reported, the
`confidence` extra dimension, the CRS, and the COPC hierarchy through laspy's CopcReader.

usage: pointcloud_laspy.py SOURCE.laz DIR HISTOGRAM_JSON   (DIR holds out.laz, out.las, out.copc)
"""
import json
import os
import sys

import laspy
import numpy as np

source_path, out_dir, histogram_json = sys.argv[1], sys.argv[2], sys.argv[3]
expected = {int(k): v for k, v in json.loads(histogram_json).items()}
source = laspy.read(source_path)
src_xyz = np.vstack([source.x, source.y, source.z]).T
order = np.lexsort((src_xyz[:, 2], src_xyz[:, 1], src_xyz[:, 0]))


def check(name, las):
    n = len(las.points)
    assert n == len(source.points), f"{name}: {n} points, the upload had {len(source.points)}"
    xyz = np.vstack([las.x, las.y, las.z]).T
    o = np.lexsort((xyz[:, 2], xyz[:, 1], xyz[:, 0]))
    scale = np.array(source.header.scales)
    diff = np.abs(xyz[o] - src_xyz[order]).max(axis=0)
    assert (diff <= scale + 1e-9).all(), f"{name}: coordinates moved by {diff} (scale {scale})"
    classes, counts = np.unique(np.asarray(las.classification), return_counts=True)
    got = {int(c): int(k) for c, k in zip(classes, counts)}
    assert got == expected, f"{name}: classes {got}, the API reported {expected}"
    dims = list(las.point_format.extra_dimension_names)
    assert "confidence" in dims, f"{name}: extra dimensions {dims}"
    conf = np.asarray(las["confidence"])
    assert conf.min() >= 0 and conf.max() <= 255 and conf.max() > 0, f"{name}: confidence {conf.min()}..{conf.max()}"
    # laspy reads only the first of the source's two extra-bytes VLRs and calls the rest of the
    # bytes `ExtraBytes`; the output describes every attribute in one VLR.
    for d in (d for d in source.point_format.extra_dimension_names if d != "ExtraBytes"):
        assert d in dims, f"{name}: the source's extra dimension {d} was lost ({dims})"
    vlrs = list(las.header.vlrs) + list(getattr(las, "evlrs", None) or [])
    wkt = [str(getattr(v, "string", "")) for v in vlrs if getattr(v, "record_id", None) == 2112]
    keys = [k.value_offset for v in vlrs if getattr(v, "record_id", None) == 34735 for k in v.geo_keys if k.id == 3072]
    assert any("2154" in w for w in wkt) or 2154 in keys, f"{name}: no EPSG:2154 CRS ({wkt}, {keys})"
    print(f"{name}: {n} points, format {las.point_format.id}, classes {got}, extra {dims}, max |d| {diff}")


for name in ["out.laz", "out.las", "out.copc"]:
    check(name, laspy.read(os.path.join(out_dir, name)))

with laspy.CopcReader.open(os.path.join(out_dir, "out.copc")) as reader:
    header = reader.header
    assert header.version.minor == 4 and header.point_format.id in (6, 7, 8), header
    entries = reader.root_page.entries
    assert entries, "the hierarchy has no entries"
    with_points = [e for e in entries.values() if e.point_count > 0]
    assert sum(e.point_count for e in with_points) == len(source.points), "hierarchy counts"
    nodes = with_points
    everything = reader.query()
    assert len(everything) == len(source.points), f"CopcReader: {len(everything)} points"
    mins, maxs = header.mins, header.maxs
    cx, cy = (mins[0] + maxs[0]) / 2, (mins[1] + maxs[1]) / 2
    box = laspy.copc.Bounds(mins=np.array([mins[0], mins[1]]), maxs=np.array([cx, cy]))
    part = reader.query(bounds=box)
    inside = (everything.x >= mins[0]) & (everything.x <= cx) & (everything.y >= mins[1]) & (everything.y <= cy)
    assert len(part) >= int(inside.sum()) > 0, f"bounded query: {len(part)} points, {int(inside.sum())} inside"
    levels = reader.query(level=0)
    assert 0 < len(levels) < len(everything), f"the root level has {len(levels)} of {len(everything)} points"
    print(f"COPC: {len(everything)} points, {len(nodes)} nodes with points, bounded query {len(part)}, coarse {len(levels)}")
