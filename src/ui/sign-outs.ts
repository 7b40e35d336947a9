import { SESSION_MAX_AHEAD_MS, type Session } from "./session.ts";

/**
 * Sessions signed out before their expiry, refused from then on: the cookie may have been copied. Kept in this
 * process's memory, which every read asks first (a map lookup, as before issue 43), and, when a store is given,
 * written through to its `ended_sessions` table. On the appliance (`shared: false`) this process is the store's only
 * writer, so memory, loaded from the table at start, is the whole answer and a restart keeps the sign-outs. On a
 * PostgreSQL store (`shared: true`) other nodes sign out too: a nonce memory does not know is asked of the table,
 * one indexed query per signed-in dashboard request; a sign-out found there is remembered (docs/decisions.md,
 * "Sign-out across nodes").
 */

/** Where sign-outs are recorded: store/ended-sessions.repo.ts. */
export interface EndedSessionsStore {
  add(nonce: string, expiresAt: Date): Promise<void>;
  has(nonce: string): Promise<boolean>;
  newest(limit: number): Promise<{ nonce: string; expires_at: string }[]>;
  prune(before: Date): Promise<number>;
}

/** Sign-outs remembered at once; past it the oldest are forgotten from memory (they still expire on their own). */
const MAX_ENDED = 100_000;

export class SignOuts {
  /** Signed-out nonces → their session's expiry (ms), oldest first. */
  private readonly ended = new Map<string, number>();

  /** Memory only (no store): sign-outs last until the process ends. */
  constructor(private readonly options: { store: EndedSessionsStore | null; shared: boolean } = { store: null, shared: false }) {}

  /** Sign-outs over `store`, memory filled with the newest on record (the appliance's restart keeps them). */
  static async load(store: EndedSessionsStore, shared: boolean): Promise<SignOuts> {
    const signOuts = new SignOuts({ store, shared });
    const rows = await store.newest(MAX_ENDED);
    // Oldest first, as sign-outs are remembered.
    for (let i = rows.length - 1; i >= 0; i--) signOuts.remember(rows[i]!.nonce, Date.parse(rows[i]!.expires_at), Date.now());
    return signOuts;
  }

  /** Refuses `session` from now on, on every node sharing the store, until it would have expired anyway. */
  async end(session: Session, now = Date.now()): Promise<void> {
    this.remember(session.nonce, session.expiresAt, now);
    const store = this.options.store;
    if (store === null) return;
    await store.add(session.nonce, new Date(session.expiresAt));
    // Sign-outs are few (one per sign-in at most): pruning here keeps the table bounded without a timer.
    await store.prune(new Date(now - SESSION_MAX_AHEAD_MS));
  }

  /** Whether `session` was signed out: a boolean from memory, a promise when the store must be asked. */
  isEnded(session: Session): boolean | Promise<boolean> {
    if (this.ended.has(session.nonce)) return true;
    const store = this.options.store;
    if (store === null || !this.options.shared) return false;
    return store.has(session.nonce).then((found) => {
      if (found) this.remember(session.nonce, session.expiresAt, Date.now());
      return found;
    });
  }

  private remember(nonce: string, expiresAt: number, now: number): void {
    for (const [old, oldExpiresAt] of this.ended) {
      // Kept a while past expiry: a clock stepped forward and back must not bring a signed-out cookie back.
      if (oldExpiresAt + SESSION_MAX_AHEAD_MS <= now || this.ended.size >= MAX_ENDED) this.ended.delete(old);
      else break;
    }
    this.ended.set(nonce, expiresAt);
  }
}
