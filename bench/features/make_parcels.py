"""Writes N synthetic cadastral parcels (small jittered squares on a grid near Sydney) as GeoJSON."""
import json
import random
import sys

n, out = int(sys.argv[1]), sys.argv[2]
random.seed(42)
cols = 400
features = []
for i in range(n):
    col, row = i % cols, i // cols
    lon = 151.0 + col * 0.001 + random.uniform(0, 0.0001)
    lat = -34.0 + row * 0.001 + random.uniform(0, 0.0001)
    s = 0.0008
    ring = [[lon, lat], [lon + s, lat], [lon + s, lat + s], [lon, lat + s], [lon, lat]]
    features.append({
        "type": "Feature",
        "geometry": {"type": "Polygon", "coordinates": [ring]},
        "properties": {"lot": str(i), "plan": f"DP{i // 50}", "tenure": random.choice(["freehold", "leasehold", "crown"])},
    })
json.dump({"type": "FeatureCollection", "features": features}, open(out, "w"))
