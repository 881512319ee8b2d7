"""Markdown section "Digital twin (bench/twin)" from the loadgen's JSON lines (results.jsonl).

    python3 bench/twin/table.py RESULTS HEADER_FILE

Each line: the twin-loadgen report plus "step" (ws-http, ws-mqtt, mosquitto), "server",
"server_rss_kb" and "command", added by bench/twin/run.sh. HEADER_FILE holds the text above the
table (the run's settings, the tileset build and tile serving rows).
"""
import json
import sys

LABELS = {
    "ws-http": "Meridian WebSocket, HTTP ingest",
    "ws-mqtt": "Meridian WebSocket, MQTT ingest (via Mosquitto)",
    "mosquitto": "Mosquitto, MQTT subscribers",
}

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
header = open(sys.argv[2]).read().strip()


def mb(kb):
    return "–" if kb in (None, "") else f"{int(kb) / 1024:.0f} MB"


def keeps_up(r):
    """Keeping up: at least 99.9 % delivered, no gap, p99 within 50 ms."""
    ok = r["delivered_pct"] >= 99.9 and r["gaps"] == 0 and r.get("latency_ms", {}).get("p99", 1e9) <= 50
    return "yes" if ok else "no"


out = ["<!-- twin:start -->", "## Digital twin (bench/twin)", "", header, ""]
out.append("| mode | readings/s asked (achieved) | clients | delivered msg/s | % of expected | p50 ms | p99 ms | max ms | gaps (dropped) | connect failures | keeps up | server peak RSS | server CPU | loadgen CPU | command |")
out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    lat = r.get("latency_ms", {})
    out.append(
        f"| {LABELS.get(r['step'], r['step'])} | {r['rate_asked']:g} ({r['rate_achieved']:g}) "
        f"| {r['clients_connected']}/{r['clients']} | {r['delivered_per_s']:,.0f} | {r['delivered_pct']:.2f} % "
        f"| {lat.get('p50', 0):.2f} | {lat.get('p99', 0):.2f} | {lat.get('max', 0):.1f} "
        f"| {r['gaps']} ({r['gap_dropped']}) | {r['connect_failures']} | {keeps_up(r)} | {r['server']}: {mb(r.get('server_rss_kb'))} "
        f"| {r.get('server_cpu_cores', 0):.2f} | {r.get('loadgen_cpu_cores', 0):.2f} | `{r['command']}` |"
    )
errors = [f"- {r['step']} at {r['rate_asked']:g}/s: {r['first_error']}" for r in rows if r.get("first_error")]
if errors:
    out += ["", "First error reported per step:", ""] + errors
out.append("<!-- twin:end -->")
print("\n".join(out))
