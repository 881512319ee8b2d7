"""Creates the bench twin and its sensors on a running Meridian; prints the twin id.

    python3 bench/twin/setup.py HOST:PORT API_KEY SENSORS

One keep-alive connection; sensors s0001 … are numbers in degC. A twin created asynchronously
(202) is waited for: the first sensor is retried until the twin takes it.
"""
import http.client
import json
import sys
import time

addr, key, sensors = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = http.client.HTTPConnection(addr, timeout=30)
headers = {"Content-Type": "application/json", "X-Api-Key": key}


def post(path, body):
    conn.request("POST", path, body=json.dumps(body), headers=headers)
    resp = conn.getresponse()
    return resp.status, resp.read()


status, body = post("/api/v1/realtime/twins", {"name": "bench", "bbox": [7.09, 45.91, 7.11, 45.93]})
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
print(twin)
