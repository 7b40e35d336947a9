import { describe, expect, test } from "bun:test";
import type { LinkOutcome } from "../../src/core/link-outcome.ts";
import { composeVerdict, pageCutWarning, type Finding, type PageCut } from "../../src/crawler/classify.ts";

const answered = (status: number): LinkOutcome => ({ kind: "answered", status, finalUrl: "https://x.example/" });
const none = new Set<number>();
/** The verdict of an outcome with nothing found besides it. */
const classifyOutcome = (outcome: LinkOutcome, context: { internal: boolean; acceptStatus: ReadonlySet<number> }) => composeVerdict(outcome, [], context);

describe("composeVerdict: the outcome alone", () => {
  test.each([200, 204, 301, 304, 399])("HTTP %i is fine", (status) => {
    expect(classifyOutcome(answered(status), { internal: true, acceptStatus: none })).toEqual({
      status_code: status,
      is_broken: false,
      error: null,
      warning: null,
    });
  });

  test.each([400, 404, 410, 500, 503])("HTTP %i is broken, internal or external", (status) => {
    for (const internal of [true, false]) {
      expect(classifyOutcome(answered(status), { internal, acceptStatus: none })).toEqual({ status_code: status, is_broken: true, error: null, warning: null });
    }
  });

  test.each([401, 403, 429, 999])("HTTP %i: a warning on external targets, broken on the domain's own pages", (status) => {
    const external = classifyOutcome(answered(status), { internal: false, acceptStatus: none });
    expect(external).toMatchObject({ status_code: status, is_broken: false, error: null });
    expect(external.warning).toContain(String(status));
    expect(classifyOutcome(answered(status), { internal: true, acceptStatus: none })).toMatchObject({ is_broken: true, warning: null });
  });

  test("accept_status codes are never broken", () => {
    expect(classifyOutcome(answered(404), { internal: true, acceptStatus: new Set([404]) })).toMatchObject({ status_code: 404, is_broken: false });
    expect(classifyOutcome(answered(500), { internal: true, acceptStatus: new Set([404]) })).toMatchObject({ is_broken: true });
  });

  test("no answer: status 0, broken, with the reason", () => {
    const verdict = classifyOutcome(
      { kind: "no_answer", reason: "refused", message: "connection refused by 127.0.0.1:9" },
      { internal: false, acceptStatus: new Set([0]) },
    );
    expect(verdict).toEqual({ status_code: 0, is_broken: true, error: "connection refused by 127.0.0.1:9", warning: null });
  });
});

describe("composeVerdict: findings", () => {
  const cut: PageCut = { limit: "max_body_bytes", value: 1024 };
  const soft404 = (broken: boolean): Finding => ({ kind: "soft_404", broken });
  const external = { internal: false, acceptStatus: none };

  test("every finding's warning is kept, in one order whatever order they were found in", () => {
    const robots: Finding = { kind: "not_followed", url: "https://x.example/private", rule: null };
    const page: Finding = { kind: "cut", cut, what: "page" };
    const a = composeVerdict(answered(200), [robots, page, soft404(false)], external);
    const b = composeVerdict(answered(200), [soft404(false), page, robots], external);
    expect(a).toEqual(b);
    expect(a.warning).toBe(
      [
        `soft_404: answers HTTP 200 with the site's "not found" page (the page a URL that does not exist gets)`,
        pageCutWarning(cut, "page"),
        "redirects to https://x.example/private, which robots.txt disallows; not followed",
      ].join("; "),
    );
    expect(a.is_broken).toBe(false);
  });

  test("a soft 404 is broken only when the crawl counts soft 404s as broken", () => {
    expect(composeVerdict(answered(200), [soft404(true)], external).is_broken).toBe(true);
    expect(composeVerdict(answered(200), [soft404(false)], external).is_broken).toBe(false);
  });

  test("a redirect not followed names the ignore rule that excludes its target", () => {
    const verdict = composeVerdict(answered(301), [{ kind: "not_followed", url: "https://x.example/a", rule: "*/a" }], external);
    expect(verdict.warning).toBe('redirects to https://x.example/a, which the ignore rule "*/a" excludes; not followed');
  });

  test("the answer's own warning (a bot wall) comes last, after the findings'", () => {
    const verdict = composeVerdict(answered(403), [{ kind: "cut", cut, what: "stylesheet" }], external);
    expect(verdict.warning).toBe(`${pageCutWarning(cut, "stylesheet")}; HTTP 403: the site refuses automated checks; the link was not judged broken`);
  });
});
