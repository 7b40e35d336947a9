import type { Dialect } from "./db.ts";

/**
 * Where SQLite and PostgreSQL spell a statement differently, the repos ask here, so every difference between
 * the two stores is read in this one file. Statements the engines agree on are written once in the repos.
 */

export const SQLITE: Dialect = { name: "sqlite" };

export const POSTGRES: Dialect = { name: "postgres" };
