#!/usr/bin/env bash
# bench/postgres/writes.sh: the write paths that go through the outbox, on the embedded store
# (SQLite) and on PostgreSQL, in the same run on this machine: webhook deliveries (the
# webhooks_bench example of crates/webhooks, as bench/webhooks/run.sh runs it: 16 clients commit
# events through POST /api/v1/webhooks/subscriptions/{id}/test, a local receiver answers 200) and
# DNS API record writes (bench/dns/api_writes.py: 8 clients POST single records, then the same
# number in batches of 1,000). Each PostgreSQL run gets a fresh database. Writes the
# `postgres-writes` section of docs/benchmarks.md.
#
#   bench/postgres/writes.sh      # EVENTS=5000 RECORDS=4000 CLIENTS=8 PG=postgres://postgres@127.0.0.1:5432
set -euo pipefail
cd "$(dirname "$0")/../.."
EVENTS=${EVENTS:-5000}
RECORDS=${RECORDS:-4000}
CLIENTS=${CLIENTS:-8}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

cargo build --release -q -p meridian --bin meridian
cargo build --release -q -p meridian-webhooks --example webhooks_bench

fresh_db() { # name -> url
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >/dev/null
  echo "$PG/$1"
}
rows=""
dns_rows=""
hooks_rows=()
for store in sqlite postgres; do
  echo "== webhooks on $store" >&2
  if [ "$store" = postgres ]; then
    row=$(env MERIDIAN_STORAGE__DATABASE_URL="$(fresh_db bench_writes_hooks)" \
      target/release/examples/webhooks_bench --meridian target/release/meridian --events "$EVENTS" --concurrency 16 --fail-rate 0)
  else
    row=$(target/release/examples/webhooks_bench --meridian target/release/meridian --events "$EVENTS" --concurrency 16 --fail-rate 0)
  fi
  # The example prints a table row: | events | clients | failing % | commit rate | 99% delivered | all delivered | p50 | p99 | max | 500s |
  hooks_rows+=("| $store $row")

  echo "== DNS API writes on $store" >&2
  rm -rf "$work/data" "$work/out"
  if [ "$store" = postgres ]; then
    export MERIDIAN_STORAGE__DATABASE_URL
    MERIDIAN_STORAGE__DATABASE_URL=$(fresh_db bench_writes_dns)
  else
    unset MERIDIAN_STORAGE__DATABASE_URL
  fi
  MERIDIAN_LOG__LEVEL=warn MERIDIAN_RATE_LIMITS__ENABLED=false \
    target/release/meridian --data-dir "$work/data" serve --http 127.0.0.1:0 --dns 127.0.0.1:0 >"$work/out" 2>"$work/err" &
  pid=$!
  for _ in $(seq 300); do grep -q "listening on http" "$work/out" 2>/dev/null && break; sleep 0.1; done
  http="http://$(sed -n 's/^listening on http //p' "$work/out")"
  key=$(curl -sf -X POST "$http/api/v1/accounts" -H 'content-type: application/json' \
    -d '{"name":"bench","email":"bench@example.com"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
  zone=$(curl -sf -X POST "$http/v1/dns/zones" -H "Authorization: Bearer $key" -H 'content-type: application/json' \
    -d '{"name":"writes.example"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  writes=$(python3 bench/dns/api_writes.py "$http" "$key" "$zone" "$RECORDS" "$CLIENTS")
  dns_rows+="| $store | $(echo "$writes" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["single"], "|", d["batched"], "|", d["failures"])') |"$'\n'
  kill "$pid"; wait "$pid" 2>/dev/null || true
  unset MERIDIAN_STORAGE__DATABASE_URL
done
for r in "${hooks_rows[@]}"; do rows+="$r"$'\n'; done

section=$(cat <<MD
<!-- postgres-writes:start -->
## PostgreSQL/PostGIS: webhook deliveries and DNS API writes, next to SQLite

Command: \`bench/postgres/writes.sh\` (EVENTS=$EVENTS, RECORDS=$RECORDS, CLIENTS=$CLIENTS). Measured
$(date -u +%Y-%m-%dT%H:%MZ) on this machine ($(nproc) cores), both stores in the same run: the release
\`meridian\` binary on its embedded default (SQLite, WAL) and on PostgreSQL
$(psql "$PG/postgres" -qAtc 'SHOW server_version') (\`storage.database_url\`, a fresh database per run,
default server settings). Webhooks as in bench/webhooks (16 clients commit events through the
outbox, one subscription, a local receiver answering 200); DNS writes as in bench/dns
($CLIENTS clients POST single records to one zone, then the same number in batches of 1,000).
Every acknowledged write is a commit: PostgreSQL with its default \`synchronous_commit = on\`
flushes its WAL to disk at each one, where SQLite in WAL mode with \`synchronous = NORMAL\` (the
embedded default) does not, which is most of the difference per write on one machine. The
PostgreSQL rows are one node's.

| store | events | clients | failing responses (%) | commit rate (events/s) | 99% delivered (events/s) | all delivered (events/s) | p50 latency (ms) | p99 latency (ms) | max latency (ms) | 500s sent |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows%$'\n'}

| store | DNS record writes/s, single POSTs | records/s in batches of 1,000 | failed requests |
|---|---:|---:|---:|
${dns_rows%$'\n'}
<!-- postgres-writes:end -->
MD
)
python3 bench/write_section.py docs/benchmarks.md postgres-writes "$section"
echo "$section"
