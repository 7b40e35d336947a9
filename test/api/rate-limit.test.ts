import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

const LIMIT = 5;
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ auth: { rate_limit: LIMIT } });
});
afterAll(() => svc.stop());

describe("rate limit (token bucket per key)", () => {
  test("every response carries RateLimit headers; past the limit: 429 with Retry-After", async () => {
    const key = await svc.keyWith("domains:read");
    const remaining: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await svc.call("GET", "/domains", { key });
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBe(String(LIMIT));
      expect(Number(res.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
      remaining.push(Number(res.headers.get("ratelimit-remaining")));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);

    const refused = await svc.call("GET", "/domains", { key });
    expectErrorEnvelope(refused, 429, "rate_limited");
    const retryAfter = Number(refused.headers.get("retry-after"));
    // One token comes back every 60/LIMIT = 12 s.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(12);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
  });

  test("each key has its own bucket", async () => {
    const first = await svc.keyWith("domains:read");
    for (let i = 0; i < LIMIT; i++) await svc.call("GET", "/domains", { key: first });
    expect((await svc.call("GET", "/domains", { key: first })).status).toBe(429);
    const second = await svc.keyWith("domains:read");
    expect((await svc.call("GET", "/domains", { key: second })).status).toBe(200);
  });

  test("error responses carry the headers too", async () => {
    const key = await svc.keyWith("domains:read");
    const res = await svc.call("GET", "/domains/not-a-uuid", { key });
    expect(res.status).toBe(404);
    expect(res.headers.get("ratelimit-limit")).toBe(String(LIMIT));
    expect(res.headers.get("ratelimit-remaining")).toBe(String(LIMIT - 1));
  });
});

describe("rate limit without a key", () => {
  test("requests without a usable key share a per-address bucket, which slows key guessing", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) {
      statuses.push((await svc.call("GET", "/domains", { key: `lp_${String(i).padStart(40, "0")}` })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});

describe("public endpoints", () => {
  test("a flood of bad keys from one address does not starve /healthz", async () => {
    for (let i = 0; i < LIMIT + 2; i++) await svc.call("GET", "/domains", { key: `lp_${String(i).padStart(40, "1")}` });
    expect((await svc.call("GET", "/domains", { key: null })).status).toBe(429);
    const health = await svc.call("GET", "/healthz", { root: true, key: null });
    expect(health.status).toBe(200);
    expect(health.headers.get("ratelimit-limit")).toBe(String(LIMIT));
  });
});
