#!/usr/bin/env bash
# Three Meridian nodes on one PostgreSQL database behind nginx, on this host: the operator's
# guide's example (docs/deployment.md), and what the cluster tests start.
#
#   deploy/cluster/up.sh            # runs in the foreground; Ctrl-C (or SIGTERM) stops every process
#
# Environment (defaults in brackets):
#   BIN                 the meridian program [target/release/meridian]
#   DATABASE_URL        a PostgreSQL database, created if missing [postgres://postgres@127.0.0.1:5432/meridian_cluster]
#   BLOB_URL            blobs shared by every node: s3://bucket/prefix, or a folder every node reaches [file://$DIR/blobs]
#   DIR                 where each node's staging folder, logs and pids go [./data/cluster]
#   LISTEN              nginx's address [127.0.0.1:8080]
#   HTTP_PORTS          the nodes' HTTP ports [8081 8082 8083]
#   DNS_ADDR            the DNS node's address [127.0.0.1:5353]
#   ROLES               each node's roles, in order [api,workers,dispatcher,mqtt api,workers,dispatcher,mqtt api,dns]
#   NGINX               the nginx program [nginx]
# Any other MERIDIAN_* variable reaches every node (e.g. MERIDIAN_RATE_LIMITS__REDIS_URL).
#
# Each node writes $DIR/nodeN.log and $DIR/nodeN.pid; nginx $DIR/nginx.pid. The script prints
# "cluster ready" once nginx answers /readyz through every node.
set -euo pipefail
cd "$(dirname "$0")/../.."

BIN="${BIN:-target/release/meridian}"
DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/meridian_cluster}"
DIR="$(mkdir -p "${DIR:-./data/cluster}" && cd "${DIR:-./data/cluster}" && pwd)"
BLOB_URL="${BLOB_URL:-file://$DIR/blobs}"
LISTEN="${LISTEN:-127.0.0.1:8080}"
read -r -a PORTS <<< "${HTTP_PORTS:-8081 8082 8083}"
DNS_ADDR="${DNS_ADDR:-127.0.0.1:5353}"
read -r -a NODE_ROLES <<< "${ROLES:-api,workers,dispatcher,mqtt api,workers,dispatcher,mqtt api,dns}"
NGINX="${NGINX:-nginx}"

[ -x "$BIN" ] || { echo "no meridian program at $BIN (cargo build --release, or set BIN)" >&2; exit 1; }
command -v "$NGINX" >/dev/null || { echo "nginx is not installed (Debian: apt-get install nginx-light)" >&2; exit 1; }
[ "${#PORTS[@]}" = "${#NODE_ROLES[@]}" ] || { echo "HTTP_PORTS and ROLES name different numbers of nodes" >&2; exit 1; }

# The database, once: `meridian migrate` creates the schema; every node checks it at start.
server="${DATABASE_URL%/*}" name="${DATABASE_URL##*/}"
if ! psql "$server/postgres" -qAtc "SELECT 1 FROM pg_database WHERE datname = '$name'" | grep -q 1; then
  psql "$server/postgres" -qc "CREATE DATABASE \"$name\""
fi
MERIDIAN_STORAGE__DATABASE_URL="$DATABASE_URL" MERIDIAN_STORAGE__BLOB_URL="$BLOB_URL" \
  "$BIN" --data-dir "$DIR/migrate" migrate

pids=()
stop() {
  trap - INT TERM EXIT
  [ -f "$DIR/nginx.pid" ] && kill "$(cat "$DIR/nginx.pid")" 2>/dev/null || true
  # SIGTERM: each node finishes its requests and jobs within server.shutdown_grace.
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait || true
}
trap stop INT TERM EXIT

upstreams=""
for i in "${!PORTS[@]}"; do
  n=$((i + 1)) port="${PORTS[$i]}" roles="${NODE_ROLES[$i]}"
  mkdir -p "$DIR/node$n"
  dns="127.0.0.1:0"
  [[ ",$roles," == *",dns,"* ]] && dns="$DNS_ADDR"
  MERIDIAN_STORAGE__DATABASE_URL="$DATABASE_URL" MERIDIAN_STORAGE__BLOB_URL="$BLOB_URL" \
  MERIDIAN_SERVER__NODE_NAME="node$n" \
    "$BIN" --data-dir "$DIR/node$n" serve --http "127.0.0.1:$port" --dns "$dns" --roles "$roles" \
    > "$DIR/node$n.log" 2>&1 &
  pids+=($!)
  echo "$!" > "$DIR/node$n.pid"
  echo "node$n: http 127.0.0.1:$port, roles $roles, log $DIR/node$n.log"
  upstreams+="        server 127.0.0.1:$port max_fails=1 fail_timeout=5s;"$'\n'
done

for i in "${!PORTS[@]}"; do
  for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:${PORTS[$i]}/readyz" >/dev/null && break
    kill -0 "${pids[$i]}" 2>/dev/null || { echo "node$((i + 1)) stopped:" >&2; tail -20 "$DIR/node$((i + 1)).log" >&2; exit 1; }
    sleep 0.5
  done
done

mkdir -p "$DIR"/nginx-{body,proxy,fastcgi,uwsgi,scgi}
python3 - "$DIR" "$LISTEN" "$upstreams" <<'PY'
import sys
d, listen, ups = sys.argv[1:4]
text = open("deploy/cluster/nginx.conf.in").read()
open(f"{d}/nginx.conf", "w").write(text.replace("@DIR@", d).replace("@LISTEN@", listen).replace("@UPSTREAMS@", ups.rstrip("\n")))
PY
"$NGINX" -e stderr -p "$DIR" -c "$DIR/nginx.conf" -g 'daemon off;' 2> "$DIR/nginx.log" &
pids+=($!)
for _ in $(seq 1 60); do curl -sf "http://$LISTEN/readyz" >/dev/null && break; sleep 0.5; done
curl -sf "http://$LISTEN/readyz" >/dev/null
echo "cluster ready: http://$LISTEN (DNS on $DNS_ADDR)"
wait -n "${pids[@]}" || true
echo "a process of the cluster stopped; stopping the others" >&2
