/**
 * A fresh PostgreSQL database for one benchmark run, on the server at LINKPATROL_BENCH_POSTGRES (default
 * postgres://postgres@127.0.0.1:5432/postgres, trust auth): created empty, so every run starts from the same
 * state as a new cluster, and dropped after (connections to it ended first), so runs leave nothing behind.
 */
import { SQL } from "bun";

export const BENCH_POSTGRES_ADMIN_URL = process.env.LINKPATROL_BENCH_POSTGRES ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface BenchDatabase {
  name: string;
  /** The database's URL, for storage.url. */
  url: string;
  /** ANALYZE of every table: the statistics autovacuum would have gathered by then (this server may run without it). */
  analyze(): Promise<void>;
  drop(): Promise<void>;
}

/** Creates an empty database named lp_bench_<label>_<time>; throws when the server does not answer. */
export async function freshBenchDatabase(label: string): Promise<BenchDatabase> {
  const name = `lp_bench_${label}_${Date.now().toString(36)}`;
  const admin = new SQL(BENCH_POSTGRES_ADMIN_URL, { max: 1, connectionTimeout: 5 });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.close();
  }
  const url = new URL(BENCH_POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.href,
    async analyze() {
      const sql = new SQL(url.href, { max: 1, connectionTimeout: 5 });
      try {
        await sql.unsafe("ANALYZE");
      } finally {
        await sql.close();
      }
    },
    async drop() {
      const sql = new SQL(BENCH_POSTGRES_ADMIN_URL, { max: 1, connectionTimeout: 5 });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await sql.close();
      }
    },
  };
}
