import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

describe("authentication", () => {
  test("no Authorization header: 401 with WWW-Authenticate: Bearer", async () => {
    const res = await svc.call("GET", "/domains", { key: null });
    expectErrorEnvelope(res, 401, "unauthorized");
    expect(res.headers.get("www-authenticate")).toStartWith("Bearer");
  });

  test("a header that is not Bearer: 401", async () => {
    const res = await svc.call("GET", "/domains", { key: null, headers: { authorization: `Basic ${btoa("a:b")}` } });
    expectErrorEnvelope(res, 401, "unauthorized");
    expect(res.headers.get("www-authenticate")).toStartWith("Bearer");
  });

  test("an unknown key of the right shape: 401", async () => {
    expectErrorEnvelope(await svc.call("GET", "/domains", { key: `lp_${"x".repeat(40)}` }), 401, "unauthorized");
  });

  test("a key of the wrong shape: 401", async () => {
    expectErrorEnvelope(await svc.call("GET", "/domains", { key: "not-a-key" }), 401, "unauthorized");
  });

  test("the bearer scheme is case-insensitive", async () => {
    const res = await svc.call("GET", "/domains", { key: null, headers: { authorization: `bearer ${svc.adminKey}` } });
    expect(res.status).toBe(200);
  });

  test("a revoked key: 401 from then on", async () => {
    const secret = await svc.keyWith("domains:read");
    expect((await svc.call("GET", "/domains", { key: secret })).status).toBe(200);
    const id = (await svc.runtime.keys.list()).find((k) => secret.startsWith(k.prefix) && k.name === "test-domains:read")!.id;
    await svc.runtime.keys.revoke(id);
    const res = await svc.call("GET", "/domains", { key: secret });
    expect(expectErrorEnvelope(res, 401, "unauthorized").message).toContain("revoked");
  });

  test("the secret is stored only as its SHA-256", async () => {
    const secret = await svc.keyWith("admin");
    const rows = svc.runtime.store.sqlite!.query<{ hash: string }, []>("SELECT hash FROM api_keys").all();
    const digest = new Bun.CryptoHasher("sha256").update(secret).digest("hex");
    expect(rows.map((r) => r.hash)).toContain(digest);
    const dump = JSON.stringify(svc.runtime.store.sqlite!.query("SELECT * FROM api_keys").all());
    expect(dump).not.toContain(secret);
  });
});

describe("scopes", () => {
  test("domains:read may list but not create: 403", async () => {
    const reader = await svc.keyWith("domains:read");
    expect((await svc.call("GET", "/domains", { key: reader })).status).toBe(200);
    const res = await svc.call("POST", "/domains", { key: reader, body: { name: "scoped.example" } });
    expect(expectErrorEnvelope(res, 403, "forbidden").message).toContain("domains:write");
  });

  test("a key without domain scopes: 403 on every domain route", async () => {
    const other = await svc.keyWith("crawls:read", "webhooks:write");
    for (const [method, path] of [
      ["GET", "/domains"],
      ["POST", "/domains"],
      ["GET", "/domains/0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f"],
      ["DELETE", "/domains/0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f"],
    ] as const) {
      expectErrorEnvelope(await svc.call(method, path, { key: other }), 403, "forbidden");
    }
  });

  test("admin implies every scope", async () => {
    const res = await svc.call("POST", "/domains", { body: { name: "admin-scope.example" } });
    expect(res.status).toBe(201);
  });

  test("missing credentials are reported before a bad id or body", async () => {
    expectErrorEnvelope(await svc.call("GET", "/domains/not-a-uuid", { key: null }), 401, "unauthorized");
    expectErrorEnvelope(await svc.call("POST", "/domains", { key: null, rawBody: "{", headers: { "content-type": "application/json" } }), 401, "unauthorized");
  });
});
