/** API key scopes (docs/api.md "Authentication and scopes"); `admin` implies every other scope. */
export const SCOPES = [
  "crawls:read",
  "crawls:write",
  "domains:read",
  "domains:write",
  "webhooks:read",
  "webhooks:write",
  /** Notification channels (email and chat): their own scopes, so a key that wires up chat cannot add webhooks. */
  "notifications:read",
  "notifications:write",
  /** GET /metrics on the API listener (its own scope, so a monitoring key can read nothing else). */
  "metrics:read",
  "admin",
] as const;

export type Scope = (typeof SCOPES)[number];

/** True when a key holding `granted` may perform an operation that needs `required`. */
export function hasScope(granted: readonly Scope[], required: Scope): boolean {
  return granted.includes("admin") || granted.includes(required);
}

/** True when `value` names a known scope. */
export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
