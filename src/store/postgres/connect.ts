import { SQL } from "bun";
import { connect as tcpConnect } from "node:net";
import { redactPassword } from "../../core/redact.ts";

/**
 * Opening the PostgreSQL store (`storage.url`), with an error that says which server and why: Bun's client
 * reports a refused port, an unknown host and a dead network all as "Connection closed", so the server's
 * address is tried with a plain TCP connection first, and the client's own errors (no such database, a refused
 * role or password) are passed on. The URL's password never appears in a message.
 */

/** Why the store could not be opened, naming `postgres://user@host:port/db` without its password. */
export class StoreConnectError extends Error {
  constructor(
    readonly target: string,
    readonly reason: string,
  ) {
    super(`cannot open the PostgreSQL store ${target}: ${reason}`);
    this.name = "StoreConnectError";
  }
}

export interface PostgresTarget {
  url: string;
  host: string;
  port: number;
  /** The URL as it may be shown: password replaced. */
  shown: string;
}

/** Parses a `postgres://` (or `postgresql://`) URL; throws StoreConnectError for anything else. */
export function postgresTarget(url: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreConnectError("(storage.url)", "not a URL; expected postgres://user@host:port/database");
  }
  const shown = redactPassword(new URL(parsed.href)).href;
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:")
    throw new StoreConnectError(shown, `the scheme must be postgres:// (got ${parsed.protocol}//)`);
  if (parsed.hostname === "") throw new StoreConnectError(shown, "the URL names no host");
  return { url, host: parsed.hostname.replace(/^\[|\]$/g, ""), port: parsed.port === "" ? 5432 : Number(parsed.port), shown };
}

/** Whether a TCP connection to the server opens within `timeoutMs`; the reason in words when it does not. */
function reachable(host: string, port: number, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port });
    const timer = setTimeout(() => done(`no answer from ${host}:${port} within ${timeoutMs / 1000} s`), timeoutMs);
    function done(reason: string | null): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(reason);
    }
    socket.once("connect", () => done(null));
    socket.once("error", (error: NodeJS.ErrnoException) => {
      const reasons: Record<string, string> = {
        ECONNREFUSED: `connection refused by ${host}:${port} (is PostgreSQL running and listening there?)`,
        ENOTFOUND: `the host ${host} is not known (DNS)`,
        EAI_AGAIN: `the host ${host} could not be looked up (DNS)`,
        EHOSTUNREACH: `the host ${host} is unreachable`,
        ENETUNREACH: `no route to ${host}`,
      };
      done(reasons[error.code ?? ""] ?? `${host}:${port}: ${error.code ?? error.message}`);
    });
  });
}

/**
 * A client that connects at its first statement (a second client to a server `connectPostgres` reached).
 * Unprepared statements: with Bun's per-connection prepared statements a crawl's node grew ~10 MiB per 1,000
 * pages (each batch size of a multi-row INSERT is a statement of its own); unprepared it stays flat, as fast
 * (bench/README.md, "The service on PostgreSQL").
 */
export function postgresClient(url: string, options: { timeoutMs?: number; max?: number; bigint?: boolean } = {}): SQL {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return new SQL(url, { max: options.max ?? 10, connectionTimeout: Math.ceil(timeoutMs / 1000), bigint: options.bigint ?? false, prepare: false });
}

/** Connects and asks one query; the client is the caller's to close. `bigint`: int8 columns as BigInt (the store's Db), not strings. */
export async function connectPostgres(url: string, options: { timeoutMs?: number; max?: number; bigint?: boolean } = {}): Promise<SQL> {
  const target = postgresTarget(url);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const unreachable = await reachable(target.host, target.port, timeoutMs);
  if (unreachable !== null) throw new StoreConnectError(target.shown, unreachable);
  const sql = postgresClient(url, options);
  try {
    await sql`SELECT 1`;
    return sql;
  } catch (error) {
    await sql.close().catch(() => {});
    const message = error instanceof Error ? error.message : String(error);
    // A server's message never holds the password, but a client's might quote the URL: cut any that does.
    const password = new URL(url).password;
    throw new StoreConnectError(target.shown, password === "" ? message : message.replaceAll(decodeURIComponent(password), "***"));
  }
}
