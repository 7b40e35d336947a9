import { normalizeRobotsPath } from "./robots-match.ts";

/**
 * A robots.txt body into groups (RFC 9309 §2.1–2.2, §2.5), forgiving: anything malformed is skipped, never fatal.
 * Groups naming the same agent are merged and patterns normalised once, so matching stays cheap.
 */

/** How much of a robots.txt is read (§2.5 asks parsers to read at least 500 KiB); the fetcher may stop here too. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/** One Allow or Disallow line. */
export interface RobotsRule {
  kind: "allow" | "disallow";
  /** The path pattern in normalised percent-encoding (see robots-match.ts), as it is matched. */
  pattern: string;
  /** 1-based line in the file, so a report can say which rule excluded a link. */
  line: number;
}

/** A parsed robots.txt: the rules for each product token, "*" for the default group. */
export interface RobotsRules {
  /** Keys are lower-cased product tokens; every group naming a token has been merged into its list. */
  groups: ReadonlyMap<string, readonly RobotsRule[]>;
  /** The values of its Sitemap lines (they belong to no group), in file order, at most ROBOTS_MAX_SITEMAPS. */
  sitemaps?: readonly string[];
}

/** Sitemap lines kept at most, and the longest value kept: a hostile file cannot make the crawler read thousands. */
export const ROBOTS_MAX_SITEMAPS = 50;
const MAX_SITEMAP_LINE = 2048;

const PRODUCT_TOKEN = /^[A-Za-z0-9_-]+/;

/**
 * The lower-cased product token that leads a user agent or a User-agent value ("linkpatrol" from
 * "linkpatrol/0.1.0 (+https://…)"), or "" when it has none. Digits are accepted although §2.2.1 allows
 * only letters, "-" and "_", since real bots ("360Spider") use them and accepting them harms no one.
 */
export function productToken(userAgent: string): string {
  return PRODUCT_TOKEN.exec(userAgent.trim())?.[0].toLowerCase() ?? "";
}

// Cuts the text at ROBOTS_MAX_BYTES of UTF-8 and drops a line the cut went through: half a pattern
// would be a different rule, and "Disallow: /private-area" cut to "Disallow: /p" would block a whole site.
function capAtLimit(text: string): string {
  // A UTF-16 code unit never takes more than 3 octets in UTF-8, so short text needs no encoding.
  if (text.length * 3 <= ROBOTS_MAX_BYTES) return text;
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= ROBOTS_MAX_BYTES) return text;
  const head = new TextDecoder().decode(bytes.subarray(0, ROBOTS_MAX_BYTES));
  const next = bytes[ROBOTS_MAX_BYTES];
  if (next === 0x0a || next === 0x0d) return head;
  const lastBreak = Math.max(head.lastIndexOf("\n"), head.lastIndexOf("\r"));
  return lastBreak < 0 ? "" : head.slice(0, lastBreak);
}

/** Parses a robots.txt body; never throws, and an empty or unreadable body yields no groups (allow all). */
export function parseRobots(text: string): RobotsRules {
  const groups = new Map<string, RobotsRule[]>();
  const sitemaps: string[] = [];
  const lines = capAtLimit(text)
    .replace(/^\uFEFF/, "")
    .split(/\r\n|\r|\n/);

  // The agents of the group being read, and whether a rule has been seen since its User-agent lines.
  let agents: Set<string> | null = null;
  let inRules = false;

  lines.forEach((raw, index) => {
    const hash = raw.indexOf("#");
    const line = hash < 0 ? raw : raw.slice(0, hash);
    const colon = line.indexOf(":");
    if (colon < 0) return;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();

    if (field === "user-agent") {
      if (agents === null || inRules) {
        agents = new Set();
        inRules = false;
      }
      // A value with no token ("User-agent:") still opens the group, but the group applies to no one.
      const token = value === "*" ? "*" : productToken(value);
      if (token === "") return;
      agents.add(token);
      if (!groups.has(token)) groups.set(token, []);
      return;
    }
    if (field === "sitemap") {
      // A "#" in the URL was taken for a comment above; it could only have started a fragment, which is dropped anyway.
      if (value !== "" && value.length <= MAX_SITEMAP_LINE && sitemaps.length < ROBOTS_MAX_SITEMAPS) sitemaps.push(value);
      return;
    }
    if (field !== "allow" && field !== "disallow") return; // crawl-delay, host, typos…
    if (agents === null) return; // a rule before any User-agent belongs to no group (§2.1)
    inRules = true;
    // An empty value disallows (or allows) nothing; it still ends the run of User-agent lines above it.
    if (value === "") return;
    const rule: RobotsRule = { kind: field, pattern: normalizeRobotsPath(value), line: index + 1 };
    for (const agent of agents) groups.get(agent)?.push(rule);
  });

  return { groups, sitemaps };
}
