// The generator: the committed code is what ./generate makes of openapi.json, byte for byte and
// every time; and a document using the constructs the schema is growing into (named GeoJSON
// schemas, oneOf with a discriminator, const, type arrays, enums, response and request-body
// $refs with sibling descriptions) generates without warnings and the hand-written layer still
// type-checks against it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, describe, test } from "node:test";
import { repoRoot } from "./server.js";

const run = promisify(execFile);
const pkg = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const spec = join(repoRoot(), "openapi.json");
const scratch = mkdtempSync(join(tmpdir(), "meridian-ts-gen-"));

type Json = Record<string, any>;

async function generate(specPath: string, out: string): Promise<string> {
  const { stdout, stderr } = await run(join(pkg, "generate"), [specPath, out], { cwd: pkg });
  assert.equal(stderr, "", "no warnings");
  return stdout;
}

/**
 * openapi.json rewritten with the constructs a document may use (schemas named `X...` so that
 * they do not clash with the document's own).
 */
function improvedDocument(): Json {
  const doc = JSON.parse(readFileSync(spec, "utf8")) as Json;
  const schemas = doc.components.schemas as Json;
  const position = { type: "array", items: { type: "number" }, minItems: 2, maxItems: 3 };
  Object.assign(schemas, {
    XPoint: {
      type: "object",
      required: ["type", "coordinates"],
      properties: { type: { const: "Point" }, coordinates: position },
    },
    XPolygon: {
      type: "object",
      required: ["type", "coordinates"],
      properties: {
        type: { type: "string", enum: ["Polygon"] },
        coordinates: { type: "array", items: { type: "array", items: position } },
      },
    },
    XGeometry: {
      oneOf: [{ $ref: "#/components/schemas/XPoint" }, { $ref: "#/components/schemas/XPolygon" }],
      discriminator: {
        propertyName: "type",
        mapping: { Point: "#/components/schemas/XPoint", Polygon: "#/components/schemas/XPolygon" },
      },
    },
    XFeature: {
      type: "object",
      required: ["type", "geometry", "properties"],
      properties: {
        type: { const: "Feature" },
        id: { type: ["string", "null"] },
        geometry: { anyOf: [{ $ref: "#/components/schemas/XGeometry" }, { type: "null" }] },
        properties: { type: ["object", "null"], additionalProperties: true },
        bbox: { type: "array", items: { type: "number" } },
      },
      additionalProperties: false,
    },
    XFeatureCollection: {
      type: "object",
      required: ["type", "features"],
      properties: {
        type: { const: "FeatureCollection" },
        features: { type: "array", items: { $ref: "#/components/schemas/XFeature" } },
        links: { type: "array", items: { $ref: "#/components/schemas/XLink" } },
        numberMatched: { type: "integer", minimum: 0 },
      },
    },
    XLink: {
      type: "object",
      required: ["href", "rel"],
      properties: { href: { type: "string", format: "uri" }, rel: { type: "string" }, type: { type: "string" } },
    },
    XParcel: {
      allOf: [
        { $ref: "#/components/schemas/XFeature" },
        {
          type: "object",
          properties: {
            properties: {
              type: "object",
              required: ["lot", "plan"],
              properties: { lot: { type: "string" }, plan: { type: "string" }, area_m2: { type: "number", format: "double" } },
              additionalProperties: { type: ["string", "number", "boolean", "null"] },
            },
          },
        },
      ],
    },
    XParcelOrCollection: {
      oneOf: [{ $ref: "#/components/schemas/XParcel" }, { $ref: "#/components/schemas/XFeatureCollection" }],
      discriminator: {
        propertyName: "type",
        mapping: { Feature: "#/components/schemas/XParcel", FeatureCollection: "#/components/schemas/XFeatureCollection" },
      },
    },
  });
  // Values typed as any JSON value.
  schemas.ReadingIn.properties.value = {
    oneOf: [{ type: "number" }, { type: "boolean" }, { type: "string" }, { type: "object", additionalProperties: true }],
  };
  schemas.JobView.properties.status = { type: "string", enum: ["queued", "running", "succeeded", "failed", "cancelled"] };
  schemas.JobView.properties.error = { anyOf: [{ $ref: "#/components/schemas/Problem" }, { type: "null" }] };

  // Named request bodies and responses, referenced with a sibling description.
  doc.components.responses = {
    ...(doc.components.responses ?? {}),
    XProblem: {
      description: "An error, as an RFC 7807 problem document",
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    },
    XParcels: {
      description: "Parcels",
      headers: { Link: { schema: { type: "string" } } },
      content: { "application/geo+json": { schema: { $ref: "#/components/schemas/XFeatureCollection" } } },
    },
  };
  doc.components.requestBodies = {
    ...(doc.components.requestBodies ?? {}),
    XParcelBody: {
      required: true,
      content: { "application/geo+json": { schema: { $ref: "#/components/schemas/XParcelOrCollection" } } },
    },
  };
  for (const item of Object.values(doc.paths as Json)) {
    for (const op of Object.values(item as Json)) {
      if (!op || typeof op !== "object" || !("responses" in op)) continue;
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const types = Object.keys(response.content ?? {});
        if (types.length === 1 && types[0] === "application/problem+json") {
          op.responses[status] = { $ref: "#/components/responses/XProblem", description: response.description };
        }
      }
    }
  }
  const parcels = doc.paths["/api/v1/cadastre/parcels"];
  parcels.get.responses["200"] = { $ref: "#/components/responses/XParcels", description: "A page of parcels" };
  parcels.post.requestBody = { $ref: "#/components/requestBodies/XParcelBody", description: "A parcel or a collection" };
  parcels.post.responses["422"] = { $ref: "#/components/responses/XProblem", description: "Invalid parcel" };
  parcels.post.responses["201"] = {
    description: "The parcel",
    content: { "application/geo+json": { schema: { $ref: "#/components/schemas/XParcel" } } },
  };
  return doc;
}

describe("generate", () => {
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test("the committed code is what ./generate makes of openapi.json, every time", async () => {
    const a = join(scratch, "a");
    const b = join(scratch, "b");
    await Promise.all([generate(spec, a), generate(spec, b)]);
    const committed = join(pkg, "src", "generated");
    const files = readdirSync(committed).sort();
    assert.deepEqual(files, ["operations.ts", "schema.ts"]);
    for (const file of files) {
      const made = readFileSync(join(a, file));
      assert.ok(made.equals(readFileSync(join(b, file))), `${file}: two runs differ`);
      assert.ok(made.equals(readFileSync(join(committed, file))), `${file} is stale: run ./generate`);
    }
  });

  test("the package's version is the server's", () => {
    const cargo = readFileSync(join(repoRoot(), "Cargo.toml"), "utf8");
    const workspace = /\[workspace\.package\][^[]*?\bversion\s*=\s*"([^"]+)"/.exec(cargo);
    assert.ok(workspace, "version in [workspace.package] of Cargo.toml");
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string };
    assert.equal(manifest.version, workspace[1]);
  });

  test("an improved document generates without warnings and the client still type-checks", async () => {
    const doc = improvedDocument();
    const improved = join(scratch, "improved.json");
    writeFileSync(improved, JSON.stringify(doc, null, 2));
    const project = join(scratch, "project");
    cpSync(join(pkg, "src"), join(project, "src"), { recursive: true });
    await generate(improved, join(project, "src", "generated"));
    const schema = readFileSync(join(project, "src", "generated", "schema.ts"), "utf8");
    assert.match(schema, /XGeometry: components\["schemas"\]\["XPoint"\] \| components\["schemas"\]\["XPolygon"\]/);
    assert.ok(schema.includes('components["responses"]["XProblem"]'), "problem responses by reference");
    const operations = readFileSync(join(project, "src", "generated", "operations.ts"), "utf8");
    assert.match(operations, /"create_parcel": \{\s+method: "post",\s+path: "\/api\/v1\/cadastre\/parcels",\s+requestTypes: \["application\/geo\+json"\],\s+bodyRequired: true,/);
    // A use of the typed layer over the new types.
    writeFileSync(
      join(project, "src", "usage.ts"),
      `import { MeridianClient } from "./client.js";
export async function usage(client: MeridianClient): Promise<string[]> {
  const created = await client.POST("/api/v1/cadastre/parcels", {
    body: { type: "Feature", geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] }, properties: { lot: "1", plan: "DP1" } },
  });
  const ids: string[] = [];
  for await (const f of client.paginate("/api/v1/cadastre/parcels", { params: { query: { limit: 10 } } })) {
    if (f.id) ids.push(f.id);
  }
  await client.POST("/api/v1/realtime/twin/{twin_id}/sensors/{sensor_id}/readings", {
    params: { path: { twin_id: "t", sensor_id: "s" } },
    body: { value: 12.5 },
  });
  const job = await client.waitForJob("job_1");
  const status: "queued" | "running" | "succeeded" | "failed" | "cancelled" = job.status;
  return [...ids, String(created.id), status];
}
`,
    );
    writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module", private: true }));
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ extends: join(pkg, "tsconfig.json"), compilerOptions: { noEmit: true, rootDir: "src" }, include: ["src"] }),
    );
    const tsc = join(pkg, "node_modules", ".bin", "tsc");
    const result = await run(tsc, ["-p", join(project, "tsconfig.json")]).then(
      () => "",
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    assert.equal(result, "", "the client type-checks against the improved document");
  });
});
