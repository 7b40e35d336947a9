import type { Logger } from "../core/logger.ts";
import type { FragmentOutcome, FragmentsRepo, StoredPageIds } from "../store/fragments.repo.ts";
import { fetchPageIds, type CheckContext } from "./check-target.ts";
import { judgeFragments } from "./fragments.ts";
import { isInternal } from "./normalize.ts";

/**
 * The last step of a crawl with `check_fragments`: every link that asked fragments of an internal page gets
 * its fragment verdict once all targets are checked, so the target's final page is known and parsed. Pages the
 * crawl did not parse (a target asked with HEAD because an image or media link reached it first) are fetched
 * once with GET for their ids. Everything it needs is in the store (the asked fragments, the pages' ids), and a
 * batch's verdicts are written with the deletion of what they judged, so a crawl stopped here and resumed
 * judges the rest and nothing twice (docs/decisions.md, "Fragments").
 */

/** Pages fetched only for their ids, per crawl, at most; links to further ones get no fragment verdict. */
export const MAX_ID_FETCHES = 10_000;
/** Links judged per transaction. */
const BATCH = 500;
/** Pages' parsed ids kept while judging (links to one page tend to come together). */
const CACHED_PAGES = 64;

export interface FragmentCheckEnv {
  repo: FragmentsRepo;
  /** How to fetch a page; its signal stops the step (the crawl's stop signal). */
  context: CheckContext;
  concurrency: number;
  logger: Logger;
  /** Since when the link from `source` to `url` is broken, as this crawl finds it broken (broken-since.ts). */
  brokenSince: (url: string, source: string) => string;
  /** The warning that replaces a missing fragment of the page at `url` when an ignore rule mutes it (ignore-gate.ts), or null. */
  muteWarning?: (url: string, found: string) => string | null;
}

/** Judges the fragments of `crawlId`'s links; returns early, leaving the rest for a resume, when stopped. */
export async function checkFragments(crawlId: string, env: FragmentCheckEnv): Promise<void> {
  await fetchMissingIds(crawlId, env);
  if (!env.context.signal.aborted) writeVerdicts(crawlId, env);
}

/** Fetches the pages that links asked fragments of but the crawl did not parse, `concurrency` at a time. */
async function fetchMissingIds(crawlId: string, env: FragmentCheckEnv): Promise<void> {
  const pages = env.repo.pagesToFetch(crawlId, MAX_ID_FETCHES);
  let next = 0;
  const fetchOne = async (): Promise<void> => {
    // Bounded by the list: each turn takes the next page.
    while (next < pages.length && !env.context.signal.aborted) {
      const page = pages[next++]!;
      let found: Awaited<ReturnType<typeof fetchPageIds>> = null;
      // A target whose redirects left the site has no ids of ours to judge by: not fetched again.
      if (isInternal(new URL(page.page_url), env.context.site)) {
        try {
          found = await fetchPageIds(page.url, env.context);
        } catch (error) {
          env.logger.error("fetching a page for its ids failed", { crawl_id: crawlId, url: page.url, error: String(error) });
        }
      }
      if (env.context.signal.aborted) return;
      env.repo.savePageIds(crawlId, page.page_url, found === null ? null : JSON.stringify(found.ids.ids), found?.ids.complete ?? false);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(env.concurrency, pages.length)) }, fetchOne));
}

/** The ids of a page as a set, parsed once per page while they are in the cache. */
type ParsedIds = { ids: ReadonlySet<string>; complete: boolean } | null;

/** Judges every waiting link, a batch per transaction, in link order. */
function writeVerdicts(crawlId: string, { repo, brokenSince, muteWarning }: Pick<FragmentCheckEnv, "repo" | "brokenSince" | "muteWarning">): void {
  const cache = new Map<string, ParsedIds>();
  const idsOf = (url: string): ParsedIds => {
    if (cache.has(url)) return cache.get(url)!;
    if (cache.size >= CACHED_PAGES) cache.clear();
    const stored: StoredPageIds | null = repo.pageIds(crawlId, url);
    const parsed = stored === null || stored.ids === null ? null : { ids: new Set(JSON.parse(stored.ids) as string[]), complete: stored.complete === 1 };
    cache.set(url, parsed);
    return parsed;
  };
  // Bounded: each turn moves past the links it read (keyset on link id).
  for (let after = 0; ; ) {
    const rows = repo.pending(crawlId, after, BATCH);
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.link_id;
    const outcomes: FragmentOutcome[] = [];
    for (const row of rows) {
      // Only a working 2xx HTML page of the site has ids to judge against; anything else keeps its own verdict.
      const status = row.status_code ?? 0;
      if (row.state !== "done" || row.is_broken !== 0 || status < 200 || status > 299) continue;
      const page = idsOf(row.page_url);
      if (page === null) continue;
      const verdict = judgeFragments(JSON.parse(row.fragments) as string[], page.ids, page.complete);
      const link = { linkId: row.link_id, targetId: row.target_id, statusCode: status };
      // A muted page's missing fragment is checked and kept as a warning, like a muted target's broken answer. The
      // rules match the target's URL, without the fragment a Link's URL may keep.
      const muted = verdict.kind === "broken" ? (muteWarning?.(row.url.split("#", 1)[0]!, verdict.error) ?? null) : null;
      if (muted !== null) outcomes.push({ ...link, error: null, warning: muted, brokenSince: null });
      else if (verdict.kind === "broken") outcomes.push({ ...link, error: verdict.error, warning: null, brokenSince: brokenSince(row.url, row.source_url) });
      else if (verdict.kind === "unproven") outcomes.push({ ...link, error: null, warning: verdict.warning, brokenSince: null });
    }
    repo.apply(crawlId, outcomes, after);
  }
}
