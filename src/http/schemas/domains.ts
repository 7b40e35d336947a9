import { z } from "@hono/zod-openapi";
import { CrawlOptionsSchema, orNull } from "../../core/crawl-options.ts";
import { IgnoreRulesSchema } from "../../core/ignore-rules-schema.ts";
import { DomainSchema } from "../../services/domain-view.ts";
import { PageMeta } from "./common.ts";

/** Request bodies and the list envelope of /domains; the Domain resource itself is services/domain-view.ts. */

export const CreateDomainBody = z
  .strictObject({
    name: z.string().min(1).max(300).openapi({ example: "docs.example.com", description: "host, optionally with :port" }),
    root_url: z
      .string()
      .max(2048)
      .optional()
      .openapi({ example: "https://docs.example.com/", description: "defaults to https://NAME/; same host and port as name" }),
  })
  .openapi("CreateDomain");

export const UpdateDomainBody = z
  .strictObject({
    root_url: z.string().max(2048).optional().openapi({
      example: "http://docs.example.com:8080/manual/",
      description: "the start page: same host and port as name, http or https; 409 while a crawl of the domain is pending or running",
    }),
    schedule: z
      .string()
      .max(200)
      .nullable()
      .optional()
      .openapi({ example: "0 3 * * *", description: "cron expression (5 fields, 6 with seconds, or @daily-style) for recurring crawls; null removes it" }),
    schedule_timezone: z
      .string()
      .max(100)
      .nullable()
      .optional()
      .openapi({ example: "Europe/Berlin", description: "IANA time zone the schedule is read in; null: the server's local time" }),
    default_options: orNull(CrawlOptionsSchema).optional(),
    /** Replaces both lists (a list left out is empty); null removes every rule. */
    ignore_rules: orNull(IgnoreRulesSchema).optional(),
  })
  .openapi("UpdateDomain");

export const DomainListSchema = z.object({ data: z.array(DomainSchema), meta: PageMeta }).openapi("DomainList");
