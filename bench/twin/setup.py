"""Creates the bench twin and its sensors on a running Meridian; prints the twin id.

    python3 bench/twin/setup.py HOST:PORT API_KEY SENSORS [PARCELS]

With PARCELS (default 0), first registers that many 20 m parcels in the twin's area (so its
tileset has building contents), and writes to stderr how long the twin took from creation to
`ready` (its first tileset built).

One keep-alive connection; sensors s0001 … are numbers in degC. A twin created asynchronously
(202) is waited for: the first sensor is retried until the twin takes it.
"""
import http.client
import json
import sys
import time

addr, key, sensors = sys.argv[1], sys.argv[2], int(sys.argv[3])
parcels = int(sys.argv[4]) if len(sys.argv) > 4 else 0
conn = http.client.HTTPConnection(addr, timeout=30)
headers = {"Content-Type": "application/json", "X-Api-Key": key}


def post(path, body):
    conn.request("POST", path, body=json.dumps(body), headers=headers)
    resp = conn.getresponse()
    return resp.status, resp.read()


# Parcels on a grid inside the twin's box, 20 m squares every 30 m (about 60 x 70 fit).
per_row = 60
for i in range(parcels):
    x, y = 7.0905 + (i % per_row) * 0.00039, 45.9105 + (i // per_row) * 0.00027
    ring = [[x, y], [x + 0.00026, y], [x + 0.00026, y + 0.00018], [x, y + 0.00018], [x, y]]
    feature = {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [ring]},
               "properties": {"lot": str(i), "plan": f"SP{i // 40}", "tenure": "freehold", "height": 6 + i % 20}}
    status, body = post("/api/v1/cadastre/parcels", feature)
    if status != 201:
        sys.exit(f"POST parcel {i}: {status} {body[:500]!r}")

started = time.monotonic()
status, body = post("/api/v1/realtime/twins", {"name": "bench", "bbox": [7.09, 45.91, 7.11, 45.93], "height_property": "height"})
if status not in (201, 202):
    sys.exit(f"POST /api/v1/realtime/twins: {status} {body[:500]!r}")
twin = json.loads(body)["id"]
deadline = time.monotonic() + 60
for i in range(1, sensors + 1):
    sensor = {"id": f"s{i:04d}", "name": f"sensor {i}", "unit": "degC", "type": "number"}
    while True:
        status, body = post(f"/api/v1/realtime/twin/{twin}/sensors", sensor)
        if status in (200, 201, 409):  # 409: already there (a rerun on the same data)
            break
        if i == 1 and time.monotonic() < deadline:
            time.sleep(0.5)
            continue
        sys.exit(f"POST sensor {sensor['id']}: {status} {body[:500]!r}")
while True:
    conn.request("GET", f"/api/v1/realtime/twins/{twin}", headers=headers)
    resp = conn.getresponse()
    state = json.loads(resp.read())
    if state["status"] != "building":
        break
    time.sleep(0.05)
built = state.get("tileset") or {}
print(f"twin {twin}: {state['status']} in {time.monotonic() - started:.2f} s with {built.get('features')} parcels, "
      f"{built.get('tiles')} tiles, {built.get('triangles')} triangles", file=sys.stderr)
print(twin)
