/** How a domain came to be verified: one of the three ownership checks, or vouched for by the operator (CLI). */
export const VERIFIED_BY = ["dns_txt", "http_file", "meta_tag", "operator"] as const;

export type VerifiedBy = (typeof VERIFIED_BY)[number];
