import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { startTestService, type TestService } from "../helpers/service.ts";
import { SessionCodec, SESSION_TTL_MS } from "../../src/ui/session.ts";
import { DashboardClient, signedInClient } from "./dashboard-client.ts";

/** Dashboard sessions over a real socket: sign-in, the cookie's attributes, expiry, sign-out, revocation. */

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

/** The codec the service signs with: the key file beside the store. */
function serviceCodec(): SessionCodec {
  return new SessionCodec(Buffer.from(readFileSync(`${svc.config.storage.path}.session-key`, "utf8").trim(), "base64url"));
}

describe("dashboard sign-in", () => {
  test("a signed-out visitor is sent to the sign-in page, which says how to get a key", async () => {
    const client = new DashboardClient(svc.origin);
    const overview = await client.get("/");
    expect(overview.status).toBe(303);
    expect(overview.location).toBe("/ui/sign-in?next=%2F");
    const form = await client.get("/ui/sign-in");
    expect(form.status).toBe(200);
    expect(form.html).toContain("API key");
    expect(form.html).toContain('type="password"');
  });

  test("a good key sets an HttpOnly, SameSite=Strict, Path=/ session cookie that expires in 12 hours", async () => {
    const client = new DashboardClient(svc.origin);
    const answer = await client.signIn(svc.adminKey);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe("/");
    const cookie = answer.headers.getSetCookie().find((line) => line.startsWith("lp_session="))!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/;");
    expect(cookie).not.toContain("Secure");
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)![1]);
    expect(Math.abs(maxAge - SESSION_TTL_MS / 1000)).toBeLessThan(5);
    expect(cookie).not.toContain(svc.adminKey);
    const overview = await client.get("/");
    expect(overview.status).toBe(200);
    expect(overview.html).toContain("<h1>Overview</h1>");
  });

  test("behind an HTTPS proxy the cookie is Secure", async () => {
    const client = new DashboardClient(svc.origin);
    const form = await client.get("/ui/sign-in", { "x-forwarded-proto": "https" });
    const token = /name="_token" value="([^"]+)"/.exec(form.html)![1]!;
    const answer = await client.post("/ui/sign-in", { _token: token, key: svc.adminKey, _csrf: null }, { "x-forwarded-proto": "https" });
    expect(answer.status).toBe(303);
    expect(answer.headers.getSetCookie().find((line) => line.startsWith("lp_session="))).toContain("Secure");
  });

  test("a wrong, malformed or revoked key is refused with 401 and no session", async () => {
    const revoked = await svc.runtime.keys.create("gone", ["admin"]);
    await svc.runtime.keys.revoke(revoked.key.id);
    for (const key of [`lp_${"x".repeat(40)}`, "not a key", "", revoked.secret]) {
      const client = new DashboardClient(svc.origin);
      const answer = await client.signIn(key);
      expect(answer.status).toBe(401);
      expect(answer.html).toContain("Sign-in refused");
      expect(client.cookies.has("lp_session")).toBe(false);
    }
  });

  test("a sign-in form without its nonce cookie, or posted from another origin, is refused", async () => {
    const client = new DashboardClient(svc.origin);
    const form = await client.get("/ui/sign-in");
    const token = /name="_token" value="([^"]+)"/.exec(form.html)![1]!;
    client.cookies.delete("lp_sign_in");
    const answer = await client.post("/ui/sign-in", { _token: token, key: svc.adminKey, _csrf: null });
    expect(answer.status).toBe(403);
    expect(client.cookies.has("lp_session")).toBe(false);
    const other = new DashboardClient(svc.origin);
    const page = await other.get("/ui/sign-in");
    const t = /name="_token" value="([^"]+)"/.exec(page.html)![1]!;
    const forged = await other.post("/ui/sign-in", { _token: t, key: svc.adminKey, _csrf: null }, { origin: "https://evil.example" });
    expect(forged.status).toBe(403);
  });

  test("sign-in only returns to a local path", async () => {
    const client = new DashboardClient(svc.origin);
    const form = await client.get("/ui/sign-in?next=//evil.example/");
    const token = /name="_token" value="([^"]+)"/.exec(form.html)![1]!;
    const answer = await client.post("/ui/sign-in", { _token: token, key: svc.adminKey, next: "//evil.example/", _csrf: null });
    expect(answer.location).toBe("/");
  });
});

describe("dashboard sessions", () => {
  test("an expired or tampered cookie is a signed-out visitor", async () => {
    const codec = serviceCodec();
    const keyId = (await svc.runtime.keys.list()).find((k) => k.name === "test-admin")!.id;
    const expired = codec.issue(keyId, Date.now() - SESSION_TTL_MS - 1_000).token;
    const valid = codec.issue(keyId).token;
    const tampered = valid.replace(/\.(\d+)\./, (_, expiry) => `.${Number(expiry) + 1}.`);
    const forged = new SessionCodec(new Uint8Array(32)).issue(keyId).token;
    for (const token of [expired, tampered, forged, "garbage"]) {
      const client = new DashboardClient(svc.origin);
      client.cookies.set("lp_session", token);
      const answer = await client.get("/");
      expect(answer.status).toBe(303);
      expect(answer.location).toStartWith("/ui/sign-in");
      expect(answer.headers.getSetCookie().join("\n")).toContain("lp_session=;");
    }
    const client = new DashboardClient(svc.origin);
    client.cookies.set("lp_session", valid);
    expect((await client.get("/")).status).toBe(200);
  });

  test("sign-out clears the cookie, and the old cookie no longer works", async () => {
    const client = await signedInClient(svc);
    const token = client.cookies.get("lp_session")!;
    const answer = await client.post("/ui/sign-out");
    expect(answer.status).toBe(303);
    expect(answer.location).toBe("/ui/sign-in");
    expect(client.cookies.has("lp_session")).toBe(false);
    const replay = new DashboardClient(svc.origin);
    replay.cookies.set("lp_session", token);
    expect((await replay.get("/")).status).toBe(303);
  });

  test("revoking the key ends its sessions with the next request", async () => {
    const created = await svc.runtime.keys.create("to-revoke", ["admin"]);
    const client = await signedInClient(svc, created.secret);
    expect((await client.get("/")).status).toBe(200);
    await svc.runtime.keys.revoke(created.key.id);
    const after = await client.get("/");
    expect(after.status).toBe(303);
    expect(after.location).toStartWith("/ui/sign-in");
    const post = await client.post("/ui/domains", { name: "example.org" });
    expect(post.status).toBe(303);
    expect(await svc.runtime.domains.findByName("example.org")).toBeUndefined();
  });

  test("the session key lives beside the store, readable by its owner only", async () => {
    const { statSync } = await import("node:fs");
    expect(statSync(`${svc.config.storage.path}.session-key`).mode & 0o777).toBe(0o600);
  });
});
