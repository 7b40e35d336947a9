/** What kind of element carried a link (a Link's `kind`), as stored and as the API shows it. */
export const LINK_KINDS = ["anchor", "image", "script", "stylesheet"] as const;
export type StoredLinkKind = (typeof LINK_KINDS)[number];
