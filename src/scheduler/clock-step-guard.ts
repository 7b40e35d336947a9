import { elapsedMs, monotonicNow } from "../core/clock.ts";
import { nextRunOf } from "../services/schedule.ts";

/**
 * Schedules follow the wall clock ("at 03:00"), and croner notices a step of it within 30 s: a step forward
 * over any number of runs fires once, a step back re-targets the next run by the new time. What croner cannot
 * know is that a step back may lead the clock over a run already made: a daily 03:00 run, then the clock set
 * back an hour, and 03:00 comes round again. This guard remembers each domain's last run on both clocks and
 * refuses a run while the wall clock has not passed the run that followed it (so the clock went back) and less
 * than that interval has passed on the monotonic clock: a slot already made does not run again, and no
 * schedule waits longer than one of its intervals for it (a per-minute schedule still runs once a minute, a
 * daily one skips the repeat and runs the next day). After a restart the last run is the store's newest
 * scheduled crawl.
 */

interface LastRun {
  wallMs: number;
  monoMs: number;
}

/** A scheduled domain as the guard needs it. */
interface GuardedSchedule {
  id: string;
  schedule: string;
  timezone: string | null;
}

export interface Clocks {
  wall: () => number;
  monotonic: () => number;
}

const SYSTEM_CLOCKS: Clocks = { wall: () => Date.now(), monotonic: monotonicNow };

export class ClockStepGuard {
  private readonly last = new Map<string, LastRun>();

  constructor(private readonly clocks: Clocks = SYSTEM_CLOCKS) {}

  /**
   * True when a run of `domain` due now is a new run, which is then recorded; false when it repeats one made
   * before the wall clock stepped back. `storedLastRun` gives the store's last run when none is remembered.
   */
  admit(domain: GuardedSchedule, storedLastRun: () => string | undefined): boolean {
    const wall = this.clocks.wall();
    const mono = this.clocks.monotonic();
    const previous = this.last.get(domain.id) ?? this.fromStore(domain, storedLastRun(), wall, mono);
    if (previous !== null) {
      const following = nextRunOf(domain.schedule, domain.timezone, new Date(previous.wallMs));
      if (following !== null && wall < following.getTime()) {
        const interval = following.getTime() - previous.wallMs;
        // 1 % of slack: the two clocks may drift apart that little while NTP slews (never steps) the wall clock.
        if (elapsedMs(previous.monoMs, mono) < interval * 0.99) return false;
      }
    }
    this.last.set(domain.id, { wallMs: wall, monoMs: mono });
    return true;
  }

  /** Forgets domains no longer scheduled. */
  retain(ids: ReadonlySet<string>): void {
    for (const id of this.last.keys()) if (!ids.has(id)) this.last.delete(id);
  }

  /**
   * The last run as the store recorded it, placed on the monotonic clock as if the wall clock had not moved
   * since. One ahead of the wall clock (set back since, across a restart) counts as made just now, unless it is
   * ahead by more than an interval: a date once set wrong is not waited for.
   */
  private fromStore(domain: GuardedSchedule, stored: string | undefined, wall: number, mono: number): LastRun | null {
    const wallMs = stored === undefined ? Number.NaN : Date.parse(stored);
    if (Number.isNaN(wallMs)) return null;
    if (wallMs > wall) {
      const following = nextRunOf(domain.schedule, domain.timezone, new Date(wallMs));
      if (following === null || wallMs - wall > following.getTime() - wallMs) return null;
    }
    return { wallMs, monoMs: mono - elapsedMs(wallMs, wall) };
  }
}
