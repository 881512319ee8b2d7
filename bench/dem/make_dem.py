"""Makes the benchmarks' 10,980 x 10,980 Float32 DEM from the shipped swissALTI3D tile (mirrored
so that copies meet without cliffs, then repeated): 512-px tiles, LZW with the floating-point
predictor, nodata -9999, EPSG:2056. Usage: make_dem.py SOURCE.tif OUT.tif (needs GDAL's Python
bindings and numpy)."""
import sys

import numpy as np
from osgeo import gdal

src = gdal.Open(sys.argv[1])
a = src.ReadAsArray().astype(np.float32)
block = np.block([[a, np.fliplr(a)], [np.flipud(a), np.flipud(np.fliplr(a))]])
n = 10980
reps = -(-n // block.shape[0])
big = np.tile(block, (reps, reps))[:n, :n]
drv = gdal.GetDriverByName("GTiff")
out = drv.Create(sys.argv[2], n, n, 1, gdal.GDT_Float32,
                 ["TILED=YES", "BLOCKXSIZE=512", "BLOCKYSIZE=512", "COMPRESS=LZW", "PREDICTOR=3", "BIGTIFF=IF_SAFER"])
out.SetGeoTransform((2573000.0, 2.5, 0.0, 1086000.0, 0.0, -2.5))
out.SetProjection(src.GetProjection())
band = out.GetRasterBand(1)
band.SetNoDataValue(-9999)
band.WriteArray(big)
out = None
