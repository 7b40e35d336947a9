import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import type { Bindings, Db, RunResult, TransactionOptions } from "./db.ts";
import { SQLITE } from "./dialect.ts";

/**
 * The store's Db over one bun:sqlite connection. A statement runs at once, synchronously (prepared once per
 * text: `Statements`), and its answer comes back as a settled promise, so a repo pays an await, not a round trip.
 *
 * A transaction's body is asynchronous, and the connection is shared by every request: while a body awaits,
 * another request's statement would otherwise run inside it, and be rolled back with it. So the connection is
 * held by the transaction: statements and transactions asked of this Db meanwhile wait until it commits or rolls
 * back, and only the transaction's own Db (`tx`) runs statements.
 */
export class SqliteDb implements Db {
  readonly dialect = SQLITE;
  /** Settles when the open transaction ends; null when none is open. */
  private held: Promise<void> | null = null;

  private readonly statements: Statements;

  constructor(readonly sqlite: Database) {
    this.statements = new Statements(sqlite);
  }

  all<T>(sql: string, params?: Bindings): Promise<T[]> {
    if (this.held !== null) return this.held.then(() => this.all<T>(sql, params));
    return settle(() => allRows<T>(this.statements.of(sql), params));
  }

  get<T>(sql: string, params?: Bindings): Promise<T | undefined> {
    if (this.held !== null) return this.held.then(() => this.get<T>(sql, params));
    return settle(() => firstRow<T>(this.statements.of(sql), params));
  }

  run(sql: string, params?: Bindings): Promise<RunResult> {
    if (this.held !== null) return this.held.then(() => this.run(sql, params));
    return settle(() => runStatement(this.statements.of(sql), params));
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T> {
    while (this.held !== null) await this.held;
    let release!: () => void;
    this.held = new Promise((resolve) => {
      release = resolve;
    });
    const tx = new SqliteTransaction(this.sqlite, this.statements, 0);
    try {
      this.sqlite.query(options?.immediate === true ? "BEGIN IMMEDIATE" : "BEGIN").run();
      try {
        const result = await fn(tx);
        this.sqlite.query("COMMIT").run();
        return result;
      } catch (error) {
        if (this.sqlite.inTransaction) this.sqlite.query("ROLLBACK").run();
        throw error;
      }
    } finally {
      tx.close();
      this.held = null;
      release();
    }
  }
}

/** The Db a transaction's body is given: runs on the held connection; nested transactions are savepoints. */
class SqliteTransaction implements Db {
  readonly dialect = SQLITE;
  private open = true;

  constructor(
    private readonly sqlite: Database,
    private readonly statements: Statements,
    private readonly depth: number,
  ) {}

  close(): void {
    this.open = false;
  }

  all<T>(sql: string, params?: Bindings): Promise<T[]> {
    return settle(() => allRows<T>(this.live().of(sql), params));
  }

  get<T>(sql: string, params?: Bindings): Promise<T | undefined> {
    return settle(() => firstRow<T>(this.live().of(sql), params));
  }

  run(sql: string, params?: Bindings): Promise<RunResult> {
    return settle(() => runStatement(this.live().of(sql), params));
  }

  /** A savepoint: the enclosing transaction already holds whatever lock `options` asks for. */
  async transaction<T>(fn: (tx: Db) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    const name = `nested_${this.depth + 1}`;
    this.live();
    this.sqlite.query(`SAVEPOINT ${name}`).run();
    const inner = new SqliteTransaction(this.sqlite, this.statements, this.depth + 1);
    try {
      const result = await fn(inner);
      this.sqlite.query(`RELEASE ${name}`).run();
      return result;
    } catch (error) {
      this.sqlite.query(`ROLLBACK TO ${name}`).run();
      this.sqlite.query(`RELEASE ${name}`).run();
      throw error;
    } finally {
      inner.close();
    }
  }

  /** The connection, while this transaction is open: a statement after its end is a bug, not a write to let through. */
  private live(): Statements {
    if (!this.open) throw new Error("a statement ran on a transaction that has ended");
    return this.statements;
  }
}

/**
 * The connection's prepared statements by text. bun:sqlite's own `query()` cache keeps 20, and the crawler alone
 * runs more (a multi-row INSERT per row count): past them every call prepared its statement again, 15 % of a
 * crawl's CPU (bench/README.md, "The frontier on the Db"). The repos' statements are a fixed set plus a few
 * built per row count, so the map stays small; it is emptied, never grown, past MAX_STATEMENTS.
 */
class Statements {
  private readonly prepared = new Map<string, Statement>();

  constructor(private readonly sqlite: Database) {}

  of(sql: string): Statement {
    let statement = this.prepared.get(sql);
    if (statement === undefined) {
      if (this.prepared.size >= MAX_STATEMENTS) this.prepared.clear();
      statement = this.sqlite.prepare(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
  }
}

/** Statements kept prepared per connection. */
const MAX_STATEMENTS = 2_000;

function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

function allRows<T>(prepared: Statement, params: Bindings | undefined): T[] {
  const statement = prepared as Statement<T, SQLQueryBindings[]>;
  if (params === undefined) return statement.all();
  return Array.isArray(params) ? statement.all(...(params as SQLQueryBindings[])) : statement.all(params as SQLQueryBindings);
}

function firstRow<T>(prepared: Statement, params: Bindings | undefined): T | undefined {
  const statement = prepared as Statement<T, SQLQueryBindings[]>;
  if (params === undefined) return statement.get() ?? undefined;
  return (Array.isArray(params) ? statement.get(...(params as SQLQueryBindings[])) : statement.get(params as SQLQueryBindings)) ?? undefined;
}

function runStatement(prepared: Statement, params: Bindings | undefined): RunResult {
  const statement = prepared as Statement<unknown, SQLQueryBindings[]>;
  const result =
    params === undefined
      ? statement.run()
      : Array.isArray(params)
        ? statement.run(...(params as SQLQueryBindings[]))
        : statement.run(params as SQLQueryBindings);
  return { changes: result.changes };
}
