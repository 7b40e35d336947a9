import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { startTestService, type TestService } from "../helpers/service.ts";

/** `ui.enabled: false`: no dashboard at all, `/` answers the API's JSON 404, and no session key is made. */

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ ui: { enabled: false } });
});
afterAll(() => svc.stop());

describe("ui.enabled: false", () => {
  test("/ and the dashboard's paths answer 404 in the error envelope", async () => {
    for (const path of ["/", "/ui/sign-in"]) {
      const res = await fetch(`${svc.origin}${path}`, { redirect: "manual" });
      expect(res.status, path).toBe(404);
      expect((await res.json()).error.code).toBe("not_found");
      expect(res.headers.get("content-security-policy")).toBeNull();
    }
    const post = await fetch(`${svc.origin}/ui/sign-in`, { method: "POST", body: "key=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(post.status).toBe(404);
  });

  test("the API is unchanged and no session key file is written", async () => {
    expect((await svc.call("GET", "/domains")).status).toBe(200);
    expect(existsSync(`${svc.config.storage.path}.session-key`)).toBe(false);
  });
});
