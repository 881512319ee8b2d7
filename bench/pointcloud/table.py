"""The `pointcloud` section of docs/benchmarks.md from bench/pointcloud/run.sh's JSON lines."""
import json
import subprocess
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
tiles, cores = sys.argv[2], sys.argv[3]
cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True).stdout.strip()


def find(file, tool, op):
    for r in rows:
        if r["file"] == file and r["tool"] == tool and r["op"] == op:
            return r
    return None


files = sorted({r["file"] for r in rows}, key=lambda f: f != "pdal-extra-bytes.laz")
out = ["<!-- pointcloud:start -->", "## Point clouds (bench/pointcloud)", ""]
out.append(f"`bench/pointcloud/run.sh` on this machine ({cores} cores, {cpu}); the big file is the shipped one tiled "
           f"{tiles} times with jittered points. Each figure is the best of the runs; peak RSS is the measuring process's.")
out.append("")
out.append("| file | points | work | Meridian | laspy + lazrs (1 thread) | laspy + lazrs (parallel) | ratio to the best peer |")
out.append("|---|---:|---|---:|---:|---:|---:|")
for f in files:
    for op, work in [("decode", "LAZ decode"), ("encode", "LAZ encode of uncompressed points"),
                     ("rewrite", "LAZ to LAZ, file to file")]:
        m, s, p = find(f, "meridian", op), find(f, "laspy", op), find(f, "laspy", op + "_parallel")
        if not (m and s and p):
            continue
        best = max(s["mpts"], p["mpts"])
        out.append(f"| {f} | {m['points']:,} | {work} Mpts/s (peak MiB) | {m['mpts']:.2f} ({m['peak_mib']:.0f}) | "
                   f"{s['mpts']:.2f} ({s['peak_mib']:.0f}) | {p['mpts']:.2f} ({p['peak_mib']:.0f}) | {m['mpts'] / best:.2f}× |")
    c = find(f, "meridian", "copc")
    if c:
        out.append(f"| {f} | {c['points']:,} | COPC write Mpts/s (peak MiB) | {c['mpts']:.2f} ({c['peak_mib']:.0f}) | | | |")
out.append("")
out.append("| file | points | work | Meridian points/s (peak MiB) | CSF python points/s (peak MiB) | ratio |")
out.append("|---|---:|---|---:|---:|---:|")
for f in files:
    m, p = find(f, "meridian", "ground_csf"), find(f, "CSF (python)", "ground_csf")
    if m and p:
        out.append(f"| {f} | {m['points']:,} | ground, CSF (PDAL defaults) | {m['pts_per_s']:,.0f} ({m['peak_mib']:.0f}) | "
                   f"{p['pts_per_s']:,.0f} ({p['peak_mib']:.0f}) | {m['pts_per_s'] / p['pts_per_s']:.2f}× |")
    c = find(f, "meridian", "classify")
    if c:
        steps = ", ".join(f"{k} {v:.2f} s" for k, v in c.get("timings", {}).items())
        out.append(f"| {f} | {c['points']:,} | whole classification ({steps}) | {c['pts_per_s']:,.0f} ({c['peak_mib']:.0f}) | | |")
out.append("")
out.append("LAZ encode: Meridian writes LAZ from an uncompressed copy of the file (read from the page cache), "
           "laspy writes the points it holds in memory. LAZ to LAZ: both read the LAZ file and write it again.")
out.append("")
out.append("Reproduce: `bench/pointcloud/run.sh /tmp/pc-bench` (about ten minutes; installs laspy, lazrs and "
           "cloth-simulation-filter in a virtual environment).")
out.append("<!-- pointcloud:end -->")
print("\n".join(out))
