#!/usr/bin/env node
// A person's flows through the console, in headless Chromium, against a running server.
//
//   node flow.mjs --base URL --out DIR [--zone NAME] [--prefix /PATH] [--dem FILE.tif] [--chromium PATH]
//
// --base URL   where the server is, e.g. http://127.0.0.1:8080 (the console is at /console/).
// --out DIR    screenshots (sign-in.png, zones.png, zone.png) go here.
// --zone NAME  the zone the flow creates (default console.example).
// --eo DIR     the folder of the CBERS-4 test bands (cbers4-mux-057-094-20171121-band{5..8}.tif):
//              uploaded as a scene through the API, then searched, drawn and computed on the
//              earth-observation page (skipped without it).
// --pointcloud FILE  a LAS/LAZ file to upload and classify on the point-cloud page.
// --dem FILE   a GeoTIFF DEM to upload on the DEM page (the DEM flow is skipped without it).
// --prefix P   put the server behind a reverse proxy at P (a small proxy in this script, on an
//              ephemeral port, that strips P as nginx's `location /P/ { proxy_pass ...; }`
//              does) and run the flow at <proxy>/P/console/.
//
// The flows: create an account on the sign-in page and keep the key it shows; create a zone;
// add an A record and see it in the table; try an invalid record and read the API's message
// under its field; edit the record's TTL (an ETag-guarded PATCH); sign the zone and read its DS
// record; import a zone file; sign out and sign in again with the key; all by keyboard-reachable
// controls found by their labels and roles. axe-core (from $AXE_CORE_DIR) checks every page.
//
// playwright-core comes from $PLAYWRIGHT_CORE_DIR, both defaulting to
// $HOME/.cache/meridian-ci/npm/node_modules/{playwright-core,axe-core}, where .ci/run installs
// them. Prints one JSON line: {steps, key, zone, record, fieldError, ds, imported, axe, errors};
// exits 0 when the flows ran (the caller asserts), 2 when they could not.

import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { createRequire } from "node:module";

const NPM = path.join(process.env.HOME || "/root", ".cache/meridian-ci/npm/node_modules");
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const server = opt("--base");
const out = opt("--out");
const zoneName = opt("--zone", "console.example");
const prefix = opt("--prefix", "");
const dem = opt("--dem");
const eoDir = opt("--eo");
const cloud = opt("--pointcloud");
if (!server || !out) {
  process.stderr.write("usage: node flow.mjs --base URL --out DIR [--zone NAME] [--prefix /PATH] [--chromium PATH]\n");
  process.exit(2);
}

/** A reverse proxy that serves the server under `prefix` (the prefix taken off, as nginx does). */
async function proxy() {
  const upstream = new URL(server);
  const p = http.createServer((req, res) => {
    if (!req.url.startsWith(`${prefix}/`)) {
      res.writeHead(404).end();
      return;
    }
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url.slice(prefix.length), headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode, up.headers);
        up.pipe(res);
      },
    );
    forward.on("error", () => res.writeHead(502).end());
    req.pipe(forward);
  });
  // WebSocket upgrades pass through as well (nginx: proxy_http_version 1.1 and the Upgrade headers).
  p.on("upgrade", (req, socket, head) => {
    if (!req.url.startsWith(`${prefix}/`)) return socket.destroy();
    const up = net.connect(Number(upstream.port), upstream.hostname, () => {
      const lines = [`${req.method} ${req.url.slice(prefix.length)} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on("error", () => socket.destroy());
    socket.on("error", () => up.destroy());
  });
  await new Promise((resolve) => p.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${p.address().port}${prefix}`;
}
const base = `${prefix ? await proxy() : server.replace(/\/$/, "")}/console/`;
fs.mkdirSync(out, { recursive: true });
const require = createRequire(import.meta.url);
const { chromium } = require(process.env.PLAYWRIGHT_CORE_DIR || path.join(NPM, "playwright-core"));
const axeSource = fs.readFileSync(
  path.join(process.env.AXE_CORE_DIR || path.join(NPM, "axe-core"), "axe.min.js"),
  "utf8",
);

const report = { steps: [], axe: {}, errors: [], seconds: {} };
const started = Date.now();
// Each step's time since the start, so a slow run shows where the time went.
const step = (s) => {
  report.steps.push(s);
  report.seconds[s] = Math.round((Date.now() - started) / 100) / 10;
};

/** Serious and critical axe-core violations of the page as it is now. */
async function axe(page, name) {
  // Evaluated through the DevTools protocol: the console's CSP (no inline scripts) stays on.
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
  });
  report.axe[name] = found;
}

// A whole flow takes under a minute on an idle machine; in CI it shares two cores with the rest
// of the suite (three-node clusters, a database restarted), where one flow has taken over 180 s.
// The watchdog is for a flow that hangs, not for a slow one: it says how far the flow got.
const WATCHDOG_S = 600;
const watchdog = setTimeout(() => {
  process.stderr.write(`flow.mjs: no result after ${WATCHDOG_S} s; steps done: ${JSON.stringify(report.steps)}; errors: ${JSON.stringify(report.errors)}\n`);
  process.exit(2);
}, WATCHDOG_S * 1000);

let browser;
try {
  browser = await chromium.launch({
    executablePath: opt("--chromium", process.env.CHROMIUM || "/usr/bin/chromium"),
    headless: true,
    // WebGL in software, for the map pages.
    args: ["--use-angle=swiftshader", "--use-gl=angle", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist", "--no-sandbox", "--disable-dev-shm-usage"],
  });
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on("pageerror", (e) => report.errors.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !/status of 4\d\d/.test(m.text())) report.errors.push(`console: ${m.text()}`);
  });
  page.on("dialog", (d) => d.accept());

  // Sign up.
  await page.goto(base, { waitUntil: "load" });
  await page.getByRole("heading", { name: "Create an account" }).waitFor();
  await axe(page, "sign-in");
  await page.screenshot({ path: path.join(out, "sign-in.png") });
  await page.getByLabel("Name").fill("Console user");
  await page.getByLabel("Email").fill(`console-${Date.now()}@example.com`);
  await page.getByRole("button", { name: "Create account" }).click();
  report.key = (await page.getByTestId("new-key").textContent()).trim();
  step("signed up");
  await page.getByRole("link", { name: "Continue to the console" }).click();

  // A zone.
  await page.getByRole("heading", { name: "DNS zones" }).waitFor();
  await page.getByLabel("Zone name").fill(zoneName);
  await page.getByRole("button", { name: "Create zone" }).click();
  await page.getByRole("heading", { name: zoneName }).waitFor();
  report.zone = page.url().split("#/dns/")[1];
  step("zone created");

  // A record, then one the API refuses: its message shows under the field.
  await page.getByLabel("Type").selectOption("A");
  const add = page.getByRole("form", { name: "New record" });
  await add.getByLabel("Name").fill("www");
  await add.getByLabel("Content").fill("192.0.2.10");
  await page.getByRole("button", { name: "Add record" }).click();
  const row = page.getByRole("region", { name: "Records" }).locator("tr", { hasText: "192.0.2.10" });
  await row.waitFor();
  report.record = await row.getAttribute("data-record");
  step("record added");
  await add.getByLabel("Name").fill("bad");
  await add.getByLabel("Content").fill("not-an-address");
  await page.getByRole("button", { name: "Add record" }).click();
  const err = add.locator(".field-error").filter({ hasText: /\S/ }).first();
  await err.waitFor();
  report.fieldError = (await err.textContent()).trim();
  step("invalid record refused");

  // Edit the TTL (the console sends If-Match with the record's ETag).
  await page.getByRole("button", { name: `Edit A www.${zoneName}` }).click();
  const edit = page.getByRole("form", { name: `Edit A www.${zoneName}` });
  await edit.getByLabel("TTL").fill("600");
  await edit.getByRole("button", { name: "Save" }).click();
  await page.getByRole("region", { name: "Records" }).locator("tr", { hasText: "192.0.2.10" }).locator("td", { hasText: /^600$/ }).waitFor();
  step("record edited");

  // DNSSEC: sign, then the DS record to copy.
  await page.getByRole("button", { name: "Sign the zone" }).click();
  const ds = page.locator(".ds code").first();
  await ds.waitFor();
  report.ds = (await ds.textContent()).trim();
  step("zone signed");

  // Import a zone file.
  await page
    .getByLabel("Zone file to import")
    .fill(`$ORIGIN ${zoneName}.\n$TTL 1h\nmail IN A 192.0.2.25\n@ IN MX 10 mail\n@ IN SOA a. b. 1 2 3 4 5\n`);
  await page.getByRole("button", { name: "Import" }).click();
  const imported = page.getByText(/added, \d+ skipped/);
  await imported.waitFor();
  report.imported = (await imported.textContent()).trim();
  await page.getByRole("region", { name: "Records" }).locator("tr", { hasText: "192.0.2.25" }).waitFor();
  step("zone file imported");
  // The zone's history: every change so far, newest first (the import's record on top).
  await page.locator("[data-testid=changes] tbody tr", { hasText: "192.0.2.25" }).waitFor();
  report.changes = await page.locator("[data-testid=changes] tbody tr").evaluateAll((rows) => rows.map((r) => r.dataset.event));
  step("zone history");
  await axe(page, "zone");
  await page.screenshot({ path: path.join(out, "zone.png"), fullPage: true });

  // Back to the list, sign out, and in again with the key.
  await page.getByRole("link", { name: "All zones" }).click();
  await page.getByRole("link", { name: zoneName }).waitFor();
  await axe(page, "zones");
  await page.screenshot({ path: path.join(out, "zones.png") });
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API key").fill(report.key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("link", { name: zoneName }).waitFor();
  step("signed in again");

  // Parcels: one made through the API, one drawn on the map; the map is checked in pixels by the
  // caller (parcels.png), the list and the picked attributes here.
  const seeded = await fetch(new URL("../api/v1/cadastre/parcels", base), {
    method: "POST",
    headers: { Authorization: `Bearer ${report.key}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      type: "Feature",
      geometry: { type: "Polygon", coordinates: [[[151.1, -33.9], [151.1004, -33.9], [151.1004, -33.8997], [151.1, -33.8997], [151.1, -33.9]]] },
      properties: { lot: "1", plan: "SP1", tenure: "freehold" },
    }),
  });
  if (seeded.status !== 201) throw new Error(`seeding a parcel: HTTP ${seeded.status}`);
  await page.getByRole("link", { name: "Parcels" }).click();
  await page.getByText("1 features in view.").waitFor({ timeout: 60000 });
  step("parcels map");
  const map = page.getByTestId("map");
  const box = await map.boundingBox();
  await page.getByRole("button", { name: "Draw a parcel" }).click();
  for (const [x, y] of [[40, 40], [160, 40], [160, 120], [40, 120]]) {
    await page.mouse.click(box.x + x, box.y + y);
  }
  const draw = page.getByRole("form", { name: "New parcel" });
  await draw.getByLabel("Lot").fill("2");
  await draw.getByLabel("Plan").fill("SP2");
  await draw.getByRole("button", { name: "Save parcel" }).click();
  await page.getByText("2 features in view.").waitFor();
  report.drawn = (await page.getByText(/^Parcel .* saved\.$/).textContent()).trim();
  report.picked = (await page.locator("table.props").first().textContent()).replace(/\s+/g, " ").trim();
  step("parcel drawn");
  // Its tenure changed (ETag-guarded), then its history: registered, updated.
  await page.getByRole("form", { name: "Change the parcel" }).getByLabel("Tenure").fill("leasehold");
  await page.getByRole("button", { name: "Save change" }).click();
  await page.getByTestId("history").locator("tbody tr", { hasText: "updated" }).waitFor();
  report.history = await page.getByTestId("history").locator("tbody tr td:first-child").allTextContents();
  step("parcel changed, history shown");
  // Its shape: the bottom-right corner dragged out on the map and saved with the parcel's ETag.
  await page.getByRole("button", { name: "Edit shape" }).click();
  await page.getByTestId("shape-status").filter({ hasText: "Drag" }).waitFor();
  await page.waitForTimeout(300);
  // The page scrolled to the button: the map's place is read again.
  await map.scrollIntoViewIfNeeded();
  const at = await map.boundingBox();
  await page.mouse.move(at.x + 160, at.y + 120);
  await page.mouse.down();
  await page.mouse.move(at.x + 200, at.y + 150, { steps: 8 });
  await page.mouse.up();
  await page.getByRole("button", { name: "Save shape" }).click();
  await page.getByTestId("shape-status").filter({ hasText: "Shape saved" }).waitFor();
  await page.getByTestId("history").locator("tbody tr").nth(2).waitFor();
  report.shapeHistory = await page.getByTestId("history").locator("tbody tr td:first-child").allTextContents();
  step("parcel shape edited");
  await page.getByLabel("CQL2 filter").fill("tenure = ");
  await page.getByRole("button", { name: "Apply" }).click();
  const cql = page.locator("form[aria-label=Filter] .field-error").filter({ hasText: /\S/ }).first();
  await cql.waitFor();
  report.cqlError = (await cql.textContent()).trim();
  await page.getByLabel("CQL2 filter").fill("plan = 'SP2'");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.getByText("1 features in view.").waitFor();
  step("cql2 filter");
  await page.getByLabel("CQL2 filter").fill("");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.getByText("2 features in view.").waitFor();
  await page.waitForTimeout(500);
  await map.screenshot({ path: path.join(out, "parcels.png") });
  report.mapBox = { width: Math.round(box.width), height: Math.round(box.height) };
  await axe(page, "parcels");
  await page.screenshot({ path: path.join(out, "parcels-page.png"), fullPage: true });

  // A collection uploaded from a GeoJSON file, with its progress, then shown on the map.
  const trees = path.join(out, "trees.geojson");
  fs.writeFileSync(trees, JSON.stringify({
    type: "FeatureCollection",
    features: [[151.2, -33.86], [151.2005, -33.8604], [151.201, -33.8601]].map((c, i) => ({ type: "Feature", properties: { name: `Tree ${i + 1}`, species: "Ficus" }, geometry: { type: "Point", coordinates: c } })),
  }));
  const upForm = page.getByRole("form", { name: "Upload a collection" });
  await upForm.getByLabel("GeoJSON or FlatGeobuf file").setInputFiles(trees);
  await upForm.getByLabel("Collection id").fill("trees");
  await upForm.getByLabel("Title").fill("Street trees");
  await upForm.getByRole("button", { name: "Upload collection" }).click();
  await page.getByTestId("upload-status").filter({ hasText: "Collection trees: 3 features." }).waitFor();
  await page.getByText("3 features in view.").waitFor();
  report.uploadProgress = await upForm.locator("progress").evaluate((p) => p.value);
  step("collection uploaded");

  // DEM: upload a GeoTIFF, follow the job, see its hillshade on the map (dem.png, checked in
  // pixels by the caller).
  if (dem) {
    await page.getByRole("link", { name: "DEM" }).click();
    await page.getByRole("heading", { name: "DEM" }).waitFor();
    await page.getByLabel("GeoTIFF DEM").setInputFiles(dem);
    await page.getByRole("button", { name: "Upload and process" }).click();
    await page.getByTestId("job-status").filter({ hasText: /succeeded/ }).waitFor({ timeout: 60000 });
    await page.locator("[data-testid=job-status][data-drawn=true]").waitFor({ timeout: 60000 });
    await page.waitForTimeout(300);
    report.demStatus = (await page.getByTestId("job-status").textContent()).trim();
    report.legend = (await page.locator(".legend").textContent()).trim();
    await page.getByTestId("map").screenshot({ path: path.join(out, "dem.png") });
    await axe(page, "dem");
    await page.screenshot({ path: path.join(out, "dem-page.png"), fullPage: true });
    step("dem hillshade");
    // The upload is a dataset: processed again (slope only) without a new upload.
    const firstJob = page.url().split("#/dem/")[1];
    await page.getByRole("checkbox", { name: "hillshade" }).uncheck();
    await page.getByRole("checkbox", { name: "color-relief" }).uncheck();
    await page.getByRole("checkbox", { name: "slope" }).check();
    await page.getByTestId("datasets").getByRole("button", { name: /^Process again/ }).first().click();
    await page.waitForURL((u) => u.hash.startsWith("#/dem/") && !u.hash.endsWith(firstJob));
    await page.getByTestId("job-status").filter({ hasText: /succeeded/ }).waitFor({ timeout: 60000 });
    report.demAgain = page.url().split("#/dem/")[1];
    // The legend is drawn once the finished job's layers are read, just after its status shows.
    await page.locator(".legend").filter({ hasText: /\S/ }).first().waitFor({ timeout: 30000 });
    report.demAgainLegend = (await page.locator(".legend").textContent()).trim();
    step("dem dataset processed again");
  }

  // Earth observation: a scene and a parcel inside it made through the API, then the page's
  // search, the scene's NDVI tiles on the map (eo.png, checked by the caller) and NDVI with
  // parcel zones.
  if (eoDir) {
    const api = (p) => new URL(`../api/v1/${p}`, base);
    const auth = { Authorization: `Bearer ${report.key}` };
    let r = await fetch(api("eo/collections"), {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ type: "Collection", id: "cbers4", description: "CBERS-4 MUX", license: "CC-BY-SA-3.0",
        extent: { spatial: { bbox: [[-180, -90, 180, 90]] }, temporal: { interval: [["2014-12-07T00:00:00Z", null]] } } }),
    });
    if (r.status !== 201) throw new Error(`collection: HTTP ${r.status}`);
    const band = (n, common) => ({ "eo:bands": [{ name: `B${n}`, common_name: common }] });
    const form = new FormData();
    form.append("item", JSON.stringify({ id: "CBERS_4_MUX_20171121_057_094", datetime: "2017-11-21T06:51:03Z",
      properties: { platform: "CBERS-4", "eo:cloud_cover": 3.5 },
      assets: { B5: band(5, "blue"), B6: band(6, "green"), B7: band(7, "red"), B8: band(8, "nir") } }));
    for (const n of [5, 6, 7, 8]) {
      const bytes = fs.readFileSync(path.join(eoDir, `cbers4-mux-057-094-20171121-band${n}.tif`));
      form.append(`B${n}`, new Blob([bytes], { type: "image/tiff" }), `band${n}.tif`);
    }
    r = await fetch(api("eo/collections/cbers4/items"), { method: "POST", headers: auth, body: form });
    if (r.status !== 201 && r.status !== 202) throw new Error(`scene: HTTP ${r.status} ${await r.text()}`);
    const item = r.status === 201 ? await r.json() : null;
    if (!item) {
      const job = (await r.json()).job;
      for (let i = 0; i < 240; i++) {
        const j = await (await fetch(api(`jobs/${job}`), { headers: auth })).json();
        if (j.status === "succeeded") break;
        if (j.status === "failed") throw new Error(`ingest failed: ${JSON.stringify(j)}`);
        await new Promise((res) => setTimeout(res, 250));
      }
    }
    const scene = await (await fetch(api("eo/scenes/cbers4%2FCBERS_4_MUX_20171121_057_094"), { headers: auth })).json();
    const [w, s, e, n] = scene.bbox;
    const [cx, cy, d] = [(w + e) / 2, (s + n) / 2, Math.min(e - w, n - s) / 8];
    r = await fetch(api("cadastre/parcels"), {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ type: "Feature",
        geometry: { type: "Polygon", coordinates: [[[cx - d, cy - d], [cx + d, cy - d], [cx + d, cy + d], [cx - d, cy + d], [cx - d, cy - d]]] },
        properties: { lot: "9", plan: "EO1", tenure: "freehold" } }),
    });
    if (r.status !== 201) throw new Error(`zone parcel: HTTP ${r.status}`);
    report.zoneParcel = (await r.json()).id;

    await page.getByRole("link", { name: "Earth observation" }).click();
    await page.getByTestId("eo-status").filter({ hasText: /1 scenes/ }).waitFor({ timeout: 60000 });
    const tile = page.waitForResponse((r) => r.url().includes("/tiles/") && r.url().includes("index=ndvi") && r.status() === 200, { timeout: 60000 });
    await page.getByRole("button", { name: "cbers4/CBERS_4_MUX_20171121_057_094" }).click();
    await page.locator("[data-testid=eo-result][data-layer=ndvi]").waitFor({ state: "attached", timeout: 60000 });
    await tile;
    await page.waitForTimeout(1500);
    await page.getByTestId("map").screenshot({ path: path.join(out, "eo.png") });
    await page.getByRole("button", { name: "Compute with parcel zones" }).click();
    const zoneRow = page.getByTestId("zones").locator("tbody tr", { hasText: report.zoneParcel });
    await zoneRow.waitFor({ timeout: 60000 });
    report.zoneRow = (await zoneRow.locator("td").allTextContents()).map((t) => t.trim());
    await axe(page, "eo");
    await page.screenshot({ path: path.join(out, "eo-page.png"), fullPage: true });
    step("eo ndvi with zones");
  }

  // Point clouds: upload with progress, indexing followed, classification followed, the class
  // chart (compared by the caller with the API's histogram).
  if (cloud) {
    await page.getByRole("link", { name: "Point clouds" }).click();
    await page.getByLabel("LAS or LAZ file").setInputFiles(cloud);
    await page.getByRole("button", { name: "Upload" }).click();
    await page.getByRole("button", { name: "Classify" }).waitFor({ timeout: 60000 });
    report.cloud = page.url().split("#/pointcloud/")[1];
    await page.getByRole("button", { name: "Classify" }).click();
    await page.getByTestId("classify-status").filter({ hasText: /succeeded/ }).waitFor({ timeout: 120000 });
    await page.getByText("Classes after classification").waitFor();
    report.classes = {};
    for (const row of await page.getByTestId("class-chart").locator("tbody tr").all()) {
      report.classes[await row.getAttribute("data-class")] = Number(await row.locator("td").first().textContent());
    }
    await axe(page, "pointcloud");
    await page.screenshot({ path: path.join(out, "pointcloud.png"), fullPage: true });
    step("point cloud classified");

    // The 3D view: the classified COPC read by range requests, node by node, drawn by class.
    const copcRequests = [];
    const onRequest = (r) => {
      if (r.url().includes("format=copc")) copcRequests.push(r.headers()["range"] || "");
    };
    page.on("request", onRequest);
    await page.getByRole("button", { name: "Show in 3D" }).click();
    await page.waitForFunction(() => {
      const s = document.querySelector("[data-testid=cloud-3d-status]");
      return s && (s.dataset.error || (Number(s.dataset.points) > 0 && !/loading/.test(s.textContent)));
    }, null, { timeout: 60000 });
    await page.waitForTimeout(300);
    page.off("request", onRequest);
    const status3d = page.getByTestId("cloud-3d-status");
    report.cloud3d = {
      points: Number(await status3d.getAttribute("data-points")),
      total: Number(await status3d.getAttribute("data-total")),
      nodes: Number(await status3d.getAttribute("data-nodes")),
      error: await status3d.getAttribute("data-error"),
      requests: copcRequests.length,
      withoutRange: copcRequests.filter((r) => !r.startsWith("bytes=")).length,
      // Pixels of each class colour on the canvas.
      pixels: await page.getByTestId("cloud-3d").evaluate((canvas) => {
        const palette = { 1: [0xb0, 0xb7, 0xbf], 2: [0xa0, 0x70, 0x3c], 3: [0x9c, 0xcc, 0x65], 4: [0x43, 0xa0, 0x47], 5: [0x1b, 0x5e, 0x20], 6: [0xd9, 0x48, 0x0f], 7: [0x77, 0x77, 0x77], 9: [0x1e, 0x88, 0xe5], 17: [0x8e, 0x24, 0xaa], 18: [0x44, 0x44, 0x44] };
        const c2 = document.createElement("canvas");
        c2.width = canvas.width;
        c2.height = canvas.height;
        const g = c2.getContext("2d");
        g.drawImage(canvas, 0, 0);
        const data = g.getImageData(0, 0, c2.width, c2.height).data;
        const counts = {};
        for (let i = 0; i < data.length; i += 4) {
          for (const [code, [r, gg, b]] of Object.entries(palette)) {
            if (Math.abs(data[i] - r) <= 3 && Math.abs(data[i + 1] - gg) <= 3 && Math.abs(data[i + 2] - b) <= 3) {
              counts[code] = (counts[code] || 0) + 1;
              break;
            }
          }
        }
        return counts;
      }),
    };
    await page.screenshot({ path: path.join(out, "pointcloud-3d.png"), fullPage: true });
    step("point cloud in 3d");
  }

  // A twin (built through the API over a parcel with a sensor): pick the building on the map,
  // see a reading arrive live, pause the clock and travel in time.
  {
    const api = (p) => new URL(`../api/v1/${p}`, base);
    const auth = { Authorization: `Bearer ${report.key}`, "Content-Type": "application/json" };
    const post = async (p, body) => {
      const r = await fetch(api(p), { method: "POST", headers: auth, body: JSON.stringify(body) });
      if (r.status >= 300) throw new Error(`POST ${p}: HTTP ${r.status} ${await r.text()}`);
      return r.json();
    };
    const parcel = await post("cadastre/parcels", { type: "Feature",
      geometry: { type: "Polygon", coordinates: [[[7.1, 45.92], [7.1005, 45.92], [7.1005, 45.9205], [7.1, 45.9205], [7.1, 45.92]]] },
      properties: { lot: "3", plan: "DP7", tenure: "freehold", height: 12 } });
    const twin = await post("realtime/twins", { name: "Old town", bbox: [7.0996, 45.9196, 7.1009, 45.9209], collection: "parcels",
      filter: "plan = 'DP7'", height_property: "height", default_height: 9 });
    for (let i = 0; i < 240; i++) {
      const t = await (await fetch(api(`realtime/twins/${twin.id}`), { headers: auth })).json();
      if (t.status === "ready") break;
      if (t.status === "failed") throw new Error(`twin build failed: ${JSON.stringify(t)}`);
      await new Promise((res) => setTimeout(res, 250));
    }
    await post(`realtime/twin/${twin.id}/sensors`, { id: "pump-3", name: "Pump 3 flow", unit: "l/s", type: "number", feature_id: parcel.id });
    report.twin = twin.id;
    report.twinParcel = parcel.id;

    await page.getByRole("link", { name: "Twins" }).click();
    await page.getByRole("link", { name: "Old town" }).click();
    await page.locator("[data-testid=live][data-connected=true]").waitFor({ timeout: 30000 });
    // The globe: the tileset streamed, the building picked by clicking its roof.
    await page.locator("[data-testid=globe][data-contents]").waitFor({ timeout: 60000 });
    // The camera settles (the controls ease it after the first frames): the roof's place on the
    // screen is read until it stays put.
    let roof = null;
    for (let i = 0; i < 40; i++) {
      await page.waitForTimeout(250);
      const now = await page.getByTestId("globe").evaluate((c) => c.project(7.10025, 45.92025, 11));
      if (roof && Math.abs(now.x - roof.x) < 0.5 && Math.abs(now.y - roof.y) < 0.5) break;
      roof = now;
    }
    report.globeRoof = roof;
    await page.getByTestId("globe").click({ position: { x: roof.x, y: roof.y } });
    await page.waitForTimeout(300);
    report.globeMet = await page.getByTestId("globe").getAttribute("data-met");
    await page.getByTestId("picked").getByRole("heading", { name: `Building ${parcel.id}` }).waitFor({ timeout: 10000 });
    report.globePicked = await page.getByTestId("globe").getAttribute("data-picked");
    // The picked building is drawn in the accent colour: the roof's pixel, read from the canvas.
    await page.waitForTimeout(300);
    report.globeRoofColour = await page.getByTestId("globe").evaluate((c, at) => {
      const copy = document.createElement("canvas");
      copy.width = c.width;
      copy.height = c.height;
      const g = copy.getContext("2d");
      g.drawImage(c, 0, 0);
      const scale = c.width / c.clientWidth;
      return Array.from(g.getImageData(Math.round(at.x * scale), Math.round(at.y * scale), 1, 1).data.slice(0, 3));
    }, roof);
    await axe(page, "twin-globe");
    await page.screenshot({ path: path.join(out, "twin-globe.png"), fullPage: true });
    step("twin building picked on the globe");
    await page.getByRole("button", { name: "Map (2D)" }).click();
    await page.getByTestId("picked").getByRole("heading").evaluate((el) => (el.textContent = ""));
    const mapBox = await page.getByTestId("map").boundingBox();
    await page.waitForTimeout(500);
    await page.mouse.click(mapBox.x + mapBox.width / 2, mapBox.y + mapBox.height / 2);
    await page.getByTestId("picked").getByRole("heading", { name: `Building ${parcel.id}` }).waitFor();
    await post(`realtime/twin/${twin.id}/sensors/pump-3/readings`, { value: 12.5 });
    await page.locator("[data-testid=picked] tr[data-sensor=pump-3] td.value", { hasText: "12.5" }).waitFor({ timeout: 10000 });
    report.liveText = (await page.getByTestId("live").textContent()).trim();
    step("twin building picked, reading live");
    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByTestId("clock").filter({ hasText: "paused" }).waitFor();
    await page.getByLabel("Time travel to").fill("2024-06-01T09:00:00");
    await page.getByRole("button", { name: "Go" }).click();
    await page.getByTestId("clock").filter({ hasText: "2024-06-01" }).waitFor();
    report.clockText = (await page.getByTestId("clock").textContent()).trim();
    await axe(page, "twin");
    await page.screenshot({ path: path.join(out, "twin.png"), fullPage: true });
    step("twin clock");
  }

  // Webhooks: a subscription (its secret shown once), a test event, the delivery log with its
  // attempt (the endpoint's host does not resolve here: the attempt's error is the answer).
  await page.getByRole("link", { name: "Webhooks" }).click();
  await page.getByLabel("Endpoint URL").fill("https://hooks.example.com/meridian");
  await page.getByLabel("Events").fill("dns.*");
  await page.getByRole("button", { name: "Subscribe" }).click();
  report.webhookSecret = (await page.getByTestId("secret").textContent()).trim();
  await page.getByRole("link", { name: "Open the subscription" }).click();
  await page.getByRole("button", { name: "Send a test event" }).click();
  const delivery = page.locator("tr[data-delivery]").first();
  await delivery.waitFor();
  report.delivery = await delivery.getAttribute("data-delivery");
  for (let i = 0; i < 40; i++) {
    await page.getByRole("button", { name: "Refresh the log" }).click();
    await page.waitForTimeout(250);
    const attempts = await page.locator("tr[data-delivery] td").nth(2).textContent();
    if (Number(attempts) >= 1) break;
  }
  await page.getByRole("button", { name: `Attempts of ${report.delivery}` }).click();
  await page.getByRole("heading", { name: `Attempts of ${report.delivery}` }).waitFor();
  report.attemptShown = (await page.locator("section table tbody tr").first().textContent()).trim();
  await page.getByRole("button", { name: "Rotate the secret" }).click();
  report.rotatedSecret = (await page.getByTestId("secret").textContent()).trim();
  await axe(page, "webhooks");
  step("webhooks");

  // API keys: one with a scope and an expiry (shown once), then revoked.
  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByLabel("Key name").fill("dns-bot");
  await page.getByLabel("Scopes").fill("dns:read");
  await page.getByLabel("Expires in (days)").fill("30");
  await page.getByRole("button", { name: "Create key" }).click();
  report.scopedKey = (await page.getByTestId("secret").textContent()).trim();
  await page.locator("tr", { hasText: "dns-bot" }).waitFor();
  await axe(page, "keys");
  await page.screenshot({ path: path.join(out, "keys.png"), fullPage: true });
  await page.getByRole("button", { name: "Revoke dns-bot" }).click();
  await page.locator("tr", { hasText: "dns-bot" }).waitFor({ state: "detached" });
  step("api keys");

  // Every control is reachable by keyboard: from the top of a fresh page, tabbing visits the
  // sign-out button.
  await page.goto(base, { waitUntil: "load" });
  await page.getByRole("link", { name: zoneName }).waitFor();
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate(() => document.activeElement?.textContent === "Sign out");
  }
  if (reached) step("keyboard reaches sign out");
} catch (e) {
  report.errors.push(`flow stopped: ${e.message.split("\n")[0]}`);
  const page = browser && browser.contexts()[0]?.pages()[0];
  if (page) {
    report.failedAt = page.url();
    report.failedText = (await page.locator("main").innerText().catch(() => "")).slice(0, 2000);
    await page.screenshot({ path: path.join(out, "failure.png"), fullPage: true }).catch(() => {});
  }
}
clearTimeout(watchdog);
if (browser) await browser.close().catch(() => {});
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
