import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { messageOf } from "../../src/notifications/message.ts";
import { plainMessage } from "../../src/notifications/plain-message.ts";

/**
 * What a digest says and who gets one, over a domain's life: a first crawl (every broken link new), a second
 * (one still broken since the first, one fixed, two new), one where nothing changed, a failed one (which checks
 * nothing and carries every open link), a completed one after it (since when carried across the failure), and
 * cancelled ones. Then, on another domain, crawls with other options: a link a crawl did not check is neither
 * fixed nor new, and is counted as not checked. Three channels want `changed`, `always` and `failure`; a fourth
 * is for another domain only and hears nothing. The digests are read as stored in the outbox: the facts every
 * destination formats.
 */

let svc: TestService;
let site: LoopbackSite;
let other: LoopbackSite;
let imaged: LoopbackSite;
let domainId = "";
let stage = 1;
let imageBroken = true;
let releaseSlow: () => void = () => {};
const channels: Record<string, string> = {};
const crawls: string[] = [];

const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });

/** The digests stored for a channel, oldest first. */
function digestsOf(name: string): any[] {
  return svc.runtime.store
    .sqlite!.query<{ payload: string }, [string]>("SELECT payload FROM webhook_deliveries WHERE channel_id = ? ORDER BY created_at, id")
    .all(channels[name]!)
    .map((row) => JSON.parse(row.payload).data);
}

async function crawl(): Promise<any> {
  const id = await startCrawl(svc, domainId);
  crawls.push(id);
  return waitForCrawl(svc, id);
}

/** The digest stored for crawl `id` in a channel. */
function digestOf(name: string, id: string): any {
  return digestsOf(name).find((digest) => digest.crawl_id === id);
}

/** Starts a crawl of the domain, waits until it runs and has recorded `url` broken, and cancels it. */
async function cancelOnceBroken(id: string, url: string | null): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const detail = await svc.runtime.crawls.get(id);
    const broken = url === null ? [] : ((await svc.call("GET", `/crawls/${id}/broken?limit=100`)).json.data as any[]);
    if (detail.status === "running" && (url === null || broken.some((link) => link.url === url))) break;
    await Bun.sleep(25);
  }
  expect((await svc.call("POST", `/crawls/${id}/cancel`)).status).toBe(200);
  releaseSlow();
  await waitForCrawl(svc, id);
}

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": () => {
      if (stage === 4) return new Response("down for maintenance", { status: 500 });
      const links = ["/a", "/b", "/c", "/d"];
      if (stage >= 2) links.push("/e");
      if (stage >= 6) links.push("/slow");
      if (stage === 7) links.push("/f");
      return html(links.map((href) => `<a href="${href}">link to ${href}</a>`).join(" "));
    },
    "/a": () => html("ok"),
    "/b": () => new Response("gone", { status: 404 }),
    "/c": () => (stage >= 2 ? html("back") : new Response("missing", { status: 404 })),
    "/d": () => (stage >= 2 ? new Response("gone now", { status: 404 }) : html("ok")),
    "/e": () => new Response("error", { status: 500 }),
    "/f": () => new Response("gone", { status: 404 }),
    "/slow": () => new Promise<Response>((resolve) => (releaseSlow = () => resolve(html("late")))),
  });
  other = await startLoopbackSite({ "/": { body: "<a href='/x'>x</a>" } });
  imaged = await startLoopbackSite({
    "/": () => html(`<a href="/gone">gone</a> <img src="/missing.png" alt="logo">`),
    "/gone": () => new Response("gone", { status: 404 }),
    "/missing.png": () => (imageBroken ? new Response("no", { status: 404 }) : new Response(new Uint8Array(8), { headers: { "content-type": "image/png" } })),
  });
  svc = await startTestService({ notifications: { allow_http: true, allow_private_targets: true } });
  domainId = await verifiedDomain(svc, site.url("/"));
  const otherDomain = await verifiedDomain(svc, other.url("/"));
  // Never reached: deliveries stay pending, which is all this test reads.
  const url = "http://127.0.0.1:9/never";
  for (const when of ["changed", "always", "failure"]) {
    channels[when] = (await svc.call("POST", "/channels", { body: { kind: "slack", name: when, url, notify_when: when } })).json.data.id;
  }
  channels.other = (
    await svc.call("POST", "/channels", { body: { kind: "slack", name: "other", url, notify_when: "always", domain_ids: [otherDomain] } })
  ).json.data.id;
  await svc.runtime.dispatcher.stop(); // keep every delivery as it was queued
}, 20_000);

afterAll(async () => {
  releaseSlow();
  await svc?.stop();
  await site?.stop();
  await other?.stop();
  await imaged?.stop();
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
    const first = await svc.runtime.crawls.get(crawls[0]!);
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
    // It read no page, so it checked none of the open links: nothing fixed, nothing new, all three not checked.
    expect(digestsOf("changed").at(-1)).toMatchObject({
      compared_with: crawls[2],
      new_broken: { links: 0 },
      still_broken: { links: 0 },
      fixed: { links: 0 },
      not_checked: 3,
    });
    expect(plainMessage(messageOf(digestsOf("changed").at(-1), null))).toContain("3 links broken before were not checked this time.");
  });

  test("the completed crawl after a failed one is news for `changed`; a link stays broken since the first crawl across the failure", async () => {
    stage = 5;
    await crawl();
    const digest = digestsOf("changed").at(-1);
    // Compared with the failed crawl, which carried the open links it did not check: none is new again.
    expect(digest).toMatchObject({
      crawl_id: crawls[4],
      previous_failed: true,
      compared_with: crawls[3],
      new_broken: { links: 0 },
      fixed: { links: 0 },
      not_checked: 0,
    });
    expect(digest.still_broken).toMatchObject({ links: 3, targets: 3 });
    const first = await svc.runtime.crawls.get(crawls[0]!);
    expect(digest.still_broken.items.find((i: any) => i.url === site.url("/b")).broken_since).toBe(first.started_at);
    expect(digest.still_broken.items.find((i: any) => i.url === site.url("/d")).broken_since).toBe((await svc.runtime.crawls.get(crawls[1]!)).started_at);
    expect(digestsOf("failure")).toHaveLength(1);
  });

  test("a cancelled crawl that changed nothing is told only to `always`; a channel for another domain heard nothing", async () => {
    stage = 6;
    const id = await startCrawl(svc, domainId);
    await cancelOnceBroken(id, null);
    expect(digestsOf("always").at(-1)).toMatchObject({ crawl_id: id, status: "failed", failure: "cancelled", new_broken: { links: 0 }, fixed: { links: 0 } });
    expect(digestsOf("changed").at(-1).crawl_id).toBe(crawls[4]);
    expect(digestsOf("failure").at(-1).crawl_id).toBe(crawls[3]);
    expect(digestsOf("other")).toHaveLength(0);
  });

  test("a cancelled crawl that found a new broken link tells `changed` too: the next crawl compares with it", async () => {
    stage = 7;
    const id = await startCrawl(svc, domainId);
    await cancelOnceBroken(id, site.url("/f"));
    const digest = digestOf("changed", id);
    expect(digest).toMatchObject({ status: "failed", failure: "cancelled" });
    expect(digest.new_broken.items.map((i: any) => i.url)).toEqual([site.url("/f")]);
    expect(digest.new_broken.items[0].broken_since).toBe((await svc.runtime.crawls.get(id)).started_at);
    expect(digestOf("failure", id)).toBeUndefined();
  }, 20_000);
});

describe("links a crawl did not check", () => {
  let imagedId = "";
  const runs: string[] = [];
  async function crawlImaged(options: Record<string, boolean>): Promise<any> {
    const id = await startCrawl(svc, imagedId, options);
    runs.push(id);
    await waitForCrawl(svc, id);
    return digestOf("always", id);
  }

  test("a crawl with images finds both broken links new", async () => {
    imagedId = await verifiedDomain(svc, imaged.url("/"));
    const digest = await crawlImaged({ scan_images: true });
    expect(digest).toMatchObject({ compared_with: null, new_broken: { links: 2 }, not_checked: 0 });
  });

  test("a crawl without images: the broken image is neither fixed nor new, but not checked; `changed` is not told", async () => {
    const digest = await crawlImaged({});
    expect(digest).toMatchObject({ compared_with: runs[0], new_broken: { links: 0 }, fixed: { links: 0 }, not_checked: 1 });
    expect(digest.still_broken.items.map((i: any) => i.url)).toEqual([imaged.url("/gone")]);
    expect(digest.still_broken.items[0].broken_since).toBe((await svc.runtime.crawls.get(runs[0]!)).started_at);
    expect(plainMessage(messageOf(digest, null))).toContain("1 link broken before was not checked this time.");
    expect(digestOf("changed", runs[1]!)).toBeUndefined();
  });

  test("images again: the image is still broken since the first crawl, not new", async () => {
    const digest = await crawlImaged({ scan_images: true });
    expect(digest).toMatchObject({ compared_with: runs[1], new_broken: { links: 0 }, fixed: { links: 0 }, not_checked: 0 });
    const since = (await svc.runtime.crawls.get(runs[0]!)).started_at;
    expect(digest.still_broken.items.map((i: any) => [i.url, i.broken_since])).toEqual([
      [imaged.url("/gone"), since],
      [imaged.url("/missing.png"), since],
    ]);
    expect(plainMessage(messageOf(digest, null))).not.toContain("not checked");
  });

  test("the image answers again: a crawl that checks it calls it fixed", async () => {
    imageBroken = false;
    const digest = await crawlImaged({ scan_images: true });
    expect(digest.fixed.items.map((i: any) => [i.url, i.status_code])).toEqual([[imaged.url("/missing.png"), 404]]);
    expect(digestOf("changed", runs[3]!)).toMatchObject({ fixed: { links: 1 } });
  });
});

describe("bounds", () => {
  test("a list keeps its first 25 targets in discovery order, 3 linking pages each, and counts the rest", async () => {
    const pages = ["/p1", "/p2", "/p3", "/p4"];
    const broken = Array.from({ length: 30 }, (_, i) => `/b${i}`);
    const many = await startLoopbackSite({
      "/": () => html([...broken, ...pages].map((href) => `<a href="${href}">to ${href}</a>`).join(" ")),
      ...Object.fromEntries(pages.map((page) => [page, () => html(`<a href="/b0">again</a>`)])),
      ...Object.fromEntries(broken.map((path) => [path, () => new Response("gone", { status: 404 })])),
    });
    try {
      const id = await startCrawl(svc, await verifiedDomain(svc, many.url("/")));
      await waitForCrawl(svc, id);
      const digest = digestOf("always", id);
      expect(digest.new_broken).toMatchObject({ links: 34, targets: 30 });
      expect(digest.new_broken.items.map((i: any) => i.url)).toEqual(broken.slice(0, 25).map((path) => many.url(path)));
      expect(digest.new_broken.items[0]).toMatchObject({ links: 5 });
      expect(digest.new_broken.items[0].sources).toHaveLength(3);
    } finally {
      await many.stop();
    }
  }, 20_000);
});
