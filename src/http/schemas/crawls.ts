import { z } from "@hono/zod-openapi";
import { CrawlOptionsSchema } from "../../core/crawl-options.ts";
import { BrokenLinkSchema, ChangeSchema, CrawlStatusSchema, CrawlSummarySchema, LinkSchema, OrphanPageSchema } from "../../services/crawl-view.ts";
import { PageMeta, PaginationQuery, queryBoolean, queryInteger, queryValueError } from "./common.ts";

/**
 * Request bodies, query strings and list envelopes of /crawls; the crawl and link resources themselves are
 * services/crawl-view.ts. Every filter is validated here, so a typo in a query value is a 400, never an
 * unfiltered answer.
 */

const EXAMPLE_ID = "0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f";

/** Options omitted, or flags omitted inside them, are false; a domain's default_options are for its schedule. */
export const StartCrawlBody = z
  .strictObject({
    domain_id: z.uuid().openapi({ example: EXAMPLE_ID, description: "a verified domain" }),
    options: CrawlOptionsSchema.optional(),
    full: z.boolean().default(false).openapi({
      description:
        "Read every page in full. By default a page the domain's previous completed crawl read (with options that cover these) is asked with its validators, and its links are reused when it answers 304 or its body is unchanged; every link target is checked either way.",
    }),
  })
  .openapi("StartCrawl");

/** A UUID given as a filter: not a path id, so a malformed one is a 400; stored ids are lowercase. */
const uuidFilter = z
  .uuid({ error: queryValueError("a UUID") })
  .transform((id) => id.toLowerCase())
  .openapi({ example: EXAMPLE_ID });

/** GET /crawls: paging plus the two filters, which combine. */
export const CrawlListQuery = PaginationQuery.extend({
  domain_id: uuidFilter.optional().openapi({ description: "only crawls of this domain" }),
  status: z
    .enum(CrawlStatusSchema.options, { error: queryValueError(`one of ${CrawlStatusSchema.options.join(", ")}`) })
    .optional()
    .openapi({ description: "only crawls in this state" }),
});

/** GET /crawls/{id}/links: paging plus the two filters, which combine. */
export const LinkListQuery = PaginationQuery.extend({
  status_code: queryInteger(0, 999).optional().openapi({ example: 404, description: "only links whose final status is this (0: no answer)" }),
  is_broken: queryBoolean().optional().openapi({ description: "only broken (true) or only working (false) links" }),
});

/** `{page, limit, total_broken}`: the broken-link list names its count `total_broken` (docs/api.md). */
const BrokenPageMeta = z.object({ page: z.number().int(), limit: z.number().int(), total_broken: z.number().int() });

export const CrawlListSchema = z.object({ data: z.array(CrawlSummarySchema), meta: PageMeta }).openapi("CrawlList");
export const LinkListSchema = z.object({ data: z.array(LinkSchema), meta: PageMeta }).openapi("LinkList");
export const BrokenLinkListSchema = z.object({ data: z.array(BrokenLinkSchema), meta: BrokenPageMeta }).openapi("BrokenLinkList");

/** `{page, limit, total, against_crawl_id, new_broken, fixed, not_checked, final}`: what the changes are counted against. */
const ChangesMeta = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  /** The previous ended crawl of the domain, whose open links this crawl is compared with; null for none. */
  against_crawl_id: z.string().nullable(),
  new_broken: z.number().int(),
  /** Open before, checked by this crawl and found good (or gone from a page it read whole); 0 until it has ended. */
  fixed: z.number().int(),
  /** Open before and not checked by this crawl (other options, pages not reached, a failed or cut crawl): still open. */
  not_checked: z.number().int(),
  /** False while the crawl runs: what it has not found broken yet counts as not checked until it ends. */
  final: z.boolean(),
});
export const ChangeListSchema = z.object({ data: z.array(ChangeSchema), meta: ChangesMeta }).openapi("LinkChangeList");
export const OrphanPageListSchema = z.object({ data: z.array(OrphanPageSchema), meta: PageMeta }).openapi("OrphanPageList");
