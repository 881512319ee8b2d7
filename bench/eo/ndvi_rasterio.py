"""NDVI the rasterio + numpy way, the peer of Meridian's /api/v1/eo/compute/ndvi in bench/eo: read
the red and near-infrared bands whole, compute (nir - red) / (nir + red) in float32, nodata (NaN)
where either input is nodata or the sum is 0, and write a Float32 Cloud Optimized GeoTIFF with
rasterio's COG driver (DEFLATE, floating-point predictor, overviews, compression on every core).
Prints one JSON line: the phases' wall times, the whole wall time, the output's size and the NDVI
statistics (to compare with Meridian's). Peak memory is taken by the caller (/usr/bin/time -v).

Usage: ndvi_rasterio.py RED.tif NIR.tif OUT.tif"""
import json
import os
import sys
import time

import numpy as np
import rasterio

red_path, nir_path, out_path = sys.argv[1:4]
t0 = time.perf_counter()
with rasterio.open(red_path) as r, rasterio.open(nir_path) as n:
    profile = r.profile
    red = r.read(1)
    nir = n.read(1)
    red_nd, nir_nd = r.nodata, n.nodata
t1 = time.perf_counter()

red_f = red.astype(np.float32)
nir_f = nir.astype(np.float32)
total = nir_f + red_f
invalid = total == 0
if red_nd is not None:
    invalid |= red == red_nd
if nir_nd is not None:
    invalid |= nir == nir_nd
del red, nir
with np.errstate(divide="ignore", invalid="ignore"):
    ndvi = (nir_f - red_f) / total
ndvi[invalid] = np.nan
del red_f, nir_f, total
t2 = time.perf_counter()

profile.update(driver="COG", dtype="float32", count=1, nodata=np.nan, compress="deflate",
               predictor=3, blocksize=512, overview_resampling="average", num_threads="all_cpus",
               bigtiff="if_safer")
for k in ("blockxsize", "blockysize", "tiled", "interleave", "photometric"):
    profile.pop(k, None)
with rasterio.open(out_path, "w", **profile) as dst:
    dst.write(ndvi, 1)
t3 = time.perf_counter()

valid = ndvi[~invalid]
print(json.dumps({
    "read_s": round(t1 - t0, 3), "compute_s": round(t2 - t1, 3), "write_s": round(t3 - t2, 3),
    "wall_s": round(t3 - t0, 3), "bytes": os.path.getsize(out_path),
    "valid_pixels": int(valid.size),
    "min": float(valid.min()), "max": float(valid.max()), "mean": float(valid.mean(dtype=np.float64)),
}))
