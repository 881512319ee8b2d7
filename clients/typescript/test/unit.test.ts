// The parts that need no server: signatures against published and independently computed
// values, header parsing, multipart bodies read back by a multipart parser, token scheduling.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { Readable } from "node:stream";
import { describe, test } from "node:test";
import {
  JobFailedError,
  MeridianClient,
  MeridianProblem,
  Multipart,
  TokenManager,
  WebhookVerificationError,
  nextLink,
  parseLinkHeader,
  parseRetryAfter,
  prepareUpload,
  signWebhook,
  verifyWebhook,
} from "meridian-client";

describe("webhook signatures", () => {
  // The Standard Webhooks specification's example.
  const vector = {
    secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
    timestamp: 1614265330,
    body: '{"test": 2432232314}',
    signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  };
  const headers = {
    "webhook-id": vector.id,
    "webhook-timestamp": String(vector.timestamp),
    "webhook-signature": vector.signature,
  };
  const now = vector.timestamp * 1000 + 5000;

  test("the Standard Webhooks example verifies", async () => {
    const event = await verifyWebhook({ secret: vector.secret, body: vector.body, headers, now });
    assert.equal(event.test, 2432232314);
  });

  test("one good signature among several (a rotation) is enough", async () => {
    const rotated = { ...headers, "webhook-signature": `v1,${Buffer.alloc(32).toString("base64")} ${vector.signature}` };
    await verifyWebhook({ secret: vector.secret, body: vector.body, headers: rotated, now });
    const otherSecret = "whsec_" + Buffer.alloc(24, 1).toString("base64");
    await verifyWebhook({ secret: [otherSecret, vector.secret], body: vector.body, headers, now });
  });

  test("refusals say why", async () => {
    const reason = async (options: Partial<Parameters<typeof verifyWebhook>[0]>) =>
      verifyWebhook({ secret: vector.secret, body: vector.body, headers, now, ...options }).then(
        () => "accepted",
        (e: unknown) => (e instanceof WebhookVerificationError ? e.reason : String(e)),
      );
    assert.equal(await reason({ body: '{"test": 2432232315}' }), "invalid_signature");
    assert.equal(await reason({ now: now + 301_000 }), "timestamp_too_old");
    assert.equal(await reason({ now: now - 310_000 }), "timestamp_too_new");
    assert.equal(await reason({ now: now + 3_600_000, toleranceSeconds: 7200 }), "accepted");
    assert.equal(await reason({ headers: {} }), "missing_signature");
    assert.equal(await reason({ scheme: "service" }), "missing_signature");
    assert.equal(await reason({ headers: { ...headers, "webhook-timestamp": "soon" } }), "invalid_timestamp");
    assert.equal(await reason({ headers: { ...headers, "webhook-signature": "v1,???" } }), "invalid_signature");
    assert.equal(await reason({ headers: { ...headers, "webhook-signature": "v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" } }), "invalid_signature");
  });

  test("X-Service-Signature is the hex HMAC of the body keyed with the secret's text", async () => {
    const secret = "whsec_" + Buffer.alloc(32, 9).toString("base64");
    const body = '{"id":"evt_1","event":"webhook.test","timestamp":"2026-01-02T03:04:05.678Z"}';
    const signed = await signWebhook({ secret, body, id: "evt_1", timestamp: new Date(now) });
    const expected = "sha256=" + createHmac("sha256", secret).update(body).digest("hex");
    assert.equal(signed["x-service-signature"], expected);
    const standard = createHmac("sha256", Buffer.from(secret.slice(6), "base64"))
      .update(`evt_1.${Math.floor(now / 1000)}.${body}`)
      .digest("base64");
    assert.equal(signed["webhook-signature"], `v1,${standard}`);
    // Both present: both must hold.
    assert.equal((await verifyWebhook({ secret, body, headers: signed, now })).id, "evt_1");
    const halfTampered = { ...signed, "x-service-signature": "sha256=" + "0".repeat(64) };
    await assert.rejects(verifyWebhook({ secret, body, headers: halfTampered, now }), /X-Service-Signature/);
    assert.equal((await verifyWebhook({ secret, body, headers: halfTampered, now, scheme: "standard" })).id, "evt_1");
    // Headers in any letter case, from a Headers object too.
    const upper = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toUpperCase(), v]));
    await verifyWebhook({ secret, body: new TextEncoder().encode(body), headers: upper, now });
    await verifyWebhook({ secret, body, headers: new Headers(signed), now });
  });
});

describe("headers", () => {
  test("Link headers", () => {
    const links = parseLinkHeader('</v1/dns/zones?limit=2&offset=2>; rel="next", </v1/dns/zones?limit=2&offset=0>; rel="prev first"; type=x');
    assert.deepEqual(
      links.map((l) => [l.href, l.rel]),
      [
        ["/v1/dns/zones?limit=2&offset=2", ["next"]],
        ["/v1/dns/zones?limit=2&offset=0", ["prev", "first"]],
      ],
    );
    assert.equal(links[1]!.params.type, "x");
    assert.deepEqual(nextLink(new Headers({ link: "<a>; rel=next" }), {}), { href: "a", method: "get" });
    assert.deepEqual(
      nextLink(new Headers(), { links: [{ rel: "next", href: "/s", method: "POST", body: { token: "t" } }] }),
      { href: "/s", method: "post", body: { token: "t" } },
    );
    assert.equal(nextLink(new Headers(), { links: [{ rel: "self", href: "/s" }] }), undefined);
  });

  test("Retry-After as seconds or an HTTP date", () => {
    assert.equal(parseRetryAfter("2"), 2000);
    assert.equal(parseRetryAfter("Fri, 27 Nov 2026 16:00:10 GMT", Date.parse("2026-11-27T16:00:00Z")), 10_000);
    assert.equal(parseRetryAfter("soon"), undefined);
    assert.equal(parseRetryAfter(null), undefined);
  });

  test("an error answer that is not a problem document still becomes a MeridianProblem", async () => {
    const problem = await MeridianProblem.fromResponse(
      new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway", headers: { "x-request-id": "req_x" } }),
    );
    assert.equal(problem.status, 502);
    assert.equal(problem.code, "http_502");
    assert.equal(problem.title, "Bad Gateway");
    assert.equal(problem.requestId, "req_x");
    assert.deepEqual(problem.errors, []);
  });
});

describe("multipart bodies", () => {
  const read = async (form: Multipart) => {
    const prepared = prepareUpload(form);
    const response = new Response(prepared.body as BodyInit, { headers: { "content-type": prepared.contentType! } });
    return { prepared, data: await response.formData() };
  };

  test("strings, JSON and Blobs make a Blob body that a multipart parser reads back", async () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    const { prepared, data } = await read(
      new Multipart()
        .append("item", { id: "scene1", n: 1 })
        .append("note", "plain text")
        .append("B7", new Blob([bytes], { type: "image/tiff" }), { filename: "band7.tif" }),
    );
    assert.equal(prepared.replayable, true);
    assert.equal(prepared.stream, false);
    assert.deepEqual(JSON.parse(String(data.get("item"))), { id: "scene1", n: 1 });
    assert.equal(data.get("note"), "plain text");
    const file = data.get("B7") as File;
    assert.equal(file.name, "band7.tif");
    assert.equal(file.type, "image/tiff");
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), bytes);
  });

  test("a stream part makes a stream body, sent once", async () => {
    const chunks = [Buffer.from("LASF"), Buffer.alloc(100_000, 3), Buffer.from("end")];
    const { prepared, data } = await read(
      new Multipart().append("params", { name: "survey" }).append("file", Readable.from(chunks), { filename: "s.las" }),
    );
    assert.equal(prepared.replayable, false);
    assert.equal(prepared.stream, true);
    assert.deepEqual(JSON.parse(String(data.get("params"))), { name: "survey" });
    const file = data.get("file") as File;
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), Buffer.concat(chunks));
  });
});

describe("tokens", () => {
  test("refreshed a minute before expiry (a fifth of short lifetimes), one exchange at a time", async () => {
    let clock = 1_000_000;
    let exchanges = 0;
    const manager = new TokenManager(async () => {
      exchanges++;
      await new Promise((r) => setTimeout(r, 10));
      return { access_token: `t${exchanges}`, token_type: "Bearer", expires_in: 3600 };
    }, () => clock);
    const [a, b] = await Promise.all([manager.token(), manager.token()]);
    assert.deepEqual([a, b, exchanges], ["t1", "t1", 1]);
    clock += 3539_000;
    assert.equal(await manager.token(), "t1");
    clock += 2_000;
    assert.equal(await manager.token(), "t2");
    assert.equal(manager.current!.expiresAt - manager.current!.refreshAt, 60_000);
  });

  test("a refused token is traded again once, then the request is sent again", async () => {
    const seen: string[] = [];
    let issued = 0;
    const fakeFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = String(input);
      const headers = new Headers(init?.headers);
      if (url.endsWith("/api/v1/auth/token")) {
        assert.equal(headers.get("x-api-key"), "mrd_key");
        assert.equal(headers.get("authorization"), null);
        issued++;
        return Response.json({ access_token: `tok${issued}`, token_type: "Bearer", expires_in: 3600 });
      }
      seen.push(headers.get("authorization") ?? "");
      if (headers.get("authorization") === "Bearer tok1") {
        return Response.json(
          { type: "/docs/problems#unauthenticated", title: "Unauthenticated", status: 401, detail: "expired", code: "unauthenticated", errors: [] },
          { status: 401, headers: { "content-type": "application/problem+json" } },
        );
      }
      return Response.json({ id: "acct_1", name: "A", email: "a@example.com", created_at: "2026-01-01T00:00:00Z" });
    };
    const client = new MeridianClient({ baseUrl: "http://meridian.test", apiKey: "mrd_key", useAccessTokens: true, fetch: fakeFetch });
    assert.equal((await client.GET("/api/v1/account")).id, "acct_1");
    assert.deepEqual(seen, ["Bearer tok1", "Bearer tok2"]);
  });

  test("links to another origin are followed on the client's own server", () => {
    const client = new MeridianClient({ baseUrl: "https://api.example.com/", apiKey: "k" });
    assert.equal(client.resolveLink("/v1/dns/zones?offset=2"), "https://api.example.com/v1/dns/zones?offset=2");
    assert.equal(client.resolveLink("https://api.example.com/a?b=1"), "https://api.example.com/a?b=1");
    assert.equal(client.resolveLink("http://evil.example.net/a?b=1"), "https://api.example.com/a?b=1");
  });
});

describe("jobs", () => {
  test("waitForJob reports each change and throws the failed job's problem", async () => {
    const states = [
      { status: "queued", progress: 0 },
      { status: "running", progress: 40 },
      { status: "running", progress: 40 },
      { status: "running", progress: 90 },
      {
        status: "failed",
        progress: 90,
        error: { type: "/docs/problems#job_input_invalid", title: "Invalid input", status: 422, detail: "block 7 is corrupt", code: "job_input_invalid", errors: [] },
      },
    ];
    let polls = 0;
    const fakeFetch = async (input: string | URL | Request): Promise<Response> => {
      assert.equal(String(input), "http://meridian.test/api/v1/jobs/job_1");
      const state = states[Math.min(polls++, states.length - 1)]!;
      return Response.json({
        id: "job_1",
        kind: "dem.process",
        attempts: 1,
        cancel_requested: false,
        created_at: "2026-01-01T00:00:00Z",
        updated_at: "2026-01-01T00:00:00Z",
        ...state,
      });
    };
    const client = new MeridianClient({ baseUrl: "http://meridian.test", apiKey: "k", fetch: fakeFetch });
    const seen: string[] = [];
    const error = await client
      .waitForJob("job_1", { intervalMs: 1, onProgress: (j) => seen.push(`${j.status} ${j.progress}`) })
      .then(() => assert.fail("a failed job resolved"), (e: unknown) => e);
    assert.deepEqual(seen, ["queued 0", "running 40", "running 90", "failed 90"]);
    assert.ok(error instanceof JobFailedError);
    assert.equal(error.status, "failed");
    assert.equal(error.problem?.code, "job_input_invalid");
    assert.equal(error.problem?.status, 422);
    assert.equal(error.job.id, "job_1");
  });
});
