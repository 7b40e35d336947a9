import { safeFetch, type SafeFetchOptions } from "../net/safe-fetch.ts";
import { parseRobots, robotsDecision, robotsPolicyForStatus, ROBOTS_MAX_BYTES, type RobotsRules } from "./robots.ts";

/**
 * robots.txt per origin, fetched once per crawl and shared. Unlike RFC 9309, no HTTP answer at all means the
 * targets are checked: a dead host is what a link checker must report. 5xx and 429 still mean "stay away".
 */

/** What robots.txt of one origin came to; a refusal of the whole origin keeps the answer that caused it. */
type OriginRules = RobotsRules | { kind: "allow_all" } | { kind: "disallow_all"; status: number };

/** Whether a URL may be fetched, and when not, why, in words for the crawl's report. */
export type RobotsVerdict = { allowed: true } | { allowed: false; reason: string };

const ALLOWED: RobotsVerdict = { allowed: true };

/** Redirects followed for robots.txt (RFC 9309 §2.3.1.2: at least five). */
const ROBOTS_MAX_REDIRECTS = 5;

export class RobotsCache {
  private readonly origins = new Map<string, Promise<OriginRules>>();

  constructor(
    private readonly fetchOptions: Omit<SafeFetchOptions, "method" | "maxRedirects" | "maxBodyBytes">,
    private readonly userAgent: string,
  ) {}

  /** Whether robots.txt of `url`'s origin lets the crawler fetch it; `signal` cancels a fetch in progress. */
  async allows(url: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.verdict(url, signal)).allowed;
  }

  /** Like allows(), with the reason of a refusal. */
  async verdict(url: string, signal?: AbortSignal): Promise<RobotsVerdict> {
    const parsed = new URL(url);
    const resolved = await this.rulesOf(parsed.origin, signal);
    if ("kind" in resolved) {
      if (resolved.kind === "allow_all") return ALLOWED;
      return { allowed: false, reason: `${parsed.origin}/robots.txt answered HTTP ${resolved.status}, which disallows the whole site (RFC 9309)` };
    }
    if (robotsDecision(resolved, this.userAgent, parsed.pathname + parsed.search).kind === "allowed") return ALLOWED;
    return { allowed: false, reason: `${parsed.origin}/robots.txt disallows it` };
  }

  /** The Sitemap lines of `origin`'s robots.txt; none when it could not be read or read as a whole-site policy. */
  async sitemaps(origin: string, signal?: AbortSignal): Promise<readonly string[]> {
    const resolved = await this.rulesOf(origin, signal);
    return "kind" in resolved ? [] : (resolved.sitemaps ?? []);
  }

  private rulesOf(origin: string, signal: AbortSignal | undefined): Promise<OriginRules> {
    let rules = this.origins.get(origin);
    if (rules === undefined) {
      rules = this.load(origin, signal);
      this.origins.set(origin, rules);
    }
    return rules;
  }

  private async load(origin: string, signal: AbortSignal | undefined): Promise<OriginRules> {
    const result = await safeFetch(`${origin}/robots.txt`, {
      ...this.fetchOptions,
      method: "GET",
      maxRedirects: ROBOTS_MAX_REDIRECTS,
      maxBodyBytes: ROBOTS_MAX_BYTES,
      signal,
    });
    if (result.kind === "error") {
      // A cancelled fetch says nothing about the site: forget it so a resumed crawl asks again.
      if (result.error === "aborted") this.origins.delete(origin);
      return { kind: "allow_all" };
    }
    const policy = robotsPolicyForStatus(result.status);
    if (policy === "allow_all") return { kind: "allow_all" };
    if (policy === "disallow_all") return { kind: "disallow_all", status: result.status };
    try {
      return parseRobots(new TextDecoder().decode(result.body));
    } catch {
      return { kind: "allow_all" }; // a file we cannot read states no rules
    }
  }
}
