import type { ReservedSQL, SQL } from "bun";
import type { Bindings, Db, Params, RunResult, TransactionOptions } from "../db.ts";
import { POSTGRES } from "../dialect.ts";

/**
 * The store's Db over Bun.SQL: the repos' statements, written with named `$name` parameters, are rewritten once
 * per statement text to PostgreSQL's `$1..$n` (and cached). The client is opened with `bigint: true`, so an int8
 * column comes back as a BigInt, told apart from text and turned into a number here: every integer column of the
 * schema is a bigint (schema-from-snapshot.ts), and the repos read numbers.
 *
 * Every statement, and every transaction, runs on a connection reserved from the pool for it alone, one statement
 * at a time: Bun 1.3.14 pipelines statements that share a connection, and then hands one statement's rows to
 * another (a simple-protocol query beside a parameterised one: oven-sh/bun#32772) or lets a statement run inside
 * another caller's transaction (docs/decisions.md, "Bun.SQL: one statement per connection at a time").
 */
export class PostgresDb implements Db {
  readonly dialect = POSTGRES;

  constructor(private readonly sql: SQL) {}

  async all<T>(text: string, params?: Bindings): Promise<T[]> {
    return this.reserved((connection) => query<T>(connection, text, params));
  }

  async get<T>(text: string, params?: Bindings): Promise<T | undefined> {
    return (await this.all<T>(text, params))[0];
  }

  async run(text: string, params?: Bindings): Promise<RunResult> {
    return this.reserved((connection) => execute(connection, text, params));
  }

  /** `options.immediate` asks nothing more here: PostgreSQL locks the rows a transaction writes or reads `FOR SHARE`. */
  transaction<T>(fn: (tx: Db) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    return this.reserved(async (connection) => {
      await connection.unsafe("BEGIN");
      const tx = new PostgresTransaction(connection, 0);
      try {
        const result = await fn(tx);
        await tx.settled();
        await connection.unsafe("COMMIT");
        return result;
      } catch (error) {
        await tx.settled().catch(() => {});
        // A lost connection cannot roll back; the server ends the transaction with it.
        await connection.unsafe("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        tx.close();
      }
    });
  }

  private async reserved<R>(work: (connection: ReservedSQL) => Promise<R>): Promise<R> {
    const connection = await this.sql.reserve();
    try {
      return await work(connection);
    } finally {
      connection.release();
    }
  }
}

/** A transaction's Db: its statements run one after another on its reserved connection; nested ones are savepoints. */
class PostgresTransaction implements Db {
  readonly dialect = POSTGRES;
  private open = true;
  /** Settles when the last statement asked of this transaction has. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly connection: ReservedSQL,
    private readonly depth: number,
  ) {}

  close(): void {
    this.open = false;
  }

  /** Waits for every statement asked so far (a body that did not await one still has it run before the commit). */
  async settled(): Promise<void> {
    await this.last;
  }

  all<T>(text: string, params?: Bindings): Promise<T[]> {
    return this.inTurn(() => query<T>(this.connection, text, params));
  }

  async get<T>(text: string, params?: Bindings): Promise<T | undefined> {
    return (await this.all<T>(text, params))[0];
  }

  run(text: string, params?: Bindings): Promise<RunResult> {
    return this.inTurn(() => execute(this.connection, text, params));
  }

  transaction<T>(fn: (tx: Db) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    const name = `nested_${this.depth + 1}`;
    return this.inTurn(async () => {
      await this.connection.unsafe(`SAVEPOINT ${name}`);
      const inner = new PostgresTransaction(this.connection, this.depth + 1);
      try {
        const result = await fn(inner);
        await inner.settled();
        await this.connection.unsafe(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (error) {
        await inner.settled().catch(() => {});
        await this.connection.unsafe(`ROLLBACK TO SAVEPOINT ${name}`);
        await this.connection.unsafe(`RELEASE SAVEPOINT ${name}`);
        throw error;
      } finally {
        inner.close();
      }
    });
  }

  /** Runs `work` once every statement asked before it has settled: never two at once on the connection. */
  private inTurn<R>(work: () => Promise<R>): Promise<R> {
    if (!this.open) return Promise.reject(new Error("a statement ran on a transaction that has ended"));
    const next = this.last.then(work, work);
    this.last = next.catch(() => {});
    return next;
  }
}

async function query<T>(connection: ReservedSQL, text: string, params: Bindings | undefined): Promise<T[]> {
  const rows = (await send(connection, text, params)) as Record<string, unknown>[];
  return rows.map((row) => decodeRow(row) as T);
}

async function execute(connection: ReservedSQL, text: string, params: Bindings | undefined): Promise<RunResult> {
  const result = (await send(connection, text, params)) as unknown as { count: number | null };
  return { changes: result.count ?? 0 };
}

function send(connection: ReservedSQL, text: string, params: Bindings | undefined) {
  // Positional values go as they are: their statement was written with `$1..$n` (dialect.param).
  if (Array.isArray(params)) return connection.unsafe(text, params as unknown[]);
  const named = params as Params | undefined;
  const statement = positional(text);
  const values = statement.names.map((name) => {
    const value = named?.[name];
    if (value === undefined) throw new RangeError(`no value for $${name} in: ${text}`);
    return value;
  });
  return connection.unsafe(statement.text, values);
}

/** A statement rewritten for PostgreSQL: its text with `$1..$n`, and the parameter name each number stands for. */
interface Positional {
  text: string;
  names: string[];
}

const rewritten = new Map<string, Positional>();

/** The PostgreSQL form of `text` (cached: the repos' statements are a fixed set, plus a few built per column set). */
export function positional(text: string): Positional {
  const cached = rewritten.get(text);
  if (cached !== undefined) return cached;
  const names: string[] = [];
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"') {
      // A quoted literal or identifier is copied as it is: a `$` inside it is no parameter.
      const end = text.indexOf(ch, i + 1);
      const stop = end === -1 ? text.length : end + 1;
      out += text.slice(i, stop);
      i = stop;
      continue;
    }
    const name = ch === "$" ? /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1))?.[0] : undefined;
    if (name === undefined) {
      out += ch;
      i++;
      continue;
    }
    let index = names.indexOf(name);
    if (index === -1) index = names.push(name) - 1;
    out += `$${index + 1}`;
    i += name.length + 1;
  }
  const statement = { text: out, names };
  rewritten.set(text, statement);
  return statement;
}

/** A row with its int8 values as numbers (ids and counters stay far below 2^53). */
function decodeRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const key in row) {
    const value = row[key];
    if (typeof value === "bigint") row[key] = Number(value);
  }
  return row;
}
