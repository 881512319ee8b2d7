#!/usr/bin/env bash
# bench/twin/server_build.sh: the tileset of a twin over N parcels built through the server, on
# this machine: N synthetic parcels (bench/features/make_parcels.py) registered through
# `POST /api/v1/cadastre/parcels` in chunks of 5,000, a twin over their area, and the times from
# `POST /api/v1/realtime/twins` to `ready` (the `twin.build` job: features read from the store,
# footprints, build_tileset, contents stored), of a first `GET .../tileset` (a kept build), and of
# a tileset for an instant before the last parcels were registered (built by that request).
# Writes the `twin-build` section of docs/benchmarks.md.
#
#   bench/twin/server_build.sh          # N=100000
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-100000}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cargo build --release -q -p meridian
python3 bench/features/make_parcels.py "$N" "$work/parcels.geojson"
MERIDIAN_RATE_LIMITS__ENABLED=false MERIDIAN_LOG__LEVEL=warn \
  ./target/release/meridian --data-dir "$work/meridian" serve --http 127.0.0.1:0 --dns 127.0.0.1:0 > "$work/meridian.out" &
pid=$!
for _ in $(seq 100); do grep -q "listening on http" "$work/meridian.out" 2>/dev/null && break; sleep 0.1; done
addr=$(sed -n 's/^listening on http //p' "$work/meridian.out")
key=$(curl -sf -X POST "http://$addr/api/v1/accounts" -H 'Content-Type: application/json' \
  -d '{"name":"bench","email":"bench@example.com"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
result=$(python3 - "$work/parcels.geojson" "$addr" "$key" "$pid" <<'PY'
import http.client, json, sys, time
path, addr, key, pid = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
feats = json.load(open(path))["features"]
conn = http.client.HTTPConnection(addr, timeout=600)
h = {"X-Api-Key": key}
def call(method, url, body=None, ctype="application/json"):
    conn.request(method, url, body=body, headers={**h, "Content-Type": ctype} if body is not None else h)
    r = conn.getresponse()
    return r.status, r.read(), dict(r.getheaders())
t = time.monotonic()
cut = len(feats) * 9 // 10
for i in range(0, cut, 5000):
    s, b, _ = call("POST", "/api/v1/cadastre/parcels", json.dumps({"type": "FeatureCollection", "features": feats[i:min(i + 5000, cut)]}), "application/geo+json")
    assert s == 201, (s, b[:300])
time.sleep(0.05)
before_last = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z"
time.sleep(0.05)
for i in range(cut, len(feats), 5000):
    s, b, _ = call("POST", "/api/v1/cadastre/parcels", json.dumps({"type": "FeatureCollection", "features": feats[i:i + 5000]}), "application/geo+json")
    assert s == 201, (s, b[:300])
load = time.monotonic() - t
xs = [c[0] for f in feats for c in f["geometry"]["coordinates"][0]]
ys = [c[1] for f in feats for c in f["geometry"]["coordinates"][0]]
bbox = [min(xs) - 0.001, min(ys) - 0.001, max(xs) + 0.001, max(ys) + 0.001]
t = time.monotonic()
s, b, _ = call("POST", "/api/v1/realtime/twins", json.dumps({"name": "bench", "bbox": bbox}))
assert s == 202, (s, b[:300])
twin = json.loads(b)["id"]
while True:
    s, b, _ = call("GET", f"/api/v1/realtime/twins/{twin}")
    state = json.loads(b)
    if state["status"] != "building":
        break
    time.sleep(0.1)
ready = time.monotonic() - t
assert state["status"] == "ready", state
t = time.monotonic()
s, b, _ = call("GET", f"/api/v1/realtime/twin/{twin}/tileset")
kept = time.monotonic() - t
t = time.monotonic()
s, b, hd = call("GET", f"/api/v1/realtime/twin/{twin}/tileset?time={before_last}")
past = time.monotonic() - t
assert s == 200, (s, b[:300])
rss = [l for l in open(f"/proc/{pid}/status") if l.startswith("VmHWM")][0].split()[1]
ts = state["tileset"]
print(json.dumps({"n": len(feats), "load": load, "ready": ready, "kept": kept, "past": past, "past_parcels": cut,
                  "features": ts["features"], "tiles": ts["tiles"], "triangles": ts["triangles"], "bytes": ts["bytes"],
                  "rss_mb": int(rss) // 1024}))
PY
)
echo "$result" >&2
section=$(python3 - "$result" <<'PY'
import json, sys, time
r = json.loads(sys.argv[1])
print(f"""<!-- twin-build:start -->
### Digital twin: tilesets built through the server

Command: `bench/twin/server_build.sh` (N={r['n']}). Measured {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())} on this machine (2 cores), release build, SQLite store.
{r['n']:,} synthetic parcels (`bench/features/make_parcels.py`) registered through `POST /api/v1/cadastre/parcels` in chunks of 5,000 ({r['load']:.1f} s), then a twin over their area:

| step | time |
|---|---|
| `POST /api/v1/realtime/twins` to `ready` (the `twin.build` job: {r['features']:,} parcels read as of the clock, footprints, `build_tileset`, {r['tiles']} contents of {r['triangles']:,} triangles and {r['bytes'] / 1e6:.1f} MB stored) | {r['ready']:.2f} s |
| `GET .../tileset` afterwards (the kept build) | {r['kept'] * 1000:.1f} ms |
| `GET .../tileset?time=` an instant before the last tenth was registered ({r['past_parcels']:,} parcels as they were then, built by that request) | {r['past']:.2f} s |

Server peak RSS over the run: {r['rss_mb']} MB.
<!-- twin-build:end -->""")
PY
)
python3 bench/write_section.py docs/benchmarks.md twin-build "$section"
echo "$section"
