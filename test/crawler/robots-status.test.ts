import { expect, test } from "bun:test";
import { robotsPolicyForStatus } from "../../src/crawler/robots.ts";

// What a robots.txt fetch result means for the crawl (RFC 9309 §2.3.1).
test.each([
  [200, "parse"],
  [203, "parse"],
  [204, "parse"],
  [299, "parse"],
  [300, "allow_all"], // the fetcher follows redirects; one reaching here means it gave up: unavailable
  [308, "allow_all"],
  [400, "allow_all"],
  [401, "allow_all"],
  [403, "allow_all"],
  [404, "allow_all"],
  [410, "allow_all"],
  [451, "allow_all"],
  [429, "disallow_all"], // "slow down" is not permission to crawl everything
  [500, "disallow_all"],
  [502, "disallow_all"],
  [503, "disallow_all"],
  [599, "disallow_all"],
  ["unreachable", "disallow_all"],
  [100, "disallow_all"],
  [0, "disallow_all"],
  [-1, "disallow_all"],
  [600, "disallow_all"],
  [200.5, "disallow_all"],
  [Number.NaN, "disallow_all"],
] as const)("%p → %p", (status, policy) => {
  expect(robotsPolicyForStatus(status)).toBe(policy);
});
