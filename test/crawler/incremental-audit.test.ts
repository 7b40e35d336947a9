import { afterAll, beforeAll, expect, test } from "bun:test";
import { AuditedSite } from "../fixtures/audited-site.ts";
import { readAll, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * An incremental audit ends exactly as a full one (docs/decisions.md, "Incremental audits"): a site audited, 2 %
 * of its pages changed (a link swapped for a broken one, a hostile new link) and two targets flipped (an image
 * gone, a broken page fixed), audited again, once reusing the first audit's pages and once with `full: true`,
 * each in its own store with the same history. Every Link, the totals, the changes and broken_since agree.
 */

const PAGES = 300;
const LINK_KINDS = { scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: true };

let incremental: TestService;
let full: TestService;
const sites: AuditedSite[] = [];
beforeAll(async () => {
  incremental = await startTestService();
  full = await startTestService();
});
afterAll(async () => {
  await incremental?.stop();
  await full?.stop();
  for (const site of sites) await site.stop();
});

/** A crawl as two stores can agree on it: broken_since told as which of the domain's crawls it names. */
async function outcome(svc: TestService, crawlId: string, starts: string[]) {
  const detail = (await svc.call("GET", `/crawls/${crawlId}`)).json.data;
  const since = (value: string | null | undefined) => (value == null ? value : `crawl ${starts.indexOf(value)}`);
  const row = (link: any) =>
    [
      link.url,
      link.source_url,
      link.kind,
      link.link_text,
      link.status_code,
      link.is_broken,
      since(link.broken_since),
      link.error,
      link.warning,
      link.change ?? "",
    ].join("\u0000");
  const links = (await readAll(svc, `/crawls/${crawlId}/links`)).map(row).sort();
  const broken = (await readAll(svc, `/crawls/${crawlId}/broken`)).map(row).sort();
  const changes = (await readAll(svc, `/crawls/${crawlId}/changes`)).map(row).sort();
  const { total_links, broken_links, pages_crawled, skipped_links, excluded_links, new_broken_links, pages_cut, truncated, status } = detail;
  return {
    totals: { status, total_links, broken_links, pages_crawled, skipped_links, excluded_links, new_broken_links, pages_cut, truncated },
    links,
    broken,
    changes,
    reused: detail.pages_reused,
  };
}

async function audit(
  svc: TestService,
  domainId: string,
  options: Record<string, boolean>,
  body: Record<string, unknown> = {},
): Promise<{ id: string; started: string }> {
  const res = await svc.call("POST", "/crawls", { body: { domain_id: domainId, options, ...body } });
  expect(res.status).toBe(201);
  const ended = await waitForCrawl(svc, res.json.data.id, 90_000);
  expect(ended.status).toBe("completed");
  return { id: ended.id, started: ended.started_at };
}

test.each([
  ["every kind of link", LINK_KINDS],
  ["fragments checked", { ...LINK_KINDS, check_fragments: true }],
])(
  "a re-audit reusing unchanged pages records exactly what a full re-audit records: %s",
  async (_name, options: Record<string, boolean>) => {
    const site = await AuditedSite.start({ pages: PAGES });
    sites.push(site);
    const domainA = await verifiedDomain(incremental, site.rootUrl);
    const domainB = await verifiedDomain(full, site.rootUrl);
    // Links kept out of every page (excluded_links counts them) and broken targets muted.
    const rules = { ignore_rules: { exclude: ["/static/app\\.js$"], mute: ["/gone/", "bad-host"] } };
    expect((await incremental.call("PATCH", `/domains/${domainA}`, { body: rules })).status).toBe(200);
    expect((await full.call("PATCH", `/domains/${domainB}`, { body: rules })).status).toBe(200);
    const firstA = await audit(incremental, domainA, options);
    const firstB = await audit(full, domainB, options);
    const changed = site.change(0.02);
    expect(changed.length).toBe(6);

    site.counts = { pages200: 0, notModified: 0, conditional: 0, root: 0 };
    const secondB = await audit(full, domainB, options, { full: true });
    // A full read asks nothing conditionally.
    expect(site.counts.conditional).toBe(0);
    const fullAsked = site.counts;
    site.counts = { pages200: 0, notModified: 0, conditional: 0, root: 0 };
    const secondA = await audit(incremental, domainA, options);
    const asked = site.counts;

    const a = await outcome(incremental, secondA.id, [firstA.started, secondA.started]);
    const b = await outcome(full, secondB.id, [firstB.started, secondB.started]);
    expect(a.totals).toEqual(b.totals);
    expect(a.links.length).toBe(b.totals.total_links);
    expect(a.links).toEqual(b.links);
    expect(a.broken).toEqual(b.broken);
    expect(a.changes).toEqual(b.changes);
    // What changed is there: the swapped and added links are new broken links, the fixed page is fixed.
    expect(a.totals.new_broken_links).toBeGreaterThanOrEqual(2 * changed.length);
    expect(a.changes.some((row) => row.endsWith("\u0000fixed"))).toBe(true);
    // The hostile text as it is stored (bidi controls taken out), from a page read in full.
    expect(a.totals.excluded_links).toBe(PAGES);
    if (options.check_fragments === true) {
      // Fragments judged against reused pages' ids: "/#top" and "/#nowhere-1" are missing on "/", "#main" is on every page.
      expect(a.broken.some((row) => row.includes("/#nowhere-1\u0000"))).toBe(true);
      expect(a.links.filter((row) => row.includes("#main\u0000")).length).toBeGreaterThan(PAGES / 2);
    }
    expect(a.links.filter((row) => row.includes("bad-host")).length).toBe(PAGES / 3);
    expect(a.links.some((row) => row.includes(`<script>alert("v1")</script> it's`) && row.includes(`new ${changed[0]}`))).toBe(true);

    // Reused: every page the first audit read and that did not change; read: the changed pages and the fixed
    // page (the new "/?q=…" links are 404s, not pages).
    expect(b.reused).toBe(0);
    expect(a.reused).toBe(a.totals.pages_crawled - changed.length - 1);
    // Both ways were taken: 304s (pages with validators) and unchanged bodies (every fifth page has none).
    expect(asked.notModified).toBeGreaterThan(0);
    // "/" asked as often as by the full read: a reused page's ids come with it, so no fragment asked of it sends the
    // crawl back for them.
    expect(asked.root).toBe(fullAsked.root);
    expect(a.reused).toBeGreaterThan(asked.notModified);
    // The first audits read every page: nothing to reuse.
    expect((await outcome(incremental, firstA.id, [firstA.started])).reused).toBe(0);
  },
  240_000,
);
