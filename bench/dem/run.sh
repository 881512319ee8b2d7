#!/usr/bin/env bash
# Times every DEM operation of meridian-raster against gdaldem on a 10,980 × 10,980 Float32 DEM
# (made here from the shipped swissALTI3D tile, mirrored and repeated), same input file, same
# uncompressed stripped GeoTIFF output, in the same run. Records wall time and peak memory
# (/usr/bin/time -v) and replaces the "DEM engine" section of docs/benchmarks.md; then runs
# bench/dem/tiles.sh on the same DEM (tiles against TiTiler; its own section).
#
# Needs: gdal-bin, python3-gdal (numpy), /usr/bin/time; for the tiles: wrk, curl, python3 -m venv.
# Usage: bench/dem/run.sh [WORKDIR]   (SKIP_TILES=1 runs the engine part only)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
WORK=${1:-$(mktemp -d)}
mkdir -p "$WORK"
SRC=crates/raster/tests/data/swissalti3d-2573-1085.tif
BIG=$WORK/dem-10980.tif
PY=/usr/bin/python3

for tool in gdaldem gdalinfo /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench/dem needs $tool" >&2; exit 1; }
done

if [ ! -f "$BIG" ]; then
  echo "== making $BIG"
  "$PY" bench/dem/make_dem.py "$SRC" "$BIG"
fi

cargo build --release -q -p meridian-raster --bin meridian-raster
MR=${CARGO_TARGET_DIR:-$ROOT/target}/release/meridian-raster

printf '1600 0 97 71\n1750 232 215 125\n1900 161 67 0\n2000 255 255 255\nnv 0 0 0 0\n' > "$WORK/colors.txt"
COLOR_JSON='{"type":"color-relief","stops":[{"value":1600,"color":[0,97,71]},{"value":1750,"color":[232,215,125]},{"value":1900,"color":[161,67,0]},{"value":2000,"color":[255,255,255]},{"value":"nv","color":[0,0,0,0]}]}'

# name | gdaldem arguments | meridian-raster operation
CASES=(
  "hillshade|hillshade|{\"type\":\"hillshade\"}"
  "hillshade -multidirectional|hillshade -multidirectional|{\"type\":\"hillshade\",\"multidirectional\":true}"
  "hillshade -combined|hillshade -combined|{\"type\":\"hillshade\",\"combined\":true}"
  "slope|slope|{\"type\":\"slope\"}"
  "aspect|aspect|{\"type\":\"aspect\"}"
  "TRI|TRI|{\"type\":\"tri\"}"
  "TPI|TPI|{\"type\":\"tpi\"}"
  "roughness|roughness|{\"type\":\"roughness\"}"
  "color-relief|color-relief COLORS|$COLOR_JSON"
)

# Prints "seconds kilobytes" from /usr/bin/time -v output.
measure() {
  local log=$1
  local wall rss
  wall=$(grep "Elapsed (wall clock)" "$log" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$log" | awk '{print $NF}')
  echo "$(echo "$wall" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }') $rss"
}

ROWS=""
for c in "${CASES[@]}"; do
  IFS='|' read -r name gargs json <<<"$c"
  gargs=${gargs/COLORS/}
  echo "== $name"
  rm -f "$WORK/g.tif" "$WORK/m.tif"
  if [[ $name == color-relief ]]; then
    /usr/bin/time -v gdaldem color-relief -q "$BIG" "$WORK/colors.txt" "$WORK/g.tif" 2>"$WORK/g.log"
  else
    # shellcheck disable=SC2086
    /usr/bin/time -v gdaldem $gargs -q "$BIG" "$WORK/g.tif" 2>"$WORK/g.log"
  fi
  /usr/bin/time -v "$MR" dem "$BIG" "$WORK/m.tif" "$json" --compress none --strips >/dev/null 2>"$WORK/m.log"
  read -r gs gk <<<"$(measure "$WORK/g.log")"
  read -r ms mk <<<"$(measure "$WORK/m.log")"
  ratio=$(awk -v g="$gs" -v m="$ms" 'BEGIN { printf "%.2f", g / m }')
  row=$(awk -v n="$name" -v gs="$gs" -v ms="$ms" -v r="$ratio" -v gk="$gk" -v mk="$mk" \
    'BEGIN { printf "| %s | %.2f | %.2f | %s× | %.0f | %.0f |", n, gs, ms, r, gk/1024, mk/1024 }')
  echo "$row"
  ROWS+="$row"$'\n'
done

CPU=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
GDALV=$(gdalinfo --version | cut -d, -f1)
LOAD=$(cut -d" " -f1-3 /proc/loadavg)
SECTION=$(cat <<MD
<!-- bench/dem:start -->
## DEM engine: meridian-raster vs gdaldem

10,980 × 10,980 Float32 DEM (120.6 Mpixel, 512-px tiles, LZW + floating-point predictor), made by
the script from the shipped swissALTI3D tile (mirrored and repeated). Both tools read the same file
and write an uncompressed, stripped GeoTIFF. Wall time and peak resident memory from
\`/usr/bin/time -v\`, one run each, measured on $(date -u +%Y-%m-%d) on $(nproc) cores ($CPU), $GDALV.
Ratio = gdaldem time / meridian-raster time (above 1: meridian-raster is faster). Load average
when the run ended: $LOAD (other work on the machine makes single runs noisy).

| operation | gdaldem (s) | meridian-raster (s) | speed-up | gdaldem peak (MiB) | meridian-raster peak (MiB) |
|---|---:|---:|---:|---:|---:|
${ROWS%$'\n'}

Reproduce: \`bench/dem/run.sh\` (builds the release binary, makes the DEM in a temporary folder,
runs each operation with both tools and rewrites this section).
<!-- bench/dem:end -->
MD
)

DOC=$ROOT/docs/benchmarks.md
[ -f "$DOC" ] || printf '# Benchmarks\n\nFigures measured by the scripts under bench/; each script rewrites its own section.\n' >"$DOC"
"$PY" - "$DOC" "$SECTION" <<'PYEOF'
import re, sys
path, section = sys.argv[1], sys.argv[2]
text = open(path).read()
pattern = re.compile(r"<!-- bench/dem:start -->.*?<!-- bench/dem:end -->", re.S)
text = pattern.sub(lambda m: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section + "\n"
open(path, "w").write(text)
PYEOF
echo "== wrote $DOC"

# Tile throughput against TiTiler on the same DEM (its own section); SKIP_TILES=1 leaves it out.
if [ "${SKIP_TILES:-0}" != 1 ]; then
  bench/dem/tiles.sh "$WORK"
fi
