"""Writes the tile list both tile servers walk in bench/eo: N WebMercatorQuad tiles (z/x/y, one a
line), seeded so that every run and both servers see the same ones, over the zooms from the
scene's overviews to its native resolution (8 to 14 for 10 m pixels near the equator: z14 is
9.6 m a pixel). Each zoom gets the same share of the list; a tile is drawn among those whose
centre falls inside the scene's bounds, so that every tile has data.

Usage: tiles.py WEST,SOUTH,EAST,NORTH ZMIN ZMAX N OUT"""
import math
import random
import sys

w, s, e, n = map(float, sys.argv[1].split(","))
zmin, zmax, count, out = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
random.seed(14)


def tile_xy(lon, lat, z):
    k = 2 ** z
    y = (1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2
    return (lon + 180) / 360 * k, y * k


per_zoom = {}
for z in range(zmin, zmax + 1):
    x0, y0 = tile_xy(w, n, z)
    x1, y1 = tile_xy(e, s, z)
    # Tiles whose centre (x + 0.5, y + 0.5) is inside [x0, x1] x [y0, y1]; at least the one
    # holding the scene's centre.
    xs = range(math.ceil(x0 - 0.5), math.floor(x1 - 0.5) + 1)
    ys = range(math.ceil(y0 - 0.5), math.floor(y1 - 0.5) + 1)
    tiles = [(x, y) for y in ys for x in xs]
    if not tiles:
        cx, cy = tile_xy((w + e) / 2, (s + n) / 2, z)
        tiles = [(int(cx), int(cy))]
    per_zoom[z] = tiles

lines = []
zooms = list(per_zoom)
for i in range(count):
    z = zooms[i % len(zooms)]
    x, y = random.choice(per_zoom[z])
    lines.append(f"{z}/{x}/{y}")
random.shuffle(lines)
open(out, "w").write("\n".join(lines) + "\n")
