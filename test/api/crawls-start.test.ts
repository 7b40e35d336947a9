import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";
import { forEachStore } from "../helpers/stores.ts";

/**
 * POST /crawls, GET /crawls/{id} and POST /crawls/{id}/cancel. The domains point at a loopback site that holds
 * every answer until the suite ends, so a crawl started here stays in progress (pending, or running once the
 * crawl engine picks it up) for as long as a test needs it; no assertion depends on which of the two it is.
 */

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_ID = "0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f";
const NO_OPTIONS = {
  scan_images: false,
  scan_scripts: false,
  scan_stylesheets: false,
  follow_external: false,
  scan_media: false,
  check_fragments: false,
  use_sitemap: false,
  soft_404_broken: false,
};
/** Upper bound on how long the site holds an answer, in case a test fails before release. */
const HOLD_MS = 30_000;

forEachStore("crawls: start, show, cancel", (store) => {
  let svc: TestService;
  const sites: LoopbackSite[] = [];
  let release: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holdLimit: ReturnType<typeof setTimeout> | undefined;

  /** A site on 127.0.0.1 whose every answer waits for the end of the suite. */
  async function heldSite(): Promise<LoopbackSite> {
    const site = await startLoopbackSite(
      {},
      {
        fallback: async () => {
          await released;
          return new Response("<html><body>late</body></html>", { headers: { "content-type": "text/html" } });
        },
      },
    );
    sites.push(site);
    return site;
  }

  /** A verified domain on a fresh held site. */
  async function verifiedDomain(): Promise<{ id: string; name: string }> {
    const site = await heldSite();
    return svc.runtime.domains.add({ name: site.host, root_url: site.url("/") }, true);
  }

  async function start(domainId: string, options?: Record<string, boolean>) {
    const res = await svc.call("POST", "/crawls", { body: options === undefined ? { domain_id: domainId } : { domain_id: domainId, options } });
    if (res.status !== 201) throw new Error(`POST /crawls: ${res.status} ${res.text}`);
    return res;
  }

  beforeAll(async () => {
    holdLimit = setTimeout(() => release(), HOLD_MS);
    // Long crawler timeouts: a held answer must not end a crawl while a test still relies on it being in progress.
    svc = await startTestService({ crawler: { connect_timeout: "60s", header_timeout: "60s", body_timeout: "60s" } }, { store });
  });
  afterAll(async () => {
    clearTimeout(holdLimit);
    release();
    await svc.stop();
    for (const site of sites) await site.stop();
  });

  describe("POST /crawls", () => {
    test("201 {data: Crawl}: pending, the spec's default options, Location of the new crawl", async () => {
      const domain = await verifiedDomain();
      const before = Date.now();
      const res = await start(domain.id);
      const crawl = res.json.data;
      expect(crawl).toEqual({
        id: expect.stringMatching(UUID_V7),
        domain_id: domain.id,
        status: "pending",
        options: NO_OPTIONS,
        trigger: "api",
        created_at: expect.any(String),
      });
      expect(new Date(crawl.created_at).toISOString()).toBe(crawl.created_at);
      expect(Date.parse(crawl.created_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(res.headers.get("location")).toBe(`/v1/crawls/${crawl.id}`);
      expect(res.headers.get("content-type")).toContain("application/json");
    });

    test("the Location answers with the crawl's details", async () => {
      const domain = await verifiedDomain();
      const res = await start(domain.id);
      const detail = await fetch(`${svc.origin}${res.headers.get("location")}`, {
        headers: { authorization: `Bearer ${svc.adminKey}` },
        signal: AbortSignal.timeout(15_000),
      });
      expect(detail.status).toBe(200);
      expect(((await detail.json()) as { data: { id: string } }).data.id).toBe(res.json.data.id);
    });

    test("options given are kept; flags left out are false", async () => {
      const domain = await verifiedDomain();
      const res = await start(domain.id, { scan_images: true, follow_external: true });
      expect(res.json.data.options).toEqual({ ...NO_OPTIONS, scan_images: true, follow_external: true });
      const detail = await svc.call("GET", `/crawls/${res.json.data.id}`);
      expect(detail.json.data.options).toEqual(res.json.data.options);
    });

    test("full: a boolean beside options, kept with the crawl and not shown among its options", async () => {
      const domain = await verifiedDomain();
      const wrong = expectErrorEnvelope(await svc.call("POST", "/crawls", { body: { domain_id: domain.id, full: "yes" } }), 400, "invalid_request");
      expect(wrong.details?.[0]?.field).toBe("full");
      const res = await svc.call("POST", "/crawls", { body: { domain_id: domain.id, full: true } });
      expect(res.status).toBe(201);
      expect(res.json.data.options).toEqual(NO_OPTIONS);
      expect(await svc.runtime.store.db.get<{ options: string }>("SELECT options FROM crawls WHERE id = $id", { id: res.json.data.id })).toEqual({
        options: JSON.stringify({ ...NO_OPTIONS, full: true }),
      });
    });

    test("an empty options object means the defaults", async () => {
      const domain = await verifiedDomain();
      expect((await start(domain.id, {})).json.data.options).toEqual(NO_OPTIONS);
    });

    test("a domain_id in upper case names the same domain", async () => {
      const domain = await verifiedDomain();
      const res = await start(domain.id.toUpperCase());
      expect(res.json.data.domain_id).toBe(domain.id);
    });

    test("a domain with a crawl in progress: 409 crawl_in_progress naming that crawl", async () => {
      const domain = await verifiedDomain();
      const first = (await start(domain.id)).json.data;
      const res = await svc.call("POST", "/crawls", { body: { domain_id: domain.id } });
      const error = expectErrorEnvelope(res, 409, "crawl_in_progress");
      expect(error.details).toEqual([{ field: "domain_id", crawl_id: first.id }]);
      expect(error.message).toContain(first.id);
      // Other domains are not held up by it.
      const other = await verifiedDomain();
      expect((await svc.call("POST", "/crawls", { body: { domain_id: other.id } })).status).toBe(201);
    });

    test("an unknown domain: 404 not_found", async () => {
      expectErrorEnvelope(await svc.call("POST", "/crawls", { body: { domain_id: UNKNOWN_ID } }), 404, "not_found");
    });

    test("an unverified domain: 422 domain_not_verified, and no crawl is created", async () => {
      const site = await heldSite();
      const domain = await svc.runtime.domains.add({ name: site.host, root_url: site.url("/") });
      const error = expectErrorEnvelope(await svc.call("POST", "/crawls", { body: { domain_id: domain.id } }), 422, "domain_not_verified");
      expect(error.details?.[0]?.field).toBe("domain_id");
      const list = await svc.call("GET", `/crawls?domain_id=${domain.id}`);
      expect(list.json).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0 } });
    });
  });

  describe("GET /crawls/{id}", () => {
    test("the spec's detail fields with their types, plus the extras", async () => {
      const domain = await verifiedDomain();
      const crawl = (await start(domain.id, { scan_scripts: true })).json.data;
      const res = await svc.call("GET", `/crawls/${crawl.id}`);
      expect(res.status).toBe(200);
      const d = res.json.data;
      expect(Object.keys(d).sort()).toEqual(
        [
          "id",
          "domain_id",
          "domain_name",
          "status",
          "options",
          "total_links",
          "broken_links",
          "pages_crawled",
          "skipped_links",
          "excluded_links",
          "truncated",
          "error",
          "created_at",
          "started_at",
          "completed_at",
          "new_broken_links",
          "trigger",
          "pages_cut",
          "failure",
          "warnings",
          "warning_causes",
          "sitemap_urls",
          "orphan_pages",
          "waiting_reason",
          "node",
          "progress",
          "pages_reused",
        ].sort(),
      );
      // One node per store on the appliance; a crawl of a single PostgreSQL service runs under its lease.
      expect(d.node === null || typeof d.node === "string").toBe(true);
      expect(d).toMatchObject({ id: crawl.id, domain_id: domain.id, domain_name: domain.name, options: crawl.options, created_at: crawl.created_at });
      expect(["pending", "running", "completed", "failed"]).toContain(d.status);
      for (const field of ["total_links", "broken_links", "pages_crawled", "skipped_links", "excluded_links", "pages_cut", "pages_reused"])
        expect(Number.isInteger(d[field])).toBe(true);
      expect(Array.isArray(d.warnings) && d.warnings.every((w: unknown) => typeof w === "string")).toBe(true);
      expect(Array.isArray(d.warning_causes) && d.warning_causes.length === d.warnings.length).toBe(true);
      expect(typeof d.truncated).toBe("boolean");
      for (const field of ["started_at", "completed_at", "error", "failure", "waiting_reason"])
        expect(d[field] === null || typeof d[field] === "string").toBe(true);
      // Without use_sitemap no sitemap is read.
      expect(d).toMatchObject({ sitemap_urls: null, orphan_pages: null });
    });

    test("an id in upper case finds the crawl", async () => {
      const domain = await verifiedDomain();
      const crawl = (await start(domain.id)).json.data;
      const res = await svc.call("GET", `/crawls/${crawl.id.toUpperCase()}`);
      expect(res.status).toBe(200);
      expect(res.json.data.id).toBe(crawl.id);
    });
  });

  describe("POST /crawls/{id}/cancel", () => {
    test('200: the crawl ends failed with error "cancelled"; a second cancel is 409 conflict', async () => {
      const domain = await verifiedDomain();
      const crawl = (await start(domain.id)).json.data;
      const res = await svc.call("POST", `/crawls/${crawl.id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.json.data).toMatchObject({ id: crawl.id, domain_id: domain.id, status: "failed", error: "cancelled" });
      expect(new Date(res.json.data.completed_at).toISOString()).toBe(res.json.data.completed_at);

      const again = await svc.call("POST", `/crawls/${crawl.id}/cancel`);
      const error = expectErrorEnvelope(again, 409, "conflict");
      expect(error.details).toEqual([{ field: "id", status: "failed" }]);

      // The crawl stays cancelled (the engine does not overwrite it) and the domain may be crawled again.
      const detail = await svc.call("GET", `/crawls/${crawl.id}`);
      expect(detail.json.data).toMatchObject({ status: "failed", error: "cancelled" });
      const next = await svc.call("POST", "/crawls", { body: { domain_id: domain.id } });
      expect(next.status).toBe(201);
      expect(next.json.data.id).not.toBe(crawl.id);
    });

    test("tolerates an empty JSON object or an empty body with a JSON content type", async () => {
      const domain = await verifiedDomain();
      const first = (await start(domain.id)).json.data;
      const withObject = await svc.call("POST", `/crawls/${first.id}/cancel`, { body: {} });
      expect(withObject.json.data).toMatchObject({ status: "failed", error: "cancelled" });
      const second = (await start(domain.id)).json.data;
      const withEmpty = await svc.call("POST", `/crawls/${second.id}/cancel`, { rawBody: "", headers: { "content-type": "application/json" } });
      expect(withEmpty.status).toBe(200);
      expect(withEmpty.json.data.status).toBe("failed");
    });

    test("an upper-case id cancels the crawl", async () => {
      const domain = await verifiedDomain();
      const crawl = (await start(domain.id)).json.data;
      const res = await svc.call("POST", `/crawls/${crawl.id.toUpperCase()}/cancel`);
      expect(res.status).toBe(200);
      expect(res.json.data.id).toBe(crawl.id);
    });

    test("a cancelled crawl's links stay readable", async () => {
      const domain = await verifiedDomain();
      const crawl = (await start(domain.id)).json.data;
      await svc.call("POST", `/crawls/${crawl.id}/cancel`);
      const links = await svc.call("GET", `/crawls/${crawl.id}/links`);
      expect(links.status).toBe(200);
      expect(links.json.meta).toEqual({ page: 1, limit: 20, total: links.json.data.length });
      const broken = await svc.call("GET", `/crawls/${crawl.id}/broken`);
      expect(broken.status).toBe(200);
      expect(broken.json.meta).toEqual({ page: 1, limit: 20, total_broken: broken.json.data.length });
    });
  });
});
