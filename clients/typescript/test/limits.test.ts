// Rate limits and token lifetimes, against a real server started with a tiny DNS allowance
// (30 a minute, bursts of 2: one request every 2 s) and 3-second access tokens.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { MeridianClient, MeridianProblem, type RetryInfo } from "meridian-client";
import { startServer, type RunningServer } from "./server.js";

let server: RunningServer;
let apiKey: string;

describe("rate limits and token refresh", () => {
  before(async () => {
    server = await startServer({
      MERIDIAN_RATE_LIMITS__DNS__PER_MINUTE: "30",
      MERIDIAN_RATE_LIMITS__DNS__BURST: "2",
      MERIDIAN_AUTH__ACCESS_TOKEN_TTL: "3s",
    });
    ({ apiKey } = await MeridianClient.signUp({ baseUrl: server.baseUrl, name: "Grace", email: "grace@example.com" }));
  });

  after(async () => {
    await server?.stop();
  });

  test("a 429 is retried after Retry-After; without retries it is a typed error", async () => {
    const once = new MeridianClient({ baseUrl: server.baseUrl, apiKey, retry: false });
    // Empty the bucket (a burst of two), then the third is refused.
    await once.GET("/v1/dns/zones");
    await once.GET("/v1/dns/zones");
    const refusedAt = Date.now();
    const problem = await once.GET("/v1/dns/zones").then(
      () => assert.fail("the third request of the burst was accepted"),
      (e: unknown) => e,
    );
    assert.ok(problem instanceof MeridianProblem);
    assert.equal(problem.status, 429);
    assert.equal(problem.code, "rate_limited");
    assert.ok(problem.retryAfter !== undefined && problem.retryAfter >= 1, "Retry-After is carried");
    assert.equal(problem.headers.get("retry-after"), String(problem.retryAfter));
    assert.ok(Date.now() - refusedAt < problem.retryAfter! * 1000 - 100, "no waiting when retries are off");

    const retries: RetryInfo[] = [];
    const patient = new MeridianClient({ baseUrl: server.baseUrl, apiKey, retry: { onRetry: (r) => retries.push(r) } });
    const started = Date.now();
    const zones = await patient.GET("/v1/dns/zones");
    const elapsed = Date.now() - started;
    assert.equal(zones.total, 0);
    assert.ok(retries.length >= 1, "the 429 was retried");
    for (const r of retries) {
      assert.equal(r.status, 429);
      assert.equal(r.fromRetryAfter, true);
      assert.equal(r.delayMs, problem.retryAfter! * 1000, "the wait is the server's Retry-After");
    }
    const waited = retries.reduce((sum, r) => sum + r.delayMs, 0);
    assert.ok(elapsed >= waited, `answered after ${elapsed} ms, having waited ${waited} ms`);

    // The bucket is empty again: a request that turns retries off gets the 429 at once.
    await assert.rejects(
      patient.GET("/v1/dns/zones", { retry: false }),
      (e: unknown) => e instanceof MeridianProblem && e.status === 429,
    );
    // A Retry-After longer than the client will wait is not waited for.
    const hasty = new MeridianClient({ baseUrl: server.baseUrl, apiKey, retry: { maxDelayMs: 500, onRetry: () => assert.fail("retried") } });
    const t = Date.now();
    await assert.rejects(hasty.GET("/v1/dns/zones"), (e: unknown) => e instanceof MeridianProblem && e.code === "rate_limited");
    assert.ok(Date.now() - t < problem.retryAfter! * 1000 - 100, "not waited for");
    // Other areas have their own buckets.
    assert.match((await once.GET("/api/v1/account")).id, /^acct_/);
  });

  test("access tokens are refreshed before they expire", async () => {
    const client = new MeridianClient({ baseUrl: server.baseUrl, apiKey, useAccessTokens: true });
    await client.GET("/api/v1/account");
    const first = await client.accessToken();
    assert.equal(await client.accessToken(), first, "kept while fresh");
    await sleep(2600); // past 80% of the 3-second lifetime
    const second = await client.accessToken();
    assert.notEqual(second, first, "traded for a new one before expiry");
    assert.match((await client.GET("/api/v1/account")).id, /^acct_/);
    await sleep(1000); // the first token has expired by now
    const stale = new MeridianClient({ baseUrl: server.baseUrl, accessToken: first });
    await assert.rejects(
      stale.GET("/api/v1/account"),
      (e: unknown) => e instanceof MeridianProblem && e.status === 401 && e.code === "unauthenticated",
    );
    assert.match((await client.GET("/api/v1/account")).id, /^acct_/, "the refreshing client carries on");
  });
});
