import type { Dialect } from "./db.ts";

/**
 * Where SQLite and PostgreSQL spell a statement differently, the repos ask here, so every difference between
 * the two stores is read in this one file. Statements the engines agree on are written once in the repos
 * (`INSERT … ON CONFLICT DO NOTHING`, `RETURNING`, `count(*)`, LIMIT/OFFSET).
 */

export const SQLITE: Dialect = {
  name: "sqlite",
  textIn: (column, param) => `${column} IN (SELECT value FROM json_each($${param}))`,
  idIn: (column, param) => `${column} IN (SELECT value FROM json_each($${param}))`,
  textElements: (expression) => `SELECT value FROM json_each(${expression})`,
  rowKey: "rowid",
  jsonText: (column, path) => `json_extract(${column}, '$.${path.join(".")}')`,
  filePages: true,
  // One writer holds the whole store for its transaction (and the service holds the connection: sqlite-db.ts).
  skipLocked: "",
  shareLock: "",
  nowMs: "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
  indexedBy: (index) => `INDEXED BY ${index}`,
  position: (haystack, needle) => `instr(${haystack}, ${needle})`,
  likeAnyCase: "LIKE",
  param: (n) => `?${n}`,
  greatest: "MAX",
  noIndex: (column) => `+${column}`,
  crawlRowsAfter: (crawl, id, crawlParam, afterParam) => ({ where: `${crawl} = ${crawlParam} AND ${id} > ${afterParam}`, orderBy: id }),
  rowsPerStatement: 100,
  rowsAsJson: false,
  jsonRows: (param, types) =>
    `(SELECT ${types.map((type, i) => `CAST(json_extract(value, '$[${i}]') AS ${type}) AS r${i}`).join(", ")}, key + 1 AS n FROM json_each(?${param}))`,
  jsonFlag: (column, key) => `COALESCE(json_extract(${column}, '$.${key}'), 0)`,
  // AUTOINCREMENT: one more than the largest id the table ever held (sqlite_sequence), or than any it holds.
  nextIds: (tables) => [
    `SELECT ${tables
      .map(
        (table) => `MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = '${table}'), 0), COALESCE((SELECT MAX(id) FROM ${table}), 0)) + 1 AS ${table}`,
      )
      .join(", ")}`,
  ],
  refreshStatistics: () => [],
};

export const POSTGRES: Dialect = {
  name: "postgres",
  // Cast to text first: bound straight to a json parameter, Bun's client sends the string as a JSON string (a scalar).
  // An array, not `IN (subquery)`: the planner reads each value through the index rather than hashing the list and scanning the table.
  textIn: (column, param) => `${column} = ANY(ARRAY(SELECT json_array_elements_text(CAST($${param} AS text)::json)))`,
  idIn: (column, param) => `${column} = ANY(ARRAY(SELECT CAST(x AS bigint) FROM json_array_elements_text(CAST($${param} AS text)::json) AS x))`,
  textElements: (expression) => `SELECT json_array_elements_text(CAST(${expression} AS text)::json)`,
  rowKey: "ctid",
  // The expression of the schema's index on a delivery's crawl (postgres/schema-from-snapshot.ts), so the index serves it.
  jsonText: (column, path) => `(${column}::jsonb #>> '{${path.join(",")}}')`,
  filePages: false,
  // A taker skips a row another taker is deciding on, rather than waiting for it (store/leases.repo.ts).
  skipLocked: " FOR UPDATE SKIP LOCKED",
  shareLock: " FOR SHARE",
  // The server's clock as the statement runs, not the transaction's start.
  nowMs: "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS bigint)",
  indexedBy: () => "",
  position: (haystack, needle) => `strpos(${haystack}, ${needle})`,
  likeAnyCase: "ILIKE",
  param: (n) => `$${n}`,
  greatest: "GREATEST",
  noIndex: (column) => column,
  // No equality on the crawl: with one, the crawl drops out of the order and the primary key's order serves again.
  crawlRowsAfter: (crawl, id, crawlParam, afterParam) => ({
    where: `(${crawl}, ${id}) > (CAST(${crawlParam} AS text), CAST(${afterParam} AS bigint)) AND (${crawl}, ${id}) <= (CAST(${crawlParam} AS text), CAST(9223372036854775807 AS bigint))`,
    orderBy: `${crawl}, ${id}`,
  }),
  rowsPerStatement: 1000,
  rowsAsJson: true,
  jsonRows: (param, types) =>
    // jsonb: parsed once into binary, where each `->>` of json parses its element again (bench/README.md).
    `(SELECT ${types.map((type, i) => `CAST(x.v->>${i} AS ${type}) AS r${i}`).join(", ")}, x.n FROM jsonb_array_elements(CAST($${param} AS text)::jsonb) WITH ORDINALITY AS x (v, n))`,
  jsonFlag: (column, key) => `(CASE WHEN (${column}::jsonb #>> '{${key}}') = 'true' THEN 1 ELSE 0 END)`,
  // The identities' sequences, read under locks to the commit (taken in the order named, one statement), so no
  // other transaction takes ids in between.
  nextIds: (tables) => [
    `SELECT ${tables.map((table) => `pg_advisory_xact_lock(hashtext('${table}.id'))`).join(", ")}`,
    `SELECT ${tables.map((table) => `(SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM ${table}_id_seq) AS ${table}`).join(", ")}`,
  ],
  refreshStatistics: (tables) => [`ANALYZE ${tables.join(", ")}`],
};
