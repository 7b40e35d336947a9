import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * GET /crawls: newest first, filters by domain and status, true totals past the end. Three domains on loopback
 * sites that hold every answer until the suite ends, five crawls, two of them cancelled: the cancelled ones are
 * the only `failed` crawls whether or not the crawl engine has picked the others up.
 */

const UNKNOWN_ID = "0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f";
const HOLD_MS = 30_000;

let svc: TestService;
const sites: LoopbackSite[] = [];
let release: () => void;
const released = new Promise<void>((resolve) => {
  release = resolve;
});
const holdLimit = setTimeout(() => release(), HOLD_MS);

const domain: Record<"a" | "b" | "c" | "idle", { id: string; name: string }> = {} as never;
/** Crawl ids in creation order: a1, b1 (both cancelled), a2, c1, b2. */
const crawl: Record<"a1" | "b1" | "a2" | "c1" | "b2", string> = {} as never;

async function heldDomain(): Promise<{ id: string; name: string }> {
  const hold = async () => {
    await released;
    return new Response("<html></html>", { headers: { "content-type": "text/html" } });
  };
  const site = await startLoopbackSite({}, { fallback: hold });
  sites.push(site);
  return svc.runtime.domains.add({ name: site.host, root_url: site.url("/") }, true);
}

async function start(domainId: string): Promise<string> {
  const res = await svc.call("POST", "/crawls", { body: { domain_id: domainId } });
  if (res.status !== 201) throw new Error(`POST /crawls: ${res.status} ${res.text}`);
  return res.json.data.id;
}

async function cancel(id: string): Promise<void> {
  const res = await svc.call("POST", `/crawls/${id}/cancel`);
  if (res.status !== 200) throw new Error(`cancel ${id}: ${res.status} ${res.text}`);
}

async function ids(query: string): Promise<{ ids: string[]; meta: unknown }> {
  const res = await svc.call("GET", `/crawls${query}`);
  if (res.status !== 200) throw new Error(`GET /crawls${query}: ${res.status} ${res.text}`);
  return { ids: res.json.data.map((c: { id: string }) => c.id), meta: res.json.meta };
}

beforeAll(async () => {
  svc = await startTestService({ crawler: { connect_timeout: "60s", header_timeout: "60s", body_timeout: "60s" } });
  domain.a = await heldDomain();
  domain.b = await heldDomain();
  domain.c = await heldDomain();
  domain.idle = await heldDomain();
  crawl.a1 = await start(domain.a.id);
  await cancel(crawl.a1);
  crawl.b1 = await start(domain.b.id);
  await cancel(crawl.b1);
  crawl.a2 = await start(domain.a.id);
  crawl.c1 = await start(domain.c.id);
  crawl.b2 = await start(domain.b.id);
});
afterAll(async () => {
  clearTimeout(holdLimit);
  release();
  await svc.stop();
  for (const site of sites) await site.stop();
});

describe("GET /crawls", () => {
  test("every crawl, newest first, with the default page", async () => {
    expect(await ids("")).toEqual({ ids: [crawl.b2, crawl.c1, crawl.a2, crawl.b1, crawl.a1], meta: { page: 1, limit: 20, total: 5 } });
  });

  test("summaries carry the spec's fields with their types, plus domain_id and created_at", async () => {
    const res = await svc.call("GET", "/crawls");
    for (const item of res.json.data) {
      expect(Object.keys(item).sort()).toEqual([
        "broken_links",
        "completed_at",
        "created_at",
        "domain_id",
        "domain_name",
        "failure",
        "id",
        "status",
        "total_links",
      ]);
      expect(["pending", "running", "completed", "failed"]).toContain(item.status);
      expect(Number.isInteger(item.total_links) && Number.isInteger(item.broken_links)).toBe(true);
      expect(item.completed_at === null || typeof item.completed_at === "string").toBe(true);
    }
    const cancelled = res.json.data.find((c: { id: string }) => c.id === crawl.a1);
    expect(cancelled).toMatchObject({ domain_id: domain.a.id, domain_name: domain.a.name, status: "failed", completed_at: expect.any(String) });
    const createdAt = res.json.data.map((c: { created_at: string }) => c.created_at);
    expect([...createdAt].sort().reverse()).toEqual(createdAt);
  });

  test("pages are stable slices of the same order; past the end: data [] with the true total", async () => {
    expect(await ids("?limit=2")).toEqual({ ids: [crawl.b2, crawl.c1], meta: { page: 1, limit: 2, total: 5 } });
    expect(await ids("?limit=2&page=2")).toEqual({ ids: [crawl.a2, crawl.b1], meta: { page: 2, limit: 2, total: 5 } });
    expect(await ids("?limit=2&page=3")).toEqual({ ids: [crawl.a1], meta: { page: 3, limit: 2, total: 5 } });
    expect(await ids("?limit=2&page=4")).toEqual({ ids: [], meta: { page: 4, limit: 2, total: 5 } });
    expect(await ids("?page=99&limit=100")).toEqual({ ids: [], meta: { page: 99, limit: 100, total: 5 } });
  });

  test("domain_id keeps one domain's crawls; total counts only those", async () => {
    expect(await ids(`?domain_id=${domain.a.id}`)).toEqual({ ids: [crawl.a2, crawl.a1], meta: { page: 1, limit: 20, total: 2 } });
    expect(await ids(`?domain_id=${domain.b.id}&limit=1&page=2`)).toEqual({ ids: [crawl.b1], meta: { page: 2, limit: 1, total: 2 } });
    expect((await ids(`?domain_id=${domain.c.id.toUpperCase()}`)).ids).toEqual([crawl.c1]);
  });

  test("a domain without crawls, or no such domain: data [] and total 0", async () => {
    expect(await ids(`?domain_id=${domain.idle.id}`)).toEqual({ ids: [], meta: { page: 1, limit: 20, total: 0 } });
    expect(await ids(`?domain_id=${UNKNOWN_ID}`)).toEqual({ ids: [], meta: { page: 1, limit: 20, total: 0 } });
  });

  test("status keeps crawls in that state; combinable with domain_id", async () => {
    expect(await ids("?status=failed")).toEqual({ ids: [crawl.b1, crawl.a1], meta: { page: 1, limit: 20, total: 2 } });
    expect(await ids(`?status=failed&domain_id=${domain.b.id}`)).toEqual({ ids: [crawl.b1], meta: { page: 1, limit: 20, total: 1 } });
    expect(await ids(`?status=failed&domain_id=${domain.c.id}`)).toEqual({ ids: [], meta: { page: 1, limit: 20, total: 0 } });
    expect(await ids("?status=failed&limit=1&page=3")).toEqual({ ids: [], meta: { page: 3, limit: 1, total: 2 } });
  });

  test("the in-progress crawls are the rest: pending and running together make up the other three", async () => {
    const pending = await ids("?status=pending");
    const running = await ids("?status=running");
    // A crawl may move from pending to running between the two reads; never to failed (its site holds).
    expect(new Set([...pending.ids, ...running.ids])).toEqual(new Set([crawl.b2, crawl.c1, crawl.a2]));
  });
});
