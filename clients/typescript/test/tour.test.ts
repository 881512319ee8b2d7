// The tour, against a real server: sign-up, DNS (answered by dig), parcels through the paging
// iterator, a DEM job waited for with progress, an EO scene and NDVI per parcel, a point cloud
// classified and downloaded as COPC (with ranges), twin telemetry over the WebSocket with
// resume, a signed webhook delivery verified, and a typed 422.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createReadStream } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import {
  MeridianClient,
  MeridianProblem,
  Multipart,
  WebhookVerificationError,
  fileBlob,
  isReading,
  verifyWebhook,
  type Job,
  type Reading,
  type TwinTelemetry,
} from "meridian-client";
import { repoRoot, startServer, type RunningServer } from "./server.js";

const run = promisify(execFile);
const root = repoRoot();
const DEM = join(root, "crates/raster/tests/data/swissalti3d-2573-1085.tif");
const EO_BAND = (n: number) => join(root, `crates/eo/tests/data/cbers4-mux-057-094-20171121-band${n}.tif`);
const LAS = join(root, "crates/pointcloud/tests/data/isprs-samp41.las");

interface Delivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let server: RunningServer;
let client: MeridianClient;
let apiKey: string;
let accountId: string;

// The webhook receiver: a plain-HTTP endpoint the server posts deliveries to.
let receiver: Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
let deliveryArrived: () => void = () => undefined;

async function waitFor<T>(what: string, timeoutMs: number, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The `id` of an answer that has one. */
function idOf(value: unknown): string {
  assert.ok(value !== null && typeof value === "object" && "id" in value, "an answer with an id");
  return String(value.id);
}

function square(lon: number, lat: number, side = 0.0008): number[][][] {
  return [
    [
      [lon, lat],
      [lon + side, lat],
      [lon + side, lat + side],
      [lon, lat + side],
      [lon, lat],
    ],
  ];
}

describe("the tour against a real server", () => {
  before(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(204).end();
        deliveryArrived();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/meridian`;
    server = await startServer({
      MERIDIAN_WEBHOOKS__ALLOW_HTTP: "true",
      MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS: "true",
      MERIDIAN_JOBS__POLL_INTERVAL: "200ms",
      MERIDIAN_EVENTS__POLL_INTERVAL: "100ms",
    });
  });

  after(async () => {
    await server?.stop();
    await new Promise<void>((r) => receiver.close(() => r()));
  });

  test("sign up, then call with the API key and with access tokens", async () => {
    const signedUp = await MeridianClient.signUp({
      baseUrl: server.baseUrl,
      name: "Ada",
      email: "ada@example.com",
      useAccessTokens: true,
    });
    apiKey = signedUp.apiKey;
    accountId = signedUp.account.id;
    assert.match(apiKey, /^mrd_[A-Za-z0-9]{40}$/);
    assert.match(accountId, /^acct_/);
    // The key itself.
    const withKey = new MeridianClient({ baseUrl: server.baseUrl, apiKey });
    assert.equal((await withKey.GET("/api/v1/account")).id, accountId);
    // Access tokens traded for the key (the client `signUp` returned uses them).
    client = new MeridianClient({ baseUrl: server.baseUrl, apiKey, useAccessTokens: true });
    const { data: account, response } = await client.request("get", "/api/v1/account");
    assert.equal(account.email, "ada@example.com");
    assert.ok(response.headers.get("ratelimit-limit"), "authenticated answers carry RateLimit-Limit");
    const token = await client.accessToken();
    assert.match(token, /^eyJ/);
    assert.notEqual(token, apiKey);
    // Called by operationId: the same operation.
    assert.equal((await signedUp.client.ops.get_account()).id, accountId);
    // A second sign-up with the same address is a typed 409.
    await assert.rejects(
      MeridianClient.signUp({ baseUrl: server.baseUrl, name: "Ada again", email: "ADA@example.com" }),
      (e: unknown) => e instanceof MeridianProblem && e.status === 409 && e.code === "email_taken",
    );
  });

  let zoneId: string;
  test("a DNS zone and records, answered by dig, listed page by page", async () => {
    const zone = await client.POST("/v1/dns/zones", { body: { name: "example.com" } });
    zoneId = zone.id;
    assert.equal(zone.name, "example.com");
    const record = await client.POST("/v1/dns/zones/{zone_id}/records", {
      params: { path: { zone_id: zoneId } },
      body: { type: "A", name: "www", content: "192.0.2.10", ttl: 300 },
    });
    assert.equal(record.name, "www.example.com");
    const answer = await waitFor("dig to answer www.example.com", 10_000, async () => {
      const { stdout } = await run("dig", [
        `@${server.dnsHost}`,
        "-p",
        String(server.dnsPort),
        "www.example.com",
        "A",
        "+short",
        "+time=1",
        "+tries=1",
      ]);
      return stdout.trim() === "192.0.2.10" ? stdout.trim() : undefined;
    });
    assert.equal(answer, "192.0.2.10");

    for (const [name, content] of [
      ["api", "192.0.2.11"],
      ["mail", "192.0.2.12"],
      ["ftp", "192.0.2.13"],
    ] as const) {
      await client.POST("/v1/dns/zones/{zone_id}/records", {
        params: { path: { zone_id: zoneId } },
        body: { type: "A", name, content },
      });
    }
    // Pages of two, following the Link header's next.
    const pages = [];
    for await (const page of client.pages("/v1/dns/zones/{zone_id}/records", {
      params: { path: { zone_id: zoneId }, query: { limit: 2 } },
    })) {
      pages.push(page.items.map((r) => r.name));
    }
    assert.equal(pages.length, 2);
    assert.deepEqual(pages.map((p) => p.length), [2, 2]);
    const names: string[] = [];
    for await (const r of client.paginate("/v1/dns/zones/{zone_id}/records", {
      params: { path: { zone_id: zoneId }, query: { limit: 1 } },
    })) {
      names.push(r.name);
    }
    assert.deepEqual(names.sort(), ["api.example.com", "ftp.example.com", "mail.example.com", "www.example.com"]);
    const zones = [];
    for await (const z of client.paginate("/v1/dns/zones", { params: { query: { limit: 1 } } })) zones.push(z.id);
    assert.deepEqual(zones, [zoneId]);
  });

  const freehold = new Set<string>();
  let eoParcelPlan: string;
  test("parcels registered, then found by bbox and CQL2 through the paging iterator", async () => {
    // One by one, and a FeatureCollection in one transaction.
    const first = idOf(
      await client.POST("/api/v1/cadastre/parcels", {
        body: {
          type: "Feature",
          geometry: { type: "Polygon", coordinates: square(151.2, -33.87) },
          properties: { lot: "1", plan: "DP100", tenure: "freehold" },
        },
      }),
    );
    freehold.add(first);
    const features = [];
    for (let lot = 2; lot <= 7; lot++) {
      features.push({
        type: "Feature" as const,
        geometry: { type: "Polygon" as const, coordinates: square(151.2 + (lot - 1) * 0.001, -33.87) },
        properties: { lot: String(lot), plan: "DP100", tenure: lot <= 5 ? "freehold" : "leasehold" },
      });
    }
    // Freehold too, but outside the box.
    features.push({
      type: "Feature" as const,
      geometry: { type: "Polygon" as const, coordinates: square(7.1, 45.92) },
      properties: { lot: "1", plan: "DP7", tenure: "freehold" },
    });
    const batch = await client.POST("/api/v1/cadastre/parcels", { body: { type: "FeatureCollection", features } });
    assert.ok("ids" in batch && "registered" in batch, "a collection answers {registered, ids}");
    const ids = batch.ids as string[];
    assert.equal(batch.registered, features.length);
    ids.slice(0, 4).forEach((id) => freehold.add(id));

    const query = { bbox: "151.1,-33.9,151.3,-33.8", filter: "tenure = 'freehold'", limit: 2 };
    const found = new Set<string>();
    let pages = 0;
    for await (const page of client.pages("/api/v1/cadastre/parcels", { params: { query } })) {
      pages++;
      assert.ok(page.items.length <= 2);
      for (const f of page.items as { id: string; properties: { tenure: string } }[]) {
        assert.equal(f.properties.tenure, "freehold");
        found.add(f.id);
      }
    }
    assert.equal(pages, 3, "five parcels in pages of two");
    assert.deepEqual([...found].sort(), [...freehold].sort());
    // The item iterator gives the same, one parcel at a time.
    const again: string[] = [];
    for await (const f of client.paginate("/api/v1/cadastre/parcels", { params: { query } })) {
      again.push((f as { id: string }).id);
    }
    assert.deepEqual(again.sort(), [...freehold].sort());
    // The same parcels as an OGC API Features collection, paged by its `next` links. The
    // document declares no query parameters for this list, so the first URL is given whole.
    const ogc: string[] = [];
    for await (const page of client.pagesUrl("/api/v1/ogc/v1/features/collections/parcels/items?limit=3")) {
      assert.ok(page.items.length <= 3);
      ogc.push(...page.items.map((f) => (f as { id: string }).id));
    }
    assert.equal(ogc.length, 8);
    assert.deepEqual(new Set(ogc), new Set([first, ...ids]));
    eoParcelPlan = "EO1";
  });

  test("a feature collection streamed up and imported by a job", async () => {
    // A FeatureCollection made on the fly by an async generator: streamed, never held whole.
    const count = 1500;
    async function* trees(): AsyncGenerator<Uint8Array> {
      const enc = new TextEncoder();
      yield enc.encode('{"type": "FeatureCollection", "id": "trees", "title": "Street trees", "features": [');
      for (let i = 0; i < count; i++) {
        const feature = {
          type: "Feature",
          properties: { species: ["fig", "gum", "oak"][i % 3], n: i },
          geometry: { type: "Point", coordinates: [151.2 + (i % 50) * 0.0005, -33.87 + Math.floor(i / 50) * 0.0005] },
        };
        yield enc.encode((i === 0 ? "" : ",") + JSON.stringify(feature));
      }
      yield enc.encode("]}");
    }
    const accepted = await client.request("post", "/api/v1/ogc/v1/features/collections", {
      params: { query: { id: "trees" } },
      upload: trees(),
      contentType: "application/geo+json",
      headers: { prefer: "respond-async" },
    });
    assert.equal(accepted.status, 202);
    assert.equal(accepted.response.headers.get("preference-applied"), "respond-async");
    const progress: number[] = [];
    const job = await client.waitForJob(idOf(accepted.data), { onProgress: (j) => progress.push(j.progress) });
    assert.equal(job.kind, "features.import");
    assert.equal((job.output as { numberOfFeatures: number }).numberOfFeatures, count);
    assert.equal(progress[progress.length - 1], 100);
    let n = 0;
    const species = new Set<string>();
    for await (const f of client.paginateUrl("/api/v1/ogc/v1/features/collections/trees/items?limit=500")) {
      n++;
      species.add((f as { properties: { species: string } }).properties.species);
    }
    assert.equal(n, count);
    assert.deepEqual([...species].sort(), ["fig", "gum", "oak"]);
  });

  test("a DEM uploaded, a hillshade job waited for with progress, its COG read by range", async () => {
    const form = new Multipart()
      .append("file", await fileBlob(DEM, { type: "image/tiff" }), { filename: "swissalti3d-2573-1085.tif" })
      .append("params", { operations: [{ type: "hillshade", multidirectional: true }] });
    const { data: submitted, status } = await client.request("post", "/api/v1/dem/process", { upload: form });
    assert.equal(status, 202);
    assert.match(submitted.id, /^job_/);
    const seen: Job[] = [];
    const job = await client.waitForJob(submitted.id, { onProgress: (j) => seen.push(j) });
    assert.equal(job.status, "succeeded");
    assert.ok(seen.length >= 1, "onProgress was called");
    assert.equal(seen[seen.length - 1]!.status, "succeeded");
    assert.equal(seen[seen.length - 1]!.progress, 100);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.progress >= seen[i - 1]!.progress, "progress never goes back");

    const demJob = await client.GET("/api/v1/dem/jobs/{job_id}", { params: { path: { job_id: submitted.id } } });
    const output = demJob.outputs.find((o) => o.operation === "hillshade");
    assert.ok(output, "the job has a hillshade output");
    const head = await client.downloadUrl(output.href, { range: { start: 0, end: 3 } });
    assert.equal(head.status, 206);
    const magic = await head.bytes();
    assert.equal(magic.length, 4);
    assert.ok(
      Buffer.from(magic).equals(Buffer.from("II*\0", "latin1")) || Buffer.from(magic).equals(Buffer.from("MM\0*", "latin1")),
      "a TIFF",
    );
    assert.equal(head.contentRange?.start, 0);
    assert.equal(head.contentRange?.end, 3);
    assert.equal(head.contentRange?.total, output.size);
  });

  test("an EO scene streamed in, then NDVI with statistics per parcel", async () => {
    await client.POST("/api/v1/eo/collections", {
      body: {
        id: "cbers4",
        description: "CBERS-4 MUX",
        license: "CC-BY-SA-3.0",
        extent: { spatial: { bbox: [[-180, -90, 180, 90]] }, temporal: { interval: [[null, null]] } },
      },
    });
    // Node streams as parts: the body is streamed (chunked), never held whole.
    const bands: Record<number, string> = { 5: "blue", 6: "green", 7: "red", 8: "nir" };
    const form = new Multipart().append("item", {
      id: "scene1",
      datetime: "2017-11-21T06:51:03Z",
      properties: { platform: "CBERS-4" },
      assets: Object.fromEntries(
        Object.entries(bands).map(([n, common]) => [`B${n}`, { "eo:bands": [{ name: `B${n}`, common_name: common }] }]),
      ),
    });
    for (const n of Object.keys(bands)) {
      form.append(`B${n}`, createReadStream(EO_BAND(Number(n))), {
        filename: `band${n}.tif`,
        contentType: "image/tiff",
      });
    }
    assert.equal(form.replayable, false);
    const ingest = await client.request("post", "/api/v1/eo/collections/{cid}/items", {
      params: { path: { cid: "cbers4" } },
      upload: form,
    });
    if (ingest.status === 202) {
      // Not cloud-optimized: converted by a job first.
      await client.waitForJob(String(ingest.data.job));
    } else {
      assert.equal(ingest.status, 201);
    }
    const item = await client.GET("/api/v1/eo/collections/{cid}/items/{iid}", {
      params: { path: { cid: "cbers4", iid: "scene1" } },
    });
    const bbox = item.bbox as number[];
    assert.equal(bbox.length, 4);
    assert.deepEqual(Object.keys(item.assets as object).sort(), ["B5", "B6", "B7", "B8"]);
    // STAC item search through the iterator.
    const found: string[] = [];
    for await (const f of client.paginate("/api/v1/eo/search", {
      params: { query: { bbox: bbox.join(","), limit: 1 } },
    })) {
      found.push((f as { id: string }).id);
    }
    assert.deepEqual(found, ["scene1"]);

    // A parcel in the middle of the scene, then NDVI summarised over it.
    const cx = (bbox[0]! + bbox[2]!) / 2;
    const cy = (bbox[1]! + bbox[3]!) / 2;
    const parcel = idOf(
      await client.POST("/api/v1/cadastre/parcels", {
        body: {
          type: "Feature",
          geometry: { type: "Polygon", coordinates: square(cx, cy, 0.01) },
          properties: { lot: "1", plan: eoParcelPlan, tenure: "freehold" },
        },
      }),
    );
    const computed = await client.request("post", "/api/v1/eo/compute/{index}", {
      params: { path: { index: "ndvi" } },
      body: { scene: "cbers4/scene1", zones: { collection: "parcels", filter: `plan = '${eoParcelPlan}'` } },
    });
    // Small areas are answered at once (200), large ones by a job (202).
    const result = (computed.status === 202 ? (await client.waitForJob(String(computed.data.job))).output : computed.data) as {
      statistics: { min: number; max: number; mean: number; count: number };
      zones: { features: { id: string; properties: Record<string, number> }[] };
    };
    const statistics = result.statistics;
    assert.ok(statistics.count > 0);
    assert.ok(statistics.min >= -1 && statistics.max <= 1);
    const zones = result.zones;
    assert.equal(zones.features.length, 1);
    const zone = zones.features[0]!;
    assert.equal(zone.id, parcel);
    assert.ok(zone.properties.count! > 0, "pixels counted in the parcel");
    assert.ok(zone.properties.mean! >= -1 && zone.properties.mean! <= 1);
    assert.ok(zone.properties.min! <= zone.properties.mean! && zone.properties.mean! <= zone.properties.max!);
  });

  test("a LAS file streamed up, classified, downloaded as COPC and by range", async () => {
    const uploaded = await client.POST("/api/v1/pointcloud/upload", {
      params: { query: { name: "survey" } },
      upload: createReadStream(LAS),
      contentType: "application/vnd.las",
    });
    assert.equal(uploaded.name, "survey");
    await client.waitForJob(String(uploaded.job.id));
    const ready = await client.GET("/api/v1/pointcloud/{point_cloud_id}", {
      params: { path: { point_cloud_id: uploaded.id } },
    });
    assert.equal(ready.status, "ready");
    assert.ok((ready.points ?? 0) > 1000);

    const classify = await client.POST("/api/v1/pointcloud/{point_cloud_id}/classify", {
      params: { path: { point_cloud_id: uploaded.id } },
      body: {},
    });
    const progress: number[] = [];
    await client.waitForJob(classify, { onProgress: (j) => progress.push(j.progress) });
    assert.equal(progress[progress.length - 1], 100);

    const path = { point_cloud_id: uploaded.id };
    const copc = await client.download("/api/v1/pointcloud/{point_cloud_id}/download", {
      params: { path, query: { format: "copc" } },
    });
    assert.equal(copc.status, 200);
    const bytes = await copc.bytes();
    assert.equal(Buffer.from(bytes.subarray(0, 4)).toString("latin1"), "LASF");
    assert.equal(copc.contentLength, bytes.length);
    // The COPC info VLR sits at byte 375 (user id "copc" at 377).
    assert.equal(Buffer.from(bytes.subarray(377, 381)).toString("latin1"), "copc");

    const signature = await client.download("/api/v1/pointcloud/{point_cloud_id}/download", {
      params: { path, query: { format: "copc" } },
      range: { start: 0, end: 3 },
    });
    assert.equal(signature.status, 206);
    assert.equal(Buffer.from(await signature.bytes()).toString("latin1"), "LASF");
    assert.deepEqual(signature.contentRange, { start: 0, end: 3, total: bytes.length });

    const middle = await client.download("/api/v1/pointcloud/{point_cloud_id}/download", {
      params: { path, query: { format: "copc" } },
      range: { start: 1000, end: 1999 },
    });
    assert.equal(middle.status, 206);
    assert.deepEqual(await middle.bytes(), bytes.subarray(1000, 2000));
    const tail = await client.download("/api/v1/pointcloud/{point_cloud_id}/download", {
      params: { path, query: { format: "copc" } },
      range: { start: bytes.length - 10 },
    });
    assert.deepEqual(await tail.bytes(), bytes.subarray(bytes.length - 10));
    // An ETag held already: 304, nothing sent.
    assert.ok(copc.etag);
    const unchanged = await client.download("/api/v1/pointcloud/{point_cloud_id}/download", {
      params: { path, query: { format: "copc" } },
      ifNoneMatch: copc.etag,
    });
    assert.equal(unchanged.notModified, true);

    // Every job of the account so far, two to a page.
    const kinds = new Map<string, string>();
    let jobPages = 0;
    for await (const page of client.pages("/api/v1/jobs", { params: { query: { limit: 2 } } })) {
      jobPages++;
      for (const j of page.items) kinds.set(j.id, j.kind);
    }
    assert.ok(kinds.size >= 4, `${kinds.size} jobs`);
    assert.equal(jobPages, Math.ceil(kinds.size / 2));
    assert.equal(kinds.get(classify.id), "pointcloud.classify");
    for (const kind of ["dem.process", "pointcloud.index", "pointcloud.classify"]) {
      assert.ok([...kinds.values()].includes(kind), `a ${kind} job is listed`);
    }
  });

  test("twin telemetry over the WebSocket, resumed with since", async () => {
    const twin = await client.POST("/api/v1/realtime/twins", {
      body: {
        name: "Old town",
        bbox: [151.19, -33.88, 151.21, -33.86],
        height_property: "height",
      },
    });
    await client.waitForJob(String(twin.job.id));
    const twinId = twin.id;
    await client.POST("/api/v1/realtime/twin/{twin_id}/sensors", {
      params: { path: { twin_id: twinId } },
      body: { id: "pump-3", name: "Pump 3 flow", unit: "l/s", type: "number" },
    });
    const post = (value: number) =>
      client.POST("/api/v1/realtime/twin/{twin_id}/sensors/{sensor_id}/readings", {
        params: { path: { twin_id: twinId, sensor_id: "pump-3" } },
        body: { value },
      });
    const nextReading = async (telemetry: TwinTelemetry): Promise<Reading> => {
      for (;;) {
        const message = await telemetry.read({ timeoutMs: 10_000 });
        assert.ok(message, "the telemetry ended early");
        if (isReading(message)) return message;
      }
    };

    const live = client.twinTelemetry(twinId);
    const hello = await live.ready;
    assert.equal(hello.type, "hello");
    assert.equal(hello.twin, twinId);
    await post(12.5);
    const first = await nextReading(live);
    assert.deepEqual([first.sensorId, first.value], ["pump-3", 12.5]);
    assert.equal(live.lastTs, first.ts);
    live.close();
    assert.equal(await live.read(), undefined, "closed");

    // Missed while away, then replayed by a new connection from the last reading.
    await post(12.7);
    await post(12.9);
    const resumed = client.twinTelemetry(twinId, { since: first.ts, reconnectDelayMs: 1500 });
    const replayed = [await nextReading(resumed), await nextReading(resumed)];
    assert.deepEqual(
      replayed.map((r) => r.value),
      [12.7, 12.9],
    );

    // A dropped connection: the helper connects again by itself with since = the last reading.
    resumed.socket!.close(4000, "dropped");
    await waitFor("the drop to be seen", 5000, () => (resumed.socket === undefined ? true : undefined));
    await post(13.1); // stored while no socket is open
    const afterDrop = await nextReading(resumed);
    assert.equal(afterDrop.value, 13.1);
    assert.equal(resumed.connections, 2);
    await post(13.3); // and live again
    assert.equal((await nextReading(resumed)).value, 13.3);
    // Nothing delivered twice across the resume.
    const extra: Reading[] = [];
    for (;;) {
      const message = await resumed.read({ timeoutMs: 700 }).catch(() => undefined);
      if (message === undefined) break;
      if (isReading(message)) extra.push(message);
    }
    assert.deepEqual(extra, []);
    resumed.close();

    const stored = (await client.GET("/api/v1/realtime/twin/{twin_id}/sensors/{sensor_id}/readings", {
      params: { path: { twin_id: twinId, sensor_id: "pump-3" }, query: { from: "2000-01-01T00:00:00Z" } },
    })) as { readings: { value: number }[] };
    assert.deepEqual(
      stored.readings.map((r) => r.value),
      [12.5, 12.7, 12.9, 13.1, 13.3],
    );
  });

  test("a webhook delivery verified with both signature schemes; tampering and old timestamps refused", async () => {
    const subscription = await client.POST("/api/v1/webhooks/subscriptions", {
      body: { url: receiverUrl, events: ["dns.record.*"], description: "tour" },
    });
    assert.match(subscription.secret, /^whsec_/);
    const arrived = new Promise<void>((r) => (deliveryArrived = r));
    const record = await client.POST("/v1/dns/zones/{zone_id}/records", {
      params: { path: { zone_id: zoneId } },
      body: { type: "TXT", name: "hook", content: "delivered" },
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      arrived,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no delivery within 15 s")), 15_000))),
    ]).finally(() => clearTimeout(timer));
    const delivery = deliveries.find((d) => d.headers["x-service-event"] === "dns.record.created");
    assert.ok(delivery, "a dns.record.created delivery");
    assert.ok(delivery.headers["webhook-signature"] && delivery.headers["x-service-signature"]);

    const event = await verifyWebhook({ secret: subscription.secret, body: delivery.body, headers: delivery.headers });
    assert.equal(event.event, "dns.record.created");
    assert.equal((event.record as { id: string }).id, record.id);
    for (const scheme of ["standard", "service"] as const) {
      assert.equal((await verifyWebhook({ secret: subscription.secret, body: delivery.body, headers: delivery.headers, scheme })).id, event.id);
    }

    const refused = async (reason: string, options: Partial<Parameters<typeof verifyWebhook>[0]>) => {
      for (const scheme of ["auto", "standard", "service"] as const) {
        await assert.rejects(
          verifyWebhook({ secret: subscription.secret, body: delivery.body, headers: delivery.headers, scheme, ...options }),
          (e: unknown) => e instanceof WebhookVerificationError && e.reason === reason,
          `${scheme}: ${reason}`,
        );
      }
    };
    const tampered = Buffer.from(delivery.body.toString("utf8").replace("delivered", "tampered!"));
    assert.notDeepEqual(tampered, delivery.body);
    await refused("invalid_signature", { body: tampered });
    await refused("invalid_signature", { secret: "whsec_" + Buffer.alloc(32, 7).toString("base64") });
    await refused("timestamp_too_old", { now: Date.now() + 10 * 60_000 });
    await refused("timestamp_too_new", { now: Date.now() - 10 * 60_000 });
    // A timestamp header changed after signing breaks the Standard Webhooks signature.
    const oldStamp = String(Number(delivery.headers["webhook-timestamp"]) - 3600);
    await assert.rejects(
      verifyWebhook({
        secret: subscription.secret,
        body: delivery.body,
        headers: { ...delivery.headers, "webhook-timestamp": oldStamp },
        scheme: "standard",
        now: Number(oldStamp) * 1000,
      }),
      (e: unknown) => e instanceof WebhookVerificationError && e.reason === "invalid_signature",
    );

    // The delivery as the API lists it, through the deliveries iterator.
    const dlvId = String(delivery.headers["x-service-delivery"]);
    const listed = await waitFor("the delivery to be recorded as succeeded", 10_000, async () => {
      for await (const d of client.paginate("/api/v1/webhooks/subscriptions/{subscription_id}/deliveries", {
        params: { path: { subscription_id: subscription.id }, query: { limit: 1 } },
      })) {
        if (d.id === dlvId && d.status === "succeeded") return d;
      }
      return undefined;
    });
    assert.equal(listed.event_id, event.id);
  });

  test("invalid input is a typed 422 with the field pointers", async () => {
    await assert.rejects(
      client.POST("/api/v1/account/api-keys", {
        body: { name: "ci", scopes: ["jobs:read", "dns:admin"] },
        requestId: "tour-invalid-scope",
      }),
      (e: unknown) => {
        assert.ok(e instanceof MeridianProblem);
        assert.equal(e.status, 422);
        assert.equal(e.code, "validation_failed");
        assert.deepEqual(e.pointers, ["/scopes/1"]);
        assert.equal(e.fieldError("/scopes/1")?.code, "invalid_scope");
        assert.equal(e.requestId, "tour-invalid-scope");
        assert.equal(e.headers.get("content-type"), "application/problem+json");
        return true;
      },
    );
    await assert.rejects(
      client.POST("/v1/dns/zones/{zone_id}/records", {
        params: { path: { zone_id: zoneId } },
        body: { type: "A", name: "bad", content: "not-an-address", ttl: 5 },
      }),
      (e: unknown) => {
        assert.ok(e instanceof MeridianProblem);
        assert.equal(e.status, 422);
        assert.deepEqual([...e.pointers].sort(), ["/content", "/ttl"]);
        assert.match(e.requestId ?? "", /^req_/);
        return true;
      },
    );
  });
});
