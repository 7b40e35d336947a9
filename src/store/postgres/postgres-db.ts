import type { SQL } from "bun";
import type { Bindings, Db, Params, RunResult, TransactionOptions } from "../db.ts";
import { POSTGRES } from "../dialect.ts";

/**
 * The store's Db over Bun.SQL: the repos' statements, written with named `$name` parameters, are rewritten once
 * per statement text to PostgreSQL's `$1..$n` (and cached), and run through the client's pool. The client is
 * opened with `bigint: true`, so an int8 column comes back as a BigInt, told apart from text and turned into a
 * number here: every integer column of the schema is a bigint (schema-from-snapshot.ts), and the repos read numbers.
 */
export class PostgresDb implements Db {
  readonly dialect = POSTGRES;

  constructor(private readonly sql: SQL) {}

  async all<T>(text: string, params?: Bindings): Promise<T[]> {
    const rows = (await this.execute(text, params)) as Record<string, unknown>[];
    return rows.map((row) => decodeRow(row) as T);
  }

  async get<T>(text: string, params?: Bindings): Promise<T | undefined> {
    const rows = (await this.execute(text, params)) as Record<string, unknown>[];
    return rows.length === 0 ? undefined : (decodeRow(rows[0]!) as T);
  }

  async run(text: string, params?: Bindings): Promise<RunResult> {
    const result = (await this.execute(text, params)) as unknown as { count: number | null };
    return { changes: result.count ?? 0 };
  }

  /** `options.immediate` asks nothing more here: PostgreSQL locks the rows a transaction writes or reads `FOR SHARE`. */
  transaction<T>(fn: (tx: Db) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    const inner = this.sql as SQL & { savepoint?: <R>(fn: (sql: SQL) => Promise<R>) => Promise<R> };
    // Inside a transaction Bun's client offers savepoints (a nested transaction); outside, `begin` takes a connection.
    if (typeof inner.savepoint === "function") return inner.savepoint((sp) => fn(new PostgresDb(sp)));
    return this.sql.begin((tx) => fn(new PostgresDb(tx))) as Promise<T>;
  }

  private execute(text: string, params: Bindings | undefined) {
    // Positional values go as they are: their statement was written with `$1..$n` (dialect.param).
    if (Array.isArray(params)) return this.sql.unsafe(text, params as unknown[]);
    const named = params as Params | undefined;
    const statement = positional(text);
    const values = statement.names.map((name) => {
      const value = named?.[name];
      if (value === undefined) throw new RangeError(`no value for $${name} in: ${text}`);
      return value;
    });
    return this.sql.unsafe(statement.text, values);
  }
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
