#!/usr/bin/env bash
# Terrain tiles: meridian's /api/v1/dem/tiles against TiTiler (pip: titiler.application, uvicorn)
# serving the same Cloud Optimized GeoTIFF, in the same run. The DEM is the 10,980 x 10,980
# Float32 one of bench/dem/run.sh; meridian processes it once (the job writes the dataset's COG),
# and TiTiler reads that very file. Workload: a map viewport loading every tile that covers the
# DEM at zooms 12-14, cycled by wrk (LuaJIT script) with CONNECTIONS connections for DURATION,
# for two renderings: Terrain-RGB (elevation encoding) and hillshade. meridian runs without its
# tile cache (every tile rendered), then once more with it. Replaces the "DEM tiles" section of
# docs/benchmarks.md.
#
# Needs: wrk, curl, /usr/bin/python3 with GDAL bindings and numpy (to make the DEM), python3 -m
# venv (TiTiler is installed into WORKDIR/titiler-venv). Usage: bench/dem/tiles.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
WORK=${1:-$(mktemp -d)}
WORK=$(cd "$WORK" 2>/dev/null && pwd || { mkdir -p "$WORK" && cd "$WORK" && pwd; })
DURATION=${DURATION:-20s}
CONNECTIONS=${CONNECTIONS:-8}
THREADS=${THREADS:-2}
ZOOMS=${ZOOMS:-"12 13 14"}
SRC=crates/raster/tests/data/swissalti3d-2573-1085.tif
BIG=$WORK/dem-10980.tif
PY=/usr/bin/python3

for tool in wrk curl "$PY"; do
  command -v "$tool" >/dev/null || { echo "bench/dem/tiles.sh needs $tool" >&2; exit 1; }
done

if [ ! -f "$BIG" ]; then
  echo "== making $BIG"
  "$PY" bench/dem/make_dem.py "$SRC" "$BIG"
fi

if [ ! -x "$WORK/titiler-venv/bin/uvicorn" ]; then
  echo "== installing TiTiler into $WORK/titiler-venv"
  python3 -m venv "$WORK/titiler-venv"
  "$WORK/titiler-venv/bin/pip" install -q titiler.application uvicorn
fi
TITILER_VERSION=$("$WORK/titiler-venv/bin/python" -c 'import importlib.metadata as m; print(m.version("titiler.application"))')

cargo build --release -q -p meridian
MERIDIAN=${CARGO_TARGET_DIR:-$ROOT/target}/release/meridian

PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# Starts meridian on a free port with tile caching on or off; sets BASE and MPID.
start_meridian() {
  local cache=$1 out=$WORK/meridian-$1.out
  MERIDIAN_LOG__LEVEL=warn MERIDIAN_RATE_LIMITS__ENABLED=false MERIDIAN_DEM__TILE_CACHE=$cache \
    "$MERIDIAN" --data-dir "$WORK/meridian-data" serve --http 127.0.0.1:0 --dns 127.0.0.1:0 >"$out" 2>"$WORK/meridian-$cache.err" &
  MPID=$!
  PIDS+=("$MPID")
  for _ in $(seq 1 200); do
    BASE=$(sed -n 's/^listening on http /http:\/\//p' "$out")
    [ -n "$BASE" ] && return 0
    sleep 0.1
  done
  echo "meridian did not start" >&2
  exit 1
}

stop() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

json() { "$PY" -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

rm -rf "$WORK/meridian-data"
start_meridian false
echo "== meridian at $BASE: uploading $(du -h "$BIG" | cut -f1) and processing"
SIGNUP=$(curl -sf -X POST "$BASE/api/v1/accounts" -H 'content-type: application/json' \
  -d '{"name":"bench","email":"bench@example.com"}')
KEY=$(echo "$SIGNUP" | json 'd["api_key"]')
ACCOUNT=$(echo "$SIGNUP" | json 'd["account"]["id"]')
JOB=$(curl -sf -X POST "$BASE/api/v1/dem/process" -H "Authorization: Bearer $KEY" \
  -F "file=@$BIG" -F 'params={"operations":[{"type":"hillshade"}]}' | json 'd["id"]')
for _ in $(seq 1 1200); do
  STATUS=$(curl -sf "$BASE/api/v1/dem/jobs/$JOB" -H "Authorization: Bearer $KEY" | json 'd["status"]')
  [ "$STATUS" = succeeded ] && break
  [ "$STATUS" = failed ] && { echo "the job failed" >&2; exit 1; }
  sleep 0.5
done
[ "$STATUS" = succeeded ] || { echo "the job did not finish" >&2; exit 1; }
JOBJSON=$(curl -sf "$BASE/api/v1/dem/jobs/$JOB" -H "Authorization: Bearer $KEY")
DATASET=$(echo "$JOBJSON" | json 'd["source"]["dataset_id"]')
COG=$WORK/meridian-data/blobs/$ACCOUNT/dem/datasets/$DATASET/cog.tif
[ -f "$COG" ] || { echo "no COG at $COG" >&2; exit 1; }

# Every tile covering the DEM at the chosen zooms, in the order a viewer loads them.
echo "$JOBJSON" | "$PY" -c '
import json, math, sys
b = [t for t in json.load(sys.stdin)["tiles"] if t.get("style") == "terrain-rgb"][0]["bounds"]
def tile(lon, lat, z):
    n = 2 ** z
    lat = math.radians(lat)
    return int((lon + 180) / 360 * n), int((1 - math.log(math.tan(lat) + 1 / math.cos(lat)) / math.pi) / 2 * n)
for z in map(int, sys.argv[1].split()):
    x0, y0 = tile(b[0], b[3], z)
    x1, y1 = tile(b[2], b[1], z)
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            print(f"{z}/{x}/{y}")
' "$ZOOMS" >"$WORK/tiles.txt"
NTILES=$(wc -l <"$WORK/tiles.txt")
echo "== $NTILES tiles at zooms $ZOOMS"

cat >"$WORK/tiles.lua" <<'LUA'
local tiles = {}
for line in io.lines(os.getenv("TILES")) do tiles[#tiles + 1] = line end
local prefix, suffix, auth = os.getenv("PREFIX"), os.getenv("SUFFIX"), os.getenv("AUTH")
local i = 0
function init(args)
  -- Threads start at different places of the viewport.
  i = math.random(#tiles)
end
function request()
  i = i % #tiles + 1
  local headers = {}
  if auth ~= "" then headers["Authorization"] = auth end
  return wrk.format("GET", prefix .. tiles[i] .. suffix, headers)
end
LUA

# Runs wrk; prints "requests/s p50_ms p99_ms non2xx".
run_wrk() {
  local base=$1 prefix=$2 suffix=$3 auth=$4 log=$5
  # One pass over every tile first: warm file caches for both servers, a full tile cache for meridian's.
  local header=()
  [ -n "$auth" ] && header=(-H "Authorization: $auth")
  xargs -P "$CONNECTIONS" -I{} curl -s -o /dev/null "${header[@]}" "$base$prefix{}$suffix" <"$WORK/tiles.txt"
  TILES=$WORK/tiles.txt PREFIX=$prefix SUFFIX=$suffix AUTH=$auth \
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$WORK/tiles.lua" "$base" >"$log"
  "$PY" - "$log" <<'PYEOF'
import re, sys
t = open(sys.argv[1]).read()
def ms(label):
    m = re.search(r"^\s*" + label + r"%\s+([\d.]+)(us|ms|s)\s*$", t, re.M)
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", t)
print(f"{rps:.1f} {ms('50'):.1f} {ms('99'):.1f} {bad.group(1) if bad else 0}")
PYEOF
}

ROWS=""
row() { ROWS+="| $1 | $2 | $(echo "$3" | awk '{print $1}') | $(echo "$3" | awk '{print $2}') | $(echo "$3" | awk '{print $3}') | $(echo "$3" | awk '{print $4}') |"$'\n'; }

M_PREFIX=/api/v1/dem/tiles/
for style in terrain-rgb hillshade; do
  echo "== meridian $style (no tile cache)"
  r=$(run_wrk "$BASE" "$M_PREFIX" ".png?job=$JOB&style=$style" "Bearer $KEY" "$WORK/wrk-meridian-$style.log")
  echo "$r"
  row "$style" "meridian (rendered)" "$r"
done
stop "$MPID"

start_meridian true
echo "== meridian terrain-rgb (tile cache on, filled by the warm-up pass)"
r=$(run_wrk "$BASE" "$M_PREFIX" ".png?job=$JOB&style=terrain-rgb" "Bearer $KEY" "$WORK/wrk-meridian-cached.log")
echo "$r"
CACHED_ROW="| terrain-rgb | meridian (tile cache) | $(echo "$r" | awk '{print $1" | "$2" | "$3" | "$4}') |"
stop "$MPID"

PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$WORK/titiler-venv/bin/uvicorn" titiler.application.main:app --host 127.0.0.1 --port "$PORT" \
  --workers "$(nproc)" --log-level warning >"$WORK/titiler.log" 2>&1 &
TPID=$!
PIDS+=("$TPID")
for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.2; done
T_PREFIX=/cog/tiles/WebMercatorQuad/
for pair in "terrain-rgb:terrainrgb" "hillshade:hillshade"; do
  style=${pair%%:*}
  algorithm=${pair#*:}
  echo "== TiTiler $algorithm"
  r=$(run_wrk "http://127.0.0.1:$PORT" "$T_PREFIX" ".png?url=$COG&algorithm=$algorithm" "" "$WORK/wrk-titiler-$style.log")
  echo "$r"
  row "$style" "TiTiler $TITILER_VERSION" "$r"
done
stop "$TPID"

CPU=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
LOAD=$(cut -d" " -f1-3 /proc/loadavg)
SECTION=$(cat <<MD
<!-- bench/dem-tiles:start -->
## DEM tiles: meridian vs TiTiler

The 10,980 × 10,980 Float32 DEM of the section above, uploaded to meridian (\`POST
/api/v1/dem/process\`); the job writes the dataset's Cloud Optimized GeoTIFF (512-px tiles,
Deflate, overviews), and TiTiler $TITILER_VERSION (uvicorn, $(nproc) workers) serves that same
file (\`/cog/tiles/WebMercatorQuad/{z}/{x}/{y}.png?url=...&algorithm=...\`). Workload: a map
viewport loading the $NTILES tiles (256 px) that cover the DEM at zooms ${ZOOMS// /, }, cycled by
\`wrk -t$THREADS -c$CONNECTIONS -d$DURATION\` after one warm-up pass; both servers on this machine,
$(nproc) cores ($CPU), measured on $(date -u +%Y-%m-%d). meridian renders every tile (tile cache
off, rate limits off) except in the last row; its tiles are bilinear-resampled and its hillshade
is computed on the tile with a one-pixel buffer (TiTiler: nearest resampling, 3-pixel buffer).
Load average when the run ended: $LOAD (other work on the machine makes single runs noisy).

| rendering | server | tiles/s | p50 (ms) | p99 (ms) | non-2xx |
|---|---|---:|---:|---:|---:|
${ROWS%$'\n'}
$CACHED_ROW

Reproduce: \`bench/dem/tiles.sh [WORKDIR]\` (also run at the end of \`bench/dem/run.sh\`; makes the
DEM, installs TiTiler into a virtualenv, builds meridian in release mode, rewrites this section).
<!-- bench/dem-tiles:end -->
MD
)
"$PY" bench/write_section.py "$ROOT/docs/benchmarks.md" bench/dem-tiles "$SECTION"
echo "== wrote docs/benchmarks.md"
