import { z } from "zod";
import { CrawlOptionsSchema, orNull } from "../core/crawl-options.ts";
import { VERIFIED_BY } from "../core/verified-by.ts";
import type { DomainRow } from "../store/schema.ts";
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
    created_at: z.string(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "Domain" });

export type DomainView = z.output<typeof DomainSchema>;

/** A stored row as the resource; `derived` holds what is not in the row. */
export function toDomainView(row: DomainRow, derived: { lastCrawlId: string | null } = { lastCrawlId: null }): DomainView {
  return {
    id: row.id,
    name: row.name,
    root_url: row.rootUrl,
    verified: row.verifiedAt !== null,
    verified_at: row.verifiedAt,
    verified_by: row.verifiedBy,
    verification: {
      token: row.verificationToken,
      methods: verificationInstructions({ name: row.name, rootUrl: row.rootUrl, token: row.verificationToken }),
    },
    schedule: row.schedule,
    schedule_timezone: row.scheduleTimezone,
    next_run_at: row.schedule === null ? null : (nextRunOf(row.schedule, row.scheduleTimezone)?.toISOString() ?? null),
    last_crawl_id: derived.lastCrawlId,
    default_options: row.defaultOptions ?? null,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}
