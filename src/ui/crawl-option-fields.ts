import { CrawlOptionsSchema, type CrawlOptions } from "../core/crawl-options.ts";

/** The crawl options as form checkboxes: every flag of the schema, with a label, and read back from a form. */

/** Labels of the options the dashboard knows; any other option of the schema gets its name as its label. */
const KNOWN_LABELS: Partial<Record<string, string>> = {
  scan_images: "Check images",
  scan_scripts: "Check scripts",
  scan_stylesheets: "Check stylesheets (and URLs in CSS)",
  follow_external: "Check external links",
  scan_media: "Check video, audio and embeds",
  check_fragments: "Check #fragments of internal pages",
  use_sitemap: "Use the sitemap (find orphan pages)",
  soft_404_broken: "Count soft 404s as broken",
};

/** Every flag of the crawl options schema, so the forms follow it when options are added. */
export const OPTION_LABELS = (Object.keys(CrawlOptionsSchema.shape) as (keyof CrawlOptions)[]).map(
  (name) => [name, KNOWN_LABELS[name] ?? name.replaceAll("_", " ")] as const,
);

/** Crawl options from a form's checkboxes. */
export function optionsFrom(form: Record<string, unknown>): CrawlOptions {
  return CrawlOptionsSchema.parse(Object.fromEntries(OPTION_LABELS.map(([name]) => [name, form[name] === "on"])));
}
