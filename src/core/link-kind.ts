/**
 * What kind of element carried a link (a Link's `kind`), as stored and as the API shows it; `sitemap`: a `<loc>`
 * of one of the site's sitemaps (the Link's source is the sitemap).
 */
export const LINK_KINDS = ["anchor", "image", "script", "stylesheet", "media", "sitemap"] as const;
export type StoredLinkKind = (typeof LINK_KINDS)[number];
