import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/store/sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-db-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a file store runs in WAL mode with FULL sync, foreign keys and the busy timeout on", () => {
  const store = openStore(join(dir, "nested", "lp.db"), { busyTimeoutMs: 1234 });
  const pragma = (name: string) => Object.values(store.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
  expect(pragma("journal_mode")).toBe("wal");
  expect(pragma("foreign_keys")).toBe(1);
  expect(pragma("busy_timeout")).toBe(1234);
  expect(pragma("synchronous")).toBe(2);
  store.close();
});
