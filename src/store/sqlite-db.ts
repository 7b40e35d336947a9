import type { Database, SQLQueryBindings } from "bun:sqlite";
import type { Db, Params, RunResult } from "./db.ts";
import { SQLITE } from "./dialect.ts";

/**
 * The store's Db over one bun:sqlite connection. A statement runs at once, synchronously (cached by `query()`),
 * and its answer comes back as a settled promise, so a repo pays an await, not a round trip.
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

  constructor(readonly sqlite: Database) {}

  all<T>(sql: string, params?: Params): Promise<T[]> {
    if (this.held !== null) return this.held.then(() => this.all<T>(sql, params));
    return settle(() => allRows<T>(this.sqlite, sql, params));
  }

  get<T>(sql: string, params?: Params): Promise<T | undefined> {
    if (this.held !== null) return this.held.then(() => this.get<T>(sql, params));
    return settle(() => firstRow<T>(this.sqlite, sql, params));
  }

  run(sql: string, params?: Params): Promise<RunResult> {
    if (this.held !== null) return this.held.then(() => this.run(sql, params));
    return settle(() => runStatement(this.sqlite, sql, params));
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    while (this.held !== null) await this.held;
    let release!: () => void;
    this.held = new Promise((resolve) => {
      release = resolve;
    });
    const tx = new SqliteTransaction(this.sqlite, 0);
    try {
      this.sqlite.query("BEGIN").run();
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
    private readonly depth: number,
  ) {}

  close(): void {
    this.open = false;
  }

  all<T>(sql: string, params?: Params): Promise<T[]> {
    return settle(() => allRows<T>(this.live(), sql, params));
  }

  get<T>(sql: string, params?: Params): Promise<T | undefined> {
    return settle(() => firstRow<T>(this.live(), sql, params));
  }

  run(sql: string, params?: Params): Promise<RunResult> {
    return settle(() => runStatement(this.live(), sql, params));
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    const name = `nested_${this.depth + 1}`;
    this.live().query(`SAVEPOINT ${name}`).run();
    const inner = new SqliteTransaction(this.sqlite, this.depth + 1);
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
  private live(): Database {
    if (!this.open) throw new Error("a statement ran on a transaction that has ended");
    return this.sqlite;
  }
}

function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

function allRows<T>(sqlite: Database, sql: string, params: Params | undefined): T[] {
  const statement = sqlite.query<T, SQLQueryBindings[]>(sql);
  return params === undefined ? statement.all() : statement.all(params as SQLQueryBindings);
}

function firstRow<T>(sqlite: Database, sql: string, params: Params | undefined): T | undefined {
  const statement = sqlite.query<T, SQLQueryBindings[]>(sql);
  return (params === undefined ? statement.get() : statement.get(params as SQLQueryBindings)) ?? undefined;
}

function runStatement(sqlite: Database, sql: string, params: Params | undefined): RunResult {
  const statement = sqlite.query<unknown, SQLQueryBindings[]>(sql);
  const result = params === undefined ? statement.run() : statement.run(params as SQLQueryBindings);
  return { changes: result.changes };
}
