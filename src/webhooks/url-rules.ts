/**
 * What a webhook URL must look like, judged on the text alone when a webhook is created: a problem comes back
 * as a sentence for the 422 `unsafe_url` error, not as an exception, so the service decides how to report it.
 * Whether the host is a private address is a separate question (assertUrlAllowed with webhookAddressPolicy at
 * creation, safeFetch on the pinned address at every attempt), because DNS answers change and text does not.
 *
 * Refused, and why:
 * - a scheme other than https (http only with `webhooks.allow_http`): the body carries crawl data and the
 *   signature proves who sent it, but only TLS keeps it private and proves who receives it;
 * - credentials in the URL (`user:pass@`): they would be stored and shown like any URL, and the signature is
 *   how a receiver authenticates us;
 * - a fragment (`#…`): it is never sent in an HTTP request, so whatever it was meant to carry (often a token
 *   pasted in the wrong place) would silently not arrive; saying so beats stripping it behind the user's back.
 */
import type { Config } from "../config/schema.ts";
import type { AddressPolicy } from "../net/address-policy.ts";

/** Null when `url` is acceptable as a webhook target; otherwise why not, in words fit for the API user. */
export function webhookUrlProblem(url: string, allowHttp: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not a valid URL: ${JSON.stringify(url)}`;
  }
  if (parsed.protocol === "http:" && !allowHttp) {
    return "webhook URLs must use https (http is allowed only when the operator sets webhooks.allow_http)";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return `the ${parsed.protocol} scheme is not allowed; webhook URLs must use https`;
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return "webhook URLs must not contain credentials (user:password@); receivers authenticate deliveries by their signature";
  }
  // "https://x/#" parses to an empty hash but keeps the "#" in href: both forms are refused alike.
  if (parsed.hash !== "" || parsed.href.endsWith("#")) {
    return "webhook URLs must not contain a fragment (#…): it is never sent to the receiver";
  }
  return null;
}

/** The address policy for webhook targets: public addresses only, unless `allow_private_targets` is on. */
export function webhookAddressPolicy(webhooks: Pick<Config["webhooks"], "allow_private_targets">): AddressPolicy {
  return { allowPrivateNetworks: webhooks.allow_private_targets, allowedCidrs: [] };
}

/** Appended to "private or reserved address" errors so the operator knows which key changes the answer. */
export const WEBHOOK_POLICY_HINT = "allow it with webhooks.allow_private_targets";
