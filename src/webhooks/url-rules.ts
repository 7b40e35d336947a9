/**
 * What a webhook URL must look like, judged on its text at creation; a problem is a sentence for the 422
 * `unsafe_url` error. Private addresses are checked apart, at every attempt, because DNS answers change.
 * Refused: non-https (unless `webhooks.allow_http`), credentials in the URL, and a fragment (never sent).
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
