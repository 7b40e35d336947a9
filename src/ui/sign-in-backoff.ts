import { addressBucketOf } from "../http/forwarded-chain.ts";
import { monotonicNow } from "../core/clock.ts";

/**
 * Failed sign-ins per address and per key prefix, each past a few free failures doubling the wait (up to a minute).
 * A blocked attempt is answered without checking the key. This process counts them in memory (the appliance: one
 * process); the nodes of a PostgreSQL store count them in the store (shared-sign-in-backoff.ts), by the same rules.
 * Tables are bounded; time is monotonic.
 */

/** What the sign-in form asks, wherever the failures are counted. */
export interface SignInGate {
  /** Whole seconds `address` must wait before an attempt from it is checked (0: none). */
  addressWait(address: string): Promise<number>;
  /** Whole seconds before an attempt with `submittedKey`'s prefix is checked (0: none). */
  keyWait(submittedKey: string): Promise<number>;
  /** Counts a failed attempt (a wrong key, or a form that was not ours) against the address and the prefix. */
  failed(address: string, submittedKey: string): Promise<void>;
}

export interface BackoffSettings {
  /** Failures before any wait. */
  freeFailures: number;
  /** The first wait; each further failure doubles it. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** A failure count is forgotten after this long without a failure. */
  forgetAfterMs: number;
  /** Addresses (and, apart, prefixes) remembered at most. */
  maxEntries: number;
}

export const SIGN_IN_BACKOFF: BackoffSettings = {
  freeFailures: 5,
  firstDelayMs: 1_000,
  maxDelayMs: 60_000,
  forgetAfterMs: 15 * 60_000,
  maxEntries: 10_000,
};

/** Characters of a submitted key that name its prefix bucket (`lp_` and 8 more, as `keys list` shows them). */
const KEY_PREFIX_LENGTH = 11;

interface Failures {
  count: number;
  lastAt: number;
  blockedUntil: number;
}

/** Failure counts with exponential backoff, per id (one table). */
class FailureBackoff {
  private readonly entries = new Map<string, Failures>();

  constructor(
    private readonly settings: BackoffSettings,
    private readonly now: () => number,
  ) {}

  /** Milliseconds before `id` may try again (0: now). */
  waitMs(id: string): number {
    const entry = this.entries.get(id);
    return entry === undefined ? 0 : Math.max(0, entry.blockedUntil - this.now());
  }

  fail(id: string): void {
    const now = this.now();
    let entry = this.entries.get(id);
    if (entry !== undefined) this.entries.delete(id);
    if (entry === undefined || now - entry.lastAt > this.settings.forgetAfterMs) entry = { count: 0, lastAt: now, blockedUntil: 0 };
    entry.count += 1;
    entry.lastAt = now;
    const wait = waitAfterMs(entry.count, this.settings);
    if (wait > 0) entry.blockedUntil = now + wait;
    // Re-inserted last: the map's order is least recently failed first.
    this.entries.set(id, entry);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.settings.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The sign-in form's backoff, by client address and by attempted key prefix, in this process's memory. */
export class SignInBackoff implements SignInGate {
  private readonly byAddress: FailureBackoff;
  private readonly byPrefix: FailureBackoff;

  constructor(settings: BackoffSettings = SIGN_IN_BACKOFF, now: () => number = monotonicNow) {
    this.byAddress = new FailureBackoff(settings, now);
    this.byPrefix = new FailureBackoff(settings, now);
  }

  async addressWait(address: string): Promise<number> {
    return Math.ceil(this.byAddress.waitMs(addressBucketOf(address)) / 1000);
  }

  async keyWait(submittedKey: string): Promise<number> {
    const prefix = keyPrefixOf(submittedKey);
    return prefix === null ? 0 : Math.ceil(this.byPrefix.waitMs(prefix) / 1000);
  }

  async failed(address: string, submittedKey: string): Promise<void> {
    this.byAddress.fail(addressBucketOf(address));
    const prefix = keyPrefixOf(submittedKey);
    if (prefix !== null) this.byPrefix.fail(prefix);
  }

  /** Entries held (addresses, prefixes): for tests of the bound. */
  get sizes(): { addresses: number; prefixes: number } {
    return { addresses: this.byAddress.size, prefixes: this.byPrefix.size };
  }
}

/** The wait the `failures`-th failure in a row earns: none for the free ones, then 1 s doubling up to the cap. */
export function waitAfterMs(failures: number, settings: BackoffSettings): number {
  const over = failures - settings.freeFailures;
  return over > 0 ? Math.min(settings.maxDelayMs, settings.firstDelayMs * 2 ** Math.min(over - 1, 30)) : 0;
}

/** The prefix bucket a submitted key counts against, or null for an empty one. */
export function keyPrefixOf(submittedKey: string): string | null {
  return submittedKey === "" ? null : submittedKey.slice(0, KEY_PREFIX_LENGTH);
}
