import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * What a digest says and who gets one, over a domain's life: a first crawl (every broken link new), a second
 * (one still broken since the first, one fixed, two new), one where nothing changed, a failed one, a completed
 * one after it, and a cancelled one. Three channels want `changed`, `always` and `failure`; a fourth is for
 * another domain only and hears nothing. The digests are read as stored in the outbox: the facts every
 * destination formats.
 */

let svc: TestService;
let site: LoopbackSite;
let other: LoopbackSite;
let domainId = "";
let stage = 1;
let releaseSlow: () => void = () => {};
const channels: Record<string, string> = {};
const crawls: string[] = [];

const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });

/** The digests stored for a channel, oldest first. */
function digestsOf(name: string): any[] {
  return svc.runtime.store.sqlite
    .query<{ payload: string }, [string]>("SELECT payload FROM webhook_deliveries WHERE channel_id = ? ORDER BY created_at, id")
    .all(channels[name]!)
    .map((row) => JSON.parse(row.payload).data);
}

async function crawl(): Promise<any> {
  const id = await startCrawl(svc, domainId);
  crawls.push(id);
  return waitForCrawl(svc, id);
}

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": () => {
      if (stage === 4) return new Response("down for maintenance", { status: 500 });
      const links = ["/a", "/b", "/c", "/d"];
      if (stage >= 2) links.push("/e");
      if (stage === 6) links.push("/slow");
      return html(links.map((href) => `<a href="${href}">link to ${href}</a>`).join(" "));
    },
    "/a": () => html("ok"),
    "/b": () => new Response("gone", { status: 404 }),
    "/c": () => (stage >= 2 ? html("back") : new Response("missing", { status: 404 })),
    "/d": () => (stage >= 2 ? new Response("gone now", { status: 404 }) : html("ok")),
    "/e": () => new Response("error", { status: 500 }),
    "/slow": () => new Promise<Response>((resolve) => (releaseSlow = () => resolve(html("late")))),
  });
  other = await startLoopbackSite({ "/": { body: "<a href='/x'>x</a>" } });
  svc = await startTestService({ notifications: { allow_http: true, allow_private_targets: true } });
  domainId = await verifiedDomain(svc, site.url("/"));
  const otherDomain = await verifiedDomain(svc, other.url("/"));
  // Never reached: deliveries stay pending, which is all this test reads.
  const url = "http://127.0.0.1:9/never";
  for (const when of ["changed", "always", "failure"]) {
    channels[when] = (await svc.call("POST", "/channels", { body: { kind: "slack", name: when, url, notify_when: when } })).json.data.id;
  }
  channels.other = (await svc.call("POST", "/channels", { body: { kind: "slack", name: "other", url, notify_when: "always", domain_ids: [otherDomain] } })).json.data.id;
  await svc.runtime.dispatcher.stop(); // keep every delivery as it was queued
}, 20_000);

afterAll(async () => {
  releaseSlow();
  await svc?.stop();
  await site?.stop();
  await other?.stop();
});

describe("a domain's digests", () => {
  test("first crawl: every broken link is new; `changed` and `always` get it, `failure` does not", async () => {
    await crawl();
    const [digest] = digestsOf("changed");
    expect(digest).toMatchObject({ crawl_id: crawls[0], status: "completed", compared_with: null, broken_links: 2, total_links: 4, pages_crawled: 3 });
    expect(digest.new_broken).toMatchObject({ links: 2, targets: 2 });
    expect(digest.new_broken.items.map((i: any) => i.url)).toEqual([site.url("/b"), site.url("/c")]);
    expect(digest.new_broken.items[0]).toMatchObject({ status_code: 404, links: 1, sources: [{ url: site.url("/"), text: "link to /b" }] });
    expect(digest.still_broken.links).toBe(0);
    expect(digest.fixed.links).toBe(0);
    expect(digestsOf("always")).toHaveLength(1);
    expect(digestsOf("failure")).toHaveLength(0);
  });

  test("second crawl: new, still broken since the first crawl, and fixed", async () => {
    stage = 2;
    await crawl();
    const digest = digestsOf("changed")[1];
    const first = svc.runtime.crawls.get(crawls[0]!);
    expect(digest.compared_with).toBe(crawls[0]);
    expect(digest.new_broken.items.map((i: any) => [i.url, i.status_code])).toEqual([
      [site.url("/d"), 404],
      [site.url("/e"), 500],
    ]);
    expect(digest.still_broken.items).toEqual([
      { url: site.url("/b"), status_code: 404, error: null, links: 1, sources: [{ url: site.url("/"), text: "link to /b" }], broken_since: first.started_at },
    ]);
    expect(digest.fixed.items.map((i: any) => [i.url, i.status_code])).toEqual([[site.url("/c"), 404]]);
  });

  test("nothing changed: only `always` hears, and its digest says none is new", async () => {
    stage = 3;
    await crawl();
    expect(digestsOf("changed")).toHaveLength(2);
    expect(digestsOf("failure")).toHaveLength(0);
    const digest = digestsOf("always")[2];
    expect(digest).toMatchObject({ crawl_id: crawls[2], new_broken: { links: 0 }, fixed: { links: 0 }, still_broken: { links: 3 } });
  });

  test("a failed crawl reaches every mode and says why", async () => {
    stage = 4;
    const detail = await crawl();
    expect(detail.status).toBe("failed");
    for (const when of ["changed", "always", "failure"]) {
      const digest = digestsOf(when).at(-1);
      expect(digest).toMatchObject({ crawl_id: crawls[3], status: "failed", failure: "start_page" });
      expect(digest.error).toContain("answered HTTP 500");
    }
  });

  test("the completed crawl after a failed one is news for `changed`; a link stays broken since the first crawl across the failure", async () => {
    stage = 5;
    await crawl();
    const digest = digestsOf("changed").at(-1);
    expect(digest).toMatchObject({ crawl_id: crawls[4], previous_failed: true, compared_with: crawls[2], new_broken: { links: 0 }, fixed: { links: 0 } });
    const first = svc.runtime.crawls.get(crawls[0]!);
    expect(digest.still_broken.items.find((i: any) => i.url === site.url("/b")).broken_since).toBe(first.started_at);
    expect(digest.still_broken.items.find((i: any) => i.url === site.url("/d")).broken_since).toBe(svc.runtime.crawls.get(crawls[1]!).started_at);
    expect(digestsOf("failure")).toHaveLength(1);
  });

  test("a cancelled crawl is told only to `always`; a channel for another domain heard nothing", async () => {
    stage = 6;
    const id = await startCrawl(svc, domainId);
    for (let i = 0; i < 200 && svc.runtime.crawls.get(id).status !== "running"; i++) await Bun.sleep(25);
    expect((await svc.call("POST", `/crawls/${id}/cancel`)).status).toBe(200);
    releaseSlow();
    await waitForCrawl(svc, id);
    expect(digestsOf("always").at(-1)).toMatchObject({ crawl_id: id, status: "failed", failure: "cancelled" });
    expect(digestsOf("changed").at(-1).crawl_id).toBe(crawls[4]);
    expect(digestsOf("failure").at(-1).crawl_id).toBe(crawls[3]);
    expect(digestsOf("other")).toHaveLength(0);
  });
});
