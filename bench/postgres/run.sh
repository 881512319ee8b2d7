#!/usr/bin/env bash
# bench/postgres: Meridian on PostgreSQL/PostGIS against the OGC API Features servers that serve
# PostGIS directly, on the same parcels in the same run on this machine: tipg (PyPI, asyncpg) and
# pygeoapi's PostgreSQL provider. Also the bulk load of the parcels through Meridian's API
# (validation, geodesic area, history, one event each) next to ogr2ogr writing the same file into
# PostGIS. Writes its section of docs/benchmarks.md.
#
#   bench/postgres/run.sh      # N=1000000 DURATION=20s CONNECTIONS=16 PG=postgres://postgres@127.0.0.1:5432
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-1000000}
DURATION=${DURATION:-20s}
CONNECTIONS=${CONNECTIONS:-16}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
ROWS=$(( (N + 399) / 400 ))
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

need() { command -v "$1" >/dev/null 2>&1; }
if ! need wrk || ! need ogr2ogr || ! need psql; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk gdal-bin postgresql-client python3-venv >/dev/null
fi
venv="${PG_BENCH_VENV:-$HOME/.cache/meridian-bench/postgres-venv}"
if [ ! -x "$venv/bin/uvicorn" ] || [ ! -x "$venv/bin/gunicorn" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q tipg uvicorn pygeoapi gunicorn psycopg2-binary SQLAlchemy GeoAlchemy2 pygeofilter
fi

for db in bench_meridian bench_parcels; do
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db" >/dev/null
  psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
  psql "$PG/$db" -qc "CREATE EXTENSION postgis" >/dev/null
done

cargo build --release -q -p meridian
python3 bench/features/make_parcels.py "$N" "$work/parcels.geojson"

# Meridian on PostgreSQL.
MERIDIAN_RATE_LIMITS__ENABLED=false MERIDIAN_LOG__LEVEL=warn MERIDIAN_STORAGE__DATABASE_URL="$PG/bench_meridian" \
  ./target/release/meridian --data-dir "$work/meridian" serve --http 127.0.0.1:0 --dns 127.0.0.1:0 > "$work/meridian.out" &
for _ in $(seq 300); do grep -q "listening on http" "$work/meridian.out" 2>/dev/null && break; sleep 0.1; done
addr=$(sed -n 's/^listening on http //p' "$work/meridian.out")
key=$(curl -sf -X POST "http://$addr/api/v1/accounts" -H 'Content-Type: application/json' \
  -d '{"name":"bench","email":"bench@example.com"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
load_start=$(date +%s.%N)
python3 - "$work/parcels.geojson" "http://$addr/api/v1/cadastre/parcels" "$key" <<'PY'
import json, sys, urllib.request
feats = json.load(open(sys.argv[1]))["features"]
for i in range(0, len(feats), 5000):
    body = json.dumps({"type": "FeatureCollection", "features": feats[i:i + 5000]}).encode()
    req = urllib.request.Request(sys.argv[2], data=body, method="POST",
        headers={"Content-Type": "application/geo+json", "X-Api-Key": sys.argv[3]})
    urllib.request.urlopen(req, timeout=600).read()
PY
load_end=$(date +%s.%N)
load_secs=$(python3 -c "print(f'{$load_end - $load_start:.1f}')")
load_rate=$(python3 -c "print(f'{$N / ($load_end - $load_start):,.0f}')")

# The same parcels as a plain PostGIS table for the peers, written by ogr2ogr (the reference load).
ogr_start=$(date +%s.%N)
ogr2ogr -f PostgreSQL "PG:host=127.0.0.1 user=postgres dbname=bench_parcels" "$work/parcels.geojson" \
  -nln parcels -lco GEOMETRY_NAME=geom -lco FID=fid -lco SPATIAL_INDEX=GIST --config PG_USE_COPY YES
ogr_end=$(date +%s.%N)
ogr_secs=$(python3 -c "print(f'{$ogr_end - $ogr_start:.1f}')")
ogr_rate=$(python3 -c "print(f'{$N / ($ogr_end - $ogr_start):,.0f}')")
psql "$PG/bench_parcels" -qc "VACUUM ANALYZE parcels" >/dev/null

# tipg (uvicorn, 2 workers) on the table.
DATABASE_URL="postgresql://postgres@127.0.0.1:5432/bench_parcels" TIPG_MAX_FEATURES_PER_QUERY=10000 \
  "$venv/bin/uvicorn" tipg.main:app --host 127.0.0.1 --port 8081 --workers 2 --log-level warning > "$work/tipg.log" 2>&1 &
for _ in $(seq 300); do curl -sf http://127.0.0.1:8081/collections >/dev/null 2>&1 && break; sleep 0.2; done

# pygeoapi (gunicorn, 2 workers) with its PostgreSQL provider on the same table.
cat > "$work/pygeoapi.yml" <<YML
server:
  bind: {host: 127.0.0.1, port: 5001}
  url: http://127.0.0.1:5001
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
      spatial: {bbox: [151.0, -34.0, 151.4, -31.5], crs: http://www.opengis.net/def/crs/OGC/1.3/CRS84}
    providers:
      - type: feature
        name: PostgreSQL
        data: {host: 127.0.0.1, port: 5432, dbname: bench_parcels, user: postgres, password: '', search_path: [public]}
        id_field: fid
        table: parcels
        geom_field: geom
YML
export PYGEOAPI_CONFIG="$work/pygeoapi.yml" PYGEOAPI_OPENAPI="$work/pygeoapi-openapi.yml"
"$venv/bin/pygeoapi" openapi generate "$PYGEOAPI_CONFIG" --output-file "$PYGEOAPI_OPENAPI" >/dev/null 2>&1
"$venv/bin/gunicorn" -w 2 -b 127.0.0.1:5001 pygeoapi.flask_app:APP > "$work/pygeoapi.log" 2>&1 &
for _ in $(seq 300); do curl -sf http://127.0.0.1:5001/ >/dev/null 2>&1 && break; sleep 0.2; done

box="151.1,-33.9,151.11,-33.89"
count() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)["features"]))'; }
check_m=$(curl -sf "http://$addr/api/v1/ogc/v1/features/collections/parcels/items?bbox=$box&limit=100" -H "X-Api-Key: $key" | count)
check_t=$(curl -sf "http://127.0.0.1:8081/collections/public.parcels/items?bbox=$box&limit=100" | count)
check_p=$(curl -sf "http://127.0.0.1:5001/collections/parcels/items?bbox=$box&limit=100&f=json" | count)

run_wrk() { # path-prefix extra key base
  PATH_PREFIX="$1" EXTRA="$2" API_KEY="$3" ROWS="$ROWS" wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency -s bench/postgres/bbox.lua "$4" 2>&1
}
m=$(run_wrk /api/v1/ogc/v1/features/collections/parcels/items "" "$key" "http://$addr")
t=$(run_wrk /collections/public.parcels/items "" "" "http://127.0.0.1:8081")
p=$(run_wrk /collections/parcels/items "&f=json" "" "http://127.0.0.1:5001")
parse() { echo "$1" | awk '/Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {print rps, p50, p99}'; }
non2xx() { echo "$1" | awk '/Non-2xx/ {print $NF}'; }
read -r m_rps m_p50 m_p99 <<<"$(parse "$m")"
read -r t_rps t_p50 t_p99 <<<"$(parse "$t")"
read -r p_rps p_p50 p_p99 <<<"$(parse "$p")"
ratio=$(python3 -c "print(f'{$m_rps / $t_rps:.1f}')")

section=$(cat <<MD
<!-- postgres:start -->
## PostgreSQL/PostGIS: bbox queries on $N parcels (Meridian vs tipg vs pygeoapi) and the bulk load

Command: \`bench/postgres/run.sh\` (N=$N, wrk -t2 -c$CONNECTIONS -d$DURATION, random 0.01° boxes over the
whole grid, limit=100). Measured $(date -u +%Y-%m-%dT%H:%MZ) on this machine ($(nproc) cores), every
server in the same run against the same PostgreSQL $(psql "$PG/postgres" -qAtc 'SHOW server_version') with PostGIS
$(psql "$PG/bench_parcels" -qAtc 'SELECT extversion FROM pg_extension WHERE extname = '"'postgis'"). Meridian: release build,
\`storage.database_url\` on PostgreSQL, logging at warn, rate limits off. tipg
$("$venv/bin/python" -c 'import tipg; print(tipg.__version__)') (uvicorn, 2 workers) and pygeoapi
$("$venv/bin/python" -c 'import pygeoapi; print(pygeoapi.__version__)') (gunicorn, 2 workers, PostgreSQL provider) serve a
plain PostGIS table of the same parcels (written by ogr2ogr, GiST index, analysed). The check
box answers $check_m (Meridian), $check_t (tipg) and $check_p (pygeoapi) features.

| server | requests/s | p50 | p99 | non-2xx |
|---|---|---|---|---|
| Meridian \`/api/v1/ogc/v1/features/collections/parcels/items\` | $m_rps | $m_p50 | $m_p99 | $(non2xx "$m") |
| tipg \`/collections/public.parcels/items\` | $t_rps | $t_p50 | $t_p99 | $(non2xx "$t") |
| pygeoapi \`/collections/parcels/items\` | $p_rps | $p_p50 | $p_p99 | $(non2xx "$p") |

Meridian answers ${ratio}× tipg's requests per second.

| bulk load of $N parcels | time | features/s |
|---|---|---|
| Meridian: \`POST /api/v1/cadastre/parcels\` in chunks of 5,000 (validation, geodesic area, versions, one event each) | ${load_secs} s | $load_rate |
| ogr2ogr into a plain PostGIS table (COPY, GiST index) | ${ogr_secs} s | $ogr_rate |
<!-- postgres:end -->
MD
)
python3 bench/write_section.py docs/benchmarks.md postgres "$section"
echo "$section"
