import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";

/**
 * An INSERT that writes many rows per statement. Each statement call costs a round trip through bun:sqlite
 * (binding, stepping, resetting) that is larger than SQLite's work for one small row, so rows go in groups of
 * up to `maxRows`. Values shared by every row (`?1`…`?shared`) are bound once per statement.
 * One prepared statement is kept per group size used.
 */
export class MultiRowInsert {
  private readonly statements = new Map<number, Statement>();
  private readonly perRow: number;

  /**
   * @param head  `INSERT INTO t (a, b, c) VALUES`
   * @param row   one row's values, e.g. `(?1, ?, ?)`: numbered parameters are the shared ones, `?` the row's own
   * @param tail  what follows the rows (`ON CONFLICT …`), if anything
   */
  constructor(
    private readonly sqlite: Database,
    private readonly head: string,
    private readonly row: string,
    private readonly shared: number,
    private readonly tail = "",
    private readonly maxRows = 100,
  ) {
    this.perRow = (row.match(/\?(?!\d)/g) ?? []).length;
  }

  /**
   * Inserts `values.length / perRow` rows (each row's own values, flat, in order) with the `shared` values.
   * After each statement, `inserted(firstRowid, offset, rows)` tells the rowids it assigned: the rows of one
   * statement get consecutive rowids (the caller holds the write lock, so nothing else inserts in between).
   */
  run(shared: SQLQueryBindings[], values: SQLQueryBindings[], inserted?: (firstRowid: number, offset: number, rows: number) => void): void {
    if (shared.length !== this.shared || values.length % this.perRow !== 0) throw new RangeError("parameter count does not match the row shape");
    const total = values.length / this.perRow;
    for (let offset = 0; offset < total; offset += this.maxRows) {
      const rows = Math.min(this.maxRows, total - offset);
      const chunk = values.slice(offset * this.perRow, (offset + rows) * this.perRow);
      const result = this.statement(rows).run(...shared, ...chunk);
      if (result.changes !== rows) throw new Error(`expected ${rows} rows written, got ${result.changes}`);
      inserted?.(Number(result.lastInsertRowid) - rows + 1, offset, rows);
    }
  }

  private statement(rows: number): Statement {
    let statement = this.statements.get(rows);
    if (statement === undefined) {
      statement = this.sqlite.prepare(`${this.head} ${Array.from({ length: rows }, () => this.row).join(", ")} ${this.tail}`);
      this.statements.set(rows, statement);
    }
    return statement;
  }
}
