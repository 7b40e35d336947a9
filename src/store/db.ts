/**
 * The one way a repo reaches its database, whichever engine holds it: every call returns a promise, so the same
 * repo runs over bun:sqlite (the appliance) and over PostgreSQL (several nodes). Statements are written once
 * with named `$name` parameters; what the two engines spell differently is asked of `dialect`
 * (store/dialect.ts), so the differences are read in one file (docs/decisions.md, "PostgreSQL for several nodes").
 */

/** A statement's named parameters: `$name` in the text, `name` here. */
export type Params = Record<string, SqlValue>;

/**
 * A statement's values by position, for statements built per row count (store/multi-row-insert.ts): placeholders
 * spelled by `dialect.param(n)`. Measured 2.5x cheaper than an object of named values per row on bun:sqlite.
 */
export type Positional = readonly SqlValue[];

/** Named or positional values. */
export type Bindings = Params | Positional;

/** How a transaction is begun. */
export interface TransactionOptions {
  /**
   * Take the write lock at once (SQLite's `BEGIN IMMEDIATE`): a body that reads before it writes would otherwise
   * fail at its first write with SQLITE_BUSY once another connection wrote meanwhile. PostgreSQL locks per row.
   */
  immediate?: boolean;
}

/** What a parameter may be. */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array;

/** What a write reports. */
export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

export type DialectName = "sqlite" | "postgres";

/** The store's engine, as the repos ask about it. */
export interface Dialect {
  readonly name: DialectName;
  /**
   * The condition that text `column` is one of the strings in parameter `param`, a JSON array (bound as its text),
   * each looked up through the column's index: PostgreSQL plans `IN` a JSON list as a scan of the table.
   */
  textIn(column: string, param: string): string;
  /**
   * The condition that integer `column` is one of the integers in parameter `param`, a JSON array (bound as its
   * text), each looked up through the column's index: PostgreSQL plans a join to a JSON list as a scan of the table.
   */
  idIn(column: string, param: string): string;
  /** A subquery of the strings in `expression`, JSON array text (a column): `$x IN (${textElements("t.events")})`. */
  textElements(expression: string): string;
  /** The hidden column that names a row of any table, for deleting a chunk of rows: `rowid`, `ctid`. */
  readonly rowKey: string;
  /** The text at `path` (object keys) in JSON text column `column`, spelled as the store's indexes spell it. */
  jsonText(column: string, path: readonly string[]): string;
  /**
   * Whether the store file's free pages can be counted and given back by PRAGMAs (SQLite); PostgreSQL's own
   * vacuum gives space back, and has no PRAGMAs.
   */
  readonly filePages: boolean;
  /**
   * Appended to a `SELECT` of rows to take: locks them against other takers and leaves out rows another
   * transaction has locked (PostgreSQL's `FOR UPDATE SKIP LOCKED`). Empty on SQLite, whose writer holds the
   * whole store for its transaction.
   */
  readonly skipLocked: string;
  /** Appended to a `SELECT` that a write relies on: the rows stay as read until the commit (`FOR SHARE`). Empty on SQLite. */
  readonly shareLock: string;
  /**
   * The store's clock in epoch milliseconds, as an expression: nodes compare lease times on the database's one
   * clock, not on their own (which may differ between machines, or be stepped).
   */
  readonly nowMs: string;
  /** Names the index a table's scan must use, after the table's alias: SQLite's `INDEXED BY`; "" where the planner is not told. */
  indexedBy(index: string): string;
  /** The 1-based position of `needle` in `haystack`, 0 when absent: `instr`, `strpos`. */
  position(haystack: string, needle: string): string;
  /** The operator matching a LIKE pattern without regard to ASCII case: SQLite's LIKE already, PostgreSQL's ILIKE. */
  readonly likeAnyCase: string;
  /** Placeholder `n` (from 1) of a statement run with positional values: `?n`, `$n`. */
  param(n: number): string;
  /** The larger of two values: SQLite's scalar `MAX`, PostgreSQL's `GREATEST`. */
  readonly greatest: string;
  /** `column` kept off its indexes (SQLite's unary `+`); the column itself on PostgreSQL. */
  noIndex(column: string): string;
  /**
   * One crawl's rows after an id, in id order, read through the table's (crawl, id) index: `WHERE ${where} …
   * ORDER BY ${orderBy}`. Told `crawl = $c AND id > $a ORDER BY id LIMIT n`, PostgreSQL may walk the primary key
   * from `$a` and filter, as if a crawl's rows were spread evenly over the ids: a crawl whose rows follow
   * another's then walks all of the other's first. A row comparison asks for the order only that index has.
   */
  crawlRowsAfter(crawl: string, id: string, crawlParam: string, afterParam: string): { where: string; orderBy: string };
  /**
   * The most rows a multi-row statement (multi-row-insert.ts) takes here, below a shape's own cap: its text
   * differs per row count, and SQLite keeps each text prepared (sqlite-db.ts), so a small cap keeps them few and
   * reused; PostgreSQL runs them unprepared, and each statement is a round trip.
   */
  readonly rowsPerStatement: number;
  /**
   * Whether a statement of many rows takes them as one JSON array (jsonRows) rather than as positional values:
   * PostgreSQL parses one JSON text faster than it binds thousands of parameters; bun:sqlite binds positional
   * values faster than it reads JSON.
   */
  readonly rowsAsJson: boolean;
  /**
   * A subquery of the rows of JSON array parameter `param` (bound as its text): each row an array whose values
   * become columns r0, r1, … (cast to `types`), in the array's order (`n`, from 1): `FROM ${jsonRows(2, types)} ORDER BY n`.
   */
  jsonRows(param: number, types: readonly ("text" | "bigint")[]): string;
  /** 1 when the JSON boolean at `key` of JSON text column `column` is true, else 0. */
  jsonFlag(column: string, key: string): string;
  /**
   * The statements, run in order inside a write transaction, whose last answers one row: for each of `tables` (an
   * AUTOINCREMENT or identity key), in a column named after it, the id the next row inserted into it gets. The
   * transaction's inserts into each table then get consecutive ids from it: on SQLite the write lock holds every
   * other writer off, on PostgreSQL a transaction lock per table that every caller of these statements takes (in
   * the order of `tables`: callers name them in one order), held to the commit. The last statement alone reads
   * the ids again later in the same transaction.
   */
  nextIds(tables: readonly string[]): readonly string[];
  /**
   * The statements that bring the planner's statistics of `tables` up to date after a crawl filled them:
   * PostgreSQL's ANALYZE (autovacuum would, up to a minute later; until then a fresh crawl's listings are planned
   * blind). None on SQLite, whose repos name the indexes their scans use.
   */
  refreshStatistics(tables: readonly string[]): readonly string[];
}

/** A connection (or a pool of them) to the store; a transaction's own Db inside `transaction`. */
export interface Db {
  readonly dialect: Dialect;
  /** Every row the statement returns. */
  all<T>(sql: string, params?: Bindings): Promise<T[]>;
  /** The first row, or undefined. */
  get<T>(sql: string, params?: Bindings): Promise<T | undefined>;
  run(sql: string, params?: Bindings): Promise<RunResult>;
  /**
   * Runs `fn` in one transaction: committed when its promise resolves, rolled back when it rejects. Statements
   * go through `tx`; called on a transaction's Db it nests (a savepoint).
   */
  transaction<T>(fn: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T>;
}
