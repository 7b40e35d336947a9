import { describe, expect, test } from "bun:test";
import { isAllowed, parseRobots, ROBOTS_MAX_BYTES } from "../../src/crawler/robots.ts";

// Reading the file: whatever a hand-written robots.txt gets wrong is skipped, never fatal (RFC 9309 §2.1–2.5).
const UA = "linkpatrol/0.1.0";

function allowed(robots: string, path: string): boolean {
  return isAllowed(parseRobots(robots), UA, path);
}

describe("syntax tolerance", () => {
  test.each([
    ["LF", "User-agent: *\nDisallow: /x\n"],
    ["CRLF", "User-agent: *\r\nDisallow: /x\r\n"],
    ["lone CR", "User-agent: *\rDisallow: /x\r"],
    ["mixed endings", "User-agent: *\r\n\rDisallow: /x\n"],
    ["BOM", "\uFEFFUser-agent: *\nDisallow: /x\n"],
    ["BOM and CRLF", "\uFEFFUser-agent: *\r\nDisallow: /x"],
    ["upper-case field names", "USER-AGENT: *\nDISALLOW: /x\n"],
    ["mixed-case field names", "User-Agent: *\ndisAllow: /x\n"],
    ["leading and trailing whitespace", "   User-agent:   *   \n\t Disallow :\t/x \t\n"],
    ["no space after the colon", "User-agent:*\nDisallow:/x\n"],
    ["trailing comments", "User-agent: * # everyone\nDisallow: /x # keep out\n"],
    ["comment lines and blank lines inside the group", "User-agent: *\n\n# rules\n\nDisallow: /x\n"],
    ["lines without a colon are skipped", "User-agent: *\nthis line means nothing\nDisallow /y\nDisallow: /x\n"],
    ["unknown fields are skipped", "User-agent: *\nCrawl-delay: 10\nHost: example.com\nNoindex: /x\nDisallow: /x\n"],
    ["Sitemap lines are skipped", "Sitemap: https://example.com/s.xml\nUser-agent: *\nSitemap: https://example.com/t.xml\nDisallow: /x\n"],
    ["no final newline", "User-agent: *\nDisallow: /x"],
  ])("%s", (_name, robots) => {
    expect(allowed(robots, "/x/1")).toBe(false);
    expect(allowed(robots, "/y/1")).toBe(true);
  });

  test("a pattern keeps a colon it contains", () => {
    expect(allowed("User-agent: *\nDisallow: /a:b\n", "/a:b/c")).toBe(false);
    expect(allowed("User-agent: *\nDisallow: /a:b\n", "/a")).toBe(true);
  });

  test("a # always starts a comment, even inside a pattern", () => {
    expect(allowed("User-agent: *\nDisallow: /#x\n", "/anything")).toBe(false);
  });
});

describe("rules that do not apply", () => {
  test.each([
    ["rules before any User-agent are ignored", "Disallow: /\nUser-agent: *\nDisallow: /x\n", "/y", true],
    ["…and the group after them still applies", "Disallow: /\nUser-agent: *\nDisallow: /x\n", "/x", false],
    ["only rules before any User-agent: allow all", "Disallow: /\nAllow: /x\n", "/y", true],
    ["an empty Disallow disallows nothing", "User-agent: *\nDisallow:\n", "/anything", true],
    ["an empty Disallow with spaces and a comment", "User-agent: *\nDisallow:   # nothing\n", "/anything", true],
    ["an empty Disallow beside a real one", "User-agent: *\nDisallow:\nDisallow: /x\n", "/x", false],
    ["an empty Allow opens nothing", "User-agent: *\nDisallow: /\nAllow:\n", "/x", false],
    ["an empty file allows all", "", "/x", true],
    ["a file of comments allows all", "# nothing here\n# really\n", "/x", true],
    ["HTML served as robots.txt allows all", "<!doctype html><html><body>Not found</body></html>", "/x", true],
  ])("%s", (_name, robots, path, expected) => {
    expect(allowed(robots, path)).toBe(expected);
  });

  test("an empty Disallow still ends the run of User-agent lines", () => {
    const robots = "User-agent: linkpatrol\nDisallow:\nUser-agent: googlebot\nDisallow: /\n";
    expect(allowed(robots, "/x")).toBe(true);
    expect(isAllowed(parseRobots(robots), "googlebot/2.1", "/x")).toBe(false);
  });
});

describe("/robots.txt and odd request targets", () => {
  const everything = "User-agent: *\nDisallow: /\n";
  test.each([
    ["/robots.txt", true],
    ["/robots.txt#top", true],
    ["/robots.txt?x=1", false], // another resource, under the rules like any other
    ["/robots.txt.bak", false],
    ["/", false],
    ["", false], // the empty target is "/"
  ])("%p under Disallow: / → %p", (path, expected) => {
    expect(allowed(everything, path)).toBe(expected);
  });

  test("a fragment is never compared", () => {
    expect(allowed("User-agent: *\nDisallow: /*#\nDisallow: /a$\n", "/a#section")).toBe(false);
  });
});

describe("the 500 KiB cap", () => {
  const head = "User-agent: *\nDisallow: /early\n";

  test("a rule past the cap is not applied; rules before it are", () => {
    const filler = `# ${"x".repeat(ROBOTS_MAX_BYTES)}\n`;
    const robots = `${head}${filler}Disallow: /late\n`;
    expect(allowed(robots, "/early")).toBe(false);
    expect(allowed(robots, "/late")).toBe(true);
  });

  test("the cap counts UTF-8 octets, not characters", () => {
    // 300,000 "ü" are 600,000 octets but fewer characters than the cap.
    const robots = `${head}# ${"ü".repeat(300_000)}\nDisallow: /late\n`;
    expect(robots.length).toBeLessThan(ROBOTS_MAX_BYTES);
    expect(allowed(robots, "/late")).toBe(true);
  });

  test("a rule just inside the cap is applied", () => {
    const tail = "Disallow: /late\n";
    const filler = `#${"x".repeat(ROBOTS_MAX_BYTES - head.length - tail.length - 2)}\n`;
    const robots = head + filler + tail;
    expect(new TextEncoder().encode(robots).length).toBe(ROBOTS_MAX_BYTES);
    expect(allowed(robots, "/late")).toBe(false);
  });

  test("a rule ending exactly at the cap, its newline just past it, is applied", () => {
    const rule = "Disallow: /late";
    const filler = `#${"x".repeat(ROBOTS_MAX_BYTES - head.length - rule.length - 2)}\n`;
    const robots = `${head}${filler}${rule}\nDisallow: /past\n`;
    expect(new TextEncoder().encode(head + filler + rule).length).toBe(ROBOTS_MAX_BYTES);
    expect(allowed(robots, "/late")).toBe(false);
    expect(allowed(robots, "/past")).toBe(true);
  });

  test("a rule the cap cuts through is dropped, not shortened", () => {
    // Cut after "Disallow: /p", the line would block everything under /p.
    const rule = "Disallow: /private-area\n";
    const filler = `#${"x".repeat(ROBOTS_MAX_BYTES - head.length - "Disallow: /p".length - 2)}\n`;
    const robots = head + filler + rule;
    expect(new TextEncoder().encode(head + filler).length + "Disallow: /p".length).toBe(ROBOTS_MAX_BYTES);
    expect(allowed(robots, "/public")).toBe(true);
    expect(allowed(robots, "/private-area")).toBe(true);
    expect(allowed(robots, "/early")).toBe(false);
  });
});
