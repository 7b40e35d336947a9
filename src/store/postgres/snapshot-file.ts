import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Snapshot } from "./schema-from-snapshot.ts";

/** Where the snapshots and the generated PostgreSQL schema live in the source tree (the script and its test read them). */
const META = join(import.meta.dir, "../migrations/meta");
export const SCHEMA_SQL_PATH = join(import.meta.dir, "schema.sql");

/** The newest migration's tag and its snapshot of the whole SQLite schema. */
export function newestSnapshot(): { tag: string; snapshot: Snapshot } {
  const journal = JSON.parse(readFileSync(join(META, "_journal.json"), "utf8")) as { entries: { idx: number; tag: string }[] };
  const newest = journal.entries.at(-1)!;
  const snapshot = JSON.parse(readFileSync(join(META, `${String(newest.idx).padStart(4, "0")}_snapshot.json`), "utf8")) as Snapshot;
  return { tag: newest.tag, snapshot };
}
