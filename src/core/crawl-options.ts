import { z } from "zod";

/**
 * Crawl options (docs/api.md "Starting a crawl"): the one schema behind the stored JSON column, the service
 * types, request validation and the OpenAPI component. Omitted flags are false.
 */
export const CrawlOptionsSchema = z
  .strictObject({
    scan_images: z.boolean().default(false),
    scan_scripts: z.boolean().default(false),
    scan_stylesheets: z.boolean().default(false),
    follow_external: z.boolean().default(false),
  })
  .meta({ id: "CrawlOptions" });

export type CrawlOptions = z.output<typeof CrawlOptionsSchema>;

/**
 * `schema` or null. Written as a union because `.nullable()` on a named schema makes the OpenAPI generator
 * mark the shared component itself as nullable, which then leaks into every other use of it.
 */
export function orNull<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}
