#!/usr/bin/env bash
# bench/features: bulk load of 100,000 synthetic parcels, then bbox queries per second and p50/p99
# latency on /items, Meridian and pygeoapi (serving the same parcels from a GeoPackage through its
# SQLite/SpatiaLite provider) side by side on this machine in the same run. Writes its section of
# docs/benchmarks.md.
#
#   bench/features/run.sh            # N=100000 DURATION=20s CONNECTIONS=16 by default
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-100000}
DURATION=${DURATION:-20s}
CONNECTIONS=${CONNECTIONS:-16}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

need() { command -v "$1" >/dev/null 2>&1; }
if ! need wrk || ! need ogr2ogr || [ ! -e /usr/lib/x86_64-linux-gnu/mod_spatialite.so ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk gdal-bin libsqlite3-mod-spatialite python3-venv >/dev/null
fi
# pygeoapi on Debian's Python, whose sqlite3 can load SpatiaLite.
venv="${PYGEOAPI_VENV:-$HOME/.cache/meridian-bench/pygeoapi-venv}"
if [ ! -x "$venv/bin/gunicorn" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q pygeoapi gunicorn
fi

cargo build --release -q -p meridian
python3 bench/features/make_parcels.py "$N" "$work/parcels.geojson"

# Meridian
MERIDIAN_RATE_LIMITS__ENABLED=false MERIDIAN_LOG__LEVEL=warn \
  ./target/release/meridian --data-dir "$work/meridian" serve --http 127.0.0.1:0 --dns 127.0.0.1:0 > "$work/meridian.out" &
for _ in $(seq 100); do grep -q "listening on http" "$work/meridian.out" 2>/dev/null && break; sleep 0.1; done
addr=$(sed -n 's/^listening on http //p' "$work/meridian.out")
key=$(curl -sf -X POST "http://$addr/api/v1/accounts" -H 'Content-Type: application/json' \
  -d '{"name":"bench","email":"bench@example.com"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
# The load, with a reader beside it: every 20 ms a small feature read and /healthz, timed.
python3 - "$work/parcels.geojson" "http://$addr" "$key" > "$work/load.json" <<'PY'
import http.client, json, sys, threading, time, urllib.parse
fc = json.load(open(sys.argv[1]))
feats = fc["features"]
base, key = sys.argv[2], sys.argv[3]
host = urllib.parse.urlparse(base)
done = threading.Event()
reads, health = [], []
def reader():
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=60)
    while not done.is_set():
        for path, out in (("/api/v1/ogc/v1/features/collections/parcels/items?limit=5", reads), ("/healthz", health)):
            t = time.perf_counter()
            conn.request("GET", path, headers={"X-Api-Key": key})
            r = conn.getresponse(); r.read()
            out.append((time.perf_counter() - t) * 1000)
        time.sleep(0.02)
bodies = [json.dumps({"type": "FeatureCollection", "features": feats[i:i + 5000]}).encode() for i in range(0, len(feats), 5000)]
t = threading.Thread(target=reader); t.start()
conn = http.client.HTTPConnection(host.hostname, host.port, timeout=600)
start = time.perf_counter()
for body in bodies:
    conn.request("POST", "/api/v1/cadastre/parcels", body, {"Content-Type": "application/geo+json", "X-Api-Key": key})
    r = conn.getresponse(); r.read()
    assert r.status == 201, r.status
secs = time.perf_counter() - start
done.set(); t.join()
def pct(v, q):
    v = sorted(v); return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")
print(json.dumps({"secs": round(secs, 1), "rate": round(len(feats) / secs), "reads": len(reads),
    "read_p50": round(pct(reads, .5), 1), "read_p99": round(pct(reads, .99), 1), "read_max": round(max(reads), 1),
    "health_p99": round(pct(health, .99), 1), "health_max": round(max(health), 1)}))
PY
load_json() { python3 -c "import json,sys; print(json.load(open('$work/load.json'))['$1'])"; }
load_secs=$(load_json secs)

# pygeoapi on the same parcels
ogr2ogr -f GPKG "$work/parcels.gpkg" "$work/parcels.geojson" -nln parcels >/dev/null
cat > "$work/pygeoapi.yml" <<YML
server:
  bind: {host: 127.0.0.1, port: 5000}
  url: http://127.0.0.1:5000
  mimetype: application/json; charset=UTF-8
  encoding: utf-8
  languages: [en-US]
  limits: {default_items: 100, max_items: 10000}
  map: {url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', attribution: OSM}
logging: {level: ERROR}
metadata:
  identification: {title: bench, description: bench, keywords: [bench], keywords_type: theme, terms_of_service: none, url: http://example.org}
  license: {name: CC-BY 4.0, url: https://creativecommons.org/licenses/by/4.0/}
  provider: {name: bench, url: http://example.org}
  contact: {name: bench, position: bench, address: x, city: x, stateorprovince: x, postalcode: x, country: x, phone: x, fax: x, email: x@example.org, url: http://example.org, hours: x, instructions: x, role: pointOfContact}
resources:
  parcels:
    type: collection
    title: parcels
    description: parcels
    keywords: [parcels]
    extents:
      spatial: {bbox: [151.0, -34.0, 151.4, -33.75], crs: http://www.opengis.net/def/crs/OGC/1.3/CRS84}
    providers:
      - type: feature
        name: SQLiteGPKG
        data: $work/parcels.gpkg
        id_field: fid
        table: parcels
YML
export PYGEOAPI_CONFIG="$work/pygeoapi.yml" PYGEOAPI_OPENAPI="$work/pygeoapi-openapi.yml"
"$venv/bin/pygeoapi" openapi generate "$PYGEOAPI_CONFIG" --output-file "$PYGEOAPI_OPENAPI" >/dev/null 2>&1
"$venv/bin/gunicorn" -w 2 -b 127.0.0.1:5000 pygeoapi.flask_app:APP > "$work/pygeoapi.log" 2>&1 &
for _ in $(seq 100); do curl -sf http://127.0.0.1:5000/ >/dev/null 2>&1 && break; sleep 0.2; done

run_wrk() { # url-prefix extra key
  PATH_PREFIX="$1" EXTRA="$2" API_KEY="$3" wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency -s bench/features/bbox.lua "$4" 2>&1
}
check=$(curl -sf "http://$addr/api/v1/ogc/v1/features/collections/parcels/items?bbox=151.1,-33.9,151.11,-33.89&limit=100" -H "X-Api-Key: $key" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["features"]))')
check_py=$(curl -sf "http://127.0.0.1:5000/collections/parcels/items?bbox=151.1,-33.9,151.11,-33.89&limit=100&f=json" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["features"]))')
m=$(run_wrk /api/v1/ogc/v1/features/collections/parcels/items "" "$key" "http://$addr")
p=$(run_wrk /collections/parcels/items "&f=json" "" "http://127.0.0.1:5000")

parse() { # wrk output -> "rps p50 p99"
  echo "$1" | awk '/Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {print rps, p50, p99}'
}
read -r m_rps m_p50 m_p99 <<<"$(parse "$m")"
read -r p_rps p_p50 p_p99 <<<"$(parse "$p")"
non2xx_m=$(echo "$m" | awk '/Non-2xx/ {print $NF}'); non2xx_p=$(echo "$p" | awk '/Non-2xx/ {print $NF}')

section=$(cat <<MD
<!-- features:start -->
## Features: bbox queries on 100,000 parcels (Meridian vs pygeoapi)

Command: \`bench/features/run.sh\` (N=$N, wrk -t2 -c$CONNECTIONS -d$DURATION, random 0.01° boxes, limit=100).
Measured $(date -u +%Y-%m-%dT%H:%MZ) on this machine ($(nproc) cores), both servers in the same run.
Meridian: release build, SQLite R*Tree, logging at warn, rate limits off. pygeoapi $("$venv/bin/python" -c 'import pygeoapi; print(pygeoapi.__version__)'):
gunicorn with 2 workers, SQLiteGPKG provider (SpatiaLite) on a GeoPackage of the same parcels.
Both answer the check query with $check / $check_py features.

| server | requests/s | p50 | p99 | non-2xx |
|---|---|---|---|---|
| Meridian \`/api/v1/ogc/v1/features/collections/parcels/items\` | $m_rps | $m_p50 | $m_p99 | ${non2xx_m:-0} |
| pygeoapi \`/collections/parcels/items\` | $p_rps | $p_p50 | $p_p99 | ${non2xx_p:-0} |

Bulk load of $N parcels into Meridian (validation, geodesic area, index, history and one event per
parcel, in chunks of 5,000 through \`POST /api/v1/cadastre/parcels\`, the request bodies made before the clock
starts): ${load_secs} s, $(load_json rate) features/s. Meanwhile a reader asked every 20 ms for a page of 5 features
($(load_json reads) reads): p50 $(load_json read_p50) ms, p99 $(load_json read_p99) ms, max $(load_json read_max) ms;
\`/healthz\` p99 $(load_json health_p99) ms, max $(load_json health_max) ms.
<!-- features:end -->
MD
)
python3 bench/write_section.py docs/benchmarks.md features "$section"
echo "$section"
