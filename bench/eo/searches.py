"""Writes the STAC Item Search list both catalogues walk in bench/eo, seeded so that every run and
both servers see the same searches. Each is what a map client sends for a viewport and a period:
a bbox of 2 to 10 degrees over the latitudes the Items cover (bench/eo/make_items.py), a datetime
interval of one to twelve months within 2020-2024, the collection and limit=10.

KIND get: one query string a line (append it to '<search endpoint>?').
KIND post: one JSON body a line (POST to the search endpoint): the same kind of bbox and
collection, limit=10 and the CQL2-JSON filter eo:cloud_cover < 20.

Usage: searches.py KIND N OUT"""
import datetime as dt
import json
import math
import random
import sys

kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
random.seed({"get": 1, "post": 2}[kind])
START = dt.date(2020, 1, 1)
COLLECTION = "sentinel-2-l2a"


def bbox():
    side = random.uniform(2.0, 10.0)
    lo, hi = math.sin(math.radians(-56.0)), math.sin(math.radians(75.0))
    lat = math.degrees(math.asin(random.uniform(lo, hi)))
    lat = min(max(lat, -56.0 + side / 2), 76.0 - side / 2)
    lon = random.uniform(-180.0 + side, 180.0 - side)
    w, e = lon - side / 2 / math.cos(math.radians(lat)), lon + side / 2 / math.cos(math.radians(lat))
    w, e = max(w, -180.0), min(e, 180.0)
    return [round(w, 4), round(lat - side / 2, 4), round(e, 4), round(lat + side / 2, 4)]


def interval():
    months = random.randint(1, 12)
    first = START + dt.timedelta(days=random.randint(0, 5 * 365 - months * 31))
    last = first + dt.timedelta(days=months * 30)
    return f"{first.isoformat()}T00:00:00Z/{last.isoformat()}T23:59:59Z"


lines = []
for _ in range(n):
    b = bbox()
    if kind == "get":
        lines.append(f"collections={COLLECTION}&bbox={','.join(map(str, b))}&datetime={interval()}&limit=10")
    else:
        lines.append(json.dumps({
            "collections": [COLLECTION], "bbox": b, "limit": 10, "filter-lang": "cql2-json",
            "filter": {"op": "<", "args": [{"property": "eo:cloud_cover"}, 20]},
        }, separators=(",", ":")))
open(out, "w").write("\n".join(lines) + "\n")
