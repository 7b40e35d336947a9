import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Real wall-clock steps for a child process, with Debian's libfaketime (package `faketime`): LD_PRELOAD'ed, it
 * answers the process's wall-clock reads with the real time plus the offset written in a file, read afresh on
 * every call (FAKETIME_NO_CACHE), and leaves the monotonic clock alone (DONT_FAKE_MONOTONIC), as an NTP step
 * or `date -s` does. Bun reads both clocks through glibc's clock_gettime, so `Date.now()` follows the file and
 * `performance.now()` and timers do not (test/ops/clock-steps.test.ts checks that first).
 */

/** The multi-threaded libfaketime's path (Bun runs threads), from `dpkg -L libfaketime`; null when not installed. */
export function libfaketimePath(): string | null {
  let listing = "";
  try {
    const result = Bun.spawnSync({ cmd: ["dpkg", "-L", "libfaketime"], stdout: "pipe", stderr: "ignore" });
    listing = result.exitCode === 0 ? result.stdout.toString() : "";
  } catch {
    return null;
  }
  const files = listing.split("\n").filter((line) => /\/libfaketime(MT)?\.so\.1$/.test(line) && existsSync(line));
  return files.find((file) => file.endsWith("MT.so.1")) ?? files[0] ?? null;
}

/** Why a clock-step test cannot run here, or null when it can; under CI=true a missing library is a failure. */
export function faketimeMissing(): string | null {
  if (libfaketimePath() !== null) return null;
  const why = "libfaketime is not installed (apt-get install faketime)";
  if (process.env.CI === "true") throw new Error(`${why}; .ci/run installs it, so under CI this test may not skip`);
  return why;
}

/** A wall clock for child processes, stepped by writing its offset file. */
export class SteppedClock {
  readonly file: string;
  /** Seconds added to the real wall clock. */
  offsetSeconds = 0;

  constructor(dir: string) {
    this.file = join(dir, "faketime-offset");
    this.set(0);
  }

  /** Steps the wall clock to real time + `offsetSeconds` (whole seconds, either sign). */
  set(offsetSeconds: number): void {
    this.offsetSeconds = Math.round(offsetSeconds);
    writeFileSync(this.file, `${this.offsetSeconds >= 0 ? "+" : ""}${this.offsetSeconds}\n`);
  }

  /** Steps by `seconds` (negative: back). */
  step(seconds: number): void {
    this.set(this.offsetSeconds + seconds);
  }

  /** The environment that puts a child process on this clock. */
  env(): Record<string, string> {
    const lib = libfaketimePath();
    if (lib === null) throw new Error("libfaketime is not installed");
    return { LD_PRELOAD: lib, FAKETIME_TIMESTAMP_FILE: this.file, FAKETIME_NO_CACHE: "1", DONT_FAKE_MONOTONIC: "1" };
  }

  /** The child's wall-clock time now, in ms. */
  now(): number {
    return Date.now() + this.offsetSeconds * 1000;
  }
}
