"""Reads the LAS, LAZ and COPC files meridian-pointcloud wrote with laspy (lazrs backend) and
checks them against the input read by laspy itself; with "copclib": true, also opens the COPC
file with copclib and validates every node's points against the node's bounds.

Usage: laspy_check.py '{"input": ..., "las": ..., "laz": ..., "copc": ..., "classify": [..],
"bbox": [minx, miny, maxx, maxy] or null, "classes": [..] or null, "query": [minx, miny, maxx, maxy]}'

The writer was given classification[i] = classify[i % len(classify)] and
confidence[i] = (31 i + 7) mod 256 for the i-th input point.
"""

import json
import sys

import laspy
import numpy as np
from laspy import Bounds, CopcReader


def expected(spec):
    src = laspy.read(spec["input"])
    n = len(src.points)
    i = np.arange(n, dtype=np.int64)
    classify = np.array(spec["classify"], dtype=np.uint8)
    cls = classify[i % len(classify)]
    conf = ((31 * i + 7) % 256).astype(np.uint8)
    X, Y, Z = np.asarray(src.X), np.asarray(src.Y), np.asarray(src.Z)
    keep = np.ones(n, dtype=bool)
    if spec.get("bbox"):
        x0, y0, x1, y1 = spec["bbox"]
        x, y = np.asarray(src.x), np.asarray(src.y)
        keep &= (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
    if spec.get("classes") is not None:
        keep &= np.isin(cls, np.array(spec["classes"], dtype=np.uint8))
    cols = {
        "X": X[keep],
        "Y": Y[keep],
        "Z": Z[keep],
        "classification": cls[keep],
        "confidence": conf[keep],
        "intensity": np.asarray(src.intensity)[keep],
        "return_number": np.asarray(src.return_number)[keep],
    }
    if "gps_time" in src.point_format.dimension_names:
        cols["gps_time"] = np.asarray(src.gps_time)[keep]
    if "Deviation" in src.point_format.dimension_names:
        cols["Deviation"] = np.asarray(src["Deviation"])[keep]
    return src.header, cols


def crs_vlrs(header):
    """The CRS records (WKT, GeoTIFF keys) by record id, as bytes."""
    return {v.record_id: bytes(v.record_data_bytes()) for v in header.vlrs if v.user_id == "LASF_Projection"}


def columns(points, names):
    return {k: np.asarray(points[k]) for k in names}


def same_in_order(got, want, what):
    for k, v in want.items():
        assert len(got[k]) == len(v), f"{what}: {len(got[k])} points, expected {len(v)}"
        assert np.array_equal(got[k], v), f"{what}: {k} differs"


def same_as_sets(got, want, what):
    keys = list(want)
    order_g = np.lexsort([got[k] for k in reversed(keys)])
    order_w = np.lexsort([want[k] for k in reversed(keys)])
    same_in_order({k: got[k][order_g] for k in keys}, {k: want[k][order_w] for k in keys}, what)


def main():
    spec = json.loads(sys.argv[1])
    header, want = expected(spec)
    n = len(want["X"])
    for kind in ("las", "laz"):
        f = laspy.read(spec[kind])
        assert np.allclose(f.header.scales, header.scales) and np.allclose(f.header.offsets, header.offsets)
        assert f.header.point_count == n, f"{kind}: header says {f.header.point_count}, expected {n}"
        assert "confidence" in f.point_format.extra_dimension_names, f"{kind}: {list(f.point_format.extra_dimension_names)}"
        same_in_order(columns(f.points, want), want, kind)
        if n:
            assert np.allclose(f.header.mins, [f.x.min(), f.y.min(), f.z.min()])
            assert np.allclose(f.header.maxs, [f.x.max(), f.y.max(), f.z.max()])
        assert crs_vlrs(f.header) == crs_vlrs(header), f"{kind}: the CRS VLRs differ"
        print(f"{kind}: {n} points, format {f.header.point_format.id}, CRS VLRs {sorted(crs_vlrs(f.header))}")

    with CopcReader.open(spec["copc"]) as r:
        assert r.header.point_format.id in (6, 7, 8)
        total = sum(e.point_count for e in r.root_page.entries.values())
        assert total == n == r.header.point_count, f"copc: hierarchy {total}, header {r.header.point_count}, expected {n}"
        levels = max(k.level for k in r.root_page.entries) + 1
        for record_id, data in crs_vlrs(header).items():
            assert crs_vlrs(r.header).get(record_id) == data, f"copc: CRS VLR {record_id} differs"
        points = r.query()
        same_as_sets(columns(points, want), want, "copc")
        x0, y0, x1, y1 = spec["query"]
        part = r.query(Bounds(mins=np.array([x0, y0]), maxs=np.array([x1, y1])))
        (sx, sy, _), (ox, oy, _) = r.header.scales, r.header.offsets
        inside = (want["X"] >= round((x0 - ox) / sx)) & (want["X"] <= round((x1 - ox) / sx))
        inside &= (want["Y"] >= round((y0 - oy) / sy)) & (want["Y"] <= round((y1 - oy) / sy))
        same_as_sets(columns(part, want), {k: v[inside] for k, v in want.items()}, "copc query")
        print(
            f"copc: {n} points, format {r.header.point_format.id}, {len(r.root_page.entries)} nodes in {levels} levels,"
            f" bounded query {len(part)} points"
        )
    if spec.get("copclib"):
        copclib_check(spec["copc"], n)


def copclib_check(path, n):
    import copclib

    r = copclib.FileReader(path)
    nodes = r.GetAllNodes()
    assert sum(node.point_count for node in nodes) == n == len(r.GetAllPoints()), "copclib: point counts"
    assert r.ValidateSpatialBounds(False), "copclib: a point outside its node's bounds"
    for node in nodes:
        assert len(r.GetPoints(node.key)) == node.point_count
    print(f"copclib: {len(nodes)} nodes, spatial bounds valid, WKT {len(r.copc_config.wkt)} characters")


if __name__ == "__main__":
    main()
