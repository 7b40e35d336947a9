import type { StoredLinkKind } from "./schema.ts";

/** A recorded link with its target's verdict, as links.repo.ts reads it and target-verdicts.ts builds it. */
export interface LinkRecord {
  url: string;
  source_url: string;
  status_code: number;
  is_broken: boolean;
  link_text: string;
  kind: StoredLinkKind;
  final_url: string | null;
  error: string | null;
  warning: string | null;
  /** When the link was first found broken, carried across crawls (store/schema.ts `broken_links`); null unless broken. */
  broken_since: string | null;
}

/**
 * A link's columns from `links l` and its target `crawl_targets t`, with `b` its broken_links row (joined, or
 * LEFT JOINed where the link may not be broken). A link's URL is its target's followed by its fragment
 * (check_fragments: part of its identity; "" otherwise), and its verdict is its target's, unless its fragment
 * was judged: a missing one makes it broken (crawler/fragments.ts).
 */
export const LINK_COLUMNS = `t.url || l.fragment AS url, l.source_url, t.status_code, CASE WHEN l.fragment_error IS NULL THEN t.is_broken ELSE 1 END AS is_broken, l.link_text,
  l.kind, t.final_url, COALESCE(l.fragment_error, t.error) AS error, COALESCE(l.fragment_warning, t.warning) AS warning, b.broken_since`;

/** A row read with LINK_COLUMNS. */
export type RawLink = Omit<LinkRecord, "is_broken"> & { is_broken: number };

export function toLink({ url, source_url, status_code, is_broken, link_text, kind, final_url, error, warning, broken_since }: RawLink): LinkRecord {
  return { url, source_url, status_code, is_broken: is_broken === 1, link_text, kind, final_url, error, warning, broken_since };
}
