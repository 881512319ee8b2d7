"""CSF's own Python package (`cloth-simulation-filter`), the peer of Meridian's CSF ground step:
the points of FILE (read with laspy, not timed) filtered with PDAL's default parameters
(resolution 1, rigidness 3, time step 0.65, class threshold 0.5, 500 iterations, slope
smoothing), timed; prints one JSON line with points, seconds, points/s, ground points and the
process's peak RSS.

usage: csf_bench.py FILE
"""
import json
import resource
import sys
import time

import CSF
import laspy
import numpy as np

las = laspy.read(sys.argv[1])
xyz = np.vstack([las.x, las.y, las.z]).T.copy()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
csf = CSF.CSF()
csf.params.bSloopSmooth = True
csf.params.cloth_resolution = 1.0
csf.params.rigidness = 3
csf.params.time_step = 0.65
csf.params.class_threshold = 0.5
csf.params.interations = 500
t = time.perf_counter()
csf.setPointCloud(xyz)
ground, non_ground = CSF.VecInt(), CSF.VecInt()
csf.do_filtering(ground, non_ground, exportCloth=False)
seconds = time.perf_counter() - t
n = len(xyz)
print(json.dumps({"tool": "CSF (python)", "op": "ground_csf", "points": n, "seconds": seconds, "pts_per_s": n / seconds,
                  "ground": len(ground), "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "peak_before_mib": before}))
