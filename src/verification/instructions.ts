/**
 * The instructions returned with a new domain (`verification.methods`, docs/api.md "Verification"): the same three
 * places the checks look at, built from target.ts so they cannot drift apart.
 */
import { txtRecordName, txtRecordValue, verificationFileUrl, verificationMetaTag } from "./target.ts";
import type { VerificationTarget } from "./types.ts";

/** What the user must publish for each method. */
export interface VerificationInstructions {
  dns_txt: { name: string; value: string };
  http_file: { url: string; body: string };
  meta_tag: { html: string };
}

/** Builds the per-method instructions for a domain and its token. */
export function verificationInstructions(target: VerificationTarget): VerificationInstructions {
  return {
    dns_txt: { name: txtRecordName(target), value: txtRecordValue(target) },
    http_file: { url: verificationFileUrl(target), body: target.token },
    meta_tag: { html: verificationMetaTag(target) },
  };
}
