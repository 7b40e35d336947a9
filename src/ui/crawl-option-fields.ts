import { CRAWL_OPTION_ROWS } from "../core/crawl-option-table.ts";
import { CrawlOptionsSchema, type CrawlOptions } from "../core/crawl-options.ts";

/** The crawl options as form checkboxes: every flag of the schema, with a label, and read back from a form. */

/** Every flag of the crawl options, with its label, so the forms follow the option table. */
export const OPTION_LABELS = CRAWL_OPTION_ROWS.map(([name, row]) => [name, row.label] as const);

/** Crawl options from a form's checkboxes. */
export function optionsFrom(form: Record<string, unknown>): CrawlOptions {
  return CrawlOptionsSchema.parse(Object.fromEntries(OPTION_LABELS.map(([name]) => [name, form[name] === "on"])));
}
