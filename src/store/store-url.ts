/**
 * Which store a configured location names: a `postgres://` (or `postgresql://`) URL is a PostgreSQL store shared by
 * several nodes; anything else is the appliance's SQLite file. Kept apart from the client (postgres/connect.ts) so a
 * command can decide without loading it.
 */

/** True when `value` is a PostgreSQL URL (the scheme decides; postgres/connect.ts checks the rest when it connects). */
export function isPostgresUrl(value: string | null | undefined): value is string {
  return typeof value === "string" && /^postgres(ql)?:\/\//i.test(value.trim());
}
