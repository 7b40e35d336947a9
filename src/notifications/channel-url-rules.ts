/**
 * What a chat or push URL must look like, judged on its text at creation (as webhooks/url-rules.ts): https unless
 * allowed, no credentials, no fragment. Private hosts are the address policy's question.
 */
import type { Config } from "../config/schema.ts";
import type { AddressPolicy } from "../net/address-policy.ts";

/** Null when `url` is acceptable as a chat or push URL; otherwise why not. */
export function channelUrlProblem(url: string, allowHttp: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a valid URL";
  }
  if (parsed.protocol === "http:" && !allowHttp) return "chat and push URLs must use https (http is allowed only with notifications.allow_http)";
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return `the ${parsed.protocol} scheme is not allowed; chat and push URLs must use https`;
  if (parsed.username !== "" || parsed.password !== "") return "chat and push URLs must not contain credentials (user:password@)";
  if (parsed.hash !== "" || parsed.href.endsWith("#")) return "chat and push URLs must not contain a fragment (#…): it is never sent";
  return null;
}

/** Chat URLs: public addresses only, unless notifications.allow_private_targets or webhooks.allow_private_targets. */
export function channelAddressPolicy(config: Pick<Config, "notifications" | "webhooks">): AddressPolicy {
  return { allowPrivateNetworks: config.notifications.allow_private_targets || config.webhooks.allow_private_targets, allowedCidrs: [] };
}

/** Whether http:// chat URLs are accepted. */
export function channelAllowHttp(config: Pick<Config, "notifications" | "webhooks">): boolean {
  return config.notifications.allow_http || config.webhooks.allow_http;
}
