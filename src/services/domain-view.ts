import { z } from "zod";
import { CrawlOptionsSchema, orNull } from "../core/crawl-options.ts";
import { IgnoreRulesSchema } from "../core/ignore-rules-schema.ts";
import { VERIFIED_BY } from "../core/verified-by.ts";
import type { DomainRecord } from "../store/domains.repo.ts";
import { verificationInstructions } from "../verification/verifier.ts";
import { nextRunOf } from "./schedule.ts";

/** The Domain resource as every caller sees it: the schema is the type here and the OpenAPI component in the API. */
export const DomainSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    root_url: z.string(),
    verified: z.boolean(),
    verified_at: z.string().nullable(),
    /** null while unverified. */
    verified_by: z.enum(VERIFIED_BY).nullable(),
    verification: z.object({
      token: z.string(),
      methods: z.object({
        dns_txt: z.object({ name: z.string(), value: z.string() }),
        http_file: z.object({ url: z.string(), body: z.string() }),
        meta_tag: z.object({ html: z.string() }),
      }),
    }),
    schedule: z.string().nullable(),
    /** IANA time zone of the schedule; null: the server's local time. */
    schedule_timezone: z.string().nullable(),
    /** When the schedule next starts a crawl; null without a schedule. */
    next_run_at: z.string().nullable(),
    /** The domain's newest crawl, whoever started it; null before the first. */
    last_crawl_id: z.string().nullable(),
    default_options: orNull(CrawlOptionsSchema),
    /** URL patterns its crawls never check (`exclude`) or never count as broken (`mute`); empty lists when none. */
    ignore_rules: IgnoreRulesSchema,
    created_at: z.string(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "Domain" });

export type DomainView = z.output<typeof DomainSchema>;

/** A stored domain as the resource; `derived` holds what is not in the record. */
export function toDomainView(row: DomainRecord, derived: { lastCrawlId: string | null } = { lastCrawlId: null }): DomainView {
  return {
    id: row.id,
    name: row.name,
    root_url: row.root_url,
    verified: row.verified_at !== null,
    verified_at: row.verified_at,
    verified_by: row.verified_by,
    verification: {
      token: row.verification_token,
      methods: verificationInstructions({ name: row.name, rootUrl: row.root_url, token: row.verification_token }),
    },
    schedule: row.schedule,
    schedule_timezone: row.schedule_timezone,
    next_run_at: row.schedule === null ? null : (nextRunOf(row.schedule, row.schedule_timezone)?.toISOString() ?? null),
    last_crawl_id: derived.lastCrawlId,
    default_options: row.default_options,
    ignore_rules: row.ignore_rules,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
