/** Identifiers: every resource id is a UUID (v7, so ids sort by creation time). */

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A new time-ordered UUID. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

/** The stored (lowercase) form of an id given by a caller, or null when it cannot be an id. UUIDs are case-insensitive. */
export function canonicalId(value: string): string | null {
  return UUID_PATTERN.test(value) ? value.toLowerCase() : null;
}
