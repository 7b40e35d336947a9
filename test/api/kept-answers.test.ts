import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { answerKeptFirst, type Fetch } from "../../src/api/kept-answers.ts";
import { RateLimiter } from "../../src/api/middleware/rate-limit/rate-limit.ts";
import { ResponseCache } from "../../src/api/middleware/response-cache/response-cache.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * The fast path for kept answers (api/kept-answers.ts): which requests it answers itself and which it hands to
 * the app, and that what it answers carries what the app's chain would have added (request id, RateLimit
 * headers, a metrics sample under the route's pattern, a request log line).
 */

let svc: TestService;
const lines: any[] = [];
beforeAll(async () => {
  svc = await startTestService({}, { logger: createLogger("info", (line) => lines.push(JSON.parse(line))) });
});
afterAll(() => svc.stop());

const KEPT = '{"data":[]}';

/** A fast path over the service's real keys and metrics, a cache holding one answer and a fallback that counts. */
function fastPath(options: { requestsPerMinute?: number; version?: () => string } = {}) {
  const cache = new ResponseCache({ version: options.version ?? (() => "v1") });
  cache.set("/v1/domains?limit=5", "v1", { body: new Blob([KEPT]), contentType: "application/json", scope: "domains:read", route: "/v1/domains" });
  const limiter = new RateLimiter({ requestsPerMinute: options.requestsPerMinute ?? 100, publicPaths: [] });
  const fallback = { calls: 0 };
  const app: Fetch = () => {
    fallback.calls += 1;
    return new Response("from the app", { status: 418 });
  };
  const logger = createLogger("info", (line) => lines.push(JSON.parse(line)));
  const fetch = answerKeptFirst(app, { cache, keys: svc.runtime.keys, limiter, metrics: svc.runtime.metrics, logger });
  return { fetch, fallback };
}

function get(path: string, init: { key?: string | null; method?: string; requestId?: string } = {}): Request {
  const headers: Record<string, string> = {};
  const key = init.key === undefined ? svc.adminKey : init.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  if (init.requestId) headers["X-Request-Id"] = init.requestId;
  return new Request(`http://linkpatrol.test${path}`, { method: init.method ?? "GET", headers });
}

describe("what the fast path answers itself", () => {
  test("a kept answer for a key with the scope: the body, the request id and the RateLimit headers, without the app", async () => {
    const { fetch, fallback } = fastPath();
    const reader = svc.keyWith("domains:read");
    const first = await fetch(get("/v1/domains?limit=5", { key: reader, requestId: "trace-1" }));
    const second = await fetch(get("/v1/domains?limit=5", { key: reader }));
    expect(fallback.calls).toBe(0);
    expect(first.status).toBe(200);
    expect(await first.text()).toBe(KEPT);
    expect(first.headers.get("content-type")).toBe("application/json");
    expect(first.headers.get("x-request-id")).toBe("trace-1");
    expect(second.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.headers.get("ratelimit-limit")).toBe("100");
    expect([first.headers.get("ratelimit-remaining"), second.headers.get("ratelimit-remaining")]).toEqual(["99", "98"]);
    expect(Number(first.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
  });

  test("each answer it gives is logged at info and timed under the route's pattern", async () => {
    const { fetch } = fastPath();
    const before = svc.runtime.metrics.render().match(/linkpatrol_http_request_duration_seconds_count\{route="\/v1\/domains",method="GET",status="200"\} (\d+)/);
    const response = await fetch(get("/v1/domains?limit=5", { requestId: "trace-log" }));
    const after = svc.runtime.metrics.render().match(/linkpatrol_http_request_duration_seconds_count\{route="\/v1\/domains",method="GET",status="200"\} (\d+)/);
    expect(Number(after?.[1])).toBe(Number(before?.[1] ?? 0) + 1);
    const line = lines.find((l) => l.request_id === "trace-log");
    expect(line).toMatchObject({ level: "info", msg: "request", method: "GET", path: "/v1/domains", status: 200 });
    expect(line.key_id).toBeString();
    expect(response.status).toBe(200);
  });
});

describe("what it hands to the app", () => {
  const cases: [string, () => Request][] = [
    ["a path with no kept answer", () => get("/v1/domains?limit=6")],
    ["HEAD", () => get("/v1/domains?limit=5", { method: "HEAD" })],
    ["POST", () => get("/v1/domains?limit=5", { method: "POST" })],
    ["no key", () => get("/v1/domains?limit=5", { key: null })],
    ["a key that does not exist", () => get("/v1/domains?limit=5", { key: `lp_${"0".repeat(40)}` })],
    ["a malformed Authorization header", () => get("/v1/domains?limit=5", { key: "two words" })],
    ["a key without the route's scope", () => get("/v1/domains?limit=5", { key: svc.keyWith("crawls:read") })],
  ];
  for (const [name, request] of cases) {
    test(name, async () => {
      const { fetch, fallback } = fastPath();
      const response = await fetch(request());
      expect(response.status).toBe(418);
      expect(fallback.calls).toBe(1);
    });
  }

  test("a revoked key", async () => {
    const { fetch, fallback } = fastPath();
    const secret = svc.keyWith("domains:read");
    expect((await fetch(get("/v1/domains?limit=5", { key: secret }))).status).toBe(200);
    svc.runtime.keys.revoke(svc.runtime.keys.list().find((k) => secret.startsWith(k.prefix))!.id);
    expect((await fetch(get("/v1/domains?limit=5", { key: secret }))).status).toBe(418);
    expect(fallback.calls).toBe(1);
  });

  test("an answer kept under an older store version", async () => {
    const { fetch, fallback } = fastPath({ version: () => "v2" });
    expect((await fetch(get("/v1/domains?limit=5"))).status).toBe(418);
    expect(fallback.calls).toBe(1);
  });

  test("a key with no token left (the app answers 429 from the same buckets)", async () => {
    const { fetch, fallback } = fastPath({ requestsPerMinute: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(get("/v1/domains?limit=5"))).status);
    expect(statuses).toEqual([200, 200, 418]);
    expect(fallback.calls).toBe(1);
  });
});

describe("over a socket, the service's own fast path", () => {
  // That both paths draw on one bucket per key is test/api/rate-limit.test.ts: its repeated GETs are kept answers.
  test("a kept answer equals the app's", async () => {
    const key = svc.keyWith("domains:read");
    const fromApp = await svc.call("GET", "/domains?limit=7", { key });
    const kept = await svc.call("GET", "/domains?limit=7", { key });
    expect(kept.status).toBe(200);
    expect(kept.text).toBe(fromApp.text);
    expect(kept.headers.get("content-type")).toBe(fromApp.headers.get("content-type")!);
    expect(kept.headers.get("ratelimit-limit")).toBe(fromApp.headers.get("ratelimit-limit")!);
    const logged = lines.filter((l) => l.msg === "request" && l.key_id !== undefined && l.path === "/v1/domains");
    expect(logged.map((l) => l.request_id)).toContain(kept.headers.get("x-request-id"));
  });
});

test("a store that fails while the fast path reads its version: the app answers", async () => {
  const cache = new ResponseCache({
    version: () => {
      throw new Error("SQLITE_IOERR");
    },
  });
  let calls = 0;
  const fetch = answerKeptFirst(
    () => {
      calls += 1;
      return new Response("from the app", { status: 500 });
    },
    { cache, keys: svc.runtime.keys, limiter: new RateLimiter({ requestsPerMinute: 10, publicPaths: [] }), metrics: svc.runtime.metrics, logger: createLogger("error") },
  );
  expect((await fetch(get("/v1/domains"))).status).toBe(500);
  expect(calls).toBe(1);
});
