import { FRAGMENT_GAPS, type PageIdsGap } from "../core/fragment-gap.ts";
import type { WarningInput } from "../core/crawl-warnings.ts";
import type { Logger } from "../core/logger.ts";
import type { Db } from "../store/db.ts";
import type { LinkSource } from "../store/open-links.repo.ts";
import type { FragmentOutcome, FragmentsRepo } from "../store/fragments.repo.ts";
import { fetchPageIds, type CheckContext } from "./check-target.ts";
import { gapWarning, judgeFragments, MAX_ID_FETCHES, unproven, type FragmentVerdict } from "./fragments.ts";
import { isInternal } from "./normalize.ts";
import { hashesFromBytes, hashesToBytes, IdHashes } from "./page-ids.ts";

/**
 * The last step of a `check_fragments` crawl: fragment verdicts once all targets are checked. Verdicts are written
 * with the deletion of what they judged, so a resumed crawl judges nothing twice (docs/decisions.md, "Fragments").
 */

/** Links judged per transaction. */
const BATCH = 500;
/** Pages' ids kept while judging (links to one page tend to come together), by their hashes in all. */
const CACHED_HASHES = 1 << 20;

export interface FragmentCheckEnv {
  repo: FragmentsRepo;
  /** How to fetch a page; its signal stops the step (the crawl's stop signal). */
  context: CheckContext;
  concurrency: number;
  logger: Logger;
  /** Adds warnings to the crawl's, on `tx`, the (fenced) transaction that ends the step. */
  addWarnings: (warnings: readonly WarningInput[], tx: Db) => Promise<void>;
  /** Since when `link` is broken, as this crawl finds it broken (broken-since.ts). */
  brokenSince: (url: string, link: LinkSource) => Promise<string>;
  /** The warning that replaces a missing fragment of the page at `url` when an ignore rule mutes it (ignore-gate.ts), or null. */
  muteWarning?: (url: string, found: string) => string | null;
}

/** Judges the fragments of `crawlId`'s links; returns early, leaving the rest for a resume, when stopped. */
export async function checkFragments(crawlId: string, env: FragmentCheckEnv): Promise<void> {
  await fetchMissingIds(crawlId, env);
  if (env.context.signal.aborted) return;
  await writeVerdicts(crawlId, env);
  await env.repo.immediate(crawlId, async (repo, tx) => {
    const counts = (await repo.gapCounts(crawlId)).sort((a, b) => FRAGMENT_GAPS.indexOf(a.gap) - FRAGMENT_GAPS.indexOf(b.gap));
    const warnings = counts.map(({ gap, links }) => gapWarning(gap, links, env.context.fetch.maxBodyBytes));
    await env.addWarnings(warnings, tx);
    await repo.forgetCrawl(crawlId);
  });
}

/** Fetches the pages that links asked fragments of but the crawl did not parse, `concurrency` at a time. */
async function fetchMissingIds(crawlId: string, env: FragmentCheckEnv): Promise<void> {
  const pages = await env.repo.pagesToFetch(crawlId, MAX_ID_FETCHES);
  let next = 0;
  const fetchOne = async (): Promise<void> => {
    // Bounded by the list: each turn takes the next page.
    while (next < pages.length && !env.context.signal.aborted) {
      const page = pages[next++]!;
      let found: Awaited<ReturnType<typeof fetchPageIds>> = "not_a_page";
      // A target whose redirects left the site has no ids of ours to judge by: not fetched again.
      if (isInternal(new URL(page.page_url), env.context.site)) {
        try {
          found = await fetchPageIds(page.url, env.context);
        } catch (error) {
          env.logger.error("fetching a page for its ids failed", { crawl_id: crawlId, url: page.url, error: String(error) });
          found = "no_answer";
        }
      }
      if (env.context.signal.aborted) return;
      // A page that did not answer keeps no row: its links get the not_fetched gap (and a resume asks again).
      if (found === "no_answer") continue;
      if (found === "not_a_page") await env.repo.savePageIds(crawlId, page.page_url, null, null);
      else await env.repo.savePageIds(crawlId, page.page_url, hashesToBytes(found.ids.hashes), found.ids.gap);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(env.concurrency, pages.length)) }, fetchOne));
}

/** A page's ids as judging uses them: null when it is not an HTML page of the site, undefined when never read. */
type PageIdsLookup = { ids: IdHashes; gap: PageIdsGap | null; size: number } | null | undefined;

/** Judges every waiting link, a batch per transaction, in link order. */
async function writeVerdicts(
  crawlId: string,
  { repo, brokenSince, muteWarning }: Pick<FragmentCheckEnv, "repo" | "brokenSince" | "muteWarning">,
): Promise<void> {
  const cache = new Map<string, PageIdsLookup>();
  let cached = 0;
  const idsOf = async (url: string): Promise<PageIdsLookup> => {
    if (cache.has(url)) return cache.get(url);
    const stored = await repo.pageIds(crawlId, url);
    let page: PageIdsLookup;
    if (stored === null) page = undefined;
    else if (stored.id_hashes === null) page = null;
    else {
      const hashes = hashesFromBytes(stored.id_hashes);
      page = { ids: new IdHashes(hashes), gap: stored.gap, size: hashes.length };
    }
    const size = page?.size ?? 0;
    if (cached + size > CACHED_HASHES) {
      cache.clear();
      cached = 0;
    }
    cache.set(url, page);
    cached += size;
    return page;
  };
  // Bounded: each turn moves past the links it read (keyset on link id).
  for (let after = 0; ; ) {
    const rows = await repo.pending(crawlId, after, BATCH);
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.link_id;
    const outcomes: FragmentOutcome[] = [];
    for (const row of rows) {
      // Only a working 2xx HTML page of the site has ids to judge against; anything else keeps its own verdict.
      const status = row.status_code ?? 0;
      if (row.state !== "done" || row.is_broken !== 0 || status < 200 || status > 299) continue;
      const fragments = JSON.parse(row.fragments) as string[];
      const page = await idsOf(row.page_url);
      if (page === null) continue;
      const verdict: FragmentVerdict = page === undefined ? unproven("not_fetched", fragments) : judgeFragments(fragments, page.ids, page.gap);
      const link = { linkId: row.link_id, targetId: row.target_id, statusCode: status };
      // A muted page's missing fragment is checked and kept as a warning, like a muted target's broken answer. The
      // rules match the target's URL (a fragment Link keeps its fragment apart).
      const muted = verdict.kind === "broken" ? (muteWarning?.(row.url, verdict.error) ?? null) : null;
      if (muted !== null) outcomes.push({ ...link, error: null, warning: muted, gap: null });
      else if (verdict.kind === "broken")
        outcomes.push({ ...link, error: verdict.error, warning: null, gap: null, brokenSince: await brokenSince(row.url, row) });
      else if (verdict.kind === "unproven") outcomes.push({ ...link, error: null, warning: verdict.warning, gap: verdict.gap });
    }
    await repo.apply(crawlId, outcomes, after);
  }
}
