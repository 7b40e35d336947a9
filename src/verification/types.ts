/**
 * The vocabulary of domain verification: what is being proven (a target), how (a method), and what each method
 * found (a result with a reason a user can act on). A failed method is a result, never an exception.
 */

/** A domain to verify: its name (host, optionally ":port"), its root URL and the token issued for it. */
export interface VerificationTarget {
  /** host[:port], as registered. */
  name: string;
  rootUrl: string;
  token: string;
}

/** The three ways to prove control of a domain, in the order they are reported. */
export type VerificationMethod = "dns_txt" | "http_file" | "meta_tag";

/** Every method, in report order. */
export const VERIFICATION_METHODS: readonly VerificationMethod[] = ["dns_txt", "http_file", "meta_tag"];

/** What one method found; `reason` is always filled, passed or not. */
export interface MethodResult {
  method: VerificationMethod;
  passed: boolean;
  reason: string;
}
