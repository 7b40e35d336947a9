import { CrawlOptionsSchema } from "../core/crawl-options.ts";
import { z } from "zod";
import { duration } from "./duration.ts";
import { addressOrCidr, cidr, dnsServer, postgresUrl, publicUrl } from "./network-values.ts";

/**
 * The whole configuration as one zod schema: every key has a default, unknown keys are errors
 * (strict objects), and deploy/linkpatrol.example.yaml documents the same keys. Parsed once at start.
 */

const serverFields = z.strictObject({
  host: z.string().min(1).default("0.0.0.0"),
  port: z.number().int().min(0).max(65535).default(8080),
  base_path: z
    .string()
    .regex(/^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/, "must start with / and not end with /")
    .default("/v1"),
  max_request_body_bytes: z
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(1024 * 1024),
  /** After SIGTERM: how long in-flight requests, crawl checkpoints and webhook attempts may take before exit. */
  shutdown_timeout: duration(1_000, 600_000).default(25_000),
  /**
   * The address people reach the dashboard at (behind a reverse proxy: the proxy's), e.g.
   * https://linkpatrol.example.com/; links in notifications and the start-up log are built from it. null: none.
   */
  public_url: publicUrl.nullable().default(null),
  /** Reverse proxies whose forwarding header names the client (addresses or CIDRs); none: the peer is the client. */
  trusted_proxies: z.array(addressOrCidr).max(1_000).default([]),
  /** The header those proxies write the client's address into. */
  forwarded_header: z.enum(["x-forwarded-for", "forwarded"]).default("x-forwarded-for"),
});

/** Which ended crawls (with their links and webhook deliveries) are pruned, and how often that is checked. */
const retentionFields = z.strictObject({
  /** Crawls that ended longer ago than this; null keeps them regardless of age. */
  max_age: duration(3_600_000, 100 * 365 * 86_400_000)
    .nullable()
    .default(365 * 86_400_000),
  /** Crawls of a domain beyond its newest this many; null keeps them regardless of count. */
  keep_last: z.number().int().min(1).max(1_000_000).nullable().default(100),
  interval: duration(1_000, 7 * 86_400_000).default(3_600_000),
});

const storageFields = z.strictObject({
  path: z.string().min(1).default("./data/linkpatrol.db"),
  /** A `postgres://` URL: the store is that PostgreSQL database (several nodes), not the SQLite file at `path`. */
  url: postgresUrl.nullable().default(null),
  busy_timeout: duration(0, 600_000).default(5_000),
  retention: retentionFields.prefault({}),
});

const authFields = z.strictObject({
  bootstrap_key: z
    .string()
    .regex(/^lp_[0-9A-Za-z]{32,}$/, "must be lp_ followed by at least 32 base62 characters")
    .nullable()
    .default(null),
  rate_limit: z.number().int().min(0).max(1_000_000).default(600),
});

const crawlerFields = z.strictObject({
  workers: z.number().int().min(0).max(256).default(0),
  /** Nice value of crawl worker threads (0 = the service's own): the API keeps the CPU while crawls run. */
  nice: z.number().int().min(0).max(19).default(19),
  concurrency: z.number().int().min(1).max(512).default(16),
  per_host_concurrency: z.number().int().min(1).max(64).default(4),
  connect_timeout: duration(100, 120_000).default(10_000),
  header_timeout: duration(100, 300_000).default(15_000),
  body_timeout: duration(100, 600_000).default(30_000),
  max_pages: z.number().int().min(1).max(10_000_000).default(10_000),
  max_depth: z.number().int().min(0).max(10_000).default(50),
  /** Links taken from one page at most (occurrences, in document order); the rest are counted as a cut page. */
  max_links_per_page: z.number().int().min(1).max(1_000_000).default(50_000),
  max_duration: duration(1_000, 7 * 86_400_000).default(3_600_000),
  max_body_bytes: z
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  user_agent: z.string().min(1).max(512).default("linkpatrol/{version} (+https://github.com/linkpatrol/linkpatrol)"),
  respect_robots: z.boolean().default(true),
  /** Extra request headers for the crawled site's own origin (e.g. a staging site's auth), never other hosts; Host and User-Agent are ours. */
  headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "not an HTTP header name"), z.string().max(8192)).default({}),
  accept_status: z.array(z.number().int().min(100).max(999)).default([]),
  allow_private_networks: z.boolean().default(false),
  allowed_cidrs: z.array(cidr).default([]),
});

const verificationFields = z.strictObject({
  dns_servers: z.array(dnsServer).default([]),
  timeout: duration(100, 120_000).default(10_000),
});

/** The Standard Webhooks retry schedule: the delay before each retry after a failed attempt. */
const STANDARD_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000];

const webhooksFields = z.strictObject({
  timeout: duration(100, 300_000).default(15_000),
  retry_schedule: z
    .array(duration(1_000, 7 * 86_400_000))
    .max(50)
    .default(STANDARD_RETRY_SCHEDULE_MS),
  allow_http: z.boolean().default(false),
  allow_private_targets: z.boolean().default(false),
  ca_file: z.string().min(1).nullable().default(null),
  disable_after: duration(60_000, 365 * 86_400_000).default(5 * 86_400_000),
  max_concurrent: z.number().int().min(1).max(256).default(8),
});

/** Notification channels (email and chat); their deliveries share the webhooks' outbox, retry schedule and concurrency. */
const notificationsFields = z.strictObject({
  /** Time one attempt may take: the SMTP conversation, or a chat request with its whole answer. */
  timeout: duration(1_000, 300_000).default(20_000),
  /** Accept http:// chat and push URLs (a self-hosted ntfy, Gotify or Matrix on a trusted network). */
  allow_http: z.boolean().default(false),
  /** Allow chat and push URLs on private addresses (webhooks.allow_private_targets allows them too). SMTP hosts are always allowed. */
  allow_private_targets: z.boolean().default(false),
  /** PEM file of CA certificates trusted IN ADDITION to the system roots, for SMTP over TLS and chat URLs. */
  ca_file: z.string().min(1).nullable().default(null),
});

const loggingFields = z.strictObject({
  level: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

/** GET /metrics: on the API listener behind the metrics:read scope, or on a listener of its own without a key. */
const metricsFields = z.strictObject({
  enabled: z.boolean().default(true),
  /** A separate listener's port for /metrics (no key asked there); null: /metrics is served on the API port. */
  port: z.number().int().min(0).max(65535).nullable().default(null),
  /** Address of that separate listener; keep it private (loopback or a management network). */
  host: z.string().min(1).default("127.0.0.1"),
});

/** The web dashboard served at / by the same listener (docs/dashboard.md). */
const uiFields = z.strictObject({
  enabled: z.boolean().default(true),
});

/** One node among several serving the same store: how it names itself in /healthz, /metrics, logs and the dashboard. */
const clusterFields = z.strictObject({
  /** null: the machine's host name, read once at start. */
  node_name: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/, "must be 1-100 letters, digits, '.', '_' or '-'")
    .nullable()
    .default(null),
  /**
   * How long a silent node keeps its work (crawls, deliveries) before another node takes it up; nodes renew every
   * third of it. Short: a dead node's crawls move sooner, at a renewal's write per lease/3 per node. Long: a pause
   * (GC, a slow database) is survived, at a longer wait after a crash.
   */
  lease: duration(5_000, 600_000).default(30_000),
});

const schedulerFields = z.strictObject({
  catch_up: z.boolean().default(true),
});

/** One recurring crawl declared in the file; the domain must already be registered. */
const scheduleEntry = z.strictObject({
  domain: z.string().min(1).max(300),
  cron: z.string().min(1).max(200),
  timezone: z.string().min(1).max(100).nullable().default(null),
  options: CrawlOptionsSchema.optional(),
});

/** Each section's own object schema, by name: the env override loader looks keys up here. */
export const SECTION_SCHEMAS = {
  server: serverFields,
  storage: storageFields,
  auth: authFields,
  crawler: crawlerFields,
  scheduler: schedulerFields,
  verification: verificationFields,
  webhooks: webhooksFields,
  notifications: notificationsFields,
  metrics: metricsFields,
  ui: uiFields,
  logging: loggingFields,
  cluster: clusterFields,
} as const;

export type ConfigSection = keyof typeof SECTION_SCHEMAS;

/** The configuration schema; `Config` is its parsed output. */
export const configSchema = z
  .strictObject({
    server: serverFields.prefault({}),
    storage: storageFields.prefault({}),
    auth: authFields.prefault({}),
    crawler: crawlerFields.prefault({}),
    scheduler: schedulerFields.prefault({}),
    /** Recurring crawls set from the file (a list, so not overridable per key from the environment). */
    schedules: z.array(scheduleEntry).max(10_000).default([]),
    verification: verificationFields.prefault({}),
    webhooks: webhooksFields.prefault({}),
    notifications: notificationsFields.prefault({}),
    metrics: metricsFields.prefault({}),
    ui: uiFields.prefault({}),
    logging: loggingFields.prefault({}),
    cluster: clusterFields.prefault({}),
  })
  .prefault({});

export type Config = z.output<typeof configSchema>;
