#!/usr/bin/env bash
# bench/pointcloud: Meridian's point-cloud engine against the tools people use for the same work,
# on this machine, in the same run:
#
#   LAZ decoding and encoding (Mpts/s) on the shipped 697,721-point file (PDAL's
#   extra-bytes test file, LAS 1.4 format 8) and on a ~20 M point file made from it by tiling
#   and jittering its points (`bench make-big`)
#     Meridian: the engine's reader into columns, and its LAS/LAZ writer
#     peer: laspy + lazrs, single-threaded and parallel backends (bench/pointcloud/laspy_bench.py)
#   Ground by cloth simulation (points/s, peak RSS)
#     Meridian: meridian_pointcloud::csf with PDAL's default parameters
#     peer: CSF's own Python package, cloth-simulation-filter (bench/pointcloud/csf_bench.py)
#   The whole classification (noise, ground, height above ground, features, random forest,
#   LAZ written) in points/s with peak RSS: Meridian only (no peer does the same pipeline).
#
# Each measurement runs in its own process, so each peak RSS (VmHWM / ru_maxrss) is its own.
# The peers are installed in a virtual environment under VENVS (default
# ~/.cache/meridian-bench/pointcloud) from PyPI. Writes the `pointcloud` section of
# docs/benchmarks.md.
#
#   bench/pointcloud/run.sh [WORKDIR]        # TILES=29 (about 20 M points), REPEAT=3
#   TILES=3 bench/pointcloud/run.sh /tmp/pc  # quick (no section written)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
WORK=${1:-$(mktemp -d)}
mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd)
TILES=${TILES:-29}
REPEAT=${REPEAT:-3}
VENVS=${VENVS:-$HOME/.cache/meridian-bench/pointcloud}
PY=python3
DOC=1
[ "$TILES" = 29 ] || DOC=0
SRC=$ROOT/crates/pointcloud/tests/data/pdal-extra-bytes.laz

if [ ! -x "$VENVS/bin/python" ]; then
  $PY -m venv "$VENVS"
fi
"$VENVS/bin/pip" install -q 'laspy[lazrs]==2.7.0' 'cloth-simulation-filter==1.1.7' numpy
VPY=$VENVS/bin/python

cargo build --release -q -p meridian-pointcloud --example bench
BENCH=$ROOT/target/release/examples/bench
BIG=$WORK/big.laz
[ -f "$BIG" ] || "$BENCH" make-big "$SRC" "$BIG" "$TILES"

RESULTS=$WORK/results.jsonl
: > "$RESULTS"
for file in "$SRC" "$BIG"; do
  label=$(basename "$file")
  for op in decode encode rewrite copc; do
    "$BENCH" "$op" "$file" "$WORK/out-$op.laz" "$REPEAT" | sed "s/^{/{\"file\": \"$label\", /" >> "$RESULTS"
  done
  "$VPY" bench/pointcloud/laspy_bench.py "$file" "$WORK" "$REPEAT" | sed "s/^{/{\"file\": \"$label\", /" >> "$RESULTS"
done
# Ground and the whole pipeline: the shipped file and the big one.
for file in "$SRC" "$BIG"; do
  label=$(basename "$file")
  "$BENCH" csf "$file" "$WORK/unused" 1 | sed "s/^{/{\"file\": \"$label\", /" >> "$RESULTS"
  "$VPY" bench/pointcloud/csf_bench.py "$file" | sed "s/^{/{\"file\": \"$label\", /" >> "$RESULTS"
  "$BENCH" classify "$file" "$WORK/classified.laz" 1 | sed "s/^{/{\"file\": \"$label\", /" >> "$RESULTS"
done
cat "$RESULTS"

section=$("$PY" bench/pointcloud/table.py "$RESULTS" "$TILES" "$(nproc)")
if [ "$DOC" = 1 ]; then
  "$PY" bench/write_section.py docs/benchmarks.md pointcloud "$section"
fi
echo "$section"
