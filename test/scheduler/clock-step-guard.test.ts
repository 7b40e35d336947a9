import { describe, expect, test } from "bun:test";
import { ClockStepGuard } from "../../src/scheduler/clock-step-guard.ts";

/**
 * The guard's rule on two clocks moved by hand: a run repeated because the wall clock went back over it is
 * refused; the run after it is not; a per-minute schedule keeps running once a minute whatever the step.
 */

class Clocks {
  wallMs: number;
  monoMs = 1_000;
  constructor(start: string) {
    this.wallMs = Date.parse(start);
  }
  /** Real time passes: both clocks move. */
  pass(ms: number): void {
    this.wallMs += ms;
    this.monoMs += ms;
  }
  /** The wall clock is stepped; the monotonic clock does not move. */
  step(ms: number): void {
    this.wallMs += ms;
  }
  readonly clocks = { wall: () => this.wallMs, monotonic: () => this.monoMs };
}

const daily = { id: "d", schedule: "0 3 * * *", timezone: "UTC" };
const perMinute = { id: "m", schedule: "* * * * *", timezone: "UTC" };
const none = () => undefined;

describe("a daily schedule across clock steps", () => {
  test("set back an hour after its run: 03:00 does not run again that day, and runs the next", () => {
    const c = new Clocks("2026-03-10T03:00:00.004Z");
    const guard = new ClockStepGuard(c.clocks);
    expect(guard.admit(daily, none)).toBe(true);
    c.pass(20 * 60_000);
    c.step(-60 * 60_000); // 02:20
    c.pass(40 * 60_000); // 03:00 again
    expect(guard.admit(daily, none)).toBe(false);
    c.pass(24 * 3_600_000); // the next day's 03:00
    expect(guard.admit(daily, none)).toBe(true);
  });

  test("set forward over its run: one run, and a second firing at the same moment is refused", () => {
    const c = new Clocks("2026-03-10T03:00:00.004Z");
    const guard = new ClockStepGuard(c.clocks);
    expect(guard.admit(daily, none)).toBe(true);
    c.pass(60_000);
    c.step(3 * 24 * 3_600_000);
    expect(guard.admit(daily, none)).toBe(true);
    expect(guard.admit(daily, none)).toBe(false);
  });

  test("after a restart the store's last run counts, unless it lies absurdly far ahead", () => {
    // 03:00 is due; the store says it already ran (the clock went back across the restart).
    const c = new Clocks("2026-03-10T03:00:00.020Z");
    expect(new ClockStepGuard(c.clocks).admit(daily, () => "2026-03-10T03:00:00.010Z")).toBe(false);
    expect(new ClockStepGuard(c.clocks).admit(daily, () => "2026-03-10T03:00:00.090Z")).toBe(false);
    // A run recorded ten years ahead (a date set wrong once) is not waited for.
    expect(new ClockStepGuard(c.clocks).admit(daily, () => "2036-03-10T03:00:00.010Z")).toBe(true);
    // Yesterday's run is an ordinary last run.
    expect(new ClockStepGuard(c.clocks).admit(daily, () => "2026-03-09T03:00:00.010Z")).toBe(true);
  });
});

describe("a per-minute schedule across clock steps", () => {
  test("set back 10 minutes or 5 hours: it runs once a minute all along", () => {
    const c = new Clocks("2026-03-10T12:00:00.003Z");
    const guard = new ClockStepGuard(c.clocks);
    expect(guard.admit(perMinute, none)).toBe(true);
    c.step(-10 * 60_000);
    c.pass(60_000);
    expect(guard.admit(perMinute, none)).toBe(true);
    c.step(-5 * 3_600_000);
    c.pass(60_000);
    expect(guard.admit(perMinute, none)).toBe(true);
  });

  test("set back less than a minute after its run: that minute does not run twice", () => {
    const c = new Clocks("2026-03-10T12:00:00.003Z");
    const guard = new ClockStepGuard(c.clocks);
    expect(guard.admit(perMinute, none)).toBe(true);
    c.pass(40_000);
    c.step(-50_000); // 11:59:50
    c.pass(10_000); // 12:00:00 again, 50 s after the run
    expect(guard.admit(perMinute, none)).toBe(false);
    c.pass(60_000); // 12:01
    expect(guard.admit(perMinute, none)).toBe(true);
  });
});
