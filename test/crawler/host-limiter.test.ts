import { describe, expect, test } from "bun:test";
import { HostLimiter } from "../../src/crawler/host-limiter.ts";

/** A task that stays in flight until released by the test. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("HostLimiter", () => {
  test("never more than perHost tasks in flight for one host; waiters start in arrival order", async () => {
    const limiter = new HostLimiter(2);
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, gate);
    const runs = gates.map((g, i) =>
      limiter.run("a.example", async () => {
        started.push(i);
        expect(limiter.inFlight("a.example")).toBeLessThanOrEqual(2);
        await g.opened;
        return i;
      }),
    );
    await Bun.sleep(0);
    expect(started).toEqual([0, 1]);
    gates[1]!.open();
    await Bun.sleep(0);
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.size).toBe(0);
  });

  test("hosts do not wait for each other", async () => {
    const limiter = new HostLimiter(1);
    const blocked = gate();
    const slow = limiter.run("a.example", () => blocked.opened);
    const other = await limiter.run("b.example", async () => "b done");
    expect(other).toBe("b done");
    expect(limiter.inFlight("a.example")).toBe(1);
    blocked.open();
    await slow;
  });

  test("a failing task releases its slot", async () => {
    const limiter = new HostLimiter(1);
    await expect(limiter.run("a.example", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await limiter.run("a.example", async () => "next")).toBe("next");
    expect(limiter.size).toBe(0);
  });

  test("perHost must be a positive integer", () => {
    expect(() => new HostLimiter(0)).toThrow(RangeError);
    expect(() => new HostLimiter(1.5)).toThrow(RangeError);
  });
});
