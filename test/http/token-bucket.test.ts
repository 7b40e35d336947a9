import { describe, expect, test } from "bun:test";
import { TokenBuckets } from "../../src/http/token-bucket.ts";

describe("TokenBuckets", () => {
  test("bursts to capacity, then refills at capacity per window", () => {
    const buckets = new TokenBuckets(60, 60_000);
    const t0 = 1_000_000;
    for (let i = 0; i < 60; i++) expect(buckets.take("k", t0).allowed).toBe(true);
    const refused = buckets.take("k", t0);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1, resetSeconds: 60 });
    expect(buckets.take("k", t0 + 1_000).allowed).toBe(true);
    expect(buckets.take("k", t0 + 1_000).allowed).toBe(false);
    expect(buckets.take("k", t0 + 61_000)).toMatchObject({ allowed: true, remaining: 59 });
  });

  test("callers do not share tokens", () => {
    const buckets = new TokenBuckets(1);
    expect(buckets.take("a", 0).allowed).toBe(true);
    expect(buckets.take("a", 0).allowed).toBe(false);
    expect(buckets.take("b", 0).allowed).toBe(true);
  });
});

describe("TokenBuckets and time", () => {
  test("time running backwards counts as no time: nothing drained, nothing refilled", () => {
    const buckets = new TokenBuckets(10, 60_000);
    const t0 = 5_000_000;
    for (let i = 0; i < 3; i++) buckets.take("k", t0);
    // A reading 10 minutes earlier (what a wall clock stepped back gave): still 7 tokens, then 6.
    expect(buckets.take("k", t0 - 600_000)).toMatchObject({ allowed: true, remaining: 6 });
    expect(buckets.take("k", t0 - 600_000 + 6_000)).toMatchObject({ allowed: true, remaining: 6 });
  });

  test("uses the monotonic clock by default", () => {
    const buckets = new TokenBuckets(2, 60_000);
    const realNow = Date.now;
    try {
      buckets.take("k");
      Date.now = () => realNow() - 5 * 3_600_000;
      expect(buckets.take("k")).toMatchObject({ allowed: true, remaining: 0 });
      Date.now = () => realNow() + 5 * 3_600_000;
      expect(buckets.take("k").allowed).toBe(false);
    } finally {
      Date.now = realNow;
    }
  });

  test("memory stays bounded under a flood of distinct callers that are not full", () => {
    const buckets = new TokenBuckets(1_000, 60_000, 500);
    for (let i = 0; i < 5_000; i++) buckets.take(`caller-${i}`, 1_000);
    expect(buckets.size).toBeLessThanOrEqual(500);
    // The most recent callers are the ones remembered.
    expect(buckets.take("caller-4999", 1_000).remaining).toBe(998);
  });
});
