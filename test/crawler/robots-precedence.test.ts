import { describe, expect, test } from "bun:test";
import { isAllowed, parseRobots, robotsDecision } from "../../src/crawler/robots.ts";

// Inside the chosen group the longest matching pattern wins; Allow wins a tie (RFC 9309 §2.2.2).
const UA = "linkpatrol/0.1.0";

const WORDPRESS = `
User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
`;

const TIE = `
User-agent: *
Disallow: /page
Allow: /page
`;

const TIE_REVERSED = `
User-agent: *
Allow: /folder
Disallow: /folder
`;

const WILDCARD_LENGTH = `
User-agent: *
Allow: /p
Disallow: /*
`;

const ORDER_DOES_NOT_MATTER = `
User-agent: *
Allow: /shop/cart/public
Disallow: /shop/
Disallow: /shop/cart/
`;

const DISALLOW_ALL_ALLOW_ONE = `
User-agent: *
Disallow: /
Allow: /$
Allow: /public/
`;

const EQUAL_LENGTH_DIFFERENT_SHAPES = `
User-agent: *
Disallow: /*.php
Allow: /index.ph
`;

describe("longest match wins", () => {
  test.each([
    ["the longer Allow beats the shorter Disallow", WORDPRESS, "/wp-admin/admin-ajax.php", true],
    ["the Disallow still covers the rest", WORDPRESS, "/wp-admin/options.php", false],
    ["outside both rules: allowed", WORDPRESS, "/blog/", true],
    ["Allow wins a tie", TIE, "/page.html", true],
    ["Allow wins a tie whatever the order", TIE_REVERSED, "/folder/x", true],
    ["wildcards count toward length: /* and /p tie, so Allow wins", WILDCARD_LENGTH, "/page", true],
    ["/* alone disallows what /p does not cover", WILDCARD_LENGTH, "/x", false],
    ["file order does not matter (longest Disallow)", ORDER_DOES_NOT_MATTER, "/shop/cart/1", false],
    ["file order does not matter (longest Allow)", ORDER_DOES_NOT_MATTER, "/shop/cart/public/x", true],
    ["file order does not matter (shortest Disallow)", ORDER_DOES_NOT_MATTER, "/shop/item", false],
    ["Allow: /$ opens the home page only", DISALLOW_ALL_ALLOW_ONE, "/", true],
    ["…not other pages", DISALLOW_ALL_ALLOW_ONE, "/about", false],
    ["…but a longer Allow opens its folder", DISALLOW_ALL_ALLOW_ONE, "/public/a", true],
    ["equal-length patterns of different shapes: Allow wins", EQUAL_LENGTH_DIFFERENT_SHAPES, "/index.php", true],
    ["…and the Disallow applies where the Allow does not match", EQUAL_LENGTH_DIFFERENT_SHAPES, "/a.php", false],
  ])("%s", (_name, robots, path, allowed) => {
    expect(isAllowed(parseRobots(robots), UA, path)).toBe(allowed);
  });
});

describe("robotsDecision names the deciding rule", () => {
  test("a Disallow, with its line", () => {
    expect(robotsDecision(parseRobots(WORDPRESS), UA, "/wp-admin/x")).toEqual({
      kind: "disallowed",
      rule: { kind: "disallow", pattern: "/wp-admin/", line: 3 },
    });
  });

  test("an Allow that overrode a Disallow", () => {
    expect(robotsDecision(parseRobots(WORDPRESS), UA, "/wp-admin/admin-ajax.php?action=x")).toEqual({
      kind: "allowed",
      rule: { kind: "allow", pattern: "/wp-admin/admin-ajax.php", line: 4 },
    });
  });

  test("no rule matched", () => {
    expect(robotsDecision(parseRobots(WORDPRESS), UA, "/")).toEqual({ kind: "allowed", rule: null });
  });

  test("an empty file allows everything", () => {
    expect(robotsDecision(parseRobots(""), UA, "/x")).toEqual({ kind: "allowed", rule: null });
  });
});
