/** Why a link's `#fragment` got no verdict of its own (check_fragments), as stored and counted for warnings. */
export const FRAGMENT_GAPS = ["body_cut", "too_many_ids", "long_fragment", "not_fetched"] as const;
export type FragmentGap = (typeof FRAGMENT_GAPS)[number];

/** The gaps a page's ids can have: why a fragment not among them may still be on the page. */
export type PageIdsGap = Extract<FragmentGap, "body_cut" | "too_many_ids">;
