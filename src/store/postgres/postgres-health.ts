import type { SQL } from "bun";

/**
 * Whether the PostgreSQL store can serve, for every /healthz without a round trip: a ping every `intervalMs`
 * (answered within `timeoutMs`) keeps the last state, and an operation that failed for a reason of the store's
 * own (connection lost, server shutting down, out of space, read-only) is remembered. A lost connection clears
 * at the next good ping; a refusal to write (space, read-only) holds for `holdMs` after the last one, since a
 * ping that reads cannot tell that writes work again.
 */

/** Server error classes (SQLSTATE's first two characters) that say the store failed, not the request. */
const CONNECTION_CLASSES = new Set(["08", "57"]);
const WRITE_REFUSAL = new Set(["53", "58", "XX"]);
const READ_ONLY_TRANSACTION = "25006";

export interface PostgresHealthOptions {
  /** How the store is named in messages: the URL without its password. */
  shown: string;
  intervalMs?: number;
  timeoutMs?: number;
  holdMs?: number;
  /** Monotonic milliseconds. */
  now?: () => number;
}

export class PostgresHealth {
  readonly engine = "postgres";
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly holdMs: number;
  private readonly now: () => number;
  private pingProblem: string | null = null;
  private lostConnection: string | null = null;
  private refusal: { reason: string; at: number } | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private pinging = false;

  constructor(
    private readonly sql: SQL,
    private readonly options: PostgresHealthOptions,
  ) {
    this.intervalMs = options.intervalMs ?? 5_000;
    this.timeoutMs = options.timeoutMs ?? 3_000;
    this.holdMs = options.holdMs ?? 60_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** Starts pinging (and pings once now); `stop` ends it. */
  start(): void {
    if (this.timer !== null) return;
    void this.ping();
    this.timer = setInterval(() => void this.ping(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Asks the server once; the state /healthz answers with until the next ping. */
  async ping(): Promise<void> {
    if (this.pinging) return;
    this.pinging = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
      });
      await Promise.race([this.sql`SELECT 1`, timeout]);
      this.pingProblem = null;
      this.lostConnection = null;
    } catch (error) {
      this.pingProblem = `the PostgreSQL store ${this.options.shown} cannot be reached: ${messageOf(error)}`;
    } finally {
      clearTimeout(timer);
      this.pinging = false;
    }
  }

  /** Remembers `error` when it says the store itself failed; any other error is ignored. */
  noteFailure(error: unknown): void {
    const kind = failureKind(error);
    if (kind === null) return;
    const reason = `the last operation on the PostgreSQL store ${this.options.shown} failed: ${messageOf(error)}`;
    if (kind === "connection") this.lostConnection = reason;
    else this.refusal = { reason, at: this.now() };
  }

  /** Null when the store looks usable, else what is wrong with it (naming the server and database). */
  problem(): string | null {
    if (this.refusal !== null && this.now() - this.refusal.at > this.holdMs) this.refusal = null;
    return this.pingProblem ?? this.lostConnection ?? this.refusal?.reason ?? null;
  }
}

/** Whether `error` says the store failed: its connection, or its refusal to write; null for a request's own error. */
export function failureKind(error: unknown): "connection" | "refusal" | null {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
  if (code === "ERR_POSTGRES_CONNECTION_CLOSED" || code === "ERR_POSTGRES_CONNECTION_TIMEOUT") return "connection";
  if (code !== "ERR_POSTGRES_SERVER_ERROR" || typeof errno !== "string") return null;
  if (CONNECTION_CLASSES.has(errno.slice(0, 2))) return "connection";
  if (errno === READ_ONLY_TRANSACTION || WRITE_REFUSAL.has(errno.slice(0, 2))) return "refusal";
  return null;
}

function messageOf(error: unknown): string {
  const { errno } = (error ?? {}) as { errno?: unknown };
  const message = error instanceof Error ? error.message : String(error);
  return typeof errno === "string" ? `${message} (SQLSTATE ${errno})` : message;
}
