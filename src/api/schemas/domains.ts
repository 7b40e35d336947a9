import { z } from "@hono/zod-openapi";
import { VERIFIED_BY } from "../../core/verified-by.ts";
import { PageMeta } from "./common.ts";

/** Request and response schemas of /domains (CONTRACT "Domains"). */

export const CrawlOptionsSchema = z
  .strictObject({
    scan_images: z.boolean().default(false),
    scan_scripts: z.boolean().default(false),
    scan_stylesheets: z.boolean().default(false),
    follow_external: z.boolean().default(false),
  })
  .openapi("CrawlOptions");

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
    schedule: z
      .string()
      .max(200)
      .nullable()
      .optional()
      .openapi({ example: "0 3 * * *", description: "cron expression for recurring crawls; null removes it" }),
    default_options: CrawlOptionsSchema.nullable().optional(),
  })
  .openapi("UpdateDomain");

export const DomainSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    root_url: z.string(),
    verified: z.boolean(),
    verified_at: z.string().nullable(),
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
    default_options: CrawlOptionsSchema.nullable(),
    created_at: z.string(),
    updated_at: z.string().nullable(),
  })
  .openapi("Domain");

export const DomainListSchema = z.object({ data: z.array(DomainSchema), meta: PageMeta }).openapi("DomainList");
