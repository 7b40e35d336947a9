/**
 * Domain verification: all three methods run concurrently and all results are returned, so a failure says what
 * each method saw. What "verified" means is the domains service's call.
 */
import type { Config } from "../config/schema.ts";
import { crawlerFetchOptions } from "../net/crawler-fetch-options.ts";
import type { Resolve } from "../net/resolve.ts";
import { checkDnsTxt } from "./dns-txt.ts";
import type { VerificationFetchSettings } from "./http-fetch.ts";
import { checkHttpFile } from "./http-file.ts";
import { checkMetaTag } from "./meta-tag.ts";
import { reach, type Reach } from "./reachability.ts";
import type { MethodResult, VerificationTarget } from "./types.ts";

export { verificationInstructions, type VerificationInstructions } from "./instructions.ts";
export type { MethodResult, VerificationMethod, VerificationTarget } from "./types.ts";
export type { Reach } from "./reachability.ts";

/** Runs every verification method against a target. */
export interface DomainVerifier {
  /** Results for dns_txt, http_file and meta_tag, in that order; never rejects for network problems. */
  verify(target: VerificationTarget): Promise<MethodResult[]>;
  /** Whether `url` gets any HTTP answer (a scheme that cannot connect, or a site that is down); never rejects. */
  reach?(url: string): Promise<Reach>;
}

/** Replaceable parts: `resolve` for the HTTP methods' address lookups (tests), `ca` for private PKI. */
export interface DomainVerifierDeps {
  resolve?: Resolve;
  ca?: string | string[];
}

/** Builds a verifier from the `crawler` (address policy, timeouts, identity) and `verification` sections. */
export function createDomainVerifier(config: Pick<Config, "crawler" | "verification">, deps: DomainVerifierDeps = {}): DomainVerifier {
  const http: VerificationFetchSettings = {
    fetch: { ...crawlerFetchOptions(config.crawler, deps.resolve), ca: deps.ca },
    timeoutMs: config.verification.timeout,
  };
  const dns = { servers: config.verification.dns_servers, timeoutMs: config.verification.timeout };
  return {
    async verify(target) {
      return Promise.all([checkDnsTxt(target, dns), checkHttpFile(target, http), checkMetaTag(target, http)]);
    },
    reach: (url) => reach(url, http),
  };
}
