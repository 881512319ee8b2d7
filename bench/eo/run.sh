#!/usr/bin/env bash
# bench/eo: Meridian's earth-observation API against the tools people use for the same work, on
# this machine, in the same run:
#
#   NDVI of one Sentinel-2-sized scene (two 10,980 x 10,980 UInt16 COGs, bench/eo/make_bands.py)
#     Meridian: POST /api/v1/eo/compute/ndvi (async job) on the scene uploaded as a STAC Item
#     peer: rasterio + numpy (bench/eo/ndvi_rasterio.py), the same Float32 COG out
#   NDVI tiles (256-px PNG, rescale -1..1, RdYlGn) over a seeded list of tiles at zooms 8-14
#     Meridian: /api/v1/eo/scenes/{collection}%2F{item}/tiles/{z}/{x}/{y}.png?index=ndvi (and the
#     same as an expression over the asset keys)
#     peer: TiTiler (uvicorn, one worker per core) on the same COGs, through its STAC endpoint
#     (a local Item, assets red and nir, expression (b2-b1)/(b2+b1)) and its COG endpoint (a VRT
#     stacking the two files)
#   STAC Item Search over N generated Items (bench/eo/make_items.py)
#     Meridian: /api/v1/eo/search, Items bulk-loaded as FeatureCollections of 1,000
#     peer: stac-fastapi-pgstac (uvicorn, one worker per core) on this machine's PostgreSQL
#     (127.0.0.1:5432, user postgres, database stacbench; Items loaded with pypgstac)
#     searches: GET with bbox + datetime interval + limit=10; POST with a CQL2-JSON filter
#     eo:cloud_cover < 20 (bench/eo/searches.py)
#
# wrk walks the same seeded request lists for both servers. Peak RSS: /usr/bin/time -v for
# rasterio; VmHWM from /proc for the servers (Meridian's reset before each part through
# /proc/PID/clear_refs, so each part has its own peak). The peers are installed here, in virtual
# environments under VENVS (default ~/.cache/meridian-bench/eo), from PyPI. Writes the `eo`
# section of docs/benchmarks.md.
#
#   bench/eo/run.sh [WORKDIR]   # SIZE=10980 N=100000 DURATION=20s CONNECTIONS=16 by default
#   SIZE=1000 N=10000 DURATION=5s bench/eo/run.sh /tmp/eo-quick   # quick (zooms 11-14; no section)
#   PEERS_ONLY=1 bench/eo/run.sh /tmp/eo-bench                      # the peers' figures only
#   STORE=postgres bench/eo/run.sh /tmp/eo-pg   # STAC search only, Meridian on PostgreSQL/PostGIS
#
# STORE=postgres runs Meridian on this machine's PostgreSQL (a fresh database bench_eo_meridian,
# storage.database_url) and measures the STAC part alone (PARTS=stac): the NDVI and tile rows read
# blobs, not the store. It writes the `eo-postgres` section.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
WORK=${1:-$(mktemp -d)}
mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd)
SIZE=${SIZE:-10980}
N=${N:-100000}
DURATION=${DURATION:-20s}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-2}
TIMEOUT=${TIMEOUT:-10s}
ZMIN=${ZMIN:-$([ "$SIZE" -ge 10000 ] && echo 8 || echo 11)}
ZMAX=${ZMAX:-14}
TILES_N=${TILES_N:-1000}
SEARCHES_N=${SEARCHES_N:-500}
PEERS_ONLY=${PEERS_ONLY:-0}
STORE=${STORE:-sqlite}
PARTS=${PARTS:-$([ "$STORE" = postgres ] && echo stac || echo all)}
VENVS=${VENVS:-$HOME/.cache/meridian-bench/eo}
PGDSN=${PGDSN:-postgresql://postgres@127.0.0.1:5432}
PY=/usr/bin/python3
CORES=$(nproc)
LOAD_START=$(cut -d" " -f1-3 /proc/loadavg)
DOC=1
[ "$SIZE" = 10980 ] && [ "$N" = 100000 ] && [ "$PEERS_ONLY" = 0 ] || DOC=0
[ "$PARTS" = all ] || [ "$STORE" = postgres ] || DOC=0

# --- tools and peers
need() { command -v "$1" >/dev/null 2>&1; }
if ! need wrk || ! need gdalinfo || ! need psql || [ ! -x /usr/bin/time ] || ! "$PY" -c 'import numpy, osgeo' 2>/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk gdal-bin python3-gdal python3-numpy time postgresql-client python3-venv >/dev/null
fi
# pgstac needs PostGIS in the server's version.
PG_MAJOR=$(psql "$PGDSN/postgres" -Atc 'show server_version_num' 2>/dev/null | cut -c1-2 || true)
if [ -n "$PG_MAJOR" ] && [ -z "$(psql "$PGDSN/postgres" -Atc "select 1 from pg_available_extensions where name = 'postgis'")" ]; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-$PG_MAJOR-postgis-3" >/dev/null; } || true
fi
venv() { # name packages... (installed once)
  if [ ! -f "$VENVS/$1/.installed" ]; then
    echo "== installing $* into $VENVS/$1"
    rm -rf "${VENVS:?}/$1"
    python3 -m venv "$VENVS/$1"
    "$VENVS/$1/bin/pip" install -q "${@:2}"
    touch "$VENVS/$1/.installed"
  fi
}
mkdir -p "$VENVS"
if [ "$PARTS" = all ]; then
  venv rasterio rasterio numpy
  venv titiler titiler.application uvicorn
fi
STAC_OK=1
STAC_REASON=""
venv stac stac-fastapi.pgstac 'pypgstac[psycopg]' uvicorn || { STAC_OK=0; STAC_REASON="pip could not install stac-fastapi.pgstac and pypgstac[psycopg]"; }
version() { "$VENVS/$1/bin/python" -c "import importlib.metadata as m; print(m.version('$2'))"; }
if [ "$PARTS" = all ]; then
  RASTERIO_V=$(version rasterio rasterio)
  NUMPY_V=$(version rasterio numpy)
  RIO_GDAL_V=$("$VENVS/rasterio/bin/python" -c 'import rasterio; print(rasterio.__gdal_version__)')
  TITILER_V=$(version titiler titiler.application)
  RIOTILER_V=$(version titiler rio-tiler)
fi

if [ "$PEERS_ONLY" = 0 ]; then
  cargo build --release -q -p meridian
  MERIDIAN=${CARGO_TARGET_DIR:-$ROOT/target}/release/meridian
fi

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
json() { "$PY" -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Peak RSS (MiB) of the processes, from VmHWM.
peak_mib() {
  local total=0 kb p
  for p in "$@"; do
    kb=$(awk '/VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null || true)
    total=$((total + ${kb:-0}))
  done
  echo $((total / 1024))
}
reset_peak() { local p; for p in "$@"; do echo 5 >"/proc/$p/clear_refs" 2>/dev/null || true; done; }
with_children() { echo "$1 $(pgrep -P "$1" | tr '\n' ' ')"; }

# --- data
if [ "$PARTS" = all ]; then
  BANDS=$WORK/bands
  RED=$BANDS/red-$SIZE.tif
  NIR=$BANDS/nir-$SIZE.tif
  if [ ! -f "$RED" ] || [ ! -f "$NIR" ]; then
    echo "== making the $SIZE x $SIZE red and near-infrared COGs"
    "$PY" bench/eo/make_bands.py "$SIZE" "$BANDS"
  fi
fi
STAC=$WORK/stac-$N
if [ ! -f "$STAC/items.ndjson" ]; then
  echo "== making $N STAC Items"
  "$PY" bench/eo/make_items.py "$N" "$STAC"
fi
if [ "$PARTS" = all ]; then
  read -r W S E NN <<<"$(gdalinfo -json "$RED" | "$PY" -c '
import json, sys
ring = json.load(sys.stdin)["wgs84Extent"]["coordinates"][0]
xs, ys = [p[0] for p in ring], [p[1] for p in ring]
print(min(xs), min(ys), max(xs), max(ys))')"
  "$PY" bench/eo/tiles.py "$W,$S,$E,$NN" "$ZMIN" "$ZMAX" "$TILES_N" "$WORK/tiles.txt"
  sort -u "$WORK/tiles.txt" >"$WORK/tiles-unique.txt"
fi
"$PY" bench/eo/searches.py get "$SEARCHES_N" "$WORK/search-get.txt"
"$PY" bench/eo/searches.py post "$SEARCHES_N" "$WORK/search-post.txt"
if [ "$PARTS" = all ]; then
  RED_MB=$(( $(stat -c %s "$RED") / 1000000 ))
  NIR_MB=$(( $(stat -c %s "$NIR") / 1000000 ))
fi

cat >"$WORK/tiles.lua" <<'LUA'
local tiles = {}
for line in io.lines(os.getenv("LIST")) do tiles[#tiles + 1] = line end
local prefix, suffix, key = os.getenv("PREFIX"), os.getenv("SUFFIX"), os.getenv("API_KEY") or ""
local i = 0
function init(args) i = math.random(#tiles) end
function request()
  i = i % #tiles + 1
  local headers = {}
  if key ~= "" then headers["X-Api-Key"] = key end
  return wrk.format("GET", prefix .. tiles[i] .. suffix, headers)
end
LUA
cat >"$WORK/search.lua" <<'LUA'
local lines = {}
for line in io.lines(os.getenv("LIST")) do lines[#lines + 1] = line end
local path, key = os.getenv("SEARCH"), os.getenv("API_KEY") or ""
local i = 0
function init(args) i = math.random(#lines) end
function request()
  i = i % #lines + 1
  local headers = {}
  if key ~= "" then headers["X-Api-Key"] = key end
  local line = lines[i]
  if line:sub(1, 1) == "{" then
    headers["Content-Type"] = "application/json"
    return wrk.format("POST", path, headers, line)
  end
  return wrk.format("GET", path .. "?" .. line, headers)
end
LUA
# wrk with a list; prints "requests/s p50_ms p99_ms non2xx".
wrk_run() { # base script log env...
  local base=$1 script=$2 log=$3
  shift 3
  env "$@" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout "$TIMEOUT" --latency -s "$script" "$base" >"$log" 2>&1
  "$PY" - "$log" <<'PYEOF'
import re, sys
t = open(sys.argv[1]).read()
def ms(label):
    m = re.search(r"^\s*" + label + r"%\s+([\d.]+)(us|ms|s)\s*$", t, re.M)
    if not m:
        return float("nan")
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v
m = re.search(r"Requests/sec:\s+([\d.]+)", t)
rps = float(m.group(1)) if m else 0.0
bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", t)
err = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
print(f"{rps:.1f} {ms('50'):.1f} {ms('99'):.1f} {bad.group(1) if bad else 0} {sum(map(int, err.groups())) if err else 0}")
PYEOF
}
# The first bytes of a PNG: prints "WIDTHxHEIGHT" or fails.
png_size() {
  "$PY" - "$1" <<'PYEOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
if b[:8] != b"\x89PNG\r\n\x1a\n" or b[12:16] != b"IHDR":
    sys.exit(f"not a PNG: {b[:120]!r}")
w, h = struct.unpack(">II", b[16:24])
print(f"{w}x{h}")
PYEOF
}

# --- Meridian
if [ "$PEERS_ONLY" = 0 ]; then
  rm -rf "$WORK/meridian-data" "$WORK/meridian.out"
  STORE_ENV=()
  if [ "$STORE" = postgres ]; then
    psql "$PGDSN/postgres" -qc 'drop database if exists bench_eo_meridian' -c 'create database bench_eo_meridian' >/dev/null
    STORE_ENV=(MERIDIAN_STORAGE__DATABASE_URL="$PGDSN/bench_eo_meridian")
  fi
  env "${STORE_ENV[@]}" MERIDIAN_RATE_LIMITS__ENABLED=false MERIDIAN_LOG__LEVEL=warn MERIDIAN_LIMITS__UPLOAD_BYTES=$((4 << 30)) \
    "$MERIDIAN" --data-dir "$WORK/meridian-data" serve --http 127.0.0.1:0 --dns 127.0.0.1:0 >"$WORK/meridian.out" 2>"$WORK/meridian.err" &
  MPID=$!
  PIDS+=("$MPID")
  for _ in $(seq 200); do grep -q "listening on http" "$WORK/meridian.out" 2>/dev/null && break; sleep 0.1; done
  BASE=$(sed -n 's/^listening on http /http:\/\//p' "$WORK/meridian.out")
  [ -n "$BASE" ] || { echo "Meridian did not start: $(cat "$WORK/meridian.err")" >&2; exit 1; }
  SIGNUP=$(curl -sf -X POST "$BASE/api/v1/accounts" -H 'content-type: application/json' -d '{"name":"bench","email":"bench@example.com"}')
  KEY=$(echo "$SIGNUP" | json 'd["api_key"]')
  echo "$KEY" >"$WORK/key"
fi
# A request to Meridian; prints the answer's body, or fails with the request and the answer.
api() { # method path [curl arguments...]
  local method=$1 path=$2 code
  shift 2
  code=$(curl -s -o "$WORK/api.out" -w '%{http_code}' -X "$method" "$BASE$path" -H "X-Api-Key: $KEY" "$@")
  case "$code" in
    2*) cat "$WORK/api.out" ;;
    *) echo "Meridian: $method $path answered $code: $(head -c 800 "$WORK/api.out")" >&2; return 1 ;;
  esac
}

if [ "$PARTS" = all ]; then
# --- 1. NDVI of the scene
echo "== NDVI: rasterio + numpy"
cat "$RED" "$NIR" >/dev/null
rm -f "$WORK/ndvi-rasterio.tif"
/usr/bin/time -v "$VENVS/rasterio/bin/python" bench/eo/ndvi_rasterio.py "$RED" "$NIR" "$WORK/ndvi-rasterio.tif" \
  >"$WORK/ndvi-rasterio.json" 2>"$WORK/ndvi-rasterio.time"
R_WALL=$(awk '/Elapsed \(wall clock\)/ {print $NF}' "$WORK/ndvi-rasterio.time" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
R_RSS=$(( $(awk '/Maximum resident set size/ {print $NF}' "$WORK/ndvi-rasterio.time") / 1024 ))
R_MB=$(( $(stat -c %s "$WORK/ndvi-rasterio.tif") / 1000000 ))
# GDAL's own COG validator (Debian's python3-gdal): "valid COG" or what it found.
cog_check() {
  "$PY" - "$1" <<'PYEOF'
import sys
from osgeo_utils.samples import validate_cloud_optimized_geotiff as v
try:
    warnings, errors, _ = v.validate(sys.argv[1], full_check=True)
except Exception as e:
    print(f"not checked ({e})")
    sys.exit(0)
print("valid COG" if not errors and not warnings else "COG validator: " + "; ".join(errors + warnings))
PYEOF
}
R_COG=$(cog_check "$WORK/ndvi-rasterio.tif")
R_STATS=$(json '" ".join(f"{d[k]:.4f}" for k in ("min", "max", "mean"))' <"$WORK/ndvi-rasterio.json")
echo "   rasterio: ${R_WALL}s, ${R_RSS} MiB, $(cat "$WORK/ndvi-rasterio.json")"

SCENE_COLLECTION=scenes
SCENE_ITEM=tile-$SIZE
if [ "$PEERS_ONLY" = 0 ]; then
  echo "== NDVI: Meridian (uploading the scene)"
  api POST /api/v1/eo/collections -H 'content-type: application/json' -d "$("$PY" - "$W" "$S" "$E" "$NN" <<'PYEOF'
import json, sys
w, s, e, n = map(float, sys.argv[1:5])
print(json.dumps({"type": "Collection", "stac_version": "1.0.0", "id": "scenes",
    "description": "The Sentinel-2-sized scene of bench/eo.", "license": "proprietary",
    "extent": {"spatial": {"bbox": [[w, s, e, n]]}, "temporal": {"interval": [["2017-11-21T00:00:00Z", None]]}},
    "links": []}))
PYEOF
)" >/dev/null
  ITEM_JSON='{"id": "'$SCENE_ITEM'", "datetime": "2017-11-21T06:52:03Z", "assets": {"red": {"eo:bands": [{"name": "B04", "common_name": "red"}]}, "nir": {"eo:bands": [{"name": "B08", "common_name": "nir"}]}}}'
  reset_peak "$MPID"
  T0=$(date +%s.%N)
  CODE=$(curl -s -D "$WORK/ingest.headers" -o "$WORK/meridian-item.json" -w '%{http_code}' -H "X-Api-Key: $KEY" \
    -X POST "$BASE/api/v1/eo/collections/$SCENE_COLLECTION/items" -F "item=$ITEM_JSON;type=application/json" \
    -F "red=@$RED;type=image/tiff" -F "nir=@$NIR;type=image/tiff")
  case "$CODE" in
    201) ;;
    202) # Files that are not COGs are converted by a job first.
      LOC=$(sed -n 's/^[Ll]ocation: *//p' "$WORK/ingest.headers" | tr -d '\r')
      for _ in $(seq 6000); do
        STATUS=$(api GET "$LOC" | json 'd["status"]')
        [ "$STATUS" = succeeded ] && break
        [ "$STATUS" = failed ] && { echo "Meridian: the ingest job $LOC failed: $(api GET "$LOC")" >&2; exit 1; }
        sleep 0.1
      done ;;
    *) echo "Meridian: POST /api/v1/eo/collections/$SCENE_COLLECTION/items (multipart item, red, nir) answered $CODE: $(head -c 800 "$WORK/meridian-item.json")" >&2; exit 1 ;;
  esac
  T1=$(date +%s.%N)
  M_INGEST=$("$PY" -c "print(f'{$T1 - $T0:.1f}')")
  M_INGEST_RSS=$(peak_mib "$MPID")
  echo "   ingest (upload $((RED_MB + NIR_MB)) MB, derive the Item): ${M_INGEST}s, peak ${M_INGEST_RSS} MiB"

  echo "== NDVI: Meridian (compute job)"
  reset_peak "$MPID"
  "$PY" - "$BASE" "$KEY" "$SCENE_COLLECTION/$SCENE_ITEM" >"$WORK/ndvi-meridian.json" <<'PYEOF'
import json, sys, time, urllib.error, urllib.request
base, key, scene = sys.argv[1:4]
def call(method, path, body=None):
    req = urllib.request.Request(base + path, method=method, data=body,
        headers={"X-Api-Key": key, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        sys.exit(f"Meridian: {method} {path} {body and body.decode()} answered {e.code}: {e.read()[:800]!r}")
body = json.dumps({"scene": scene, "async": True}).encode()
t0 = time.perf_counter()
status, headers, answer = call("POST", "/api/v1/eo/compute/ndvi", body)
location = headers.get("Location") or headers.get("location")
if status == 200:
    # Computed at once (a small area): the answer is the result document.
    job = {"status": "succeeded", "output": json.loads(answer), "answered": 200}
elif status == 202 and location:
    while True:
        _, _, answer = call("GET", location)
        job = json.loads(answer)
        if job.get("status") in ("succeeded", "failed"):
            break
        time.sleep(0.05)
else:
    sys.exit(f"Meridian: POST /api/v1/eo/compute/ndvi {body.decode()} answered {status} (Location {location}): {answer[:800]!r}")
wall = time.perf_counter() - t0
if job["status"] != "succeeded":
    sys.exit(f"Meridian: the NDVI job failed: {json.dumps(job)[:800]}")
print(json.dumps({"wall_s": round(wall, 3), "job": job}))
PYEOF
  M_NDVI=$(json 'd["wall_s"]' <"$WORK/ndvi-meridian.json")
  M_NDVI_RSS=$(peak_mib "$MPID")
  # The output COG (first output) and its statistics (the first object with min, max and mean).
  read -r M_HREF M_STATS <<<"$("$PY" - "$WORK/ndvi-meridian.json" <<'PYEOF'
import json, sys
out = json.load(open(sys.argv[1]))["job"].get("output") or {}
href = (out.get("outputs") or [{}])[0].get("href", "?")
def find(o):
    if isinstance(o, dict):
        if all(k in o for k in ("min", "max", "mean")):
            return o
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            r = find(v)
            if r:
                return r
    return None
st = find(out.get("statistics"))
print(href, " ".join(f"{float(st[k]):.4f}" for k in ("min", "max", "mean")) if st else "? ? ?")
PYEOF
)"
  echo "   Meridian: ${M_NDVI}s, peak ${M_NDVI_RSS} MiB, output $M_HREF, statistics $M_STATS (rasterio: $R_STATS)"
  case "$M_HREF" in
    http*) URL=$M_HREF ;;
    /*) URL=$BASE$M_HREF ;;
    *) URL="" ;;
  esac
  M_OUT_INFO="?"
  if [ -n "$URL" ] && curl -sf -o "$WORK/ndvi-meridian.tif" -H "X-Api-Key: $KEY" "$URL"; then
    M_OUT_INFO=$(gdalinfo -json "$WORK/ndvi-meridian.tif" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
b = d["bands"][0]
md = d.get("metadata", {}).get("IMAGE_STRUCTURE", {})
w, h = d["size"]
bw, bh = b["block"]
print(b["type"], ", ", md.get("COMPRESSION", "-"), ", predictor ", md.get("PREDICTOR", "-"),
      ", ", bw, "-px blocks, ", len(b.get("overviews", [])), " overviews", sep="")')
    M_MB=$(( $(stat -c %s "$WORK/ndvi-meridian.tif") / 1000000 ))
    M_OUT_INFO="$M_OUT_INFO, $(cog_check "$WORK/ndvi-meridian.tif")"
    echo "   Meridian output: $M_OUT_INFO, $M_MB MB"
  else
    echo "   could not download the NDVI output ($M_HREF)" >&2
    M_MB="?"
  fi
fi

# --- 2. NDVI tiles
echo "== tiles: $(wc -l <"$WORK/tiles-unique.txt") distinct tiles at zooms $ZMIN-$ZMAX, $TILES_N in the list"
# TiTiler's inputs: a local STAC Item with the two COGs as assets, and a VRT stacking them.
"$PY" - "$RED" "$NIR" "$W" "$S" "$E" "$NN" >"$WORK/item.json" <<'PYEOF'
import json, sys
red, nir = sys.argv[1:3]
w, s, e, n = map(float, sys.argv[3:7])
cog = "image/tiff; application=geotiff; profile=cloud-optimized"
print(json.dumps({"type": "Feature", "stac_version": "1.0.0", "id": "tile", "bbox": [w, s, e, n],
    "geometry": {"type": "Polygon", "coordinates": [[[w, s], [e, s], [e, n], [w, n], [w, s]]]},
    "properties": {"datetime": "2017-11-21T06:52:03Z"}, "links": [],
    "assets": {"red": {"href": red, "type": cog, "roles": ["data"]},
               "nir": {"href": nir, "type": cog, "roles": ["data"]}}}))
PYEOF
gdalbuildvrt -q -overwrite -separate "$WORK/stack.vrt" "$RED" "$NIR"
M_TILE_PREFIX=/api/v1/eo/scenes/$SCENE_COLLECTION%2F$SCENE_ITEM/tiles/
M_NDVI_SUFFIX=".png?index=ndvi&rescale=-1,1&colormap=rdylgn"
M_EXPR_SUFFIX=".png?expression=(nir-red)/(nir%2Bred)&rescale=-1,1&colormap=rdylgn"
T_STAC_PREFIX=/stac/tiles/WebMercatorQuad/
T_STAC_SUFFIX=".png?url=$WORK/item.json&assets=red&assets=nir&expression=(b2-b1)/(b2%2Bb1)&rescale=-1,1&colormap_name=rdylgn"
T_COG_PREFIX=/cog/tiles/WebMercatorQuad/
T_COG_SUFFIX=".png?url=$WORK/stack.vrt&expression=(b2-b1)/(b2%2Bb1)&rescale=-1,1&colormap_name=rdylgn"
FIRST=$(head -1 "$WORK/tiles.txt")
DEEP=$(grep "^$ZMAX/" "$WORK/tiles.txt" | head -1)
tile_check() { # base prefix suffix header label -> WxH of the first and the deepest tile
  local out=$WORK/check-$5 sizes="" t code
  for t in "$FIRST" "$DEEP"; do
    code=$(curl -s -o "$out.png" -w '%{http_code}' -H "$4" "$1$2$t$3")
    [ "$code" = 200 ] || { echo "$5: GET $2$t$3 answered $code: $(head -c 400 "$out.png")" >&2; return 1; }
    sizes+="$(png_size "$out.png") "
    cp "$out.png" "$out-${t//\//-}.png"
  done
  echo "$sizes"
}
warm() { # base prefix suffix header
  xargs -P "$CONNECTIONS" -I{} curl -s -o /dev/null -H "$4" "$1$2{}$3" <"$WORK/tiles-unique.txt"
}
TILE_ROWS=""
tile_row() { # label result rss
  local rps p50 p99 bad err
  read -r rps p50 p99 bad err <<<"$2"
  TILE_ROWS+="| $1 | $rps | $p50 | $p99 | $bad | $err | $3 |"$'\n'
  echo "   $1: $2, peak $3 MiB"
}

if [ "$PEERS_ONLY" = 0 ]; then
  M_SIZES=$(tile_check "$BASE" "$M_TILE_PREFIX" "$M_NDVI_SUFFIX" "X-Api-Key: $KEY" meridian)
  tile_check "$BASE" "$M_TILE_PREFIX" "$M_EXPR_SUFFIX" "X-Api-Key: $KEY" meridian-expr >/dev/null
  warm "$BASE" "$M_TILE_PREFIX" "$M_NDVI_SUFFIX" "X-Api-Key: $KEY"
  reset_peak "$MPID"
  M_TILES=$(wrk_run "$BASE" "$WORK/tiles.lua" "$WORK/wrk-meridian-ndvi.log" LIST="$WORK/tiles.txt" PREFIX="$M_TILE_PREFIX" SUFFIX="$M_NDVI_SUFFIX" API_KEY="$KEY")
  tile_row "Meridian, \`index=ndvi\`" "$M_TILES" "$(peak_mib "$MPID")"
  warm "$BASE" "$M_TILE_PREFIX" "$M_EXPR_SUFFIX" "X-Api-Key: $KEY"
  reset_peak "$MPID"
  M_TILES_EXPR=$(wrk_run "$BASE" "$WORK/tiles.lua" "$WORK/wrk-meridian-expr.log" LIST="$WORK/tiles.txt" PREFIX="$M_TILE_PREFIX" SUFFIX="$M_EXPR_SUFFIX" API_KEY="$KEY")
  tile_row "Meridian, \`expression=(nir-red)/(nir+red)\`" "$M_TILES_EXPR" "$(peak_mib "$MPID")"
fi

TPORT=$(free_port)
GDAL_DISABLE_READDIR_ON_OPEN=EMPTY_DIR GDAL_CACHEMAX=200 PYTHONWARNINGS=ignore \
  "$VENVS/titiler/bin/uvicorn" titiler.application.main:app --host 127.0.0.1 --port "$TPORT" \
  --workers "$CORES" --log-level warning >"$WORK/titiler.log" 2>&1 &
TPID=$!
PIDS+=("$TPID")
TBASE=http://127.0.0.1:$TPORT
for _ in $(seq 300); do curl -sf "$TBASE/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
T_SIZES=$(tile_check "$TBASE" "$T_STAC_PREFIX" "$T_STAC_SUFFIX" "X-None: x" titiler)
tile_check "$TBASE" "$T_COG_PREFIX" "$T_COG_SUFFIX" "X-None: x" titiler-vrt >/dev/null
if [ "$PEERS_ONLY" = 0 ] && [ "$M_SIZES" != "$T_SIZES" ]; then
  echo "tiles differ in size: Meridian $M_SIZES, TiTiler $T_SIZES" >&2
  exit 1
fi
warm "$TBASE" "$T_STAC_PREFIX" "$T_STAC_SUFFIX" "X-None: x"
reset_peak $(with_children "$TPID")
T_TILES=$(wrk_run "$TBASE" "$WORK/tiles.lua" "$WORK/wrk-titiler-stac.log" LIST="$WORK/tiles.txt" PREFIX="$T_STAC_PREFIX" SUFFIX="$T_STAC_SUFFIX")
tile_row "TiTiler $TITILER_V, \`/stac\` (assets red, nir; \`expression=(b2-b1)/(b2+b1)\`)" "$T_TILES" "$(peak_mib $(with_children "$TPID"))"
warm "$TBASE" "$T_COG_PREFIX" "$T_COG_SUFFIX" "X-None: x"
reset_peak $(with_children "$TPID")
T_TILES_VRT=$(wrk_run "$TBASE" "$WORK/tiles.lua" "$WORK/wrk-titiler-vrt.log" LIST="$WORK/tiles.txt" PREFIX="$T_COG_PREFIX" SUFFIX="$T_COG_SUFFIX")
tile_row "TiTiler $TITILER_V, \`/cog\` on a VRT of both files (same expression)" "$T_TILES_VRT" "$(peak_mib $(with_children "$TPID"))"
stop "$TPID"
fi

# --- 3. STAC Item Search
SEARCH_ROWS=""
PG_VERSION="-"
S_LOAD="-"
if [ "$STAC_OK" = 1 ]; then
  echo "== STAC: loading $N Items into pgstac"
  PG_VERSION=$(psql "$PGDSN/postgres" -Atc 'show server_version' 2>/dev/null | cut -d' ' -f1 || true)
  if [ -z "$PG_VERSION" ]; then
    STAC_OK=0; STAC_REASON="no PostgreSQL answers at $PGDSN"
  elif ! psql "$PGDSN/postgres" -qc 'drop database if exists stacbench' -c 'create database stacbench' >"$WORK/pg.log" 2>&1; then
    STAC_OK=0; STAC_REASON="could not create the database stacbench: $(tail -1 "$WORK/pg.log")"
  elif ! "$VENVS/stac/bin/pypgstac" migrate --dsn "$PGDSN/stacbench" >"$WORK/pgstac-migrate.log" 2>&1; then
    STAC_OK=0; STAC_REASON="pypgstac migrate failed: $(tail -1 "$WORK/pgstac-migrate.log")"
  else
    T0=$(date +%s.%N)
    if "$VENVS/stac/bin/pypgstac" load collections "$STAC/collection.json" --dsn "$PGDSN/stacbench" --method insert_ignore >"$WORK/pgstac-load.log" 2>&1 \
      && "$VENVS/stac/bin/pypgstac" load items "$STAC/items.ndjson" --dsn "$PGDSN/stacbench" --method insert >>"$WORK/pgstac-load.log" 2>&1; then
      T1=$(date +%s.%N)
      S_LOAD=$("$PY" -c "print(f'{$T1 - $T0:.1f}')")
      LOADED=$(psql "$PGDSN/stacbench" -Atc 'select count(*) from pgstac.items')
      [ "$LOADED" = "$N" ] || { STAC_OK=0; STAC_REASON="pypgstac loaded $LOADED Items of $N"; }
    else
      STAC_OK=0; STAC_REASON="pypgstac load failed: $(tail -1 "$WORK/pgstac-load.log")"
    fi
  fi
  PGSTAC_V=$(version stac pypgstac)
  STACFASTAPI_V=$(version stac stac-fastapi.pgstac)
fi

M_LOAD="-"
if [ "$PEERS_ONLY" = 0 ]; then
  echo "== STAC: loading $N Items into Meridian"
  api POST /api/v1/eo/collections -H 'content-type: application/json' --data-binary "@$STAC/collection.json" >/dev/null
  reset_peak "$MPID"
  T0=$(date +%s.%N)
  "$PY" - "$STAC/items.ndjson" "$BASE/api/v1/eo/collections/sentinel-2-l2a/items" "$KEY" <<'PYEOF'
import json, sys, urllib.error, urllib.request
items = [json.loads(line) for line in open(sys.argv[1])]
for i in range(0, len(items), 1000):
    body = json.dumps({"type": "FeatureCollection", "features": items[i:i + 1000]}).encode()
    req = urllib.request.Request(sys.argv[2], data=body, method="POST",
        headers={"Content-Type": "application/json", "X-Api-Key": sys.argv[3]})
    try:
        urllib.request.urlopen(req).read()
    except urllib.error.HTTPError as e:
        sys.exit(f"Meridian: POST {sys.argv[2]} (Items {i}-{i + 999}) answered {e.code}: {e.read()[:800]!r}")
PYEOF
  T1=$(date +%s.%N)
  M_LOAD=$("$PY" -c "print(f'{$T1 - $T0:.1f}')")
  M_LOAD_RSS=$(peak_mib "$MPID")
  echo "   ${M_LOAD}s, peak ${M_LOAD_RSS} MiB"
fi

search_row() { # label result rss
  local rps p50 p99 bad err
  read -r rps p50 p99 bad err <<<"$2"
  SEARCH_ROWS+="| $1 | $rps | $p50 | $p99 | $bad | $err | $3 |"$'\n'
  echo "   $1: $2, peak $3 MiB"
}
# The Item ids a search returns (limit 100, first page), for comparing the two catalogues.
search_ids() { # url-of-search line header
  "$PY" - "$@" <<'PYEOF'
import json, sys, urllib.request
url, line, header = sys.argv[1:4]
name, value = header.split(": ", 1)
if line.startswith("{"):
    body = json.loads(line)
    body["limit"] = 100
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
        headers={name: value, "Content-Type": "application/json"})
else:
    req = urllib.request.Request(url + "?" + line.replace("limit=10", "limit=100"), headers={name: value})
d = json.load(urllib.request.urlopen(req))
ids = sorted(f["id"] for f in d["features"])
print(len(ids), ",".join(ids) if len(ids) < 100 else "page")
PYEOF
}
SEARCH_MISMATCH=""
if [ "$STAC_OK" = 1 ]; then
  SPORT=$(free_port)
  PGUSER=postgres PGPASSWORD= PGHOST=127.0.0.1 PGPORT=5432 PGDATABASE=stacbench \
    "$VENVS/stac/bin/uvicorn" stac_fastapi.pgstac.app:create_app --factory --host 127.0.0.1 --port "$SPORT" \
    --workers "$CORES" --log-level warning >"$WORK/stac-fastapi.log" 2>&1 &
  SPID=$!
  PIDS+=("$SPID")
  SBASE=http://127.0.0.1:$SPORT
  for _ in $(seq 300); do curl -sf "$SBASE/" >/dev/null 2>&1 && break; sleep 0.2; done
  if ! curl -sf "$SBASE/search?$(head -1 "$WORK/search-get.txt")" >/dev/null; then
    STAC_OK=0; STAC_REASON="stac-fastapi-pgstac did not answer a search: $(tail -3 "$WORK/stac-fastapi.log" | tr '\n' ' ')"
    stop "$SPID"
  fi
fi
if [ "$PEERS_ONLY" = 0 ] && [ "$STAC_OK" = 1 ]; then
  # The first searches of each list must find the same Items in both catalogues.
  rm -f "$WORK/search-mismatch.txt"
  for list in search-get search-post; do
    head -5 "$WORK/$list.txt" | while IFS= read -r line; do
      m=$(search_ids "$BASE/api/v1/eo/search" "$line" "X-Api-Key: $KEY")
      s=$(search_ids "$SBASE/search" "$line" "X-None: x")
      [ "$m" = "$s" ] || echo "   search results differ for $line: Meridian ${m%% *} Items, pgstac ${s%% *}" | tee -a "$WORK/search-mismatch.txt" >&2
    done
  done
  [ -f "$WORK/search-mismatch.txt" ] && SEARCH_MISMATCH=$(wc -l <"$WORK/search-mismatch.txt")
fi
for list in search-get search-post; do
  label="GET /search, bbox + datetime, limit=10"
  [ "$list" = search-post ] && label="POST /search, bbox + CQL2-JSON \`eo:cloud_cover < 20\`, limit=10"
  echo "== $label"
  if [ "$PEERS_ONLY" = 0 ]; then
    head -50 "$WORK/$list.txt" >"$WORK/$list-warm.txt"
    LIST="$WORK/$list-warm.txt" SEARCH=/api/v1/eo/search API_KEY="$KEY" \
      wrk -t1 -c2 -d2s -s "$WORK/search.lua" "$BASE" >/dev/null 2>&1 || true
    reset_peak "$MPID"
    r=$(wrk_run "$BASE" "$WORK/search.lua" "$WORK/wrk-meridian-$list.log" LIST="$WORK/$list.txt" SEARCH=/api/v1/eo/search API_KEY="$KEY")
    search_row "Meridian, $label" "$r" "$(peak_mib "$MPID")"
    [ "$list" = search-get ] && M_GET=$r || M_POST=$r
  fi
  if [ "$STAC_OK" = 1 ]; then
    head -50 "$WORK/$list.txt" >"$WORK/$list-warm.txt"
    LIST="$WORK/$list-warm.txt" SEARCH=/search wrk -t1 -c2 -d2s -s "$WORK/search.lua" "$SBASE" >/dev/null 2>&1 || true
    reset_peak $(with_children "$SPID")
    r=$(wrk_run "$SBASE" "$WORK/search.lua" "$WORK/wrk-pgstac-$list.log" LIST="$WORK/$list.txt" SEARCH=/search)
    search_row "stac-fastapi-pgstac $STACFASTAPI_V, $label" "$r" "$(peak_mib $(with_children "$SPID"))"
    [ "$list" = search-get ] && S_GET=$r || S_POST=$r
  fi
done
PG_PSS="-"
if [ "$STAC_OK" = 1 ]; then
  # PostgreSQL's share of memory at the end (Pss, so that shared buffers count once).
  PG_PSS=$(( $(for p in $( (pgrep -x postgres; pgrep -f '^postgres: ') | sort -u); do awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null; done | awk '{s += $1} END {print s + 0}') / 1024 ))
  stop "$SPID"
fi

# --- the section
ratio() { "$PY" -c "a, b = '$1', '$2'
try: print(f'{float(a) / float(b):.1f}×')
except Exception: print('-')"; }
first() { echo "$1" | awk '{print $1}'; }
echo
if [ "$PARTS" = all ]; then
  echo "NDVI: rasterio ${R_WALL}s (${R_RSS} MiB)${M_NDVI:+, Meridian ${M_NDVI}s (${M_NDVI_RSS} MiB)}"
  printf '%s' "$TILE_ROWS"
fi
printf '%s' "$SEARCH_ROWS"
[ "$STAC_OK" = 1 ] || echo "stac-fastapi-pgstac: not measured: $STAC_REASON"
if [ "$DOC" = 0 ]; then
  echo "== (SIZE=$SIZE N=$N PEERS_ONLY=$PEERS_ONLY: docs/benchmarks.md left as it is)"
  exit 0
fi

GET_RATIO="-"; POST_RATIO="-"
STAC_CHECK=""
if [ "$STAC_OK" = 1 ]; then
  GET_RATIO=$(ratio "$(first "$M_GET")" "$(first "$S_GET")")
  POST_RATIO=$(ratio "$(first "$M_POST")" "$(first "$S_POST")")
  if [ -n "$SEARCH_MISMATCH" ]; then
    STAC_CHECK="The first 5 searches of each list returned different Items from the two catalogues in $SEARCH_MISMATCH cases (compared as sets, limit 100)."
  else
    STAC_CHECK="Before loading, the first 5 searches of each list returned the same Items from both catalogues (compared as sets, limit 100)."
  fi
fi
if [ "$STORE" = postgres ]; then
  section=$(cat <<MD
<!-- eo-postgres:start -->
## Earth observation on PostgreSQL/PostGIS: STAC search against stac-fastapi-pgstac

Command: \`STORE=postgres bench/eo/run.sh [WORKDIR]\` (N=$N, wrk -t$THREADS -c$CONNECTIONS -d$DURATION --timeout $TIMEOUT).
Measured $(date -u +%Y-%m-%dT%H:%MZ) on this machine ($CORES cores), the same searches and Items as
the SQLite row above, with Meridian (release build, logging at warn, rate limits off) on the same
PostgreSQL $PG_VERSION as pgstac (\`storage.database_url\`, its own database; footprints in a PostGIS
\`geometry\` column with a GiST index, datetimes in two indexed columns). Items loaded into
Meridian in ${M_LOAD}s, into pgstac with \`pypgstac load items\` in ${S_LOAD}s. $STAC_CHECK

| server, search | req/s | p50 (ms) | p99 (ms) | non-2xx | socket errors | peak RSS (MiB) |
|---|---:|---:|---:|---:|---:|---:|
${SEARCH_ROWS%$'\n'}

Meridian on PostgreSQL / stac-fastapi-pgstac: GET **$GET_RATIO**, POST with the filter **$POST_RATIO** (target: at least 5×).
<!-- eo-postgres:end -->
MD
)
  "$PY" bench/write_section.py docs/benchmarks.md eo-postgres "$section"
  echo "$section"
  exit 0
fi
NDVI_SPEEDUP=$(ratio "$R_WALL" "$M_NDVI")
T_BEST=$("$PY" -c "print(max(float('$(first "$T_TILES")'), float('$(first "$T_TILES_VRT")')))")
TILE_RATIO=$(ratio "$(first "$M_TILES")" "$T_BEST")
if [ "$STAC_OK" = 1 ]; then
  STAC_PEER="stac-fastapi-pgstac $STACFASTAPI_V (uvicorn, $CORES workers) with pgstac $PGSTAC_V on PostgreSQL $PG_VERSION (this machine's, default settings), Items loaded with \`pypgstac load items\` in ${S_LOAD}s; its processes' peak RSS is in the table, PostgreSQL's share at the end of the run (Pss) was $PG_PSS MiB"
else
  STAC_PEER="stac-fastapi-pgstac was not measured: $STAC_REASON"
fi
CPU=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
LOAD=$(cut -d" " -f1-3 /proc/loadavg)
section=$(cat <<MD
<!-- eo:start -->
## Earth observation: NDVI, NDVI tiles and STAC search

Command: \`bench/eo/run.sh [WORKDIR]\` (SIZE=$SIZE, N=$N, wrk -t$THREADS -c$CONNECTIONS -d$DURATION --timeout $TIMEOUT).
Measured $(date -u +%Y-%m-%dT%H:%MZ) on this machine ($CORES cores, $CPU), every server and tool in
the same run, one at a time; Meridian is the release build (logging at warn, rate limits off).
Load average when the run started: $LOAD_START; when it ended: $LOAD (other work on the machine
makes single runs noisy).

Data (\`bench/eo/make_bands.py\`): a Sentinel-2-tile-sized pair of UInt16 Cloud Optimized
GeoTIFFs, red and near infrared, 10,980 × 10,980 pixels of 10 m (EPSG:32640), DEFLATE, 1024-px
blocks, overviews ($RED_MB MB and $NIR_MB MB), made from the shipped CBERS-4 scene (900 m,
upsampled, scaled to reflectance × 10,000, with seeded correlated noise; nodata 0 outside the
scene's tilted footprint, 5 % of the tile).

### NDVI of the scene

| | wall (s) | peak RSS (MiB) | output |
|---|---:|---:|---|
| rasterio $RASTERIO_V (GDAL $RIO_GDAL_V) + numpy $NUMPY_V (\`bench/eo/ndvi_rasterio.py\`): read both bands, NDVI in float32, COG driver (compression on all cores) | $(printf %.1f "$R_WALL") | $R_RSS | $R_MB MB, Float32, DEFLATE, predictor 3, 512-px blocks, overviews, $R_COG |
| Meridian: \`POST /api/v1/eo/compute/ndvi\` (async), from the request to the job's \`succeeded\` | $(printf %.1f "$M_NDVI") | $M_NDVI_RSS | $M_MB MB, $M_OUT_INFO |

Speed-up (rasterio's time / Meridian's): **$NDVI_SPEEDUP** (target: at least 3×). Times are whole runs: the Python process from
start to exit (imports included) against the HTTP request to the job's end (polled every 50 ms).
NDVI statistics (min max mean): rasterio $R_STATS, Meridian $M_STATS. Uploading the scene to
Meridian (\`POST /api/v1/eo/collections/scenes/items\`, multipart, both COGs; the server reads
them and derives the Item) took ${M_INGEST}s, peak RSS $M_INGEST_RSS MiB; it is not part of the NDVI time.

### NDVI tiles

$TILES_N tiles drawn with a seed over zooms $ZMIN–$ZMAX (the same number at each zoom, from the
overviews to native resolution; \`bench/eo/tiles.py\`), 256-px PNG, NDVI rescaled from -1..1
through RdYlGn, walked by wrk after one warm-up pass over the $(wc -l <"$WORK/tiles-unique.txt") distinct tiles. Before
loading, the first tile and a zoom-$ZMAX tile from each server were checked to be PNGs of the same size
($(echo "$M_SIZES" | awk '{print $1}' | sed 's/x/ × /') px). TiTiler $TITILER_V (rio-tiler $RIOTILER_V) under uvicorn with $CORES workers, GDAL_CACHEMAX=200,
GDAL_DISABLE_READDIR_ON_OPEN=EMPTY_DIR, reading the same two files. Peak RSS: the server's during
the row (reset before each row; TiTiler: its processes together). Meridian keeps the bands' decoded chunks in its block
cache (\`eo.block_cache_bytes\`, 256 MiB), as GDAL keeps blocks for TiTiler (GDAL_CACHEMAX, 200 MB a
worker); its peak RSS includes the memory it still held from the NDVI row (a reset sets the mark
to what is held then).

| server, request | tiles/s | p50 (ms) | p99 (ms) | non-2xx | socket errors | peak RSS (MiB) |
|---|---:|---:|---:|---:|---:|---:|
${TILE_ROWS%$'\n'}

Meridian \`index=ndvi\` against TiTiler's faster endpoint: **$TILE_RATIO** (target: at least 5×).

### STAC Item Search

$N Items (\`bench/eo/make_items.py\`: Sentinel-2-like scenes revisiting $((N / 20)) tiles of
about 110 km over 56° S–76° N, 20 visits each over 2020–2024, one footprint in three cut by the
swath's edge, eo:cloud_cover 0–100, two assets with https hrefs), loaded into Meridian as
FeatureCollections of 1,000 (\`POST /api/v1/eo/collections/sentinel-2-l2a/items\`) in ${M_LOAD}s
(peak RSS $M_LOAD_RSS MiB; Meridian's figures in the table below are its process's peak during
the row). Peer: $STAC_PEER. Both walk the same $SEARCHES_N seeded searches a row
(\`bench/eo/searches.py\`: bbox of 2–10°, a datetime interval of 1–12 months, the collection). $STAC_CHECK

| server, search | req/s | p50 (ms) | p99 (ms) | non-2xx | socket errors | peak RSS (MiB) |
|---|---:|---:|---:|---:|---:|---:|
${SEARCH_ROWS%$'\n'}

Meridian / stac-fastapi-pgstac: GET **$GET_RATIO**, POST with the filter **$POST_RATIO**.
<!-- eo:end -->
MD
)
"$PY" bench/write_section.py docs/benchmarks.md eo "$section"
echo "$section"
