import { afterAll, beforeAll, expect, test } from "bun:test";
import { serveApi } from "../../src/api/serve-api.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A node whose port is bound but which is not ready yet (its bootstrap key being made, its workers starting)
 * refuses every request, /healthz included, with the error envelope's 503 and Retry-After; once ready, the same
 * listener answers as the app does. A load balancer or a first request with a configured bootstrap key saw 200
 * and 401 in that window.
 */

let svc: TestService;
let server: ReturnType<typeof serveApi>;
let starting = true;
beforeAll(async () => {
  svc = await startTestService();
  server = serveApi(await svc.runtime.app(), { hostname: "127.0.0.1", port: 0, starting: () => starting });
});
afterAll(async () => {
  await server?.stop(true);
  await svc?.stop();
});

test("while starting: 503 with Retry-After and the envelope, for /healthz and the API; then the app's answers", async () => {
  const origin = `http://127.0.0.1:${server.port}`;
  for (const path of ["/healthz", "/v1/domains"]) {
    const res = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${svc.adminKey}` } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await res.json()).toEqual({ error: { code: "store_unavailable", message: "this node is starting; try again in a moment" } });
  }
  starting = false;
  expect((await fetch(`${origin}/healthz`)).status).toBe(200);
  expect((await fetch(`${origin}/v1/domains`, { headers: { authorization: `Bearer ${svc.adminKey}` } })).status).toBe(200);
});
