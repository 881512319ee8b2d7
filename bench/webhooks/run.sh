#!/usr/bin/env bash
# Webhook delivery benchmark against a local receiver: events per second from commit to receipt,
# and commit-to-receipt latency, with every response a 200 and with 5% of responses failing.
# Writes its section of docs/benchmarks.md (between the webhooks markers).
#
#   bench/webhooks/run.sh [EVENTS] [CONCURRENCY]
set -euo pipefail
cd "$(dirname "$0")/../.."
EVENTS="${1:-5000}"
CONCURRENCY="${2:-16}"

cargo build --release -q -p meridian --bin meridian
cargo build --release -q -p meridian-webhooks --example webhooks_bench
BENCH=target/release/examples/webhooks_bench

rows=""
for run in "$CONCURRENCY 0" "$CONCURRENCY 0.05" "2 0"; do
  set -- $run
  rows+="$("$BENCH" --meridian target/release/meridian --events "$EVENTS" --concurrency "$1" --fail-rate "$2")"$'\n'
done

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
section="$(cat <<MD
<!-- webhooks:start -->
## Webhooks

\`bench/webhooks/run.sh $EVENTS $CONCURRENCY\` ($(date -u +%Y-%m-%d), $(nproc) cores, ${cpu}): the release
\`meridian\` binary with default webhook settings (retry schedule 5s, 1m, ...; 64 deliveries in flight, 8
per subscription), SQLite store; $CONCURRENCY clients commit events through
\`POST /api/v1/webhooks/subscriptions/{id}/test\` (the outbox path every event takes) to one subscription
whose endpoint is a local HTTP receiver. *Commit rate* is events committed per second; *delivered* is events
per second from the first commit to the last first-successful receipt; latency is from the event's
\`timestamp\` (taken just before the commit) to its first successful receipt. With failures, each response is
a 500 with probability 5%: about 5% of events wait for the first retry (5 s ±20%), one in 400 for the second
(1 min), one in 8,000 for the third (5 min), and the tail and the all-events rate show exactly that. New
deliveries go from the outbox to the delivery worker in memory (inserted already leased to it), and attempts
are recorded in groups; the 2-client row shows latency at a lower commit rate. The bench, the receiver and the
server share the machine's cores, and the machine may be shared with other
builds and benchmarks, so figures vary from run to run by tens of percent.

| events | clients | failing responses (%) | commit rate (events/s) | 99% delivered (events/s) | all delivered (events/s) | p50 latency (ms) | p99 latency (ms) | max latency (ms) | 500s sent |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows%$'\n'}
<!-- webhooks:end -->
MD
)"

doc=docs/benchmarks.md
[ -f "$doc" ] || printf '# Benchmarks\n\nEach section is written by its script under bench/.\n' > "$doc"
SECTION="$section" python3 - "$doc" <<'PY'
import os, re, sys
path = sys.argv[1]
text = open(path).read()
section = os.environ["SECTION"]
pattern = re.compile(r"<!-- webhooks:start -->.*?<!-- webhooks:end -->", re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section + "\n"
open(path, "w").write(text)
PY
echo "$section"
