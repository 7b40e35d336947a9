import { matchesPattern, normalizeRobotsPath } from "./robots-match.ts";
import { productToken, type RobotsRule, type RobotsRules } from "./robots-parse.ts";

/**
 * What robots.txt (RFC 9309) lets the crawler do, as pure functions: which policy a fetch status implies,
 * and whether one path may be requested under parsed rules. Fetching, redirects and caching belong to the
 * crawler; parsing and pattern matching live in robots-parse.ts and robots-match.ts.
 *
 * A path is judged by one group only: the one naming our product token, else "*", else none (allow). Within
 * it the longest matching pattern wins, counted in octets of the normalised pattern as written, wildcards
 * included (§2.2.2); on equal length Allow wins, the least restrictive reading the RFC asks for.
 */

export { parseRobots, productToken, ROBOTS_MAX_BYTES, type RobotsRule, type RobotsRules } from "./robots-parse.ts";

/** The verdict on one path, with the rule that decided it so a report can name it. */
export type RobotsDecision =
  /** `rule` is null when no rule matched, no group applies, or the path is /robots.txt itself. */
  { kind: "allowed"; rule: RobotsRule | null } | { kind: "disallowed"; rule: RobotsRule };

/** How to treat a site after fetching its robots.txt. */
export type RobotsPolicy = "parse" | "allow_all" | "disallow_all";

const ROBOTS_PATH = "/robots.txt";

// The request target as rules see it: no fragment (never sent), always rooted, normalised like patterns.
function requestPath(pathAndQuery: string): string {
  const hash = pathAndQuery.indexOf("#");
  const target = hash < 0 ? pathAndQuery : pathAndQuery.slice(0, hash);
  return normalizeRobotsPath(target.startsWith("/") ? target : `/${target}`);
}

/** Judges `pathAndQuery` (e.g. "/a/b?c=d") for the crawler sending `userAgent`, naming the deciding rule. */
export function robotsDecision(rules: RobotsRules, userAgent: string, pathAndQuery: string): RobotsDecision {
  const path = requestPath(pathAndQuery);
  // §2.2.2: the file that states the rules can always be read.
  if (path === ROBOTS_PATH) return { kind: "allowed", rule: null };

  const group = rules.groups.get(productToken(userAgent)) ?? rules.groups.get("*");
  let best: RobotsRule | null = null;
  for (const rule of group ?? []) {
    if (best !== null && rule.pattern.length < best.pattern.length) continue;
    if (best !== null && rule.pattern.length === best.pattern.length && rule.kind === "disallow") continue;
    if (matchesPattern(rule.pattern, path)) best = rule;
  }
  if (best?.kind === "disallow") return { kind: "disallowed", rule: best };
  return { kind: "allowed", rule: best };
}

/** Whether the crawler sending `userAgent` may request `pathAndQuery` under `rules`. */
export function isAllowed(rules: RobotsRules, userAgent: string, pathAndQuery: string): boolean {
  return robotsDecision(rules, userAgent, pathAndQuery).kind === "allowed";
}

/**
 * The policy a robots.txt fetch implies (§2.3.1). 2xx: parse the body. 4xx: the file is "unavailable" and
 * everything may be crawled, 401 and 403 included. 5xx, no answer at all, or a status that makes no sense:
 * "unreachable", so nothing is crawled now and the crawler may try again later (after 30 days of that the
 * RFC lets it fall back to a cached copy or to allow-all; that is the crawler's call, not this function's).
 *
 * 429 is the one 4xx treated as unreachable, as Google does: it asks us to slow down, and answering that by
 * crawling the whole site would be the opposite. Redirects are followed by the fetcher (up to five, §2.3.1.2),
 * so a 3xx reaching this function means it gave up; the RFC lets that count as unavailable: allow all.
 */
export function robotsPolicyForStatus(status: number | "unreachable"): RobotsPolicy {
  if (status === "unreachable" || !Number.isInteger(status)) return "disallow_all";
  if (status >= 200 && status <= 299) return "parse";
  if (status === 429) return "disallow_all";
  if (status >= 300 && status <= 499) return "allow_all";
  return "disallow_all";
}
