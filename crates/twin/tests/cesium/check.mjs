#!/usr/bin/env node
// Loads a 3D Tiles tileset in CesiumJS, in headless Chromium, and reports what the browser saw.
//
//   node check.mjs --tileset URL --out SCREENSHOT.png
//                  [--serve-dir DIR [--serve-prefix /local/] [--serve-token TOKEN]]
//                  [--timeout MS] [--width PX] [--height PX] [--chromium PATH]
//                  [--chromium-arg FLAG]...
//
// --tileset URL    the tileset.json, absolute (http://host/api/v1/realtime/twin/ID/tileset?access_token=T),
//                  or relative to the script's own server (for example /local/tileset.json with
//                  --serve-dir). Query parameters such as access_token are kept: CesiumJS carries them
//                  on to every content request.
// --out FILE       where the PNG screenshot of the page goes.
// --serve-dir DIR  also serve DIR under --serve-prefix (default /local/), so that a tileset on disk
//                  can be checked without a tile server. A request for /local/NAME with no such file
//                  gets NAME.json when that exists (/local/tileset answers like the server's route).
// --serve-token T  the served directory answers 401 to a request without access_token=T, as the
//                  server does; the report counts the served requests and the ones without it.
// --timeout MS     how long the page waits for the tiles (default 60000); the whole run gets twice that.
// --width/--height the browser's viewport (default 800 × 600).
// --chromium PATH  the browser (default $CHROMIUM or /usr/bin/chromium).
// --chromium-arg F an extra browser flag (repeatable), after the software-WebGL ones below.
//
// A small static server on 127.0.0.1 (an ephemeral port) serves index.html (beside this script),
// the CesiumJS build from $CESIUM_DIR/Build/Cesium/ under /cesium/, and --serve-dir. Chromium is
// driven by playwright-core from $PLAYWRIGHT_CORE_DIR. Both default to
// $HOME/.cache/meridian-ci/npm/node_modules/{cesium,playwright-core}, where .ci/run installs them.
//
// Prints one JSON line on stdout:
//   {tilesLoaded, tilesetVersion, featuresPicked, properties, propertyIds, contentsLoaded,
//    errors, consoleErrors, served: {requests, withoutToken}, cesiumVersion, renderer, ...}
// `featuresPicked` is the `id` of the Cesium3DTileFeature at the canvas centre (null when none);
// `errors` holds the page's errors (tile failures, render errors, exceptions) and every HTTP
// answer >= 400 or failed request. Exits 0 whenever the check ran, whatever it found (the caller
// asserts); 2 when it could not run (bad arguments, no browser, no CesiumJS, the page never
// reported).

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NPM = path.join(os.homedir(), ".cache/meridian-ci/npm/node_modules");

// Software WebGL in headless Chromium: ANGLE on SwiftShader (see /work notes and docs/twin.md).
const WEBGL_ARGS = [
  "--use-angle=swiftshader",
  "--use-gl=angle",
  "--enable-unsafe-swiftshader",
  "--ignore-gpu-blocklist",
  "--no-sandbox",
  "--disable-dev-shm-usage",
];

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".glb": "model/gltf-binary",
  ".gltf": "model/gltf+json",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".svg": "image/svg+xml",
  ".xml": "application/xml",
  ".wasm": "application/wasm",
  ".ktx2": "image/ktx2",
};

function usage(message) {
  process.stderr.write(`check.mjs: ${message}\nusage: node check.mjs --tileset URL --out FILE.png [--serve-dir DIR] [--serve-prefix /local/] [--serve-token T] [--timeout MS]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { servePrefix: "/local/", timeout: 60000, width: 800, height: 600, chromiumArgs: [] };
  const names = {
    "--tileset": "tileset", "--out": "out", "--serve-dir": "serveDir", "--serve-prefix": "servePrefix",
    "--serve-token": "serveToken", "--timeout": "timeout", "--width": "width", "--height": "height",
    "--chromium": "chromium",
  };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (i + 1 >= argv.length) usage(`${a} needs a value`);
    if (a === "--chromium-arg") opts.chromiumArgs.push(argv[++i]);
    else if (names[a]) opts[names[a]] = argv[++i];
    else usage(`unknown argument ${a}`);
  }
  if (!opts.tileset) usage("--tileset is required");
  if (!opts.out) usage("--out is required");
  for (const k of ["timeout", "width", "height"]) {
    opts[k] = Number(opts[k]);
    if (!Number.isFinite(opts[k]) || opts[k] <= 0) usage(`--${k} must be a positive number`);
  }
  if (!opts.servePrefix.startsWith("/")) opts.servePrefix = `/${opts.servePrefix}`;
  if (!opts.servePrefix.endsWith("/")) opts.servePrefix += "/";
  return opts;
}

/// The file under `root` that `rel` names, or null when it would leave `root`.
function inside(root, rel) {
  const file = path.resolve(root, `.${path.posix.normalize(`/${rel}`)}`);
  return file === root || file.startsWith(root + path.sep) ? file : null;
}

function startServer(opts, cesiumBuild, served) {
  const serveDir = opts.serveDir ? path.resolve(opts.serveDir) : null;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    const headers = { "Access-Control-Allow-Origin": "*", "Cache-Control": "no-store" };
    const send = (status, body, type = "text/plain; charset=utf-8") => {
      res.writeHead(status, { ...headers, "Content-Type": type });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    let file = null;
    let p;
    try {
      p = decodeURIComponent(url.pathname);
    } catch {
      return send(400, "bad path");
    }
    if (p === "/" || p === "/index.html") {
      file = path.join(HERE, "index.html");
    } else if (p === "/favicon.ico") {
      return send(204, "");
    } else if (p.startsWith("/cesium/")) {
      file = inside(cesiumBuild, p.slice("/cesium/".length));
    } else if (serveDir && p.startsWith(opts.servePrefix)) {
      served.requests += 1;
      if (opts.serveToken !== undefined && url.searchParams.get("access_token") !== opts.serveToken) {
        served.withoutToken.push(p);
        return send(401, "access_token missing or wrong");
      }
      file = inside(serveDir, p.slice(opts.servePrefix.length));
      if (file && !fs.existsSync(file) && fs.existsSync(`${file}.json`)) file = `${file}.json`;
    }
    if (!file) return send(404, "not found");
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) return send(404, "not found");
      res.writeHead(200, {
        ...headers,
        "Content-Type": MIME[path.extname(file).toLowerCase()] || (file.endsWith(".json") ? MIME[".json"] : "application/octet-stream"),
        "Content-Length": st.size,
      });
      if (req.method === "HEAD") return res.end();
      fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

function loadPlaywright() {
  const dir = process.env.PLAYWRIGHT_CORE_DIR || path.join(NPM, "playwright-core");
  try {
    return createRequire(import.meta.url)(dir);
  } catch (e) {
    usage(`playwright-core not found in ${dir} (set PLAYWRIGHT_CORE_DIR): ${e.message}`);
  }
  return null;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const cesiumDir = process.env.CESIUM_DIR || path.join(NPM, "cesium");
  const cesiumBuild = path.resolve(cesiumDir, "Build/Cesium");
  if (!fs.existsSync(path.join(cesiumBuild, "Cesium.js"))) {
    usage(`no CesiumJS build at ${cesiumBuild}/Cesium.js (set CESIUM_DIR to the cesium npm package)`);
  }
  const { chromium } = loadPlaywright();
  const served = { requests: 0, withoutToken: [] };
  const server = await startServer(opts, cesiumBuild, served);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const tilesetUrl = new URL(opts.tileset, `${origin}/`).href;
  const pageUrl = `${origin}/index.html?tileset=${encodeURIComponent(tilesetUrl)}&timeout=${opts.timeout}`;

  const consoleErrors = [];
  const httpErrors = [];
  let browser;
  let result;
  const watchdog = setTimeout(() => {
    process.stderr.write(`check.mjs: no report after ${opts.timeout * 2} ms\n`);
    process.exit(2);
  }, opts.timeout * 2 + 30000);
  try {
    browser = await chromium.launch({
      executablePath: opts.chromium || process.env.CHROMIUM || "/usr/bin/chromium",
      headless: true,
      args: [...WEBGL_ARGS, ...opts.chromiumArgs],
    });
    const page = await browser.newPage({ viewport: { width: opts.width, height: opts.height } });
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(`page error: ${e.message}`));
    page.on("response", (r) => {
      if (r.status() >= 400) httpErrors.push(`HTTP ${r.status()} ${r.url()}`);
    });
    page.on("requestfailed", (r) => httpErrors.push(`request failed ${r.url()}: ${r.failure()?.errorText}`));
    await page.goto(pageUrl, { waitUntil: "load", timeout: opts.timeout });
    await page.waitForFunction(() => window.checkResult !== undefined, null, {
      timeout: opts.timeout * 2,
      polling: 200,
    });
    result = await page.evaluate(() => window.checkResult);
    await page.screenshot({ path: opts.out });
  } catch (e) {
    process.stderr.write(`check.mjs: could not run the check: ${e.stack || e}\n`);
    if (browser) await browser.close().catch(() => {});
    server.close();
    process.exit(2);
  }
  clearTimeout(watchdog);
  await browser.close();
  server.close();
  result.errors.push(...httpErrors);
  result.consoleErrors.push(...consoleErrors);
  result.served = served;
  result.tilesetUrl = tilesetUrl;
  result.screenshot = path.resolve(opts.out);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((e) => {
  process.stderr.write(`check.mjs: ${e.stack || e}\n`);
  process.exit(2);
});
