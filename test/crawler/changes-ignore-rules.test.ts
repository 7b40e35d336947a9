import { beforeAll, describe, expect, test } from "bun:test";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import type { LoopbackSite } from "../helpers/loopback-site.ts";
import { html, serviceWithSites } from "../helpers/service-with-sites.ts";

/**
 * Ignore rules and the diff, over real crawls of loopback sites: a link found broken, then excluded or muted by a
 * rule added before the next crawl, is "not checked this time" in that crawl's changes, never "fixed" (the crawl
 * did not look at it, or looked and was told not to count it); it stays open, with its broken_since, so when the
 * rule goes and the link is still broken it is not "new". A muted link that breaks is not "new broken" either,
 * while other links break and count as before.
 */

const fixture = serviceWithSites();
const { site } = fixture;

async function crawl(domainId: string): Promise<any> {
  const done = await waitForCrawl(fixture.svc, await startCrawl(fixture.svc, domainId));
  expect(done.status).toBe("completed");
  return done;
}

async function setRules(domainId: string, rules: { exclude?: string[]; mute?: string[] } | null): Promise<void> {
  expect((await fixture.svc.call("PATCH", `/domains/${domainId}`, { body: { ignore_rules: rules } })).status).toBe(200);
}

/** The crawl's changes as [change, url] pairs, and its meta. */
async function changes(crawlId: string): Promise<{ meta: any; items: [string, string][] }> {
  const res = await fixture.svc.call("GET", `/crawls/${crawlId}/changes?limit=100`);
  expect(res.status).toBe(200);
  return { meta: res.json.meta, items: res.json.data.map((item: any) => [item.change, item.url]) };
}

async function brokenSince(crawlId: string): Promise<Record<string, string>> {
  return Object.fromEntries((await readAll(fixture.svc, `/crawls/${crawlId}/broken`)).map((item) => [item.url, item.broken_since]));
}

describe("a broken link excluded by a rule added after the crawl that found it", () => {
  let s: LoopbackSite;
  let domainId: string;
  let first: any;
  let excluded: any;
  let again: any;
  let freshBroken = false;

  beforeAll(async () => {
    s = await site({
      "/": () => html(`<a href="/a">A</a> <a href="/gone">Gone</a> <a href="/fresh">Fresh</a>`),
      "/a": () => html(`<a href="/">home</a> <a href="/gone">Gone again</a>`),
      "/gone": { status: 404 },
      "/fresh": () => (freshBroken ? new Response("no", { status: 404 }) : html("fine")),
    });
    domainId = await verifiedDomain(fixture.svc, s.url("/"));
    first = await crawl(domainId);
    await setRules(domainId, { exclude: ["/gone$"] });
    freshBroken = true;
    excluded = await crawl(domainId);
    await setRules(domainId, null);
    again = await crawl(domainId);
  }, 30_000); // three crawls of a four-page site

  test("the crawl with the rule lists it as not checked, never fixed; a link that broke meanwhile is new", async () => {
    expect(first).toMatchObject({ broken_links: 2, new_broken_links: 2 });
    expect(excluded).toMatchObject({ broken_links: 1, excluded_links: 2, new_broken_links: 1 });
    const { meta, items } = await changes(excluded.id);
    expect(meta).toMatchObject({ against_crawl_id: first.id, new_broken: 1, fixed: 0, not_checked: 2, final: true });
    expect(items).toEqual([
      ["new_broken", s.url("/fresh")],
      ["not_checked", s.url("/gone")],
      ["not_checked", s.url("/gone")],
    ]);
  });

  test("with the rule gone, the link still broken is not new and keeps the date it was first found broken", async () => {
    expect(again).toMatchObject({ broken_links: 3, excluded_links: 0, new_broken_links: 0 });
    const { meta } = await changes(again.id);
    expect(meta).toMatchObject({ against_crawl_id: excluded.id, new_broken: 0, fixed: 0, not_checked: 0 });
    expect(await brokenSince(again.id)).toEqual({ [s.url("/gone")]: first.started_at, [s.url("/fresh")]: excluded.started_at });
  });
});

describe("a broken link muted by a rule added after the crawl that found it", () => {
  let s: LoopbackSite;
  let domainId: string;
  let first: any;
  let muted: any;
  let unmuted: any;
  let laterBroken = false;
  let oldFixed = false;

  beforeAll(async () => {
    s = await site({
      "/": () => html(`<a href="/old">Old</a> <a href="/old-later">Later</a> <a href="/fresh">Fresh</a>`),
      "/old": () => (oldFixed ? html("back") : new Response("no", { status: 404 })),
      "/old-later": () => (laterBroken ? new Response("no", { status: 404 }) : html("fine")),
      "/fresh": () => (laterBroken ? new Response("no", { status: 500 }) : html("fine")),
    });
    domainId = await verifiedDomain(fixture.svc, s.url("/"));
    first = await crawl(domainId);
    await setRules(domainId, { mute: ["/old"] });
    laterBroken = true;
    muted = await crawl(domainId);
    await setRules(domainId, null);
    oldFixed = true;
    unmuted = await crawl(domainId);
  }, 30_000); // three crawls of a four-page site

  test("the crawl with the rule lists the muted link as not checked, never fixed; a muted link that broke is not new", async () => {
    expect(first).toMatchObject({ broken_links: 1, new_broken_links: 1 });
    // /old and /old-later are checked (404) but muted; /fresh broke and counts.
    expect(muted).toMatchObject({ broken_links: 1, new_broken_links: 1 });
    const { meta, items } = await changes(muted.id);
    expect(meta).toMatchObject({ against_crawl_id: first.id, new_broken: 1, fixed: 0, not_checked: 1, final: true });
    expect(items).toEqual([
      ["new_broken", s.url("/fresh")],
      ["not_checked", s.url("/old")],
    ]);
  });

  test("with the rule gone, the crawl that checks the link and finds it good calls it fixed", async () => {
    const { meta, items } = await changes(unmuted.id);
    expect(meta).toMatchObject({ against_crawl_id: muted.id, fixed: 1, not_checked: 0 });
    expect(items).toContainEqual(["fixed", s.url("/old")]);
    // /old-later was never open (muted when it broke): unmuted and still broken, it is new now.
    expect(items).toContainEqual(["new_broken", s.url("/old-later")]);
    expect(
      items
        .filter(([change]) => change === "new_broken")
        .map(([, url]) => url)
        .sort(),
    ).toEqual([s.url("/old-later")]);
  });
});

test("a muted page's missing #fragment is not broken, so not new broken: checked, stored with a warning naming the rule", async () => {
  const s = await site({
    "/": () => html(`<a href="/doc#absent">Missing section</a> <a href="/other#absent">Other missing section</a>`),
    "/doc": () => html(`<h2 id="here">here</h2>`),
    "/other": () => html(`<h2 id="here">here</h2>`),
  });
  const domainId = await verifiedDomain(fixture.svc, s.url("/"));
  await setRules(domainId, { mute: ["/doc$"] });
  const done = await waitForCrawl(fixture.svc, await startCrawl(fixture.svc, domainId, { check_fragments: true }));
  expect(done).toMatchObject({ status: "completed", broken_links: 1, new_broken_links: 1 });
  // The Links of the missing #absent, with their fragment where Links keep it.
  const broken = await readAll(fixture.svc, `/crawls/${done.id}/broken`);
  expect(broken).toHaveLength(1);
  expect(broken[0].url).toStartWith(s.url("/other"));
  const doc = (await readAll(fixture.svc, `/crawls/${done.id}/links`)).find((link) => link.url.startsWith(s.url("/doc")))!;
  expect(doc).toMatchObject({ is_broken: false, broken_since: null });
  expect(doc.warning).toContain('muted by ignore rule "/doc$"');
  expect(doc.warning).toContain("absent");
  expect((await changes(done.id)).items).toEqual([["new_broken", broken[0].url]]);
}, 30_000);
