import type { Database } from "bun:sqlite";
import type { Logger } from "../core/logger.ts";
import type { Db } from "./db.ts";
import { migrate } from "./migrate.ts";
import { openPostgresStore } from "./postgres/open-postgres.ts";
import { migrateLocked } from "./service-lock.ts";
import { assertWritable, openStore } from "./sqlite.ts";
import { admitOpenedStore, admitStoreFile } from "./store-admission.ts";
import type { StoreFile } from "./store-file.ts";
import { StoreHealth } from "./store-health.ts";
import { StoreVersion } from "./store-version.ts";

/**
 * The store a service runs on, whichever engine holds it: the SQLite file at `storage.path` (the appliance) or
 * the PostgreSQL database at `storage.url` (several nodes). What differs between the two for the composition
 * root is here; the repos only see `db`.
 */

export interface ServiceStore {
  readonly engine: "sqlite" | "postgres";
  /** Where the store is, as it may be shown: the file's path, or the URL without its password. */
  readonly location: string;
  readonly db: Db;
  /** The SQLite connection (null on PostgreSQL): the store file's checks, its id, backups. */
  readonly sqlite: Database | null;
  /** The SQLite file as opened (null on PostgreSQL and for ":memory:"). */
  readonly file: StoreFile | null;
  /** /healthz's check; `noteFailure` is told of every failed request. */
  readonly health: { readonly engine: "sqlite" | "postgres"; problem(): string | null; noteFailure(error: unknown): void };
  /**
   * A token that changes whenever anything is committed to the store, for caches keyed on it: read in-process on
   * SQLite (store-version.ts), a shared round trip on PostgreSQL (postgres/snapshot-version.ts); null: none.
   */
  readonly version: (() => string | Promise<string>) | null;
  /** Starts the store's own background checks (PostgreSQL's ping); `serve` calls it. */
  start(): void;
  close(): Promise<void>;
}

/** The storage settings the store is opened with (config's `storage`). */
export interface StorageSettings {
  path: string;
  url: string | null;
  busy_timeout: number;
}

export interface ServiceStoreOptions {
  logger: Logger;
  temporaryStore?: boolean;
  createStore?: boolean;
  newStore?: boolean;
  lockHeld?: boolean;
}

/** Opens the configured store and applies pending migrations. */
export async function openServiceStore(storage: StorageSettings, options: ServiceStoreOptions): Promise<ServiceStore> {
  if (storage.url === null) return openSqliteServiceStore(storage, options);
  if (options.temporaryStore) throw new RangeError("a temporary store is a SQLite file of its own");
  const pg = await openPostgresStore(storage.url);
  if (pg.migrations.applied.length > 0) options.logger.info("migrations applied", { applied: pg.migrations.applied, store: pg.shown });
  return {
    engine: "postgres",
    location: pg.shown,
    db: pg.db,
    sqlite: null,
    file: null,
    health: pg.health,
    version: () => pg.version.current(),
    start: () => pg.health.start(),
    close: () => pg.close(),
  };
}

function openSqliteServiceStore(storage: StorageSettings, options: ServiceStoreOptions): ServiceStore {
  const { logger } = options;
  const path = storage.path;
  const admission = { mayCreate: options.createStore === true, newStore: options.newStore === true };
  // check's temporary store is a new file of its own, named by nobody else.
  const file = options.temporaryStore ? { create: true, record: null, setAside: null } : admitStoreFile(path, admission);
  if (file.setAside !== null) logger.warn("a WAL left without its store was moved aside before the new store was made", { path, moved_to: file.setAside });
  const store = openStore(path, { busyTimeoutMs: storage.busy_timeout, temporary: options.temporaryStore, create: file.create });
  try {
    admitOpenedStore(store.sqlite, path, file, admission);
    assertWritable(store.sqlite, path);
    const report = options.temporaryStore ? migrate(store.sqlite) : migrateLocked(store.sqlite, path, { lockHeld: options.lockHeld ?? false });
    if (report.applied.length > 0) logger.info("migrations applied", { applied: report.applied });
  } catch (error) {
    store.close();
    throw error;
  }
  const storeVersion = new StoreVersion(store.sqlite);
  return {
    engine: "sqlite",
    location: path,
    db: store.db,
    sqlite: store.sqlite,
    file: store.file,
    health: new StoreHealth(store.sqlite, path, store.file),
    version: () => storeVersion.current(),
    start: () => {},
    close: async () => store.close(),
  };
}
