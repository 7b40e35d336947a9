import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DashboardClient, signedInClient } from "./dashboard-client.ts";
import { startDashboardFixture, type DashboardFixture } from "./fixture.ts";

/** What a session may do: scopes as in the API, a CSRF token on every change, and nothing at all on /v1. */

let fx: DashboardFixture;
beforeAll(async () => {
  fx = await startDashboardFixture();
}, 30_000); // a crawl of the loopback site and its webhook deliveries
afterAll(() => fx.stop());

function pages() {
  return ["/", `/ui/domains/${fx.domainId}`, `/ui/crawls/${fx.crawlId}`, `/ui/crawls/${fx.crawlId}/changes`, "/ui/webhooks", `/ui/webhooks/${fx.webhookId}`];
}

function changes(deliveryId: string) {
  return [
    ["/ui/domains", { name: "readonly.example" }],
    [`/ui/domains/${fx.domainId}/verify`, {}],
    [`/ui/domains/${fx.domainId}/schedule`, { cron: "0 3 * * *", timezone: "", action: "set" }],
    [`/ui/domains/${fx.domainId}/options`, { scan_images: "on" }],
    [`/ui/domains/${fx.domainId}/root`, { root_url: fx.site.url("/a") }],
    [`/ui/domains/${fx.domainId}/rules`, { exclude: "/a" }],
    [`/ui/domains/${fx.domainId}/delete`, {}],
    [`/ui/domains/${fx.domainId}/crawls`, {}],
    [`/ui/crawls/${fx.crawlId}/cancel`, {}],
    ["/ui/webhooks", { url: fx.receiver.url("/hook") }],
    [`/ui/webhooks/${fx.webhookId}/test`, {}],
    [`/ui/webhooks/${fx.webhookId}/deliveries/${deliveryId}/redeliver`, {}],
    [`/ui/webhooks/${fx.webhookId}/delete`, {}],
  ] as const;
}

async function anyDeliveryId(): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const items = (await fx.svc.runtime.webhooks.deliveries(fx.webhookId, 1, 1)).items;
    if (items.length > 0 && items[0]!.state !== "pending") return items[0]!.id;
    await Bun.sleep(50);
  }
  throw new Error("no ended delivery within 10 s");
}

describe("a read-only key", () => {
  test("sees every page and no form that changes anything", async () => {
    const key = await fx.svc.keyWith("domains:read", "crawls:read", "webhooks:read");
    const client = await signedInClient(fx.svc, key);
    for (const path of pages()) {
      const page = await client.get(path);
      expect(page.status, path).toBe(200);
      const forms = [...page.html.matchAll(/<form[^>]*method="post"[^>]*action="([^"]+)"/g)].map((m) => m[1]);
      expect(forms, path).toEqual(["/ui/sign-out"]);
    }
  });

  test("gets 403 on every change, and nothing changes", async () => {
    const deliveryId = await anyDeliveryId();
    const key = await fx.svc.keyWith("domains:read", "crawls:read", "webhooks:read");
    const client = await signedInClient(fx.svc, key);
    const before = { domains: (await fx.svc.runtime.domains.list(1, 100)).total, webhooks: (await fx.svc.runtime.webhooks.list()).total };
    for (const [path, form] of changes(deliveryId)) {
      const answer = await client.post(path, form);
      expect(answer.status, path).toBe(403);
      expect(answer.html, path).toContain("lacks the");
    }
    expect((await fx.svc.runtime.domains.list(1, 100)).total).toBe(before.domains);
    expect((await fx.svc.runtime.webhooks.list()).total).toBe(before.webhooks);
    expect(await fx.svc.runtime.domains.get(fx.domainId)).toMatchObject({
      schedule: null,
      root_url: fx.site.url("/"),
      ignore_rules: { exclude: [], mute: [] },
    });
  });

  test("a key without domains:read is refused the overview with 403", async () => {
    const client = await new DashboardClient(fx.svc.origin);
    await client.signIn(await fx.svc.keyWith("webhooks:read"));
    expect((await client.get("/")).status).toBe(403);
    expect((await client.get("/ui/webhooks")).status).toBe(200);
  });
});

describe("CSRF", () => {
  test("a change without this session's form token is refused with 403", async () => {
    const client = await signedInClient(fx.svc);
    const other = await signedInClient(fx.svc);
    for (const token of [null, "", "wrong", other.csrf!]) {
      const answer = await client.post("/ui/domains", { name: "csrf.example", _csrf: token });
      expect(answer.status).toBe(403);
      expect(answer.html).toContain("CSRF");
    }
    const crossOrigin = await client.post("/ui/domains", { name: "csrf.example" }, { origin: "https://evil.example" });
    expect(crossOrigin.status).toBe(403);
    // Even with the right token: the browser says the form was sent from another site.
    const crossSite = await client.post("/ui/domains", { name: "csrf.example" }, { origin: "null", "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(await fx.svc.runtime.domains.findByName("csrf.example")).toBeUndefined();
    // Under Referrer-Policy no-referrer a same-origin form is sent with "Origin: null": the token decides.
    const good = await client.post("/ui/domains", { name: "csrf.example" }, { origin: "null", "sec-fetch-site": "same-origin" });
    expect(good.status).toBe(303);
    expect(await fx.svc.runtime.domains.findByName("csrf.example")).toBeDefined();
  });

  test("sign-out needs the token too", async () => {
    const client = await signedInClient(fx.svc);
    expect((await client.post("/ui/sign-out", { _csrf: "wrong" })).status).toBe(403);
    expect((await client.get("/")).status).toBe(200);
  });
});

describe("the session cookie and the API", () => {
  test("never authenticates a request under /v1", async () => {
    const client = await signedInClient(fx.svc);
    const cookie = `lp_session=${client.cookies.get("lp_session")}`;
    for (const [method, path] of [
      ["GET", "/v1/domains"],
      ["GET", `/v1/crawls/${fx.crawlId}`],
      ["GET", "/v1/webhooks"],
      ["POST", "/v1/crawls"],
    ] as const) {
      const res = await fetch(`${fx.svc.origin}${path}`, {
        method,
        headers: { cookie, "content-type": "application/json", origin: fx.svc.origin },
        body: method === "POST" ? JSON.stringify({ domain_id: fx.domainId }) : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect((await res.json()).error.code).toBe("unauthorized");
    }
  });
});
