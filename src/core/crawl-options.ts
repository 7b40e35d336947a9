import { z } from "zod";

/**
 * Crawl options (docs/api.md "Starting a crawl"): the one schema behind the stored JSON column, the service
 * types, request validation and the OpenAPI component. Omitted flags are false.
 */
export const CrawlOptionsSchema = z
  .strictObject({
    scan_images: z.boolean().default(false),
    scan_scripts: z.boolean().default(false),
    /** Stylesheet links, and the URLs inside the site's CSS: its stylesheets, `<style>` blocks, `style` attributes. */
    scan_stylesheets: z.boolean().default(false),
    follow_external: z.boolean().default(false),
    /** video/audio and their sources, track, embed, object data, media preloads. */
    scan_media: z.boolean().default(false),
    /** Fragments (`page.html#section`) of internal HTML pages are checked against the ids of the page. */
    check_fragments: z.boolean().default(false),
    /** Read robots.txt's Sitemap lines and /sitemap.xml: check every page they list, find the orphan pages. */
    use_sitemap: z.boolean().default(false),
    /** Pages detected as soft 404s (the site's "not found" page answered with 200) count as broken links. */
    soft_404_broken: z.boolean().default(false),
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
