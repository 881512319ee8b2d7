"""Writes the STAC catalogue of bench/eo's search benchmark: one Collection and N Items shaped like
Sentinel-2 L2A scenes, seeded so that every run and both servers load the same ones.

The Items revisit a fixed grid, as a satellite's scenes do: N / 20 tiles of about 110 x 110 km
drawn over the land-and-sea latitudes Sentinel-2 covers (56 S to 76 N), each seen 20 times at
random datetimes over five years (2020-2024). A footprint is the tile's quadrilateral in
longitude/latitude (widened with the latitude, slightly skewed like a UTM square), and one in
three is cut by the edge of the swath (a tilted line across the tile). Properties: datetime,
platform (sentinel-2a/b), constellation, instruments, eo:cloud_cover (0-100, most scenes either
clear or cloudy), proj:epsg (the tile's UTM zone), gsd; two assets (red B04, nir B08) whose hrefs
are https URLs.

Usage: make_items.py N OUTDIR   (writes OUTDIR/collection.json and OUTDIR/items.ndjson, one Item
a line)"""
import datetime as dt
import json
import math
import os
import random
import sys

n, outdir = int(sys.argv[1]), sys.argv[2]
os.makedirs(outdir, exist_ok=True)
random.seed(2020)
COLLECTION = "sentinel-2-l2a"
VISITS = 20
START = dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
SPAN = (dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc) - START).total_seconds()
LETTERS = "CDEFGHJKLMNPQRSTUVWX"

collection = {
    "type": "Collection",
    "stac_version": "1.0.0",
    "stac_extensions": [],
    "id": COLLECTION,
    "title": "Sentinel-2 Level-2A (synthetic)",
    "description": "Synthetic Sentinel-2 L2A scenes for Meridian's STAC search benchmark.",
    "license": "proprietary",
    "extent": {
        "spatial": {"bbox": [[-180.0, -56.0, 180.0, 76.0]]},
        "temporal": {"interval": [["2020-01-01T00:00:00Z", None]]},
    },
    "links": [],
}
json.dump(collection, open(os.path.join(outdir, "collection.json"), "w"))


def tile():
    """A tile of the grid: its centre, footprint corners and name."""
    # Uniform on the sphere between the latitudes.
    lo, hi = math.sin(math.radians(-56.0)), math.sin(math.radians(75.0))
    lat = math.degrees(math.asin(random.uniform(lo, hi)))
    half_lat = 54.9 / 111.32
    half_lon = 54.9 / (111.32 * math.cos(math.radians(lat)))
    # Footprints stay within -180..180 (none crosses the antimeridian).
    lon = random.uniform(-179.9 + half_lon * 1.1, 179.9 - half_lon * 1.1)
    zone = int((lon + 180) // 6) + 1
    skew = (lon - (zone * 6 - 183)) / 3.0 * 0.02 * math.sin(math.radians(lat))
    corners = [
        (lon - half_lon - skew, lat + half_lat),
        (lon - half_lon + skew, lat - half_lat),
        (lon + half_lon + skew, lat - half_lat),
        (lon + half_lon - skew, lat + half_lat),
    ]
    band = LETTERS[min(int((lat + 80) // 8), len(LETTERS) - 1)]
    square = "".join(random.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(2))
    epsg = (32600 if lat >= 0 else 32700) + zone
    return {"corners": corners, "name": f"{zone:02d}{band}{square}", "epsg": epsg}


def clip(corners):
    """The footprint cut by the swath's edge: a tilted line across the tile, data on one side."""
    (tlx, top_y), (blx, bottom_y), (brx, _), (trx, _) = corners
    # The edge crosses the top at t and the bottom a little further west, both inside the tile.
    t = random.uniform(0.25, 0.8)
    u = t - random.uniform(0.05, 0.2)
    top = tlx + t * (trx - tlx)
    bottom = blx + u * (brx - blx)
    if random.random() < 0.5:  # data east of the edge
        return [(top, top_y), (bottom, bottom_y), corners[2], corners[3]]
    return [corners[0], corners[1], (bottom, bottom_y), (top, top_y)]


def cloud_cover():
    # Most scenes are clear or overcast, fewer in between.
    return round(100 * random.betavariate(0.45, 0.6), 2)


tiles, names = [], set()
while len(tiles) < max(1, -(-n // VISITS)):
    t = tile()
    if t["name"] not in names:
        names.add(t["name"])
        tiles.append(t)
with open(os.path.join(outdir, "items.ndjson"), "w") as out:
    for i in range(n):
        t = tiles[i // VISITS]
        when = START + dt.timedelta(seconds=random.uniform(0, SPAN))
        when = when.replace(microsecond=0)
        ring = clip(t["corners"]) if random.random() < 1 / 3 else list(t["corners"])
        ring = [[round(x, 6), round(y, 6)] for x, y in ring]
        ring.append(ring[0])
        xs, ys = [p[0] for p in ring], [p[1] for p in ring]
        sat = random.choice("AB")
        stamp = when.strftime("%Y%m%d")
        item_id = f"S2{sat}_{t['name']}_{stamp}_{i % VISITS}_L2A"
        base = f"https://data.example.com/sentinel-2-l2a/{t['name']}/{when.year}/{when.month}/{item_id}"
        item = {
            "type": "Feature",
            "stac_version": "1.0.0",
            "stac_extensions": [
                "https://stac-extensions.github.io/eo/v1.1.0/schema.json",
                "https://stac-extensions.github.io/projection/v1.1.0/schema.json",
            ],
            "id": item_id,
            "collection": COLLECTION,
            "bbox": [min(xs), min(ys), max(xs), max(ys)],
            "geometry": {"type": "Polygon", "coordinates": [ring]},
            "properties": {
                "datetime": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "platform": f"sentinel-2{sat.lower()}",
                "constellation": "sentinel-2",
                "instruments": ["msi"],
                "eo:cloud_cover": cloud_cover(),
                "proj:epsg": t["epsg"],
                "gsd": 10,
            },
            "links": [],
            "assets": {
                "red": {
                    "href": f"{base}/B04.tif",
                    "type": "image/tiff; application=geotiff; profile=cloud-optimized",
                    "roles": ["data"],
                    "eo:bands": [{"name": "B04", "common_name": "red"}],
                },
                "nir": {
                    "href": f"{base}/B08.tif",
                    "type": "image/tiff; application=geotiff; profile=cloud-optimized",
                    "roles": ["data"],
                    "eo:bands": [{"name": "B08", "common_name": "nir"}],
                },
            },
        }
        out.write(json.dumps(item, separators=(",", ":")) + "\n")
