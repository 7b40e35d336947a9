/**
 * Where each verification method looks, derived from the target alone, so that the instructions shown to the
 * user and the checks that follow can never disagree.
 */
import { bareHostname } from "../net/resolve.ts";
import type { VerificationTarget } from "./types.ts";

/** The DNS name of the TXT record: `_linkpatrol.<hostname>` (the name without its port). */
export function txtRecordName(target: Pick<VerificationTarget, "name">): string {
  return `_linkpatrol.${hostnameOf(target.name)}`;
}

/** The TXT value that proves control: `linkpatrol-verify=<token>`. */
export function txtRecordValue(target: Pick<VerificationTarget, "token">): string {
  return `linkpatrol-verify=${target.token}`;
}

/** The well-known file's URL on the root URL's origin. */
export function verificationFileUrl(target: Pick<VerificationTarget, "rootUrl">): string {
  return `${new URL(target.rootUrl).origin}/.well-known/linkpatrol-verify.txt`;
}

/** The meta tag to put in the root page's <head>. */
export function verificationMetaTag(target: Pick<VerificationTarget, "token">): string {
  return `<meta name="linkpatrol-verify" content="${target.token}">`;
}

/** The host part of a "host[:port]" name, lower case, without IPv6 brackets. */
export function hostnameOf(name: string): string {
  return bareHostname(new URL(`http://${name}/`).hostname);
}
