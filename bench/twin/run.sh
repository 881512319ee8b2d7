#!/usr/bin/env bash
# bench/twin: the digital twin's realtime fan-out on this machine, in one run:
#
#   Meridian WebSocket, HTTP ingest   CLIENTS WebSocket clients of /api/v1/realtime/twin/{id};
#                                     readings POSTed to /api/v1/realtime/twin/{id}/readings
#   Meridian WebSocket, MQTT ingest   the same clients; readings published to this run's Mosquitto
#                                     on meridian/{twin}/{sensor}, which Meridian subscribes to
#   Mosquitto                         CLIENTS MQTT subscribers of bench/+ on the same broker, one
#                                     publisher: the same fan-out without Meridian
#
# at each rate in RATES (readings per second over SENSORS sensors; each is delivered to every
# client, so 1,000 clients at 100 readings/s is 100,000 messages/s). crates/twin-loadgen drives
# the clients and the ingest and reports delivered messages per second, the share of the expected
# deliveries, and ingest-to-client latency (p50/p99/max: receive instant less the publish instant
# the reading carries as its value). Server peak RSS is VmHWM of the meridian or mosquitto
# process, reset before each step. Also measured: the tileset build for TILESET_N parcels
# (meridian-twin's `build` example) and, optionally, tile content served per second (wrk on
# TILE_URL). Writes the `twin` section of docs/benchmarks.md when all three modes ran with the
# default clients and sensors (DOC=0 or DOC=1 overrides).
#
#   bench/twin/run.sh                          # RATES="25 50 100 200" DURATION=10 WARMUP=2
#   MODES=mosquitto RATES=100 bench/twin/run.sh
#   TILE_URL='http://{addr}/api/v1/…/tiles/0/0/0.glb' bench/twin/run.sh   # adds the tile row;
#       {addr} and {twin} are this run's Meridian address and twin; KEY defaults to this run's key
#   OUT=/tmp/twin.jsonl bench/twin/run.sh     # also keeps the loadgen reports
#   TILE_URL=auto bench/twin/run.sh          # the tile row on the first content of this run's twin
#                                              (PARCELS=2000 parcels are registered in its area)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
RATES=${RATES:-25 50 100 200}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
CLIENTS=${CLIENTS:-1000}
SENSORS=${SENSORS:-1000}
MODES=${MODES:-ws-http ws-mqtt mosquitto}
MQTT_PORT=${MQTT_PORT:-18830}
TILESET_N=${TILESET_N:-100000}
TILE_DURATION=${TILE_DURATION:-10s}
TILE_CONNECTIONS=${TILE_CONNECTIONS:-16}
if [ -z "${DOC:-}" ]; then
  DOC=0
  [ "$MODES" = "ws-http ws-mqtt mosquitto" ] && [ "$CLIENTS" = 1000 ] && [ "$SENSORS" = 1000 ] && DOC=1
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

# One socket per client in one process.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
need() { command -v "$1" >/dev/null 2>&1; }
if ! need mosquitto && [ ! -x /usr/sbin/mosquitto ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto >/dev/null
fi
MOSQUITTO=$(command -v mosquitto || echo /usr/sbin/mosquitto)
if [ -n "${TILE_URL:-}" ] && ! need wrk; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi
meridian_modes=0
case " $MODES " in *" ws-http "* | *" ws-mqtt "*) meridian_modes=1 ;; esac

cargo build --release -q -p meridian-twin-loadgen
if [ "$meridian_modes" = 1 ]; then cargo build --release -q -p meridian; fi
if [ "$TILESET_N" != 0 ]; then cargo build --release -q -p meridian-twin --example build; fi
LOADGEN=$ROOT/target/release/twin-loadgen

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
hwm_reset() { echo 5 > "/proc/$1/clear_refs" 2>/dev/null || true; }
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null || true; }
# user + system clock ticks of a process so far
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# This run's own broker: anonymous, no connection limit, deep queues.
if port_open "$MQTT_PORT"; then
  echo "port $MQTT_PORT is taken: set MQTT_PORT to a free one" >&2
  exit 1
fi
cat > "$work/mosquitto.conf" <<CONF
listener $MQTT_PORT 127.0.0.1
allow_anonymous true
max_connections -1
max_queued_messages 1000000
max_inflight_messages 0
persistence false
set_tcp_nodelay true
log_dest stderr
log_type error
log_type warning
CONF
"$MOSQUITTO" -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
mosquitto_pid=$!
for _ in $(seq 100); do port_open "$MQTT_PORT" && break; sleep 0.1; done
port_open "$MQTT_PORT" || { cat "$work/mosquitto.log" >&2; exit 1; }
# (`mosquitto -h` exits 3)
mosquitto_version=$({ "$MOSQUITTO" -h 2>/dev/null || true; } | sed -n 's/^mosquitto version //p' | head -1)

if [ "$meridian_modes" = 1 ]; then
  MERIDIAN_RATE_LIMITS__ENABLED=false MERIDIAN_LOG__LEVEL=warn \
    MERIDIAN_TWIN__MQTT_URL="mqtt://127.0.0.1:$MQTT_PORT" MERIDIAN_TWIN__MQTT_TOPIC='meridian/{twin}/{sensor}' \
    ./target/release/meridian --data-dir "$work/meridian" serve --http 127.0.0.1:0 --dns 127.0.0.1:0 \
    > "$work/meridian.out" 2> "$work/meridian.log" &
  meridian_pid=$!
  for _ in $(seq 100); do grep -q "listening on http" "$work/meridian.out" 2>/dev/null && break; sleep 0.1; done
  addr=$(sed -n 's/^listening on http //p' "$work/meridian.out")
  [ -n "$addr" ] || { echo "meridian did not start:" >&2; tail -20 "$work/meridian.log" >&2; exit 1; }
  key=$(curl -sf -X POST "http://$addr/api/v1/accounts" -H 'Content-Type: application/json' \
    -d '{"name":"bench","email":"bench@example.com"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
  twin=$(python3 bench/twin/setup.py "$addr" "$key" "$SENSORS" "${PARCELS:-2000}" 2> "$work/setup.err") || { cat "$work/setup.err" >&2; exit 1; }
  cat "$work/setup.err" >&2
  setup_line=$(grep '^twin ' "$work/setup.err" || true)
  echo "meridian on $addr, twin $twin with $SENSORS sensors" >&2
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
RESULTS=$work/results.jsonl
: > "$RESULTS"
# step NAME RATE SERVER_PID SERVER_NAME LOADGEN_ARGS…: one loadgen run, its report and the
# server's peak RSS appended to RESULTS.
step() {
  local name=$1 rate=$2 pid=$3 server=$4
  shift 4
  echo "== $name, $rate readings/s" >&2
  hwm_reset "$pid"
  local cpu0 t0 cpu1 t1
  cpu0=$(cpu_ticks "$pid") t0=$(date +%s.%N)
  "$LOADGEN" "$@" --clients "$CLIENTS" --sensors "$SENSORS" --rate "$rate" --duration "$DURATION" --warmup "$WARMUP" \
    > "$work/step.json"
  cpu1=$(cpu_ticks "$pid") t1=$(date +%s.%N)
  python3 - "$work/step.json" "$name" "$server" "$(hwm "$pid")" \
    "MODES=$name RATES=$rate DURATION=$DURATION bench/twin/run.sh" \
    "$(python3 -c "print(round(($cpu1 - $cpu0) / $(getconf CLK_TCK) / ($t1 - $t0), 2))")" >> "$RESULTS" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r.update(step=sys.argv[2], server=sys.argv[3], server_rss_kb=int(sys.argv[4]) if sys.argv[4] else None,
         command=sys.argv[5], server_cpu_cores=float(sys.argv[6]))
print(json.dumps(r))
PY
  tail -1 "$RESULTS" >&2
  sleep 1
}
for rate in $RATES; do
  for mode in $MODES; do
    case $mode in
      ws-http) step ws-http "$rate" "$meridian_pid" meridian ws --url "ws://$addr/api/v1/realtime/twin/$twin" \
        --key "$key" --ingest http --http "http://$addr" --twin "$twin" ;;
      ws-mqtt) step ws-mqtt "$rate" "$meridian_pid" meridian ws --url "ws://$addr/api/v1/realtime/twin/$twin" \
        --key "$key" --ingest mqtt --twin "$twin" --broker "127.0.0.1:$MQTT_PORT" --topic 'meridian/{twin}/{sensor}' ;;
      mosquitto) step mosquitto "$rate" "$mosquitto_pid" mosquitto mqtt --broker "127.0.0.1:$MQTT_PORT" ;;
      *) echo "unknown mode $mode (ws-http, ws-mqtt, mosquitto)" >&2; exit 1 ;;
    esac
  done
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# The tileset build of the 3D Tiles engine.
tileset_line="Tileset build: not run (TILESET_N=0)."
if [ "$TILESET_N" != 0 ]; then
  build_json=$(./target/release/examples/build "$TILESET_N")
  echo "$build_json" >&2
  tileset_line=$(python3 - "$build_json" <<'PY'
import json, sys
b = json.loads(sys.argv[1])
print(f"Tileset build (meridian-twin `build` example, `build_tileset` on {b['footprints']:,} synthetic parcels, "
      f"{b['threads']} threads): {b['seconds']:.2f} s for {b['tiles']:,} tiles, {b['triangles']:,} triangles, "
      f"{b['glb_bytes'] / 1e6:.1f} MB of GLB; {b['skipped']} footprints skipped. "
      f"Command: `cargo run --release -p meridian-twin --example build -- {b['footprints']}`.")
PY
)
fi

# Optional: tile content served per second, wrk on one GLB URL (TILE_URL; KEY for X-Api-Key).
if [ "${TILE_URL:-}" = auto ] && [ -n "${twin:-}" ]; then
  # The first building content of this run's twin.
  TILE_URL=$(curl -sf -H "X-Api-Key: $key" "http://$addr/api/v1/realtime/twin/$twin/tileset" | python3 -c '
import json, sys
def walk(t):
    u = t.get("content", {}).get("uri")
    if u and "terrain" not in u:
        return u
    for c in t.get("children", []):
        f = walk(c)
        if f:
            return f
print(walk(json.load(sys.stdin)["root"]) or "")')
  TILE_URL="http://{addr}/api/v1/realtime/twin/{twin}/$TILE_URL"
fi
if [ -n "${TILE_URL:-}" ]; then
  url=${TILE_URL//\{addr\}/${addr:-}}
  url=${url//\{twin\}/${twin:-}}
  tile_key=${KEY:-${key:-}}
  bytes=$(curl -sf -H "X-Api-Key: $tile_key" "$url" | wc -c)
  w=$(wrk -t2 -c"$TILE_CONNECTIONS" -d"$TILE_DURATION" --latency -H "X-Api-Key: $tile_key" "$url" 2>&1)
  echo "$w" >&2
  read -r t_rps t_xfer t_p50 t_p99 <<<"$(echo "$w" | awk '/Requests\/sec/ {r=$2} /Transfer\/sec/ {x=$2} /^ +50%/ {a=$2} /^ +99%/ {b=$2} END {print r, x, a, b}')"
  t_non2xx=$(echo "$w" | awk '/Non-2xx/ {print $NF}')
  tile_line="Tile content served: $t_rps tiles/s ($t_xfer/s), p50 $t_p50, p99 $t_p99, non-2xx ${t_non2xx:-0}, one $bytes-byte GLB (wrk -t2 -c$TILE_CONNECTIONS -d$TILE_DURATION on \`$TILE_URL\`)."
else
  echo "tile serving: skipped (TILE_URL is unset; set it to a GLB URL to measure tiles served per second)" >&2
  tile_line="Tile content served per second: not measured in this run (TILE_URL unset)."
fi

meridian_line="Meridian: not run (MODES=$MODES)."
if [ "$meridian_modes" = 1 ]; then
  meridian_line="Meridian: release build, logging at warn, rate limits off, MQTT ingest from this run's broker."
fi
cat > "$work/header.md" <<MD
Command: \`bench/twin/run.sh\` (RATES="$RATES", CLIENTS=$CLIENTS, SENSORS=$SENSORS, DURATION=$DURATION s measured
after WARMUP=$WARMUP s). Measured $(date -u +%Y-%m-%dT%H:%MZ) on this machine ($(nproc) cores); servers, broker
and load generator share it (load average $load_before before the steps, $load_after after).
$meridian_line Mosquitto $mosquitto_version: its own instance on 127.0.0.1:$MQTT_PORT (anonymous, no connection limit, max_queued_messages 1,000,000).

\`twin-loadgen\` (crates/twin-loadgen, release) holds every client in one process. Readings go round
sensors s0001…, R per second in all, sent every 10 ms; each carries its publish instant (µs) as its
value, so latency is receive instant less value, ingest to client. Readings published during the
measured seconds count; receivers read on for 2 s after the ingest stops. Delivered msg/s is all
clients together; % of expected is deliveries over readings ingested × clients connected. Targets:
≥ 100,000 msg/s delivered with p99 ≤ 50 ms while keeping up (≥ 99.9 % delivered, no gaps).
Achieved ingest counts readings Meridian accepted (HTTP 2xx) or, over MQTT, readings handed to the
publishing client (QoS 0, nothing acknowledges them): a broker that falls behind shows as latency and
missing deliveries, not as a lower achieved rate.
CPU columns are cores used over the step (1.0 = one core busy throughout): the server's from
/proc, the load generator's from its own rusage during ingest and drain.

$tileset_line

${setup_line:+Through the server: $setup_line (parcels registered over the API, \`POST /api/v1/realtime/twins\` to \`ready\`: the \`twin.build\` job reads the parcels, builds and stores the tileset).}

$tile_line
MD
if [ -n "${OUT:-}" ]; then cp "$RESULTS" "$OUT"; fi
section=$(python3 bench/twin/table.py "$RESULTS" "$work/header.md")
if [ "$DOC" = 1 ]; then
  python3 bench/write_section.py docs/benchmarks.md twin "$section"
fi
echo "$section"
