import { sql } from "drizzle-orm";
import type { CrawlOptions } from "../core/crawl-options.ts";
import type { IgnoreRules } from "../core/ignore-rules.ts";
import type { WarningCause } from "../core/crawl-warnings.ts";
import type { VerifiedBy } from "../core/verified-by.ts";
import type { CrawlFailure, CrawlStatus, CrawlTrigger } from "../core/crawl-life.ts";
import type { DeliveryState } from "../core/delivery-state.ts";
import type { FragmentGap, PageIdsGap } from "../core/fragment-gap.ts";
import type { StoredLinkKind } from "../core/link-kind.ts";
import type { ChannelKind, NotifyWhen } from "../core/channels.ts";
import type { BreakageCause } from "../core/breakage-cause.ts";
import { blob, check, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The drizzle schema: the one source of the tables. `npm run db:generate` turns a change here into a new
 * numbered migration under store/migrations; shipped migrations are never edited.
 * Times are ISO 8601 UTC text; JSON columns hold small documents (scopes, options).
 *
 * Only drizzle-kit reads this file (docs/decisions.md, "Repos write SQL"): the repos are plain SQL with their own
 * record types, and nothing the service runs imports it except for types, so drizzle is not in the binary.
 * The closed sets stored in columns live in core/; the types are re-exported for the repos.
 */

export type { BreakageCause, ChannelKind, CrawlStatus, CrawlTrigger, DeliveryState, FragmentGap, NotifyWhen, PageIdsGap, StoredLinkKind };

const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /** First characters of the key after `lp_`, shown in listings so an operator can tell keys apart. */
    prefix: text("prefix").notNull(),
    /** Lowercase hex SHA-256 of the whole key; the key itself is never stored. */
    hash: text("hash").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: createdAt(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_unique").on(t.hash)],
);

export const domains = sqliteTable(
  "domains",
  {
    id: text("id").primaryKey(),
    /** Host with optional port, lowercase (IDN as punycode). */
    name: text("name").notNull(),
    rootUrl: text("root_url").notNull(),
    verificationToken: text("verification_token").notNull(),
    verifiedAt: text("verified_at"),
    verifiedBy: text("verified_by").$type<VerifiedBy>(),
    /** Cron expression for recurring crawls, or null. */
    schedule: text("schedule"),
    /** IANA time zone the schedule is read in; null: the server's local time. */
    scheduleTimezone: text("schedule_timezone"),
    defaultOptions: text("default_options", { mode: "json" }).$type<CrawlOptions>(),
    /** URL patterns its crawls never check (`exclude`) or check without counting as broken (`mute`); null: none. */
    ignoreRules: text("ignore_rules", { mode: "json" }).$type<IgnoreRules>(),
    createdAt: createdAt(),
    updatedAt: text("updated_at"),
  },
  (t) => [uniqueIndex("domains_name_unique").on(t.name), index("domains_created_at_idx").on(t.createdAt)],
);

/**
 * One crawl and its running totals. The totals are kept up to date in the same transaction that records the
 * links behind them, so a reader never sees a count that the links table does not back.
 */
export const crawls = sqliteTable(
  "crawls",
  {
    id: text("id").primaryKey(),
    domainId: text("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    status: text("status").$type<CrawlStatus>().notNull(),
    options: text("options", { mode: "json" }).$type<CrawlOptions>().notNull(),
    /** Who started it: an API call, the dashboard or the domain's schedule. */
    trigger: text("trigger").$type<CrawlTrigger>().notNull().default("api"),
    /** Broken links that were not open before this crawl (crawler/open-links.ts); set when the crawl completes. */
    newBrokenLinks: integer("new_broken_links"),
    /** Why a failed crawl failed ("cancelled", the duration limit, …); null otherwise. */
    error: text("error"),
    /** What kind of failure `error` describes (core/crawl-life.ts); null unless failed. */
    failure: text("failure").$type<CrawlFailure>(),
    /** True when a page limit (max_pages, max_depth) left pages unparsed. */
    truncated: integer("truncated", { mode: "boolean" }).notNull().default(false),
    /** Pages whose body was cut at max_body_bytes: links after the cut were never seen. */
    pagesCut: integer("pages_cut").notNull().default(0),
    pagesCrawled: integer("pages_crawled").notNull().default(0),
    totalLinks: integer("total_links").notNull().default(0),
    brokenLinks: integer("broken_links").notNull().default(0),
    skippedLinks: integer("skipped_links").notNull().default(0),
    /** Links (source page, target) an `exclude` ignore rule kept out: never fetched, never recorded. */
    excludedLinks: integer("excluded_links").notNull().default(0),
    /** Pages whose links were taken from the previous crawl instead of parsing them (a 304 or an unchanged body). */
    pagesReused: integer("pages_reused").notNull().default(0),
    /** Distinct pages of the site its sitemaps list (`use_sitemap`); null until they are read, or without the option. */
    sitemapUrls: integer("sitemap_urls"),
    /** Of those, the pages no crawled page links to (orphan pages); null like `sitemap_urls`. */
    orphanPages: integer("orphan_pages"),
    createdAt: createdAt(),
    startedAt: text("started_at"),
    completedAt: text("completed_at"),
  },
  (t) => [
    index("crawls_created_at_idx").on(t.createdAt, t.id),
    index("crawls_domain_idx").on(t.domainId, t.createdAt),
    index("crawls_status_idx").on(t.status, t.createdAt),
    // At most one pending or running crawl per domain, enforced by the store rather than by a read-then-write.
    uniqueIndex("crawls_one_active_per_domain").on(t.domainId).where(sql`status IN ('pending', 'running')`),
  ],
);

/** Where a target stands in a crawl's frontier. */
export const TARGET_STATES = ["queued", "done", "skipped"] as const;
export type TargetState = (typeof TARGET_STATES)[number];

/**
 * The frontier and the verdicts: one row per distinct target URL of a crawl, fetched once. `queued` rows are
 * what is left to do, so a restarted crawl resumes from here; `skipped` rows are robots-disallowed targets.
 */
export const crawlTargets = sqliteTable(
  "crawl_targets",
  {
    /** Also the discovery order: the frontier is worked in id order (breadth first). */
    id: integer("id").primaryKey({ autoIncrement: true }),
    crawlId: text("crawl_id")
      .notNull()
      .references(() => crawls.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    state: text("state").$type<TargetState>().notNull().default("queued"),
    /** On the crawled domain's host and port. */
    internal: integer("internal", { mode: "boolean" }).notNull(),
    /** Fetched as a page (GET, parsed when it is HTML): internal targets some anchor points at. */
    asPage: integer("as_page", { mode: "boolean" }).notNull().default(false),
    /**
     * Pages between the root and this target's first source page; -1 (core/sitemap-entry.ts) for a target first
     * found in a sitemap, which no crawled page links to: an orphan page.
     */
    depth: integer("depth").notNull(),
    statusCode: integer("status_code"),
    isBroken: integer("is_broken", { mode: "boolean" }),
    error: text("error"),
    warning: text("warning"),
    finalUrl: text("final_url"),
  },
  (t) => [
    uniqueIndex("crawl_targets_url_unique").on(t.crawlId, t.url),
    index("crawl_targets_state_idx").on(t.crawlId, t.state, t.id),
    // The orphan pages of a crawl, in discovery order, without reading its other targets.
    index("crawl_targets_unlinked_idx").on(t.crawlId, t.id).where(sql`depth = -1`),
  ],
);

/** Pages parsed in a crawl, by their final URL: a page reached through several redirects is parsed once. */
export const crawlPages = sqliteTable(
  "crawl_pages",
  {
    crawlId: text("crawl_id")
      .notNull()
      .references(() => crawls.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** Its body or its links were cut (max_body_bytes, max_links_per_page): links past the cut were not seen. */
    cut: integer("cut", { mode: "boolean" }).notNull().default(false),
    /*
     * What the next crawl of the domain needs to reuse an HTML page's links without reading it again
     * (crawler/page-reuse.ts): its validators, a hash of its decoded body and where its links are. Null for
     * stylesheets, for pages of `check`'s throwaway store and for pages recorded before the columns existed.
     */
    /** The page's ETag, as it answered. */
    etag: text("etag"),
    /** The page's Last-Modified, as it answered. */
    lastModified: text("last_modified"),
    /** SHA-256 of the decoded body, hex. */
    bodyHash: text("body_hash"),
    /** Length of the decoded body. */
    bodyBytes: integer("body_bytes"),
    /** Links the page held before the options gated them (max_links_per_page applies to these). */
    linksFound: integer("links_found"),
    /** Of its gated links, those an `exclude` ignore rule kept out. */
    excludedLinks: integer("excluded_links"),
    /** The page's links are the links rows first_link_id .. first_link_id + link_count - 1 of the crawl (written together). */
    firstLinkId: integer("first_link_id"),
    linkCount: integer("link_count"),
    /** With `check_fragments`: the page's ids as crawl_page_ids holds them (which goes with the crawl's end), and their gap. */
    idHashes: blob("id_hashes", { mode: "buffer" }),
    idsGap: text("ids_gap").$type<PageIdsGap>(),
  },
  (t) => [primaryKey({ columns: [t.crawlId, t.url] })],
);

/**
 * One Link per distinct (source page, target) pair, or with `check_fragments` per distinct (source page, target,
 * fragment); its status is its target's. Unique by construction (a page's links are recorded once, deduped per
 * target and fragment), so no unique index pays for it.
 *
 * Links are never looked up by target while a crawl writes them: an index on `target_id` takes its entries in
 * random order, and its upkeep made crawls grow faster than linear (bench/README.md, "What made the crawl
 * linear"). The
 * links waiting for a target's verdict are counted by the crawler and chained through `waiting_prev_id`;
 * broken links, the only ones read by target, are listed in `broken_links` as they become known.
 */
export const links = sqliteTable(
  "links",
  {
    /** Discovery order, which the API pages through. */
    id: integer("id").primaryKey({ autoIncrement: true }),
    crawlId: text("crawl_id")
      .notNull()
      .references(() => crawls.id, { onDelete: "cascade" }),
    sourceUrl: text("source_url").notNull(),
    /** The crawl_targets row of the link's URL (same crawl); deleted with the crawl. */
    targetId: integer("target_id").notNull(),
    linkText: text("link_text").notNull(),
    kind: text("kind").$type<StoredLinkKind>().notNull(),
    /**
     * The previous link to the same target recorded while that target was still queued (null for the first
     * one and for links to checked targets): a chain from `crawl_waiting.last_link_id` through every link
     * that waits for the target's verdict.
     */
    waitingPrevId: integer("waiting_prev_id"),
    /**
     * The fragment of the link's URL with its `#` (`check_fragments` only; "" otherwise and for a URL without
     * one): part of the Link's identity, so the Link's `url` is the target's URL followed by it.
     */
    fragment: text("fragment").notNull().default(""),
    /** Set when fragments asked of the target page are not on it (`check_fragments`): the link is broken. */
    fragmentError: text("fragment_error"),
    /** Set when asked fragments were not found on a page read only in part: not proven missing. */
    fragmentWarning: text("fragment_warning"),
  },
  (t) => [index("links_crawl_order_idx").on(t.crawlId, t.id)],
);

/**
 * Fragments a link asks of its target page (`check_fragments`), as a JSON array of the fragments as the URL
 * parser writes them (one: a link's own), until the crawl's end judges them (crawler/fragment-check.ts). A row
 * judged found or missing goes then; one that got no verdict keeps its `gap` until the crawl's warnings count
 * them, and goes with the crawl's last fragment batch.
 */
export const linkFragments = sqliteTable(
  "link_fragments",
  {
    linkId: integer("link_id").primaryKey(),
    crawlId: text("crawl_id")
      .notNull()
      .references(() => crawls.id, { onDelete: "cascade" }),
    targetId: integer("target_id").notNull(),
    fragments: text("fragments").notNull(),
    /** Why the fragment got no verdict (null until judged; judged rows with a verdict are deleted). */
    gap: text("gap").$type<FragmentGap>(),
  },
  (t) => [index("link_fragments_crawl_idx").on(t.crawlId, t.linkId)],
);

/**
 * The ids of a crawl's internal HTML pages, by final URL (`check_fragments`), as 64-bit hashes
 * (crawler/page-ids.ts: sorted, 8 bytes each), so a page's ids cost 8 bytes each whatever their length; `gap`
 * says why some may be missing (read only in part, more ids than are kept), null when none are. `id_hashes` is null
 * for a page fetched for its ids that turned out not to be an HTML page of the site. Deleted once the crawl's
 * fragments are judged.
 */
export const crawlPageIds = sqliteTable(
  "crawl_page_ids",
  {
    crawlId: text("crawl_id")
      .notNull()
      .references(() => crawls.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    idHashes: blob("id_hashes", { mode: "buffer" }),
    gap: text("gap").$type<PageIdsGap>(),
  },
  (t) => [primaryKey({ columns: [t.crawlId, t.url] })],
);

/**
 * The links recorded for a target that is still queued: how many, and the newest, which starts the chain
 * through `links.waiting_prev_id`. The crawler keeps these counts in memory and rebuilds them from the links
 * when a crawl resumes; rows are written only for targets beyond what it holds in memory
 * (crawler/frontier.ts, MAX_KNOWN_TARGETS), and go when the target gets its verdict. In the batch that fills the
 * memory table, a row may be written for a target the table still takes in after the commit: memory is read
 * first, so that row is never used, and a resume rewrites them all.
 */
export const crawlWaiting = sqliteTable("crawl_waiting", {
  targetId: integer("target_id")
    .primaryKey()
    .references(() => crawlTargets.id, { onDelete: "cascade" }),
  links: integer("links").notNull(),
  lastLinkId: integer("last_link_id").notNull(),
});

/** Every broken link of a crawl (its target checked and broken), by link id: the broken listings and changes read these. */
export const brokenLinks = sqliteTable(
  "broken_links",
  {
    linkId: integer("link_id").primaryKey(),
    crawlId: text("crawl_id")
      .notNull()
      .references(() => crawls.id, { onDelete: "cascade" }),
    targetId: integer("target_id").notNull(),
    /**
     * The start of the first crawl of the domain that found this (source page, URL) broken, carried from the
     * previous crawl's open links when the link is judged (crawler/broken-since.ts). Rows written before the
     * column existed were given their own crawl's start by the migration.
     */
    brokenSince: text("broken_since"),
  },
  (t) => [index("broken_links_crawl_idx").on(t.crawlId, t.linkId), index("broken_links_target_idx").on(t.targetId)],
);

/**
 * The open links a crawl did not check: broken links its domain's earlier crawls left open (the previous
 * ended crawl's broken links and unchecked links) that this crawl neither found broken again nor checked and
 * found good (crawler/open-links.ts). Written when the crawl ends; they stay open, carried to the next crawl,
 * and `GET /crawls/{id}/changes` lists them as `not_checked`. Each row is a copy of the link as it was last
 * found broken, since the crawl that found it may be pruned.
 */
export const uncheckedLinks = sqliteTable(
  "unchecked_links",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    crawlId: text("crawl_id")
      .notNull()
      .references(() => crawls.id, { onDelete: "cascade" }),
    sourceUrl: text("source_url").notNull(),
    /** Its target's URL; with `fragment` ("" or `#…`, as links.fragment) the Link's URL. */
    url: text("url").notNull(),
    fragment: text("fragment").notNull().default(""),
    kind: text("kind").$type<StoredLinkKind>().notNull(),
    internal: integer("internal", { mode: "boolean" }).notNull(),
    linkText: text("link_text").notNull(),
    statusCode: integer("status_code").notNull(),
    finalUrl: text("final_url"),
    error: text("error"),
    warning: text("warning"),
    /** What made it broken (core/breakage-cause.ts): which options a crawl needs to check it again. */
    cause: text("cause").$type<BreakageCause>().notNull(),
    brokenSince: text("broken_since").notNull(),
  },
  (t) => [index("unchecked_links_crawl_idx").on(t.crawlId, t.id), index("unchecked_links_url_idx").on(t.crawlId, t.url)],
);

/** How many links of a crawl are counted with each (status code, broken) verdict: `status_code` filter totals. */
export const crawlStatusCounts = sqliteTable(
  "crawl_status_counts",
  {
    crawlId: text("crawl_id")
      .notNull()
      .references(() => crawls.id, { onDelete: "cascade" }),
    statusCode: integer("status_code").notNull(),
    isBroken: integer("is_broken", { mode: "boolean" }).notNull(),
    links: integer("links").notNull(),
  },
  (t) => [primaryKey({ columns: [t.crawlId, t.statusCode, t.isBroken] })],
);

/**
 * A crawl's warnings, aggregated per cause (core/crawl-warnings.ts): one row per cause (per distinct text of an
 * `other` warning), with its count and first samples, at most MAX_WARNING_ENTRIES + 1 rows and MAX_WARNING_BYTES
 * of samples per crawl. Apart from the crawl row so that the crawl list and the overview never read them, and a
 * hostile site can never grow the row every list query reads (docs/decisions.md, "Warnings are findings with a
 * budget").
 */
export const crawlWarnings = sqliteTable(
  "crawl_warnings",
  {
    crawlId: text("crawl_id")
      .notNull()
      .references(() => crawls.id, { onDelete: "cascade" }),
    /** The order the causes were first found in. */
    position: integer("position").notNull(),
    cause: text("cause").$type<WarningCause>().notNull(),
    /** The text of an `other` warning; "" for every other cause. */
    message: text("message").notNull().default(""),
    count: integer("count").notNull(),
    /** The first samples, as a JSON array of text. */
    samples: text("samples", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
  },
  (t) => [primaryKey({ columns: [t.crawlId, t.position] })],
);

/**
 * A webhook endpoint. The secret is kept as given (it must sign every delivery); it is returned only when
 * the webhook is created. `failing_since` is the first failed attempt since the last success: a webhook
 * failing for longer than `webhooks.disable_after` is set inactive.
 */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    url: text("url").notNull(),
    name: text("name"),
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    secret: text("secret").notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    /** Why an inactive webhook was switched off (410 Gone, failing for too long); null while active. */
    disabledReason: text("disabled_reason"),
    failingSince: text("failing_since"),
    createdAt: createdAt(),
  },
  (t) => [index("webhooks_created_at_idx").on(t.createdAt, t.id)],
);

/**
 * A notification channel: an email address list behind an SMTP server, or a chat/push destination
 * (core/channels.ts). `settings` holds what may be shown (host, port, From/To, a server URL); `secrets` what
 * never is (the SMTP password, a webhook URL that carries its token, an access token), kept as given like a
 * webhook's secret because every attempt needs it. `all_domains` false: only the domains in channel_domains.
 * `failing_since` and `active` work as a webhook's do.
 */
export const channels = sqliteTable(
  "channels",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    kind: text("kind").$type<ChannelKind>().notNull(),
    settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    secrets: text("secrets", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    notifyWhen: text("notify_when").$type<NotifyWhen>().notNull().default("changed"),
    allDomains: integer("all_domains", { mode: "boolean" }).notNull().default(true),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    disabledReason: text("disabled_reason"),
    failingSince: text("failing_since"),
    createdAt: createdAt(),
  },
  (t) => [index("channels_created_at_idx").on(t.createdAt, t.id)],
);

/** The domains a channel with `all_domains` false is for; a deleted domain or channel takes its rows along. */
export const channelDomains = sqliteTable(
  "channel_domains",
  {
    channelId: text("channel_id")
      .notNull()
      .references(() => channels.id, { onDelete: "cascade" }),
    domainId: text("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.domainId] }), index("channel_domains_domain_idx").on(t.domainId)],
);

/**
 * The outbox: one row per (event, webhook) or (digest, channel), written in the same transaction as the crawl
 * state change that caused it, then sent by the dispatcher until delivered or dead. Exactly one of `webhook_id`
 * and `channel_id` is set. `payload` holds the exact JSON body (for a channel, the digest each attempt formats
 * for its destination); its id (this row's id) is the X-Service-Delivery header, stable across attempts.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id").references(() => webhooks.id, { onDelete: "cascade" }),
    channelId: text("channel_id").references(() => channels.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    payload: text("payload").notNull(),
    state: text("state").$type<DeliveryState>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** When the next attempt is due (ISO 8601); null once delivered or dead. */
    nextAttemptAt: text("next_attempt_at"),
    lastError: text("last_error"),
    lastStatusCode: integer("last_status_code"),
    createdAt: createdAt(),
    deliveredAt: text("delivered_at"),
  },
  (t) => [
    index("webhook_deliveries_due_idx").on(t.state, t.nextAttemptAt),
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt),
    index("webhook_deliveries_channel_idx").on(t.channelId, t.createdAt),
    // Retention: a pruned crawl takes its deliveries along, and old deliveries go by age.
    index("webhook_deliveries_crawl_idx").on(sql`json_extract(${t.payload}, '$.data.crawl_id')`),
    index("webhook_deliveries_created_idx").on(t.createdAt),
    check("webhook_deliveries_one_target", sql`(${t.webhookId} IS NULL) <> (${t.channelId} IS NULL)`),
  ],
);

/** Every attempt of a delivery, kept for the deliveries log (response bodies cut to 1 KiB). */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    responseBody: text("response_body").notNull(),
    attemptedAt: text("attempted_at").notNull(),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt)],
);

/**
 * The store's identity: one row with a random id, made with the store (the migration inserts it) and carried by
 * its backups. The lock file beside the store records it (store/store-record.ts), so a start tells a restored
 * backup of this store from another install's store put in its place.
 */
export const storeIdentity = sqliteTable(
  "store_identity",
  {
    id: integer("id").primaryKey(),
    storeId: text("store_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [check("store_identity_one_row", sql`${t.id} = 1`)],
);

/*
 * Several nodes on one store (issue 43, docs/cluster.md). The tables exist in the SQLite store too, so both stores
 * share one schema and a copied store carries them; on one node they hold one node's rows.
 */

/**
 * The nodes serving the store, by name (cluster.node_name): a node registers at start and beats while it runs.
 * `instance` is random per process, so two live processes claiming one name are told apart (the one-serve-per-store
 * lock, held in the database). Not referenced by the leases: a lease names its holder even after the node left.
 */
export const clusterNodes = sqliteTable("cluster_nodes", {
  name: text("name").primaryKey(),
  instance: text("instance").notNull(),
  version: text("version").notNull(),
  startedAt: text("started_at").notNull(),
  heartbeatAt: text("heartbeat_at").notNull(),
});

/**
 * Who does a piece of work (a crawl, a delivery's attempt): one row per (kind, key), held by one node until
 * `expires_at`. `fence` grows with every claim, so a write checks (holder, fence) and a holder that lost its lease
 * to a takeover is refused even if it wakes up believing otherwise.
 */
export const workLeases = sqliteTable(
  "work_leases",
  {
    kind: text("kind").notNull(),
    key: text("key").notNull(),
    holder: text("holder").notNull(),
    expiresAt: text("expires_at").notNull(),
    fence: integer("fence").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key] }), index("work_leases_expiry_idx").on(t.kind, t.expiresAt), index("work_leases_holder_idx").on(t.holder)],
);

/** A recurring crawl's run due at `due_at`: the node whose insert makes the row starts the crawl, the others do nothing. */
export const scheduleRuns = sqliteTable(
  "schedule_runs",
  {
    domainId: text("domain_id")
      .notNull()
      .references(() => domains.id, { onDelete: "cascade" }),
    dueAt: text("due_at").notNull(),
    node: text("node").notNull(),
    firedAt: text("fired_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`),
  },
  (t) => [primaryKey({ columns: [t.domainId, t.dueAt] }), index("schedule_runs_due_idx").on(t.dueAt)],
);

/**
 * Secrets every node must share, by name (the dashboard's session signing key on a PostgreSQL store). The first
 * node to need one writes it; the others read that one.
 */
export const storeSecrets = sqliteTable("store_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

/**
 * Dashboard sessions signed out before their expiry, by the cookie's nonce: every node refuses them (a cookie
 * copied before sign-out stays dead on every node and after a restart). Rows go once the cookie could no longer
 * be accepted anyway (store/ended-sessions.repo.ts).
 */
export const endedSessions = sqliteTable(
  "ended_sessions",
  {
    nonce: text("nonce").primaryKey(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("ended_sessions_expiry_idx").on(t.expiresAt)],
);

/**
 * Rate-limit token buckets shared by the nodes of a PostgreSQL store, by caller (`key:<id>`, `addr:<net>`…);
 * `updated_at` in milliseconds since the epoch, `allowed` whether the last take got a token. The appliance keeps
 * its buckets in memory; the table is in both stores so they share one schema (http/shared-buckets.ts).
 */
export const rateBuckets = sqliteTable(
  "rate_buckets",
  {
    caller: text("caller").primaryKey(),
    tokens: real("tokens").notNull(),
    updatedAt: integer("updated_at").notNull(),
    allowed: integer("allowed").notNull(),
  },
  (t) => [index("rate_buckets_updated_idx").on(t.updatedAt)],
);

/**
 * Failed dashboard sign-ins shared by the nodes of a PostgreSQL store, by bucket (`addr:<net>`, `key:<prefix>`):
 * how many since the count was last forgotten, and when the last one was, in milliseconds on the store's clock.
 * The appliance counts them in memory; the table is in both stores so they share one schema (ui/shared-sign-in-backoff.ts).
 */
export const signInFailures = sqliteTable(
  "sign_in_failures",
  {
    bucket: text("bucket").primaryKey(),
    failures: integer("failures").notNull(),
    lastFailedAt: integer("last_failed_at").notNull(),
  },
  (t) => [index("sign_in_failures_last_idx").on(t.lastFailedAt)],
);
