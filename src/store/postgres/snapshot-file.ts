import { readFileSync } from "node:fs";
import { join } from "node:path";
import { postgresSchema, type Snapshot } from "./schema-from-snapshot.ts";
import { postgresOnlyUpTo } from "./upgrades/index.ts";

/** Where the snapshots and the generated PostgreSQL schema live in the source tree (the script and its test read them). */
const META = join(import.meta.dir, "../migrations/meta");
export const SCHEMA_SQL_PATH = join(import.meta.dir, "schema.sql");

function journal(): { idx: number; tag: string }[] {
  return (JSON.parse(readFileSync(join(META, "_journal.json"), "utf8")) as { entries: { idx: number; tag: string }[] }).entries;
}

function snapshotAt(entry: { idx: number; tag: string }): { tag: string; snapshot: Snapshot } {
  const snapshot = JSON.parse(readFileSync(join(META, `${String(entry.idx).padStart(4, "0")}_snapshot.json`), "utf8")) as Snapshot;
  return { tag: entry.tag, snapshot };
}

/** The newest migration's tag and its snapshot of the whole SQLite schema. */
export function newestSnapshot(): { tag: string; snapshot: Snapshot } {
  return snapshotAt(journal().at(-1)!);
}

/** The snapshot of the whole SQLite schema as migration `tag` left it. */
export function snapshotOf(tag: string): { tag: string; snapshot: Snapshot } {
  const entry = journal().find((e) => e.tag === tag);
  if (entry === undefined) throw new Error(`no migration ${tag} in the journal`);
  return snapshotAt(entry);
}

/** The PostgreSQL schema of a store made at migration `tag`: its snapshot's, then the PostgreSQL-only migrations up to it. */
export function postgresSchemaAt(tag: string): string {
  return postgresSchema(snapshotOf(tag).snapshot) + postgresOnlyUpTo(tag);
}
