/**
 * Why a link's `#fragment` got no verdict of its own (check_fragments), as stored and counted for the crawl's
 * warnings: its page's ids may lack the one it names (`body_cut`: the page was read only up to max_body_bytes;
 * `too_many_ids`: the page has more ids than are kept), the fragment is too long to check (`long_fragment`), or
 * its page was never read for ids (`not_fetched`: no answer when fetched for them, or past the pages a crawl
 * fetches only for their ids).
 */
export const FRAGMENT_GAPS = ["body_cut", "too_many_ids", "long_fragment", "not_fetched"] as const;
export type FragmentGap = (typeof FRAGMENT_GAPS)[number];

/** The gaps a page's ids can have: why a fragment not among them may still be on the page. */
export type PageIdsGap = Extract<FragmentGap, "body_cut" | "too_many_ids">;
