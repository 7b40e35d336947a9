import { describe, expect, test } from "bun:test";
import { matchesPattern, normalizeRobotsPath } from "../../src/crawler/robots-match.ts";
import { isAllowed, parseRobots } from "../../src/crawler/robots.ts";

// Path patterns: prefix match, `*` for any run, a final `$` for the end, compared after percent-encoding
// normalisation (RFC 9309 §2.2.2–2.2.3).
const UA = "linkpatrol/0.1.0";

function matches(pattern: string, path: string): boolean {
  return matchesPattern(normalizeRobotsPath(pattern), normalizeRobotsPath(path));
}

describe("prefix, * and $", () => {
  test.each([
    ["/fish", "/fish", true],
    ["/fish", "/fish.html", true],
    ["/fish", "/fish/salmon.html", true],
    ["/fish", "/fishheads/yummy.html", true],
    ["/fish", "/fish.php?id=anything", true],
    ["/fish", "/Fish.asp", false],
    ["/fish", "/catfish", false],
    ["/fish", "/?id=fish", false],
    ["/fish*", "/fish", true],
    ["/fish*", "/fishheads", true],
    ["/fish*", "/catfish", false],
    ["/fish/", "/fish/", true],
    ["/fish/", "/fish/?id=anything", true],
    ["/fish/", "/fish/salmon.htm", true],
    ["/fish/", "/fish", false],
    ["/fish/", "/fish.html", false],
    ["/fish/", "/Fish/Salmon.asp", false],
    ["/*.php", "/index.php", true],
    ["/*.php", "/folder/filename.php?parameters", true],
    ["/*.php", "/folder/any.php.file.html", true],
    ["/*.php", "/", false],
    ["/*.php", "/windows.PHP", false],
    ["/*.php$", "/filename.php", true],
    ["/*.php$", "/folder/filename.php", true],
    ["/*.php$", "/filename.php?parameters", false],
    ["/*.php$", "/filename.php/", false],
    ["/*.php$", "/filename.php5", false],
    ["/*.pdf$", "/docs/report.pdf", true],
    ["/*.pdf$", "/docs/report.pdf.html", false],
    ["/*.pdf$", "/docs/report.pdf?download=1", false],
    ["/fish*.php", "/fish.php", true],
    ["/fish*.php", "/fishheads/catfish.php?parameters", true],
    ["/fish*.php", "/Fish.PHP", false],
    ["/*?", "/search?q=x", true],
    ["/*?", "/search?", true],
    ["/*?", "/search", false],
    ["/$", "/", true],
    ["/$", "/index.html", false],
    ["/fish*$", "/fish/anything", true],
    ["/a**b", "/a/b", true],
    ["*", "/anything", true],
    ["/a$b", "/a$b/c", true], // "$" is only an anchor at the end
    ["/a$b", "/a", false],
    ["/*a$", "/a", true], // the anchored tail may follow the star directly
    ["/ab*b$", "/ab", false], // …but may not reuse octets the head already matched
    ["/ab*b$", "/abb", true],
    ["private", "/private", false], // not a path pattern: never matches
  ])("%p against %p → %p", (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected);
  });
});

describe("query strings are part of the path", () => {
  const robots = parseRobots(`
User-agent: *
Disallow: /search?
Disallow: /*?sessionid=
Disallow: /*&sort=
Allow: /search?q=
`);
  test.each([
    ["/search", true],
    ["/search?page=2", false],
    ["/search?q=fish", true],
    ["/item?sessionid=abc", false],
    ["/item?ref=1&sessionid=abc", true], // "?sessionid=" is not in this query
    ["/list?page=1&sort=asc", false],
    ["/item?id=1", true],
  ])("%p → %p", (path, allowed) => {
    expect(isAllowed(robots, UA, path)).toBe(allowed);
  });
});

describe("percent-encoding", () => {
  test.each([
    ["/%7ejoe", "/~joe"],
    ["/%7Ejoe", "/~joe"],
    ["/%41%62%2d%5f%2E", "/Ab-_."],
    ["/a%2fb", "/a%2Fb"], // "/" is reserved: stays encoded, hex upper-cased
    ["/a%3fb", "/a%3Fb"],
    ["/ä", "/%C3%A4"],
    ["/%c3%a4", "/%C3%A4"],
    ["/ツ", "/%E3%83%84"],
    ["/😀", "/%F0%9F%98%80"],
    ["/a b", "/a%20b"],
    ["/100%", "/100%"], // a stray "%" is left as written
    ["/%zz", "/%zz"],
    ["/*.pdf$", "/*.pdf$"],
  ])("%p normalises to %p", (raw, normal) => {
    expect(normalizeRobotsPath(raw)).toBe(normal);
  });

  test.each([
    ["/~joe/", "/%7Ejoe/index.html", true],
    ["/%7ejoe/", "/~joe/index.html", true],
    ["/foo/bar/%62%61%7A", "/foo/bar/baz", true],
    ["/foo/bar/ツ", "/foo/bar/%E3%83%84", true],
    ["/foo/bar/%e3%83%84", "/foo/bar/ツ", true],
    ["/caf%C3%A9", "/caf%c3%a9/menu", true],
    ["/a%2Fb", "/a/b", false], // an escaped "/" is a different path
    ["/a/b", "/a%2Fb", false],
  ])("%p matches %p → %p", (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected);
  });

  test("rules and paths meet through isAllowed", () => {
    const robots = parseRobots("User-agent: *\nDisallow: /%7Euser/private\nDisallow: /Bücher/\n");
    expect(isAllowed(robots, UA, "/~user/private/x")).toBe(false);
    expect(isAllowed(robots, UA, "/B%c3%bccher/1")).toBe(false);
    expect(isAllowed(robots, UA, "/Bucher/1")).toBe(true);
  });
});

describe("hostile patterns finish", () => {
  const longPath = `/${"a".repeat(200_000)}`;

  test.each([
    ["/*a*a*a*a*a*a*a*b", longPath, false],
    ["/*a*a*a*a*a*a*a*b", `${longPath}b`, true],
    ["/*a*a*a*a*a*a*a*b$", `${longPath}ba`, false],
    [`/${"*a".repeat(2_000)}*b`, longPath, false],
    [`/${"*".repeat(5_000)}b$`, `${longPath}b`, true],
  ])("pattern of %#", (pattern, path, expected) => {
    expect(matchesPattern(pattern, path)).toBe(expected);
  });

  test("through the whole pipeline, many such rules", () => {
    const rules = Array.from({ length: 500 }, (_, i) => `Disallow: /*a*a*a*a*a*a*a*b${"a".repeat(i)}`).join("\n");
    expect(isAllowed(parseRobots(`User-agent: *\n${rules}\n`), UA, longPath)).toBe(true);
  });
});
