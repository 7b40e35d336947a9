import { z } from "zod";
import { WARNING_CAUSES } from "../core/crawl-warnings.ts";
import { CrawlOptionsSchema } from "../core/crawl-options.ts";
import { IgnoreRulesSchema } from "../core/ignore-rules-schema.ts";
import { CRAWL_FAILURES, CRAWL_STATUSES, CRAWL_TRIGGERS } from "../core/crawl-life.ts";
import { LINK_KINDS } from "../core/link-kind.ts";

/**
 * The crawl and link resources as clients see them (docs/api.md "Crawls"). The same schemas type the service
 * and document the API, so the two cannot drift apart.
 * Times are ISO 8601 UTC, null while the moment has not come.
 */

export const CrawlStatusSchema = z.enum(CRAWL_STATUSES).meta({ id: "CrawlStatus" });

/** One cause of a crawl's warnings and how many findings it aggregates (core/crawl-warnings.ts). */
export const WarningCauseCountSchema = z.object({ cause: z.enum(WARNING_CAUSES), count: z.number().int() }).meta({ id: "WarningCause" });
export const CrawlTriggerSchema = z.enum(CRAWL_TRIGGERS).meta({ id: "CrawlTrigger" });

/**
 * The options a crawl runs with: the flags asked for, and, when its domain had any at its creation, the ignore
 * rules it runs with (absent: none, so the options of a crawl without rules read as they always have).
 */
export const CrawlRunOptionsSchema = CrawlOptionsSchema.extend({ ignore_rules: IgnoreRulesSchema.optional() }).meta({ id: "CrawlRunOptions" });

/** Spec "Crawl (as returned on creation)", plus the options it runs with. */
export const CrawlSchema = z
  .object({
    id: z.uuid(),
    domain_id: z.uuid(),
    status: CrawlStatusSchema,
    options: CrawlRunOptionsSchema,
    /** "api", "dashboard" or "schedule". */
    trigger: CrawlTriggerSchema,
    created_at: z.string(),
  })
  .meta({ id: "Crawl" });

/** Spec "Crawl summary" (items of GET /crawls), plus identifiers and the creation time. */
export const CrawlSummarySchema = z
  .object({
    id: z.uuid(),
    domain_id: z.uuid(),
    domain_name: z.string(),
    status: CrawlStatusSchema,
    total_links: z.number().int(),
    broken_links: z.number().int(),
    /** The kind of failure (start_page, max_duration, cancelled, internal); null unless failed. */
    failure: z.enum(CRAWL_FAILURES).nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: "CrawlSummary" });

/**
 * Where a pending or running crawl's frontier stands: the distinct target URLs it has found so far (pages and
 * every other link target, each checked once), how many of them it has checked (or skipped: robots.txt) and how
 * many wait. The total grows as pages are parsed, so `targets_checked / targets_found` is done-so-far, not a
 * promise.
 */
export const CrawlProgressSchema = z
  .object({
    targets_found: z.number().int(),
    targets_checked: z.number().int(),
    targets_queued: z.number().int(),
  })
  .meta({ id: "CrawlProgress" });

/** Spec "Crawl detail", plus what an operator needs to read a result honestly. */
export const CrawlDetailSchema = z
  .object({
    id: z.uuid(),
    domain_id: z.uuid(),
    domain_name: z.string(),
    status: CrawlStatusSchema,
    options: CrawlRunOptionsSchema,
    total_links: z.number().int(),
    broken_links: z.number().int(),
    pages_crawled: z.number().int(),
    /** Distinct targets robots.txt disallowed: neither fetched nor recorded. */
    skipped_links: z.number().int(),
    /** Links (source page, target) an `exclude` ignore rule kept out: never fetched, never recorded. */
    excluded_links: z.number().int(),
    /**
     * Of `pages_crawled`, pages whose links were taken from the domain's previous completed crawl instead of parsing
     * them: they answered 304 to its validators, or with the body it had read (docs/api.md "Incremental audits").
     */
    pages_reused: z.number().int(),
    /** Distinct pages of the site its sitemaps list (`use_sitemap`); null without the option, or until they are read. */
    sitemap_urls: z.number().int().nullable(),
    /** Of those, the pages no crawled page links to (GET /crawls/{id}/orphans); null like `sitemap_urls`. */
    orphan_pages: z.number().int().nullable(),
    /** Broken links that were not open before this crawl (docs/api.md "What changed"); null until completed. */
    new_broken_links: z.number().int().nullable(),
    trigger: CrawlTriggerSchema,
    /** True when max_pages or max_depth left pages unparsed. */
    truncated: z.boolean(),
    /** Pages whose body was cut at crawler.max_body_bytes: links after the cut were not seen. */
    pages_cut: z.number().int(),
    /** Why a failed crawl failed, in words naming the cause (the start page and its status or error, the duration limit, …); null otherwise. */
    error: z.string().nullable(),
    /** The kind of failure: start_page, max_duration, cancelled or internal; null unless failed. */
    failure: z.enum(CRAWL_FAILURES).nullable(),
    /**
     * What the counts alone would hide (no link in scope, pages cut short, pages left unparsed, sitemap limits…),
     * one text per cause with a count and the first samples; empty when none. Bounded per crawl (docs/api.md, "Warnings").
     */
    warnings: z.array(z.string()),
    /** The cause and count behind each text of `warnings`, in the same order: what a client matches on. */
    warning_causes: z.array(WarningCauseCountSchema),
    /**
     * Why a pending or running crawl makes no progress right now, e.g. the disk holding the store is full (it
     * resumes by itself once it can write); null otherwise. Known to the serving process only, never stored.
     */
    waiting_reason: z.string().nullable(),
    /** Several nodes on one PostgreSQL store: the node running the crawl now (its lease's holder); null otherwise. */
    node: z.string().nullable(),
    /** While pending or running: targets found, checked and still queued (docs/api.md "Progress"); null once it has ended. */
    progress: CrawlProgressSchema.nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: "CrawlDetail" });

const linkFields = {
  /** The target URL, normalised; with check_fragments it keeps the link's fragment (each URL with its fragment is a Link). */
  url: z.string(),
  source_url: z.string(),
  /** The final HTTP status after redirects; 0 when there was no answer. */
  status_code: z.number().int(),
  link_text: z.string(),
  /** Which row of the tag table found it (docs/api.md "Which tags are checked"). */
  kind: z.enum(LINK_KINDS),
  /** Where redirects ended; null when there was no answer. */
  final_url: z.string().nullable(),
  /** Why there was no answer, or which `#fragment` the page lacks (check_fragments); null otherwise. */
  error: z.string().nullable(),
  /** Set when an answer that looks like a failure was not counted as broken (bot walls, e.g. 403 or 999). */
  warning: z.string().nullable(),
};

/** An item of GET /crawls/{id}/orphans: a page a sitemap lists that no crawled page links to, with its verdict. */
export const OrphanPageSchema = z
  .object({
    url: z.string(),
    /** The final HTTP status after redirects; 0 when there was no answer. */
    status_code: z.number().int(),
    is_broken: z.boolean(),
    final_url: z.string().nullable(),
    error: z.string().nullable(),
    warning: z.string().nullable(),
  })
  .meta({ id: "OrphanPage" });

/**
 * Start of the first crawl of the domain that found this (source page, URL) broken, carried while every later
 * crawl that checked it still found it broken (crawls that did not check it carry it; docs/api.md "What changed").
 */
const brokenSince = z.string();

/** Spec "Link" (items of GET /crawls/{id}/links); `broken_since` is null for a link that is not broken. */
export const LinkSchema = z.object({ ...linkFields, is_broken: z.boolean(), broken_since: brokenSince.nullable() }).meta({ id: "Link" });

/** How a link changed against the previous ended crawl of the domain (docs/api.md "What changed"). */
export const CHANGE_KINDS = ["new_broken", "fixed", "not_checked"] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * An item of GET /crawls/{id}/changes: a Link and how it changed. `new_broken` links are as this crawl found them;
 * `fixed` and `not_checked` ones as they were when last found broken.
 */
export const ChangeSchema = z
  .object({ change: z.enum(CHANGE_KINDS), ...linkFields, is_broken: z.boolean(), broken_since: brokenSince.nullable() })
  .meta({ id: "LinkChange" });

/** Spec "Broken link" (items of GET /crawls/{id}/broken): no `is_broken` field. */
export const BrokenLinkSchema = z.object({ ...linkFields, broken_since: brokenSince }).meta({ id: "BrokenLink" });

export type CrawlView = z.output<typeof CrawlSchema>;
export type CrawlRunOptions = z.output<typeof CrawlRunOptionsSchema>;
export type CrawlSummaryView = z.output<typeof CrawlSummarySchema>;
export type CrawlDetailView = z.output<typeof CrawlDetailSchema>;
/** A crawl's detail without its warnings, for pages that list crawls (the overview). */
export type CrawlBriefView = Omit<CrawlDetailView, "warnings" | "warning_causes" | "progress" | "node">;
export type CrawlProgressView = z.output<typeof CrawlProgressSchema>;
export type LinkView = z.output<typeof LinkSchema>;
export type BrokenLinkView = z.output<typeof BrokenLinkSchema>;
export type ChangeView = z.output<typeof ChangeSchema>;
export type OrphanPageView = z.output<typeof OrphanPageSchema>;
