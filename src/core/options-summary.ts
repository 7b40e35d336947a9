import { CRAWL_OPTION_ROWS } from "./crawl-option-table.ts";
import type { CrawlOptions } from "./crawl-options.ts";

/** A crawl's options in words, wherever a crawl's result is shown: different options find different things. */

const KINDS = CRAWL_OPTION_ROWS.flatMap(([flag, row]) => (row.summary !== null && "kind" in row.summary ? [[flag, row.summary.kind] as const] : []));
const EXTRAS = CRAWL_OPTION_ROWS.flatMap(([flag, row]) => (row.summary !== null && "extra" in row.summary ? [[flag, row.summary.extra] as const] : []));

/** E.g. "anchors, images; internal and external links; #fragments", or "anchors only; internal links only". */
export function describeOptions(options: CrawlOptions): string {
  const kinds = KINDS.filter(([flag]) => options[flag]).map(([, name]) => name);
  const parts = [
    kinds.length === 0 ? "anchors only" : ["anchors", ...kinds].join(", "),
    options.follow_external ? "internal and external links" : "internal links only",
  ];
  const extras = EXTRAS.filter(([flag]) => options[flag]).map(([, name]) => name);
  if (extras.length > 0) parts.push(extras.join(", "));
  return parts.join("; ");
}
