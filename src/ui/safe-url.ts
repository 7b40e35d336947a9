/**
 * URLs from crawled sites are hostile: one becomes an `href` only when it parses as http or https, so a
 * `javascript:` or `data:` link recorded by a crawl is shown as text and never made clickable.
 */

/** `url` when it is an absolute http(s) URL, else undefined (render it as text). */
export function safeHref(url: string | null | undefined): string | undefined {
  if (url === null || url === undefined) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
