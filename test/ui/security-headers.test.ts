import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DASHBOARD_CSP } from "../../src/ui/middleware/security-headers.ts";
import { DashboardClient, signedInClient } from "./dashboard-client.ts";
import { startDashboardFixture, type DashboardFixture } from "./fixture.ts";

/** Every dashboard answer (pages, redirects, errors, assets, JSON) carries the CSP and the other headers. */

let fx: DashboardFixture;
beforeAll(async () => {
  fx = await startDashboardFixture();
}, 30_000); // a crawl of the loopback site
afterAll(() => fx.stop());

const EXPECTED_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function expectHeaders(headers: Headers, what: string) {
  expect(headers.get("content-security-policy"), what).toBe(EXPECTED_CSP);
  expect(headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(headers.get("referrer-policy"), what).toBe("no-referrer");
  expect(headers.get("x-frame-options"), what).toBe("DENY");
}

describe("dashboard security headers", () => {
  test("the policy is the documented one", () => {
    expect(DASHBOARD_CSP).toBe(EXPECTED_CSP);
  });

  test("on every page, signed in, with no inline script or style", async () => {
    const client = await signedInClient(fx.svc);
    const paths = [
      "/",
      `/ui/domains/${fx.domainId}`,
      `/ui/domains/${fx.domainId}?cron=*/5+*+*+*+*&timezone=Europe/Berlin`,
      `/ui/crawls/${fx.crawlId}`,
      `/ui/crawls/${fx.crawlId}?status=404&kind=anchor&scope=internal&q=miss`,
      `/ui/crawls/${fx.crawlId}/changes`,
      `/ui/crawls/${fx.crawlId}/progress.json`,
      `/ui/crawls/${fx.crawlId}/report.csv`,
      "/ui/webhooks",
      `/ui/webhooks/${fx.webhookId}`,
    ];
    for (const path of paths) {
      const page = await client.get(path);
      expect(page.status, path).toBe(200);
      expectHeaders(page.headers, path);
      expect(page.headers.get("cache-control"), path).toBe("no-store");
      if (page.headers.get("content-type")?.startsWith("text/html")) {
        expect(page.html, path).not.toMatch(/<script(?![^>]*\bsrc="\/ui\/assets\/)/);
        expect(page.html, path).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
      }
    }
  });

  test("on the sign-in page, redirects, error pages and assets", async () => {
    const anonymous = new DashboardClient(fx.svc.origin);
    const signIn = await anonymous.get("/ui/sign-in");
    expectHeaders(signIn.headers, "sign-in");
    expectHeaders((await anonymous.get("/")).headers, "redirect");
    const client = await signedInClient(fx.svc);
    const missing = await client.get("/ui/crawls/00000000-0000-7000-8000-000000000000");
    expect(missing.status).toBe(404);
    expectHeaders(missing.headers, "404 page");
    expect(missing.html).toContain("Not found");
    const css = /href="(\/ui\/assets\/dashboard\.[0-9a-f]+\.css)"/.exec(signIn.html)![1]!;
    const js = /src="(\/ui\/assets\/dashboard\.[0-9a-f]+\.js)"/.exec(signIn.html)![1]!;
    for (const [path, type] of [
      [css, "text/css"],
      [js, "text/javascript"],
    ] as const) {
      const asset = await anonymous.get(path);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toStartWith(type);
      expect(asset.headers.get("cache-control")).toContain("immutable");
      expectHeaders(asset.headers, path);
    }
  });

  test("the API keeps its own answers: no dashboard headers, no cookie read", async () => {
    const res = await fetch(`${fx.svc.origin}/v1/domains`, { headers: { authorization: `Bearer ${fx.svc.adminKey}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBeNull();
    const health = await fetch(`${fx.svc.origin}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get("content-security-policy")).toBeNull();
  });
});
