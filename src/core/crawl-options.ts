import { z } from "zod";
import { CRAWL_OPTION_ROWS, type CrawlOptionName } from "./crawl-option-table.ts";

/**
 * Crawl options (docs/api.md "Starting a crawl"): the one schema behind the stored JSON column, the service
 * types, request validation and the OpenAPI component, derived from the option table (crawl-option-table.ts).
 * Omitted flags are false.
 */
type OptionFields = { [K in CrawlOptionName]: z.ZodDefault<z.ZodBoolean> };

export const CrawlOptionsSchema = z
  .strictObject(Object.fromEntries(CRAWL_OPTION_ROWS.map(([name, row]) => [name, z.boolean().default(false).describe(row.description)])) as OptionFields)
  .meta({ id: "CrawlOptions" });

export type CrawlOptions = z.output<typeof CrawlOptionsSchema>;

/**
 * `schema` or null. Written as a union because `.nullable()` on a named schema makes the OpenAPI generator
 * mark the shared component itself as nullable, which then leaks into every other use of it.
 */
export function orNull<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}
