/**
 * What made a link broken, as far as a later crawl must know to check it again (stored with unchecked links):
 * a soft 404 is judged only with `soft_404_broken`, a missing fragment only with `check_fragments`.
 */
export const BREAKAGE_CAUSES = ["answer", "soft_404", "fragment"] as const;
export type BreakageCause = (typeof BREAKAGE_CAUSES)[number];

/**
 * The cause of a broken link's verdict: a missing fragment when the link carries its own fragment error, else a
 * 2xx or 3xx answer judged broken (the soft-404 rule is the only one that breaks such an answer), else the answer.
 */
export function breakageCause(link: { status_code: number; fragment_broken: boolean }): BreakageCause {
  if (link.fragment_broken) return "fragment";
  if (link.status_code >= 200 && link.status_code < 400) return "soft_404";
  return "answer";
}
