import { matchesPattern, normalizeRobotsPath } from "./robots-match.ts";
import { productToken, type RobotsRule, type RobotsRules } from "./robots-parse.ts";

/**
 * robots.txt (RFC 9309) as pure functions. A path is judged by one group (our token, else "*"); the longest
 * matching pattern wins, Allow on a tie (§2.2.2).
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
 * The policy a robots.txt status implies (RFC 9309 §2.3.1): 2xx parse, 4xx allow all, 5xx or none unreachable.
 * 429 counts as unreachable, as Google does: crawling everything would answer "slow down" with the opposite.
 */
export function robotsPolicyForStatus(status: number | "unreachable"): RobotsPolicy {
  if (status === "unreachable" || !Number.isInteger(status)) return "disallow_all";
  if (status >= 200 && status <= 299) return "parse";
  if (status === 429) return "disallow_all";
  if (status >= 300 && status <= 499) return "allow_all";
  return "disallow_all";
}
