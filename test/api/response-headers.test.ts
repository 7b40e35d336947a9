import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * X-Request-Id and the RateLimit headers are set before the route runs (Hono puts them on whatever response
 * is made afterwards), so every way a response can be made must still carry them: a route's answer, a kept
 * answer, each error path, HEAD, and the public endpoints.
 */

const LIMIT = 1_000;
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ auth: { rate_limit: LIMIT }, server: { max_request_body_bytes: 1024 } });
});
afterAll(() => svc.stop());

async function send(method: string, path: string, init: { key?: string | null; body?: string; root?: boolean } = {}) {
  const headers: Record<string, string> = {};
  const key = init.key === undefined ? svc.adminKey : init.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(`${init.root ? svc.origin : svc.base}${path}`, { method, headers, body: init.body });
  await res.arrayBuffer();
  return res;
}

test("every kind of response carries X-Request-Id and RateLimit-*", async () => {
  const reader = await svc.keyWith("crawls:read");
  const cases: [string, Promise<Response>, number][] = [
    ["route answer", send("GET", "/domains"), 200],
    ["kept answer", send("GET", "/domains"), 200],
    ["HEAD", send("HEAD", "/domains"), 200],
    ["created", send("POST", "/domains", { body: JSON.stringify({ name: "headers.example" }) }), 201],
    ["invalid body", send("POST", "/domains", { body: "{" }), 400],
    ["body too large", send("POST", "/domains", { body: JSON.stringify({ name: "x".repeat(2048) }) }), 413],
    ["no key", send("GET", "/domains", { key: null }), 401],
    ["bad key", send("GET", "/domains", { key: "lp_not-a-key" }), 401],
    ["missing scope", send("GET", "/domains", { key: reader }), 403],
    ["unknown id", send("GET", "/domains/not-a-uuid"), 404],
    ["unknown route", send("GET", "/nowhere"), 404],
    ["wrong method", send("PUT", "/domains"), 405],
    ["public endpoint", send("GET", "/healthz", { key: null, root: true }), 200],
  ];
  for (const [name, pending, status] of cases) {
    const res = await pending;
    expect({ name, status: res.status }).toEqual({ name, status });
    expect({ name, id: res.headers.get("x-request-id") }).toEqual({ name, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect({ name, limit: res.headers.get("ratelimit-limit") }).toEqual({ name, limit: String(LIMIT) });
    expect({ name, remaining: Number(res.headers.get("ratelimit-remaining")) }).toEqual({ name, remaining: expect.any(Number) });
    expect({ name, reset: res.headers.get("ratelimit-reset") }).toEqual({ name, reset: expect.stringMatching(/^\d+$/) });
  }
});
