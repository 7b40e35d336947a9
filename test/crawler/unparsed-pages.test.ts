import { afterAll, beforeAll, expect, test } from "bun:test";
import { checkTarget, type CheckContext } from "../../src/crawler/check-target.ts";
import type { FrontierTarget } from "../../src/store/frontier.repo.ts";
import { idHash } from "../../src/crawler/page-ids.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * A page past max_pages or max_depth is checked (GET, its verdict) but its links are not recorded
 * (frontier.ts), so it is not parsed for them: read only for its ids when fragments are checked, or not at all.
 * Over a real loopback site: what `checkTarget` hands back for such a page, and a page-limited `check` whose
 * report is what it was before (the page judged, its links absent, the warning given).
 */

let site: LoopbackSite;

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": { body: `<a href="/level1">one</a>` },
    "/level1": { body: `<a href="/level2">two</a>` },
    "/level2": { body: `<h2 id="part">Part</h2><a href="/level3">three</a><a href="/missing">gone</a>` },
    "/level3": { body: `<p>end</p>` },
  });
});
afterAll(async () => {
  await site?.stop();
});

function context(overrides: Partial<CheckContext> = {}): CheckContext {
  const { method: _m, maxRedirects: _r, ...fetch } = testFetchOptions();
  return {
    fetch,
    maxLinksPerPage: 100,
    site: new URL(site.origin),
    acceptStatus: new Set(),
    retry: { maxRetries: 0, maxWaitMs: 0, baseDelayMs: 0 },
    signal: new AbortController().signal,
    ...overrides,
  };
}

const level2: FrontierTarget = { id: 1, url: "", internal: true, asPage: true, depth: 2 };

test("a page whose links are not wanted is judged and handed back without them", async () => {
  const target = { ...level2, url: site.url("/level2") };
  const parsed = await checkTarget(target, context());
  expect(parsed.page!.links.map((link) => link.url)).toEqual([site.url("/level3"), site.url("/missing")]);

  const unparsed = await checkTarget(target, context({ wantsLinks: (asked) => asked.depth < 2 }));
  expect(unparsed.verdict).toEqual(parsed.verdict);
  expect(unparsed.page).toEqual({ url: site.url("/level2"), links: [], cut: null, ids: null, stylesheet: false });
});

test("with fragments checked, such a page is still read for its ids, and only for them", async () => {
  const target = { ...level2, url: site.url("/level2") };
  const result = await checkTarget(target, context({ wantsLinks: () => false, collectIds: true }));
  expect(result.page!.links).toEqual([]);
  expect(result.page!.cut).toBeNull();
  expect(result.page!.ids).toEqual({ hashes: new BigUint64Array([idHash("part")]), gap: null });
});

test("a check limited to two pages reports what it did before: the third page judged, its links not followed", async () => {
  const { exitCode, stdout } = await runCli(["check", site.url("/"), "--allow-private", "--max-pages", "2", "--format", "json"]);
  expect(exitCode).toBe(0);
  const report = JSON.parse(stdout) as { summary: { pages_crawled: number; warnings: string[] }; links: { url: string; status_code: number }[] };
  expect(report.links.map((link) => [link.url, link.status_code])).toEqual([
    [site.url("/level1"), 200],
    [site.url("/level2"), 200],
  ]);
  expect(report.summary.pages_crawled).toBe(2);
  expect(report.summary.warnings.join(" ")).toContain("max_pages");
  expect(site.requests.filter((request) => request.includes("/level3") || request.includes("/missing"))).toEqual([]);
});
