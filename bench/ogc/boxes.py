"""Writes the request list both servers walk in bench/ogc: N random extents (seeded, so every run
and both servers see the same ones) as full request paths. Usage:
boxes.py KIND N PREFIX OUT where KIND is map256, map1024, hillshade, wfs-json or wfs-gml, and
PREFIX is the path with its fixed query (ending in '&')."""
import math
import random
import sys

kind, n, prefix, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
random.seed({"map256": 1, "map1024": 2, "hillshade": 3, "wfs-json": 4, "wfs-gml": 5}[kind])


def merc(lon, lat):
    r = 6378137.0
    return r * math.radians(lon), r * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))


lines = []
for _ in range(n):
    if kind in ("map256", "map1024", "wfs-json", "wfs-gml"):
        # The parcels cover 151.0-151.4 E, 34.0-33.75 S (bench/features/make_parcels.py).
        span = {"map256": 0.01, "map1024": 0.04, "wfs-json": 0.01, "wfs-gml": 0.01}[kind]
        lon = random.uniform(151.0, 151.4 - span)
        lat = random.uniform(-34.0, -33.75 - span * 0.75)
        if kind.startswith("map"):
            x0, y0 = merc(lon, lat)
            x1, y1 = merc(lon + span, lat + span * 0.75)
            lines.append(f"{prefix}BBOX={x0:.2f},{y0:.2f},{x1:.2f},{y1:.2f}")
        else:
            # WFS 2.0 with EPSG:4326: latitude first.
            lines.append(f"{prefix}BBOX={lat:.6f},{lon:.6f},{lat + span:.6f},{lon + span:.6f},urn:ogc:def:crs:EPSG::4326")
    else:
        # The 10,980 x 10,980 DEM at 2.5 m from (2573000, 1086000) in EPSG:2056: 256-px maps of
        # 0.5 to 4 km.
        size = random.choice([500.0, 1000.0, 2000.0, 4000.0])
        x = random.uniform(2573000.0, 2573000.0 + 27450.0 - size)
        y = random.uniform(1086000.0 - 27450.0, 1086000.0 - size)
        lines.append(f"{prefix}BBOX={x:.1f},{y:.1f},{x + size:.1f},{y + size:.1f}")
open(out, "w").write("\n".join(lines) + "\n")
