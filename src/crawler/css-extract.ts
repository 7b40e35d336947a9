import type { ExtractedLink } from "./extract.ts";
import { scanCssUrls } from "./css-urls.ts";
import { normalizeUrl, recordedForm } from "./normalize.ts";

/**
 * One stylesheet's links, resolved against the sheet's own final URL as CSS says. At most `maxLinks` are kept and
 * the rest counted, so a 10 MB sheet of `url()`s costs bounded memory.
 */

/** What one stylesheet gave. */
export interface StylesheetLinks {
  links: ExtractedLink[];
  /** Links found past `maxLinks`: counted, not kept. */
  dropped: number;
}

/** The tag recorded for links found in a stylesheet file (there is no element). */
export const STYLESHEET_LINK_TAG = "css";

/** The links of the stylesheet `css` whose final URL is `sheetUrl`; `cut`: the text is the start of a longer body. */
export function extractStylesheetLinks(css: string, sheetUrl: string, options: { maxLinks: number; cut: boolean }): StylesheetLinks {
  const links: ExtractedLink[] = [];
  let dropped = 0;
  scanCssUrls(css, { source: "stylesheet", cut: options.cut }, (raw) => {
    const link = stylesheetLink(raw, sheetUrl);
    if (link === null) return;
    if (links.length < options.maxLinks) links.push(link);
    else dropped++;
  });
  return { links, dropped };
}

function stylesheetLink(raw: string, base: string): ExtractedLink | null {
  const common = { kind: "stylesheet", text: "", tag: STYLESHEET_LINK_TAG } as const;
  const normalized = normalizeUrl(raw, base);
  if (normalized.kind === "url") return { url: normalized.url, ...common };
  if (normalized.reason === "invalid") return { url: recordedForm(raw.trim()), ...common, uncheckable: "invalid_url" };
  if (normalized.reason === "too_long") return { url: recordedForm(normalized.url), ...common, uncheckable: "url_too_long" };
  return null;
}
