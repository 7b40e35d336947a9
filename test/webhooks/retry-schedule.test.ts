import { describe, expect, test } from "bun:test";
import { configSchema } from "../../src/config/schema.ts";
import { MAX_RETRY_AFTER_MS, nextAttemptDelayMs } from "../../src/webhooks/retry-schedule.ts";

// The delay before each retry: the schedule, ±10 % jitter, a longer Retry-After honoured up to 24 h, then dead.

const STANDARD = configSchema.parse({}).webhooks.retry_schedule;
const middle = () => 0.5; // no jitter
const lowest = () => 0; // -10 %
const highest = () => 0.999_999_999; // just under +10 %

describe("nextAttemptDelayMs", () => {
  test("the default schedule is the Standard Webhooks one", () => {
    expect(STANDARD).toEqual([5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 504e5, 72e6, 864e5]);
  });

  test("after attempt n comes the n-th scheduled delay", () => {
    expect(STANDARD.map((_, index) => nextAttemptDelayMs(index + 1, STANDARD, null, middle))).toEqual(STANDARD);
  });

  test("after the last scheduled retry the delivery is dead: ten attempts in all", () => {
    expect(nextAttemptDelayMs(9, STANDARD, null, middle)).toBe(86_400_000);
    expect(nextAttemptDelayMs(10, STANDARD, null, middle)).toBeNull();
    expect(nextAttemptDelayMs(11, STANDARD, null, middle)).toBeNull();
  });

  test("an empty schedule means a single attempt", () => {
    expect(nextAttemptDelayMs(1, [], null, middle)).toBeNull();
  });

  test("jitter stays within ±10 %", () => {
    expect(nextAttemptDelayMs(2, STANDARD, null, lowest)).toBe(270_000);
    expect(nextAttemptDelayMs(2, STANDARD, null, highest)).toBe(330_000);
    for (let i = 0; i < 1_000; i += 1) {
      const delay = nextAttemptDelayMs(1, STANDARD, null)!;
      expect(delay).toBeGreaterThanOrEqual(4_500);
      expect(delay).toBeLessThanOrEqual(5_500);
    }
  });

  test("jitter spreads retries: not every delay is the same", () => {
    const delays = new Set(Array.from({ length: 50 }, () => nextAttemptDelayMs(3, STANDARD, null)));
    expect(delays.size).toBeGreaterThan(10);
  });

  test("a Retry-After longer than the scheduled delay is honoured exactly, without jitter", () => {
    expect(nextAttemptDelayMs(1, STANDARD, 60_000, highest)).toBe(60_000);
    expect(nextAttemptDelayMs(1, STANDARD, 60_000, lowest)).toBe(60_000);
  });

  test("a Retry-After shorter than the scheduled delay does not bring the retry forward", () => {
    expect(nextAttemptDelayMs(2, STANDARD, 1_000, middle)).toBe(300_000);
    expect(nextAttemptDelayMs(2, STANDARD, 0, lowest)).toBe(270_000);
  });

  test("a Retry-After is capped at 24 h", () => {
    expect(nextAttemptDelayMs(1, STANDARD, 7 * 86_400_000, middle)).toBe(MAX_RETRY_AFTER_MS);
    expect(MAX_RETRY_AFTER_MS).toBe(86_400_000);
    // The 24 h slot itself may still be jittered above the cap.
    expect(nextAttemptDelayMs(9, STANDARD, 7 * 86_400_000, highest)).toBe(95_040_000);
  });

  test("a Retry-After does not revive a dead delivery", () => {
    expect(nextAttemptDelayMs(10, STANDARD, 60_000, middle)).toBeNull();
  });

  test("a custom schedule is followed", () => {
    expect(nextAttemptDelayMs(1, [1_000, 2_000], null, middle)).toBe(1_000);
    expect(nextAttemptDelayMs(2, [1_000, 2_000], null, middle)).toBe(2_000);
    expect(nextAttemptDelayMs(3, [1_000, 2_000], null, middle)).toBeNull();
  });

  test.each([0, -1, 1.5, Number.NaN])("attemptsMade %p is a programming error", (attempts) => {
    expect(() => nextAttemptDelayMs(attempts, STANDARD, null)).toThrow(RangeError);
  });
});
