"""laspy + lazrs, the peer of Meridian's LAZ decoding and encoding: reads FILE (best of REPEAT)
with the single-threaded and the parallel lazrs backend, writes the points it holds as LAZ
(encode), reads and writes in one go (rewrite, file to file as Meridian's rewrite), and prints
one JSON line per measurement with points, seconds, Mpts/s and the process's peak RSS.

usage: laspy_bench.py FILE OUT_DIR [REPEAT]
"""
import json
import os
import resource
import sys
import time

import laspy

path, out_dir = sys.argv[1], sys.argv[2]
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def best(fn):
    times = []
    result = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


for name, backend in [("decode", laspy.LazBackend.Lazrs), ("decode_parallel", laspy.LazBackend.LazrsParallel)]:
    seconds, las = best(lambda: laspy.read(path, laz_backend=backend))
    n = len(las.points)
    print(json.dumps({"tool": "laspy", "op": name, "points": n, "seconds": seconds, "mpts": n / seconds / 1e6, "peak_mib": peak_mib()}))

las = laspy.read(path)
n = len(las.points)
out = os.path.join(out_dir, "laspy-out.laz")
for name, backend in [("encode", laspy.LazBackend.Lazrs), ("encode_parallel", laspy.LazBackend.LazrsParallel)]:
    seconds, _ = best(lambda: las.write(out, laz_backend=backend))
    print(json.dumps({"tool": "laspy", "op": name, "points": n, "seconds": seconds, "mpts": n / seconds / 1e6, "peak_mib": peak_mib()}))

for name, backend in [("rewrite", laspy.LazBackend.Lazrs), ("rewrite_parallel", laspy.LazBackend.LazrsParallel)]:
    seconds, _ = best(lambda: laspy.read(path, laz_backend=backend).write(out, laz_backend=backend))
    print(json.dumps({"tool": "laspy", "op": name, "points": n, "seconds": seconds, "mpts": n / seconds / 1e6, "peak_mib": peak_mib()}))
