/**
 * The part of safeFetch's options that the `crawler` config section decides, in one place, so the crawler,
 * domain verification and anything else that fetches on the operator's behalf apply the same policy,
 * timeouts and identity. Callers add what is theirs: method, redirect limit, a smaller body cap.
 */
import type { Config } from "../config/schema.ts";
import { policyFromCrawlerConfig } from "./address-policy.ts";
import type { Resolve } from "./resolve.ts";
import type { SafeFetchOptions } from "./safe-fetch.ts";

/** The options every fetch made for the crawler configuration shares. */
export type CrawlerFetchOptions = Pick<
  SafeFetchOptions,
  "policy" | "resolve" | "connectTimeoutMs" | "headerTimeoutMs" | "bodyTimeoutMs" | "maxBodyBytes" | "userAgent" | "headers"
>;

/** Builds the shared fetch options from the `crawler` section; `resolve` replaces the system resolver (tests). */
export function crawlerFetchOptions(crawler: Config["crawler"], resolve?: Resolve): CrawlerFetchOptions {
  return {
    policy: policyFromCrawlerConfig(crawler),
    resolve,
    connectTimeoutMs: crawler.connect_timeout,
    headerTimeoutMs: crawler.header_timeout,
    bodyTimeoutMs: crawler.body_timeout,
    maxBodyBytes: crawler.max_body_bytes,
    userAgent: crawler.user_agent,
    headers: crawler.headers,
  };
}
