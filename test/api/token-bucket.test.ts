import { describe, expect, test } from "bun:test";
import { TokenBuckets } from "../../src/api/middleware/rate-limit/token-bucket.ts";

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
