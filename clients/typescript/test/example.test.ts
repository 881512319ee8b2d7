// examples/tour.ts is the tour the README shows: the README holds it verbatim, and it runs to
// the end against a fresh server, printing what each step found.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { repoRoot, startServer, type RunningServer } from "./server.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "..", "..");

describe("the README's tour", () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({
      MERIDIAN_WEBHOOKS__ALLOW_HTTP: "true",
      MERIDIAN_WEBHOOKS__ALLOW_PRIVATE_NETWORKS: "true",
      MERIDIAN_JOBS__POLL_INTERVAL: "200ms",
      MERIDIAN_EVENTS__POLL_INTERVAL: "100ms",
    });
  });
  after(async () => {
    await server?.stop();
  });

  test("the README shows examples/tour.ts as it is", () => {
    const readme = readFileSync(join(pkg, "README.md"), "utf8");
    const example = readFileSync(join(pkg, "examples", "tour.ts"), "utf8");
    assert.ok(readme.includes("```ts\n" + example + "```\n"), "README.md's tour differs from examples/tour.ts");
  });

  test("examples/tour.ts runs against a real server", async () => {
    const script = join(here, "..", "examples", "tour.js");
    const { stdout } = await run(process.execPath, ["--experimental-websocket", script], {
      env: { ...process.env, MERIDIAN_URL: server.baseUrl, MERIDIAN_SAMPLES: repoRoot() },
      timeout: 90_000,
    });
    for (const expected of [
      /^signed up acct_/m,
      /^www\.example\.com A 192\.0\.2\.10$/m,
      /^freehold parcel parcel_/m,
      /^hillshade succeeded 100%$/m,
      /^first KiB of the hillshade COG: 206 \{ start: 0, end: 1023, total: \d+ \}$/m,
      /^NDVI statistics \{/m,
      /^classify 100%$/m,
      /^COPC starts with LASF$/m,
      /^live pump-3 12\.5 /m,
      /^replayed 12\.7$/m,
      /^verified dns\.record\.created evt_/m,
      /^422 validation_failed \[ '\/scopes\/0' \] req_/m,
    ]) {
      assert.match(stdout, expected);
    }
    assert.equal((stdout.match(/^freehold parcel /gm) ?? []).length, 3);
  });
});
