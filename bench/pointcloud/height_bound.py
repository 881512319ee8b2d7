#!/usr/bin/env python3
"""What height alone can reach on a labelled file: an upper bound for ground and vegetation.

For each file, the producer's own ground points (class 2) are triangulated and every point's
height above that surface is taken (ground points from a surface of the other four fifths of
the ground, a seeded five-fold split, so that they are not at zero by construction). A point is
then called ground when |height| < t, vegetation when height > t, for a range of t, and scored
against the labels as the evaluate example scores (class 0, never classified, left out); the
vegetation figures are over the points labelled ground or vegetation only, since height is not
what tells a roof from a tree.

No classifier knows the producer's ground surface, so no rule on height above ground can beat
these figures on the file: where the best one is below a target, the target is out of reach of
height and needs other evidence (or other labels).

    python3 bench/pointcloud/height_bound.py FILE...

Needs laspy (with lazrs), numpy and scipy.
"""
import sys

import laspy
import numpy as np
from scipy.interpolate import LinearNDInterpolator


def heights(x, y, z, cls):
    g = np.where(cls == 2)[0]
    h = np.full(len(cls), np.nan)
    other = np.where(cls != 2)[0]
    h[other] = z[other] - LinearNDInterpolator(np.c_[x[g], y[g]], z[g])(x[other], y[other])
    fold = np.random.default_rng(1).integers(0, 5, len(g))
    for k in range(5):
        train, test = g[fold != k], g[fold == k]
        h[test] = z[test] - LinearNDInterpolator(np.c_[x[train], y[train]], z[train])(x[test], y[test])
    return h


def unit(f):
    """Metres per unit of the file's horizontal CRS, from its WKT's linear unit (1 without one)."""
    for vlr in f.header.vlrs:
        if vlr.record_id == 2112 and hasattr(vlr, "string"):
            wkt = vlr.string.lower()
            if "us survey foot" in wkt or "foot_us" in wkt:
                return 1200 / 3937
            if "foot" in wkt or "feet" in wkt:
                return 0.3048
    return 1.0


def score(pred, truth):
    tp = int((pred & truth).sum())
    fp = int((pred & ~truth).sum())
    fn = int((~pred & truth).sum())
    if tp + fn == 0:
        return None
    return tp / max(1, tp + fp), tp / (tp + fn), tp / (tp + fp + fn)


def main():
    thresholds = [0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0]
    print("| file | best ground P / R / IoU (threshold) | best vegetation P / R / IoU (threshold) | vegetation IoU at recall ≥ 0.85 |")
    print("|---|---|---|---|")
    for path in sys.argv[1:]:
        f = laspy.read(path)
        scale = unit(f)
        x, y, z = (np.asarray(v, dtype=float) * scale for v in (f.x, f.y, f.z))
        cls = np.asarray(f.classification)
        h = heights(x, y, z, cls)
        # Class 0 (never classified) and 12 (LAS 1.0-1.3 overlap points) carry no land-cover label.
        labelled = (cls != 0) & (cls != 12) & ~np.isnan(h)
        truth_g = (cls == 2)[labelled]
        truth_v = ((cls >= 3) & (cls <= 5))[labelled]
        hl = h[labelled]
        best_g = max(((score(np.abs(hl) < t, truth_g), t) for t in thresholds), key=lambda s: s[0][2])
        cells = ["%.3f / %.3f / %.3f (%g m)" % (*best_g[0], best_g[1])]
        if truth_v.any():
            # Ground against vegetation only: height is not what tells a roof from a tree.
            gv = ((cls >= 2) & (cls <= 5))[labelled]
            vs = [(score((hl > t)[gv], truth_v[gv]), t) for t in thresholds]
            best_v = max(vs, key=lambda s: s[0][2])
            cells.append("%.3f / %.3f / %.3f (%g m)" % (*best_v[0], best_v[1]))
            reach = [s for s in vs if s[0][1] >= 0.85]
            cells.append("%.3f (%g m)" % (max(reach, key=lambda s: s[0][2])[0][2], max(reach, key=lambda s: s[0][2])[1]) if reach else "–")
        else:
            cells += ["–", "–"]
        name = path.rsplit("/", 1)[-1]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
