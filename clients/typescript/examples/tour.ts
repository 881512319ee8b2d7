// The five-minute tour with the TypeScript client. Run it against a server started with
// webhooks allowed to reach this machine over plain HTTP (development settings):
//   MERIDIAN_WEBHOOKS__ALLOW_HTTP=true MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS=true meridian serve
//   MERIDIAN_URL=http://127.0.0.1:8080 MERIDIAN_SAMPLES=/path/to/meridian node --experimental-websocket tour.js
import { createReadStream } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { MeridianClient, MeridianProblem, Multipart, fileBlob, isReading, verifyWebhook } from "meridian-client";

const baseUrl = process.env.MERIDIAN_URL ?? "http://127.0.0.1:8080";
const samples = process.env.MERIDIAN_SAMPLES ?? "."; // the source tree, for its sample files

// Sign up: the answer holds the API key, shown this once. The client trades it for short-lived
// access tokens and refreshes them before they expire; 429 and 503 answers are retried after
// their Retry-After.
const { apiKey, account } = await MeridianClient.signUp({ baseUrl, name: "Ada", email: "ada@example.com" });
const client = new MeridianClient({ baseUrl, apiKey, useAccessTokens: true, retry: { maxRetries: 5 } });
console.log("signed up", account.id);

// DNS: a zone and a record, answered at once by the DNS server
// (dig @127.0.0.1 -p 5353 www.example.com A +short).
const zone = await client.POST("/v1/dns/zones", { body: { name: "example.com" } });
await client.POST("/v1/dns/zones/{zone_id}/records", {
  params: { path: { zone_id: zone.id } },
  body: { type: "A", name: "www", content: "192.0.2.10", ttl: 300 },
});
for await (const record of client.paginate("/v1/dns/zones/{zone_id}/records", { params: { path: { zone_id: zone.id } } })) {
  console.log(record.name, record.type, record.content);
}

// Cadastre: register parcels, then find them with a bbox and CQL2, page after page.
for (let lot = 1; lot <= 5; lot++) {
  const west = 151.2 + lot * 0.001;
  await client.POST("/api/v1/cadastre/parcels", {
    body: {
      type: "Feature",
      geometry: {
        type: "Polygon",
        coordinates: [[[west, -33.87], [west + 0.0008, -33.87], [west + 0.0008, -33.869], [west, -33.869], [west, -33.87]]],
      },
      properties: { lot: String(lot), plan: "DP100", tenure: lot % 2 === 1 ? "freehold" : "leasehold" },
    },
  });
}
const query = { bbox: "151.1,-33.9,151.3,-33.8", filter: "tenure = 'freehold'", limit: 2 };
for await (const parcel of client.paginate("/api/v1/cadastre/parcels", { params: { query } })) {
  console.log("freehold parcel", (parcel as { id: string }).id);
}

// A DEM: upload a GeoTIFF (read from disk as it is sent), run a hillshade, wait for the job.
const dem = new Multipart()
  .append("file", await fileBlob(`${samples}/crates/raster/tests/data/swissalti3d-2573-1085.tif`, { type: "image/tiff" }))
  .append("params", { operations: [{ type: "hillshade", multidirectional: true }] });
const submitted = await client.POST("/api/v1/dem/process", { upload: dem });
await client.waitForJob(submitted.id, { onProgress: (job) => console.log(`hillshade ${job.status} ${job.progress}%`) });
const demJob = await client.GET("/api/v1/dem/jobs/{job_id}", { params: { path: { job_id: submitted.id } } });
const cog = await client.downloadUrl(demJob.outputs[0]!.href, { range: { start: 0, end: 1023 } });
console.log("first KiB of the hillshade COG:", cog.status, cog.contentRange);

// Earth observation: a STAC collection, a scene streamed up band by band, NDVI per parcel.
await client.POST("/api/v1/eo/collections", {
  body: {
    id: "cbers4",
    description: "CBERS-4 MUX",
    license: "CC-BY-SA-3.0",
    extent: { spatial: { bbox: [[-180, -90, 180, 90]] }, temporal: { interval: [[null, null]] } },
  },
});
const scene = new Multipart().append("item", {
  id: "scene1",
  datetime: "2017-11-21T06:51:03Z",
  assets: {
    B7: { "eo:bands": [{ name: "B7", common_name: "red" }] },
    B8: { "eo:bands": [{ name: "B8", common_name: "nir" }] },
  },
});
for (const band of [5, 6, 7, 8]) {
  const path = `${samples}/crates/eo/tests/data/cbers4-mux-057-094-20171121-band${band}.tif`;
  scene.append(`B${band}`, createReadStream(path), { filename: `band${band}.tif`, contentType: "image/tiff" });
}
const ingest = await client.request("post", "/api/v1/eo/collections/{cid}/items", {
  params: { path: { cid: "cbers4" } },
  upload: scene,
});
if (ingest.status === 202) await client.waitForJob(ingest.data.job); // converted to a COG first
const item = await client.GET("/api/v1/eo/collections/{cid}/items/{iid}", { params: { path: { cid: "cbers4", iid: "scene1" } } });
const [w, s, e, n] = item.bbox as number[];
const [cx, cy] = [(w! + e!) / 2, (s! + n!) / 2];
await client.POST("/api/v1/cadastre/parcels", {
  body: {
    type: "Feature",
    geometry: { type: "Polygon", coordinates: [[[cx, cy], [cx + 0.01, cy], [cx + 0.01, cy + 0.01], [cx, cy + 0.01], [cx, cy]]] },
    properties: { lot: "1", plan: "FARM1", tenure: "freehold" },
  },
});
const ndvi = await client.request("post", "/api/v1/eo/compute/{index}", {
  params: { path: { index: "ndvi" } },
  body: { scene: "cbers4/scene1", zones: { collection: "parcels", filter: "plan = 'FARM1'" } },
});
if (ndvi.status === 200) {
  // Small areas are computed at once; large ones answer 202 with a job whose output is the result.
  console.log("NDVI statistics", ndvi.data.statistics, "per parcel", ndvi.data.zones?.features);
}

// Point clouds: stream a LAS file up, classify it, download COPC (and a byte range of it).
const cloud = await client.POST("/api/v1/pointcloud/upload", {
  params: { query: { name: "survey" } },
  upload: createReadStream(`${samples}/crates/pointcloud/tests/data/isprs-samp41.las`),
  contentType: "application/vnd.las",
});
await client.waitForJob(String(cloud.job.id)); // indexing
const classify = await client.POST("/api/v1/pointcloud/{point_cloud_id}/classify", {
  params: { path: { point_cloud_id: cloud.id } },
  body: {},
});
await client.waitForJob(classify, { onProgress: (job) => console.log(`classify ${job.progress}%`) });
const copc = await client.download("/api/v1/pointcloud/{point_cloud_id}/download", {
  params: { path: { point_cloud_id: cloud.id }, query: { format: "copc" } },
  range: { start: 0, end: 3 },
});
console.log("COPC starts with", new TextDecoder().decode(await copc.bytes())); // LASF

// A digital twin: a sensor, readings pushed over the WebSocket, and a resume from the last one.
const twin = await client.POST("/api/v1/realtime/twins", {
  body: {
    name: "Old town",
    bbox: [151.19, -33.88, 151.21, -33.86],
    height_property: "height",
  },
});
await client.POST("/api/v1/realtime/twin/{twin_id}/sensors", {
  params: { path: { twin_id: twin.id } },
  body: { id: "pump-3", unit: "l/s" },
});
const postReading = (value: number) =>
  client.POST("/api/v1/realtime/twin/{twin_id}/sensors/{sensor_id}/readings", {
    params: { path: { twin_id: twin.id, sensor_id: "pump-3" } },
    body: { value },
  });
const telemetry = client.twinTelemetry(twin.id); // reconnects by itself with since = the last reading
await telemetry.ready;
await postReading(12.5);
let last;
for await (const message of telemetry) {
  if (isReading(message)) {
    console.log("live", message.sensorId, message.value, message.ts);
    last = message;
    break; // leaving the loop closes the socket
  }
}
await postReading(12.7); // while nobody listens
const resumed = client.twinTelemetry(twin.id, { since: last!.ts });
for await (const reading of resumed.readings()) {
  console.log("replayed", reading.value); // 12.7
  break;
}

// Webhooks: a receiver, a subscription, a delivery verified (X-Service-Signature and the
// Standard Webhooks headers, with timestamp tolerance).
let secret = "";
const received = new Promise<void>((resolve) => {
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      try {
        const event = await verifyWebhook({ secret, body: Buffer.concat(chunks), headers: req.headers });
        res.writeHead(204).end(); // answer first, then work
        console.log("verified", event.event, event.id);
        receiver.close();
        resolve();
      } catch (error) {
        res.writeHead(401).end();
      }
    });
  });
  receiver.listen(0, "127.0.0.1", async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/meridian`;
    const subscription = await client.POST("/api/v1/webhooks/subscriptions", { body: { url, events: ["dns.*"] } });
    secret = subscription.secret; // shown now and on rotation only
    await client.POST("/v1/dns/zones/{zone_id}/records", {
      params: { path: { zone_id: zone.id } },
      body: { type: "TXT", name: "hello", content: "webhooks" },
    });
  });
});
await received;

// Mistakes are typed problems with the fields at fault.
try {
  await client.POST("/api/v1/account/api-keys", { body: { name: "ci", scopes: ["dns:admin"] } });
} catch (error) {
  if (!(error instanceof MeridianProblem)) throw error;
  console.log(error.status, error.code, error.pointers, error.requestId); // 422 validation_failed [ '/scopes/0' ] req_...
}
// Rate limits: with retries off, a 429 is a MeridianProblem carrying the server's Retry-After.
const once = new MeridianClient({ baseUrl, apiKey, retry: false });
try {
  await once.GET("/v1/dns/zones");
} catch (error) {
  if (error instanceof MeridianProblem && error.status === 429) console.log(`retry in ${error.retryAfter} s`);
  else throw error;
}
