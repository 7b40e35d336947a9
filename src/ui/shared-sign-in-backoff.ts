import { addressBucketOf } from "../http/forwarded-chain.ts";
import { monotonicNow } from "../core/clock.ts";
import { keyPrefixOf, SIGN_IN_BACKOFF, waitAfterMs, type BackoffSettings, type SignInGate } from "./sign-in-backoff.ts";

/**
 * The sign-in backoff every node of a PostgreSQL store shares (issue 43): failures are counted in the store
 * (store/sign-in-failures.repo.ts), so an attacker who spreads guesses over the nodes behind a load balancer waits as
 * long as one who asks one node. The rules are the appliance's (sign-in-backoff.ts); the times are the store's clock,
 * so nodes whose clocks differ agree on a wait. A failure costs one statement, a checked attempt one or two reads.
 */

/** Where shared failures live: store/sign-in-failures.repo.ts. */
export interface SharedFailureStore {
  fail(bucket: string, forgetAfterMs: number): Promise<number>;
  get(bucket: string): Promise<{ failures: number; lastFailedAt: number; now: number } | undefined>;
  prune(forgetAfterMs: number, keep: number): Promise<number>;
}

/** How often a node prunes the table (its own monotonic clock: only the cadence, nothing compared across nodes). */
const PRUNE_EVERY_MS = 60_000;

export class SharedSignInBackoff implements SignInGate {
  private nextPruneAt = 0;

  constructor(
    private readonly store: SharedFailureStore,
    private readonly settings: BackoffSettings = SIGN_IN_BACKOFF,
  ) {}

  async addressWait(address: string): Promise<number> {
    return this.waitSeconds(`addr:${addressBucketOf(address)}`);
  }

  async keyWait(submittedKey: string): Promise<number> {
    const prefix = keyPrefixOf(submittedKey);
    return prefix === null ? 0 : this.waitSeconds(`key:${prefix}`);
  }

  async failed(address: string, submittedKey: string): Promise<void> {
    const now = monotonicNow();
    if (now >= this.nextPruneAt) {
      this.nextPruneAt = now + PRUNE_EVERY_MS;
      // Addresses and prefixes share the table: twice the appliance's bound for each.
      await this.store.prune(this.settings.forgetAfterMs, 2 * this.settings.maxEntries);
    }
    await this.store.fail(`addr:${addressBucketOf(address)}`, this.settings.forgetAfterMs);
    const prefix = keyPrefixOf(submittedKey);
    if (prefix !== null) await this.store.fail(`key:${prefix}`, this.settings.forgetAfterMs);
  }

  private async waitSeconds(bucket: string): Promise<number> {
    const count = await this.store.get(bucket);
    if (count === undefined || count.now - count.lastFailedAt > this.settings.forgetAfterMs) return 0;
    const blockedUntil = count.lastFailedAt + waitAfterMs(count.failures, this.settings);
    return Math.ceil(Math.max(0, blockedUntil - count.now) / 1000);
  }
}
