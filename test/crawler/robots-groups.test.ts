import { describe, expect, test } from "bun:test";
import { isAllowed, parseRobots, productToken } from "../../src/crawler/robots.ts";

// Which group a crawler obeys (RFC 9309 §2.2.1): its own product token, else "*", else none.
const UA = "linkpatrol/0.1.0 (+https://linkpatrol.example/bot)";

describe("productToken", () => {
  test.each([
    ["linkpatrol/0.1.0 (+https://linkpatrol.example/bot)", "linkpatrol"],
    ["LinkPatrol", "linkpatrol"],
    ["  Googlebot-Image/1.0", "googlebot-image"],
    ["Mozilla/5.0 (compatible; linkpatrol/0.1)", "mozilla"],
    ["360Spider", "360spider"],
    ["(compatible)", ""],
    ["", ""],
  ])("%p → %p", (userAgent, token) => {
    expect(productToken(userAgent)).toBe(token);
  });
});

const SPECIFIC_AND_STAR = `
User-agent: *
Disallow: /

User-agent: linkpatrol
Disallow: /private/
`;

const CASE_AND_VERSION = `
User-agent: *
Disallow: /

User-agent: LINKPATROL/2.0
Disallow: /private/
`;

const MERGED = `
User-agent: linkpatrol
Disallow: /a/

User-agent: googlebot
Disallow: /

User-agent: LinkPatrol
Disallow: /b/
`;

const SHARED_BLOCK = `
User-agent: googlebot
User-agent: linkpatrol
# a comment between agent lines keeps the run going
User-agent: bingbot
Disallow: /shared/

User-agent: *
Disallow: /
`;

const STAR_ONLY = `
User-agent: googlebot
Disallow: /

User-agent: *
Disallow: /tmp/
`;

const OTHERS_ONLY = `
User-agent: googlebot
Disallow: /
`;

const EMPTY_OWN_GROUP = `
User-agent: linkpatrol
Disallow:

User-agent: *
Disallow: /
`;

const PREFIX_IS_NOT_A_MATCH = `
User-agent: link
Disallow: /

User-agent: linkpatrolling
Disallow: /
`;

const RULES_THEN_AGENT = `
User-agent: linkpatrol
Disallow: /mine/
User-agent: googlebot
Disallow: /theirs/
`;

const SITEMAP_IN_RUN = `
User-agent: googlebot
Sitemap: https://example.com/sitemap.xml
User-agent: linkpatrol
Disallow: /shared/
`;

const EMPTY_AGENT_VALUE = `
User-agent:
Disallow: /

User-agent: *
Disallow: /tmp/
`;

describe("group selection", () => {
  test.each([
    ["the specific group beats *", SPECIFIC_AND_STAR, "/private/x", false],
    ["the specific group replaces *, not adds to it", SPECIFIC_AND_STAR, "/public", true],
    ["agent values match case-insensitively, versions ignored", CASE_AND_VERSION, "/public", true],
    ["…and their rules apply", CASE_AND_VERSION, "/private/x", false],
    ["duplicate groups are merged (first)", MERGED, "/a/1", false],
    ["duplicate groups are merged (second)", MERGED, "/b/1", false],
    ["another agent's group does not leak into ours", MERGED, "/c/1", true],
    ["agent lines share one rule block", SHARED_BLOCK, "/shared/x", false],
    ["…and only that block", SHARED_BLOCK, "/elsewhere", true],
    ["* applies when no group names us", STAR_ONLY, "/tmp/x", false],
    ["* group's other paths are allowed", STAR_ONLY, "/home", true],
    ["no group for us and no *: allow", OTHERS_ONLY, "/anything", true],
    ["our own empty group beats a * that disallows all", EMPTY_OWN_GROUP, "/anything", true],
    ["a token that is a prefix or extension of ours does not match", PREFIX_IS_NOT_A_MATCH, "/x", true],
    ["a User-agent after rules starts a new group (ours)", RULES_THEN_AGENT, "/mine/1", false],
    ["a User-agent after rules starts a new group (not ours)", RULES_THEN_AGENT, "/theirs/1", true],
    ["a Sitemap line does not break a run of agents", SITEMAP_IN_RUN, "/shared/1", false],
    ["an empty User-agent value names no one", EMPTY_AGENT_VALUE, "/x", true],
    ["…so * still applies", EMPTY_AGENT_VALUE, "/tmp/x", false],
  ])("%s", (_name, robots, path, allowed) => {
    expect(isAllowed(parseRobots(robots), UA, path)).toBe(allowed);
  });

  test("merged groups keep their rules under one lower-cased token", () => {
    const rules = parseRobots(MERGED);
    expect([...rules.groups.keys()].sort()).toEqual(["googlebot", "linkpatrol"]);
    expect(rules.groups.get("linkpatrol")?.map((rule) => rule.pattern)).toEqual(["/a/", "/b/"]);
  });

  test("a user agent with no product token falls back to *", () => {
    expect(isAllowed(parseRobots(STAR_ONLY), "(unnamed)", "/tmp/x")).toBe(false);
    expect(isAllowed(parseRobots(STAR_ONLY), "(unnamed)", "/home")).toBe(true);
  });
});
