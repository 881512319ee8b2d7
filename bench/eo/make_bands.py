"""Makes the earth-observation benchmark's red and near-infrared bands: a pair of UInt16 Cloud
Optimized GeoTIFFs shaped like one Sentinel-2 L2A tile on AWS (10,980 x 10,980 pixels of 10 m,
109.8 km square, DEFLATE, 1024-px blocks, overviews), made from the CBERS-4 MUX scene shipped in
crates/eo/tests/data (band 7 red, band 8 near infrared; Byte, 900 m pixels, EPSG:32640).

Recipe: the 900 m bands are upsampled to 10 m (cubic spline) over a 109.8 km square inside the
scene, scaled to reflectance-like values (0-10000, surface reflectance x 10,000), and given fine
structure at 20 m to 2.5 km with seeded correlated noise: a brightness field shared by both bands,
a field that moves red and near infrared apart (vegetation-like, so NDVI varies at field scale)
and sensor noise. Pixels outside the scene's footprint (the convex hull of its valid pixels, 1 km
in) are nodata 0, as at the edge of a real tile; valid pixels are 1-10000.

Usage: make_bands.py SIZE OUTDIR   (SIZE 10980 for the tile, 1000 for the small pair; writes
OUTDIR/red-SIZE.tif and OUTDIR/nir-SIZE.tif). Needs GDAL's Python bindings and numpy."""
import os
import sys

import numpy as np
from osgeo import gdal, ogr

gdal.UseExceptions()
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "crates", "eo", "tests", "data")
RED = os.path.join(DATA, "cbers4-mux-057-094-20171121-band7.tif")
NIR = os.path.join(DATA, "cbers4-mux-057-094-20171121-band8.tif")

size, outdir = int(sys.argv[1]), sys.argv[2]
os.makedirs(outdir, exist_ok=True)
RES = 10.0
# The 109.8 km square: 16 source pixels right of and 24 below the scene's origin (90480, 666560),
# so that the tilted edges of the scene's footprint cut the tile's corners (95 % of it is valid).
# The small pair is a square near the tile's lower-right corner, across the same edge (92 % valid).
X0, Y0 = 90480.0 + 16 * 900.0, 666560.0 - 24 * 900.0
if size != 10980:
    X0, Y0 = X0 + (10980 - size) * RES, Y0 - (10980 - size - 500) * RES
bounds = (X0, Y0 - size * RES, X0 + size * RES, Y0)


def upsample(path):
    """The source band at 10 m over the square, float32, 0 where there is no source."""
    ds = gdal.Warp("", path, format="MEM", outputBounds=bounds, xRes=RES, yRes=RES,
                   resampleAlg="cubicspline", srcNodata=0, dstNodata=0, outputType=gdal.GDT_Float32)
    return ds.GetRasterBand(1).ReadAsArray()


def footprint():
    """The scene's footprint at 10 m: the convex hull of its valid pixels, 1 km in from the edge
    (the 900 m pixels' staircase becomes the straight, tilted edge of a real swath)."""
    src = gdal.Open(RED)
    mask = gdal.GetDriverByName("MEM").CreateCopy("", src)
    band = mask.GetRasterBand(1)
    band.WriteArray((src.ReadAsArray() > 0).astype(np.uint8))
    vec = ogr.GetDriverByName("Memory").CreateDataSource("")
    layer = vec.CreateLayer("v", src.GetSpatialRef())
    layer.CreateField(ogr.FieldDefn("v", ogr.OFTInteger))
    gdal.Polygonize(band, band, layer, 0)
    union = ogr.Geometry(ogr.wkbMultiPolygon)
    for f in layer:
        union.AddGeometry(f.GetGeometryRef())
    hull = union.ConvexHull().Buffer(-1000.0)
    out = gdal.GetDriverByName("MEM").Create("", size, size, 1, gdal.GDT_Byte)
    out.SetGeoTransform((bounds[0], RES, 0, bounds[3], 0, -RES))
    out.SetSpatialRef(src.GetSpatialRef())
    vec2 = ogr.GetDriverByName("Memory").CreateDataSource("")
    lyr = vec2.CreateLayer("h", src.GetSpatialRef())
    feat = ogr.Feature(lyr.GetLayerDefn())
    feat.SetGeometry(hull)
    lyr.CreateFeature(feat)
    gdal.RasterizeLayer(out, [1], lyr, burn_values=[1])
    return out.GetRasterBand(1).ReadAsArray() > 0


def noise(rng, cell, n):
    """Smooth noise of unit-ish variance with features about `cell` pixels across."""
    m = n // cell + 3
    small = rng.standard_normal((m, m)).astype(np.float32)
    src = gdal.GetDriverByName("MEM").Create("", m, m, 1, gdal.GDT_Float32)
    src.GetRasterBand(1).WriteArray(small)
    src.SetGeoTransform((0, cell, 0, 0, 0, -cell))
    big = gdal.Warp("", src, format="MEM", outputBounds=(0, -n, n, 0), width=n, height=n,
                    resampleAlg="cubicspline")
    return big.GetRasterBand(1).ReadAsArray()


def octaves(rng, n, cells, weights):
    out = np.zeros((n, n), np.float32)
    for cell, w in zip(cells, weights):
        out += np.float32(w) * noise(rng, cell, n)
    return out


rng = np.random.default_rng(20171121)
red = upsample(RED)
nir = upsample(NIR)
valid = footprint()
# Inside the footprint every pixel has a value: the few the spline left at 0 take the band's median.
for band in (red, nir):
    band[valid & (band <= 0)] = np.median(band[band > 0])
# Source DN to reflectance x 10,000 (the scene is sea with scattered cumulus: DN 13 -> ~460).
red *= np.float32(35.0)
nir *= np.float32(35.0)
# Brightness shared by both bands (fields, texture, haze) from 20 m to 2.5 km ...
bright = octaves(rng, size, [2, 8, 32, 250], [0.02, 0.05, 0.06, 0.08])
red *= 1 + bright
nir *= 1 + bright
del bright
# ... a vegetation-like field that raises near infrared and lowers red at parcel scale ...
veg = octaves(rng, size, [4, 16, 64], [0.3, 0.5, 0.4])
veg = np.clip(veg, 0, None)
nir += veg * np.float32(900.0)
red -= veg * np.float32(0.15) * red
del veg
# ... and sensor noise.
red += rng.standard_normal((size, size), dtype=np.float32) * np.float32(12.0)
nir += rng.standard_normal((size, size), dtype=np.float32) * np.float32(12.0)

for name, band in (("red", red), ("nir", nir)):
    out = np.where(valid, np.clip(np.rint(band), 1, 10000), 0).astype(np.uint16)
    mem = gdal.GetDriverByName("MEM").Create("", size, size, 1, gdal.GDT_UInt16)
    mem.SetGeoTransform((bounds[0], RES, 0, bounds[3], 0, -RES))
    mem.SetProjection(gdal.Open(RED).GetProjection())
    b = mem.GetRasterBand(1)
    b.SetNoDataValue(0)
    b.WriteArray(out)
    path = os.path.join(outdir, f"{name}-{size}.tif")
    # The small pair gets 512-px blocks, so that it has an overview level too.
    gdal.Translate(path, mem, format="COG", creationOptions=[
        f"BLOCKSIZE={1024 if size > 2048 else 512}", "COMPRESS=DEFLATE", "PREDICTOR=YES", "OVERVIEW_RESAMPLING=AVERAGE",
        "BIGTIFF=IF_SAFER", "NUM_THREADS=ALL_CPUS"])
    print(path, f"{os.path.getsize(path) / 1e6:.0f} MB")
