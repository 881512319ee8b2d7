"""API record writes per second: CLIENTS threads POST distinct records to one zone over keep-alive
connections, then the same number of records in batches of 1000. Prints one JSON line."""
import http.client
import json
import sys
import threading
import time
from urllib.parse import urlparse

base, key, zone, total, clients = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
url = urlparse(base)
headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
failures = []


def writer(offset, count):
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    for i in range(offset, offset + count):
        body = json.dumps({"type": "A", "name": f"w{i}", "content": f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}", "ttl": 300})
        conn.request("POST", f"/v1/dns/zones/{zone}/records", body, headers)
        r = conn.getresponse()
        r.read()
        if r.status != 201:
            failures.append(r.status)
    conn.close()


per = total // clients
threads = [threading.Thread(target=writer, args=(n * per, per)) for n in range(clients)]
start = time.perf_counter()
for t in threads:
    t.start()
for t in threads:
    t.join()
single = per * clients / (time.perf_counter() - start)

conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
start = time.perf_counter()
done = 0
while done < total:
    n = min(1000, total - done)
    creates = [{"type": "TXT", "name": f"b{done + i}", "content": f"batch record {done + i}"} for i in range(n)]
    conn.request("POST", f"/v1/dns/zones/{zone}/records/batch", json.dumps({"creates": creates}), headers)
    r = conn.getresponse()
    r.read()
    if r.status != 200:
        failures.append(r.status)
    done += n
batched = total / (time.perf_counter() - start)
print(json.dumps({"single": round(single), "batched": round(batched), "failures": len(failures)}))
