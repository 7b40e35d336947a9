import { describe, expect, test } from "bun:test";
import type { LinkOutcome } from "../../src/core/link-outcome.ts";
import { classifyOutcome } from "../../src/crawler/classify.ts";

const answered = (status: number): LinkOutcome => ({ kind: "answered", status, finalUrl: "https://x.example/" });
const none = new Set<number>();

describe("classifyOutcome", () => {
  test.each([200, 204, 301, 304, 399])("HTTP %i is fine", (status) => {
    expect(classifyOutcome(answered(status), { internal: true, acceptStatus: none })).toEqual({ status_code: status, is_broken: false, error: null, warning: null });
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
    const verdict = classifyOutcome({ kind: "no_answer", reason: "refused", message: "connection refused by 127.0.0.1:9" }, { internal: false, acceptStatus: new Set([0]) });
    expect(verdict).toEqual({ status_code: 0, is_broken: true, error: "connection refused by 127.0.0.1:9", warning: null });
  });
});
