import { describe, expect, test } from "bun:test";
import { retryDecision, type RetryPolicy } from "../../src/crawler/retry.ts";
import { parseRetryAfter } from "../../src/net/retry-after.ts";

const policy: RetryPolicy = { maxRetries: 3, maxWaitMs: 10_000, baseDelayMs: 500 };
const NOW = Date.parse("2026-11-22T08:00:00Z");

describe("parseRetryAfter", () => {
  test.each([
    ["0", 0],
    ["12", 12_000],
    [" 3 ", 3_000],
    ["Sun, 22 Nov 2026 08:00:30 GMT", 30_000],
    ["Sun, 22 Nov 2026 07:00:00 GMT", 0],
  ])("%p → %p ms", (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  test.each([undefined, "", "-1", "1.5", "soon", "2026-11-22T08:00:30Z"])("%p is unreadable", (value) => {
    expect(parseRetryAfter(value, NOW)).toBeNull();
  });
});

describe("retryDecision", () => {
  test("429 with Retry-After waits as asked", () => {
    expect(retryDecision({ status: 429, retryAfter: "2" }, 0, policy, NOW)).toEqual({ retry: true, delayMs: 2_000 });
  });

  test("429 without Retry-After backs off exponentially", () => {
    expect([0, 1, 2].map((n) => retryDecision({ status: 429 }, n, policy, NOW))).toEqual([
      { retry: true, delayMs: 500 },
      { retry: true, delayMs: 1_000 },
      { retry: true, delayMs: 2_000 },
    ]);
  });

  test("the number of retries is bounded", () => {
    expect(retryDecision({ status: 429, retryAfter: "1" }, 3, policy, NOW)).toEqual({ retry: false });
  });

  test("a wait longer than the policy allows is not honoured: judge now", () => {
    expect(retryDecision({ status: 429, retryAfter: "3600" }, 0, policy, NOW)).toEqual({ retry: false });
  });

  test("503 is retried only when it names a Retry-After", () => {
    expect(retryDecision({ status: 503 }, 0, policy, NOW)).toEqual({ retry: false });
    expect(retryDecision({ status: 503, retryAfter: "1" }, 0, policy, NOW)).toEqual({ retry: true, delayMs: 1_000 });
  });

  test.each([200, 301, 404, 500, 502])("HTTP %i is never retried", (status) => {
    expect(retryDecision({ status, retryAfter: "1" }, 0, policy, NOW)).toEqual({ retry: false });
  });
});
