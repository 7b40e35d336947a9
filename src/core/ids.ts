/** Identifiers: every resource id is a UUID (v7, so ids sort by creation time). */

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A new time-ordered UUID. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

/** True when `value` is a UUID in canonical 8-4-4-4-12 form. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
