import type { Db, Dialect, DialectName, SqlValue } from "./db.ts";

/**
 * An INSERT that writes many rows per statement. Each statement call costs a round trip (through bun:sqlite:
 * binding, stepping, resetting; to PostgreSQL: the network) that is larger than the store's work for one small
 * row, so rows go in groups of up to `maxRows`. Values shared by every row are bound once per statement. Values
 * are positional (dialect.param): an object of named values per row measured 2.5x slower on bun:sqlite. The
 * statement text is built once per (dialect, row count) and kept; a statement holds up to the shape's `maxRows`
 * (100 unless given; within SQLite's 32,766 variables, checked, and PostgreSQL's 65,535 parameters) and the
 * dialect's rowsPerStatement. Besides INSERTs, the shape
 * serves a `WITH v (…) AS (VALUES …) UPDATE … FROM v` (write()).
 */
export class MultiRowInsert {
  private readonly texts = new Map<string, string>();
  readonly perRow: number;

  /**
   * @param head  `INSERT INTO t (a, b, c) VALUES`
   * @param row   one row's values, e.g. `(?1, ?, ?)`: numbered placeholders are the shared values (1..shared), `?` the row's own
   * @param tail  what follows the rows (`ON CONFLICT …`), if anything
   */
  constructor(
    private readonly head: string,
    private readonly row: string,
    private readonly shared: number,
    private readonly tail = "",
    private readonly maxRows = 100,
  ) {
    this.perRow = (row.match(/\?(?!\d)/g) ?? []).length;
    if (this.shared + this.perRow * maxRows > 32_766) throw new RangeError("too many values per statement for SQLite");
  }

  /** Inserts `values.length / perRow` rows (each row's own values, flat, in order) with the `shared` values, on `db`. */
  async run(db: Db, shared: readonly SqlValue[], values: readonly SqlValue[]): Promise<void> {
    const rows = values.length / this.perRow;
    const changes = await this.write(db, shared, values);
    if (changes !== rows) throw new Error(`expected ${rows} rows written, got ${changes}`);
  }

  /** run() for a statement that may write fewer rows than it is given (ON CONFLICT DO NOTHING, UPDATE … FROM): the rows written, for the caller to judge. */
  async write(db: Db, shared: readonly SqlValue[], values: readonly SqlValue[]): Promise<number> {
    if (shared.length !== this.shared || values.length % this.perRow !== 0) throw new RangeError("parameter count does not match the row shape");
    const total = values.length / this.perRow;
    const most = Math.min(this.maxRows, db.dialect.rowsPerStatement);
    let changes = 0;
    for (let offset = 0; offset < total; offset += most) {
      const rows = Math.min(most, total - offset);
      const bound = offset === 0 && rows === total ? values : values.slice(offset * this.perRow, (offset + rows) * this.perRow);
      changes += (await db.run(this.text(db.dialect, rows), this.shared === 0 ? bound : [...shared, ...bound])).changes;
    }
    return changes;
  }

  /** The statement for `rows` rows in `dialect`'s placeholders: the shared values first, then each row's in turn. */
  text(dialect: Dialect, rows: number): string {
    const key = `${dialect.name satisfies DialectName}:${rows}`;
    let text = this.texts.get(key);
    if (text === undefined) {
      let next = this.shared + 1;
      const tuples: string[] = [];
      for (let r = 0; r < rows; r++) tuples.push(this.row.replace(/\?(\d*)/g, (_, n: string) => dialect.param(n === "" ? next++ : Number(n))));
      text = `${this.head} ${tuples.join(", ")} ${this.tail}`;
      // Kept for the small counts and the full one: keeping every count up to a large cap would hold megabytes.
      if (rows <= 100 || rows === Math.min(this.maxRows, dialect.rowsPerStatement)) this.texts.set(key, text);
    }
    return text;
  }
}
