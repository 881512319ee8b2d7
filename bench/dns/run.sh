#!/usr/bin/env bash
# Authoritative DNS benchmark: queries per second measured with dnsperf against Meridian, NSD and
# Knot DNS serving the same 10,000-record zone on this machine, in the same run; then API record
# writes per second (single records from concurrent clients, and batches).
# Writes its section of docs/benchmarks.md (between the dns markers).
#
#   bench/dns/run.sh [SECONDS] [RECORDS] [CLIENTS]
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION="${1:-20}"
RECORDS="${2:-10000}"
CLIENTS="${3:-8}"
for tool in dnsperf nsd knotd curl python3 wrk dig; do
  command -v "$tool" >/dev/null || { echo "bench/dns needs $tool (apt-get install dnsperf nsd knot curl wrk bind9-dnsutils)" >&2; exit 1; }
done

cargo build --release -q -p meridian --bin meridian
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK" 2>/dev/null || true
}
trap cleanup EXIT

# Meridian, with API rate limits off so that the write benchmark measures the server, not the bucket.
MERIDIAN_LOG__LEVEL=warn MERIDIAN_RATE_LIMITS__ENABLED=false \
  target/release/meridian --data-dir "$WORK/data" serve --http 127.0.0.1:0 --dns 127.0.0.1:0 >"$WORK/meridian.out" 2>"$WORK/meridian.err" &
PIDS+=($!)
for _ in $(seq 1 200); do grep -q 'listening on dns' "$WORK/meridian.out" 2>/dev/null && break; sleep 0.1; done
HTTP="http://$(sed -n 's/^listening on http //p' "$WORK/meridian.out")"
DNS_PORT="$(sed -n 's/^listening on dns .*://p' "$WORK/meridian.out")"

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
KEY="$(curl -sf -X POST "$HTTP/api/v1/accounts" -H 'content-type: application/json' \
  -d '{"name":"bench","email":"bench@example.com"}' | json '["api_key"]')"
api() { curl -sf -H "authorization: Bearer $KEY" "$@"; }
ZONE="$(api -X POST "$HTTP/v1/dns/zones" -H 'content-type: application/json' -d '{"name":"bench.example"}' | json '["id"]')"

# The zone: RECORDS records (A, with every tenth name also AAAA and TXT), imported in one transaction.
python3 - "$RECORDS" >"$WORK/bench.example.import" <<'PY'
import sys
n = int(sys.argv[1])
print("$ORIGIN bench.example.\n$TTL 3600")
i = made = 0
while made < n:
    print(f"host{i} A 10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"); made += 1
    if i % 10 == 0 and made + 2 <= n:
        print(f"host{i} AAAA 2001:db8::{i:x}"); print(f'host{i} TXT "record {i}"'); made += 2
    i += 1
PY
IMPORTED="$(api -X POST "$HTTP/v1/dns/zones/$ZONE/import" -H 'content-type: text/dns' --data-binary @"$WORK/bench.example.import" | json '["records"]')"
[ "$IMPORTED" = "$RECORDS" ] || { echo "imported $IMPORTED records, expected $RECORDS" >&2; exit 1; }
HOSTS="$(grep -c ' A ' "$WORK/bench.example.import")"

# NSD serves Meridian's own export of the zone: the same records, SOA and NS.
mkdir -p "$WORK/nsd"
api "$HTTP/v1/dns/zones/$ZONE/export" >"$WORK/nsd/bench.example.zone"
NSD_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
cat >"$WORK/nsd/nsd.conf" <<CONF
server:
  ip-address: 127.0.0.1
  port: $NSD_PORT
  server-count: $(nproc)
  # One socket per server process, as NSD's documentation advises on a multi-core machine
  # (NSD_REUSEPORT=no measures NSD with its processes sharing one socket).
  reuseport: ${NSD_REUSEPORT:-yes}
  zonesdir: "$WORK/nsd"
  zonelistfile: "$WORK/nsd/zone.list"
  database: ""
  pidfile: "$WORK/nsd/nsd.pid"
  xfrdfile: "$WORK/nsd/xfrd.state"
  xfrdir: "$WORK/nsd"
  username: ""
  logfile: "$WORK/nsd/nsd.log"
  hide-version: yes
  # Response-rate limiting would drop a benchmark's traffic from one address: off, as in Meridian.
  rrl-ratelimit: 0
  rrl-whitelist-ratelimit: 0
remote-control:
  control-enable: no
zone:
  name: bench.example
  zonefile: bench.example.zone
CONF
nsd -d -c "$WORK/nsd/nsd.conf" &
PIDS+=($!)

# Knot DNS serves the same file: default UDP workers (one per core), no RRL module (off unless
# configured), the zone file only (no journal, no DNSSEC).
mkdir -p "$WORK/knot"
cp "$WORK/nsd/bench.example.zone" "$WORK/knot/bench.example.zone"
KNOT_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
cat >"$WORK/knot/knot.conf" <<CONF
server:
    listen: 127.0.0.1@$KNOT_PORT
    rundir: "$WORK/knot"
log:
  - target: stderr
    any: warning
database:
    storage: "$WORK/knot"
zone:
  - domain: bench.example
    storage: "$WORK/knot"
    file: bench.example.zone
    journal-content: none
    zonefile-sync: -1
CONF
knotd -c "$WORK/knot/knot.conf" 2>"$WORK/knot/knot.log" &
PIDS+=($!)

# Queries: 90% names that exist (A, AAAA, TXT), 10% names that do not (NXDOMAIN with the SOA).
python3 - "$HOSTS" >"$WORK/queries.txt" <<'PY'
import random, sys
hosts = int(sys.argv[1]); rnd = random.Random(1)
for _ in range(200000):
    r = rnd.random()
    if r < 0.10:
        print(f"missing{rnd.randrange(1 << 30)}.bench.example A")
    else:
        i = rnd.randrange(hosts)
        qtype = "A" if r < 0.85 or i % 10 else rnd.choice(["AAAA", "TXT"])
        print(f"host{i}.bench.example {qtype}")
PY

ready() { # port
  for _ in $(seq 1 100); do
    [ -n "$(dig +short +time=1 +tries=1 @127.0.0.1 -p "$1" "host$((HOSTS - 1)).bench.example" A 2>/dev/null || true)" ] && return 0
    sleep 0.1
  done
  echo "server on port $1 never answered" >&2; exit 1
}
echo "zone of $RECORDS records imported; waiting for both servers" >&2
ready "$DNS_PORT"; ready "$NSD_PORT"; ready "$KNOT_PORT"

perf() { # port name -> "qps avg_latency_ms lost rcodes"
  dnsperf -s 127.0.0.1 -p "$1" -d "$WORK/queries.txt" -l "$DURATION" -c 16 -q 256 >"$WORK/perf-$2.txt" 2>&1
  local qps lat lost codes
  qps="$(sed -n 's/.*Queries per second: *\([0-9.]*\).*/\1/p' "$WORK/perf-$2.txt")"
  lat="$(sed -n 's/.*Average Latency (s): *\([0-9.]*\).*/\1/p' "$WORK/perf-$2.txt")"
  lost="$(sed -n 's/.*Queries lost: *\([0-9]*\).*/\1/p' "$WORK/perf-$2.txt")"
  codes="$(sed -n 's/.*Response codes: *//p' "$WORK/perf-$2.txt")"
  echo "$(printf '%.0f' "$qps") $(python3 -c "print(f'{$lat*1000:.2f}')") $lost $codes"
}
echo "dnsperf against Meridian (port $DNS_PORT) for ${DURATION}s" >&2
read -r M_QPS M_LAT M_LOST M_CODES <<<"$(perf "$DNS_PORT" meridian)"
echo "dnsperf against NSD (port $NSD_PORT) for ${DURATION}s" >&2
read -r N_QPS N_LAT N_LOST N_CODES <<<"$(perf "$NSD_PORT" nsd)"
echo "dnsperf against Knot DNS (port $KNOT_PORT) for ${DURATION}s" >&2
read -r K_QPS K_LAT K_LOST K_CODES <<<"$(perf "$KNOT_PORT" knot)"
# Peak resident memory of each server so far (every NSD and Knot process together).
hwm() { # pids -> MB
  local kb=0 v
  for p in "$@"; do v="$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$p/status" 2>/dev/null || true)"; kb=$((kb + ${v:-0})); done
  echo $((kb / 1024))
}
M_RSS="$(hwm "${PIDS[0]}")"
N_RSS="$(hwm $(pgrep -f "nsd -d -c $WORK/nsd/nsd.conf" || true))"
K_RSS="$(hwm $(pgrep -x knotd || true))"

# API writes: a second zone, so the writes do not touch the served one.
WZONE="$(api -X POST "$HTTP/v1/dns/zones" -H 'content-type: application/json' -d '{"name":"writes.example"}' | json '["id"]')"
echo "API writes" >&2
WRITES="$(python3 bench/dns/api_writes.py "$HTTP" "$KEY" "$WZONE" 4000 "$CLIENTS")"
SINGLE="$(echo "$WRITES" | json '["single"]')"
BATCHED="$(echo "$WRITES" | json '["batched"]')"
FAILED="$(echo "$WRITES" | json '["failures"]')"
# The same single-record writes from wrk (CLIENTS connections on 2 threads, for DURATION s) into a
# zone of their own: the zone grows by thousands of records while the DNS server keeps serving it.
WRK_ZONE="$(api -X POST "$HTTP/v1/dns/zones" -H 'content-type: application/json' -d '{"name":"wrk.example"}' | json '["id"]')"
echo "API writes with wrk" >&2
WRK_OUT="$(ZONE="$WRK_ZONE" API_KEY="$KEY" wrk -t2 -c"$CLIENTS" -d"${DURATION}s" --latency -s bench/dns/writes.lua "$HTTP" 2>&1)"
WRK_RPS="$(echo "$WRK_OUT" | awk '/Requests\/sec/ {printf "%d", $2}')"
WRK_P99="$(echo "$WRK_OUT" | awk '/^ +99%/ {print $2}')"
WRK_NON2XX="$(echo "$WRK_OUT" | awk '/Non-2xx/ {print $NF}')"
WRK_SENT="$(echo "$WRK_OUT" | awk '/requests in/ {print $1}')"
STORED="$(api "$HTTP/v1/dns/zones/$WRK_ZONE" | json '["records"]')"
SERIAL="$(api "$HTTP/v1/dns/zones/$WRK_ZONE" | json '["soa_serial"]')"
# How long the served copy takes to reach the zone's last serial once the writes stop.
CATCH_UP=""
start_ns=$(date +%s%N)
for _ in $(seq 1 100); do
  served="$(dig +short -p "$DNS_PORT" @127.0.0.1 wrk.example SOA | awk '{print $3}')"
  if [ "$served" = "$SERIAL" ]; then CATCH_UP=$(( ($(date +%s%N) - start_ns) / 1000000 )); break; fi
  sleep 0.01
done

cpu="$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | sed -n 1p || true)"
nsd_version="$(nsd -v 2>&1 | sed -n 1p || true)"
knot_version="$(knotd -V 2>&1 | sed -n 's/^knotd (Knot DNS), version /Knot DNS /p' || true)"
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
section="$(cat <<MD
<!-- dns:start -->
## DNS

\`bench/dns/run.sh $DURATION $RECORDS $CLIENTS\` ($(date -u +%Y-%m-%d), $(nproc) cores, ${cpu}).

**Queries per second.** The release \`meridian\` binary, ${nsd_version} (\`server-count: $(nproc)\`,
\`reuseport: yes\`) and ${knot_version} (its default: one UDP worker per core) serve the same zone \`bench.example\` of $RECORDS records ($HOSTS names with A records, every tenth also AAAA and TXT),
imported into Meridian through \`POST /v1/dns/zones/{id}/import\` and given to NSD and Knot as Meridian's
own \`GET .../export\`. dnsperf sends, for $DURATION s per server, a fixed mix over UDP from 16 clients with up to
256 queries outstanding: 90% names that exist (A, AAAA, TXT), 10% names that do not (NXDOMAIN with the SOA).
The servers and dnsperf share the machine's $(nproc) cores, one server at a time; response-rate
limiting is off in NSD (it would drop most of one client's traffic) and not configured in Knot,
and Meridian has none. Peak RSS is each server's (all its processes) at the end of the query runs.

| server | queries/s | Meridian's ratio | average latency (ms) | queries lost | response codes | peak RSS (MB) |
|---|---:|---:|---:|---:|---|---:|
| Meridian | $M_QPS | | $M_LAT | $M_LOST | $M_CODES | $M_RSS |
| NSD | $N_QPS | $(ratio "$M_QPS" "$N_QPS")× | $N_LAT | $N_LOST | $N_CODES | $N_RSS |
| Knot DNS | $K_QPS | $(ratio "$M_QPS" "$K_QPS")× | $K_LAT | $K_LOST | $K_CODES | $K_RSS |

**API record writes per second** (SQLite store, API rate limits switched off for the run): $CLIENTS
clients each \`POST /v1/dns/zones/{id}/records\` over a keep-alive connection, 4000 records in all: **$SINGLE
records/s**; the same number through \`POST .../records/batch\` in batches of 1000: **$BATCHED records/s**.
Each write is one transaction with its serial bump and its event; $FAILED requests failed.
With wrk instead of Python clients (\`bench/dns/writes.lua\`: -t2 -c$CLIENTS for $DURATION s, each request a new A
record in a zone of its own): **$WRK_RPS records/s**, p99 $WRK_P99, ${WRK_NON2XX:-0} answers other than 201 of
$WRK_SENT; the zone then held $STORED records. The served copy follows from the changed names alone (the
zone is not read whole on each change): it answered the zone's last serial ${CATCH_UP:-(not within 1 s)} ms after the writes stopped.
<!-- dns:end -->
MD
)"
doc=docs/benchmarks.md
python3 bench/write_section.py "$doc" dns "$section"
echo "$section"
