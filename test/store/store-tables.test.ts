import { expect, test } from "bun:test";
import { migrate } from "../../src/store/migrate.ts";
import { newestSnapshot } from "../../src/store/postgres/snapshot-file.ts";
import { storeTables } from "../../src/store/postgres/store-tables.ts";
import { openStore } from "../../src/store/sqlite.ts";

/** A migrated store's own tables, as `store copy` reads them, are the newest snapshot's: names, columns, self-numbering keys, foreign keys. */

const shape = (snapshot: ReturnType<typeof storeTables>) =>
  Object.fromEntries(
    Object.values(snapshot.tables).map((table) => [
      table.name,
      {
        columns: Object.values(table.columns)
          .map((c) => `${c.name} ${c.type}${c.primaryKey ? " key" : ""}${c.autoincrement === true ? " auto" : ""}`)
          .sort(),
        references: Object.values(table.foreignKeys)
          .map((fk) => `${fk.columnsFrom.join(",")} -> ${fk.tableTo}(${fk.columnsTo.join(",")}) ${fk.onDelete ?? "no action"}`)
          .sort(),
      },
    ]),
  );

test("a migrated store's tables read from its PRAGMAs are the newest snapshot's", () => {
  const store = openStore(":memory:");
  try {
    migrate(store.sqlite);
    expect(shape(storeTables(store.sqlite))).toEqual(shape(newestSnapshot().snapshot));
  } finally {
    store.close();
  }
});
