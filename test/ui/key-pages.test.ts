import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";
import { signedInClient, type DashboardClient } from "./dashboard-client.ts";

/**
 * API keys in the dashboard, admins only: the list (never a secret), a key created with chosen scopes whose
 * secret is shown once and works on the API within those scopes, a revoke behind a confirmation page after which
 * the key gets 401; any other key gets 403 pages and no link to them. `linkpatrol keys` uses the same service.
 */

let svc: TestService;
let admin: DashboardClient;

beforeAll(async () => {
  svc = await startTestService();
  admin = await signedInClient(svc);
});
afterAll(() => svc?.stop());

describe("API keys in the dashboard", () => {
  let keyId = "";
  let secret = "";

  test("an admin sees every key with its scopes, creation and last use, and never a secret or hash", async () => {
    const page = await admin.get("/ui/keys");
    expect(page.status).toBe(200);
    expect(page.html).toContain('<a href="/ui/keys">API keys</a>');
    const listed = await svc.runtime.keys.list();
    for (const key of listed) expect(page.html).toContain(`lp_${key.prefix}…`);
    expect(page.html).toContain("you are signed in with it");
    expect(page.html).not.toMatch(/lp_[A-Za-z0-9]{30,}/);
    expect(page.html).not.toMatch(/[0-9a-f]{64}/);
  });

  test("a key created with chosen scopes is shown once, and works on the API within them", async () => {
    const created = await admin.post("/ui/keys", { name: `ci <script>alert("k")</script>`, scopes: ["crawls:read", "domains:read"] });
    expect(created.status).toBe(201);
    secret = /id="new-key-secret">(lp_[A-Za-z0-9]+)</.exec(created.html)?.[1] ?? "";
    expect(secret).toMatch(/^lp_[A-Za-z0-9]{40}$/);
    expect(created.html).toContain("shown only this once");
    expect(created.html).toContain("ci &lt;script&gt;alert(&quot;k&quot;)&lt;/script&gt;");
    expect(created.html).not.toContain("<script>alert");
    keyId = (await svc.runtime.keys.list()).find((key) => key.name.startsWith("ci "))!.id;
    expect((await svc.runtime.keys.list()).find((key) => key.id === keyId)!.scopes).toEqual(["crawls:read", "domains:read"]);
    expect((await svc.call("GET", "/crawls", { key: secret })).status).toBe(200);
    expectErrorEnvelope(await svc.call("POST", "/domains", { key: secret, body: { name: "nope.example" } }), 403, "forbidden");
    // Shown once: the list afterwards has its prefix, not the key.
    expect((await admin.get("/ui/keys")).html).not.toContain(secret);
  });

  test("a key without a scope is refused with the name and the ticks kept", async () => {
    const refused = await admin.post("/ui/keys", { name: "no scopes" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("The key was not created.");
    expect(refused.html).toContain("<li>Scopes: no scope given");
    expect(refused.html).toMatch(/id="key-name"[^>]*value="no scopes"/);
    const kept = await admin.post("/ui/keys", { name: "", scopes: ["webhooks:read"] });
    expect(kept.status).toBe(400);
    expect(kept.html).toMatch(/id="scope-webhooks:read"[^>]*checked/);
  });

  test("revoke asks on a page of its own; then the key gets 401 on the API", async () => {
    const ask = await admin.get(`/ui/keys/${keyId}/revoke`);
    expect(ask.status).toBe(200);
    expect(ask.html).toContain("Revoke the key ci &lt;script&gt;");
    expect(ask.html).not.toContain("signs you out");
    expect((await svc.runtime.keys.list()).find((key) => key.id === keyId)!.revoked_at).toBeNull();
    const revoked = await admin.post(`/ui/keys/${keyId}/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe("/ui/keys?notice=revoked");
    expectErrorEnvelope(await svc.call("GET", "/crawls", { key: secret }), 401, "unauthorized");
    expect((await admin.get("/ui/keys")).html).toContain('<span class="badge bad">revoked</span>');
  });

  test("a session without admin gets 403 on every key page and action, and no link to them", async () => {
    const other = await signedInClient(
      svc,
      await svc.keyWith("domains:read", "domains:write", "crawls:read", "crawls:write", "webhooks:read", "webhooks:write"),
    );
    const overview = await other.get("/");
    expect(overview.html).not.toContain('href="/ui/keys"');
    const target = (await svc.runtime.keys.list())[0]!.id;
    const answers = [
      await other.get("/ui/keys"),
      await other.post("/ui/keys", { name: "sneaky", scopes: ["admin"] }),
      await other.get(`/ui/keys/${target}/revoke`),
      await other.post(`/ui/keys/${target}/revoke`),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.html).toContain("Not allowed");
    }
    expect((await svc.runtime.keys.list()).some((key) => key.name === "sneaky")).toBe(false);
    expect((await svc.runtime.keys.list()).find((key) => key.id === target)!.revoked_at).toBeNull();
  });

  test("revoking the key you are signed in with warns first, then signs you out", async () => {
    const ownSecret = (await svc.runtime.keys.create("second admin", ["admin"])).secret;
    const own = await signedInClient(svc, ownSecret);
    const ownId = (await svc.runtime.keys.list()).find((key) => key.name === "second admin")!.id;
    expect((await own.get(`/ui/keys/${ownId}/revoke`)).html).toContain("revoking it signs you out");
    await own.post(`/ui/keys/${ownId}/revoke`);
    const after = await own.get("/ui/keys");
    expect(after.status).toBe(303);
    expect(after.location).toContain("/ui/sign-in");
  });
});
