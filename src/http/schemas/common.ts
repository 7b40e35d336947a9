import { z } from "@hono/zod-openapi";

/**
 * Schemas shared by every resource: the error envelope, pagination, ids in paths, and the
 * `{data}` / `{data, meta}` wrappers. The same objects validate requests and describe them in OpenAPI.
 */

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_request" }),
      message: z.string(),
      details: z.array(z.record(z.string(), z.unknown())).optional(),
    }),
  })
  .openapi("Error");

/**
 * The `error` of every query value's schema, naming the parameter: repeated, out of `range`, or not `expected`, so
 * each message comes from the schema that refused it.
 */
export function queryValueError(expected: string, range?: string) {
  return (issue: z.core.$ZodRawIssue) => {
    const name = String(issue.path?.at(-1) ?? "value");
    if (Array.isArray(issue.input)) return `${name} is given more than once`;
    if (range !== undefined && (issue.code === "too_small" || issue.code === "too_big")) return `${name} must be ${range}`;
    return `${name} must be ${expected}`;
  };
}

/**
 * A whole number given in a query string: digits only, so "1e2", "0x10", " 3" or an empty value are
 * refused rather than read as something the caller did not write. Documented as an integer.
 */
export function queryInteger(min: number, max = Number.MAX_SAFE_INTEGER) {
  const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `between ${min} and ${max}`;
  return z.preprocess(
    (value) => (typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : value),
    z
      .number({ error: queryValueError("a whole number", range) })
      .int()
      .min(min)
      .max(max),
  );
}

/**
 * A boolean given in a query string: exactly "true" or "false". "1", "yes", "TRUE" or an empty value are
 * refused, so a filter the caller misspelt is an error rather than silently ignored. Documented as a boolean.
 */
export function queryBoolean() {
  return z.preprocess((value) => (value === "true" ? true : value === "false" ? false : value), z.boolean({ error: queryValueError('"true" or "false"') }));
}

/** `page` ≥ 1 (default 1) and `limit` 1..100 (default 20), as query strings. */
export const PaginationQuery = z.object({
  page: queryInteger(1).default(1).openapi({ example: 1 }),
  limit: queryInteger(1, 100).default(20).openapi({ example: 20 }),
});

/** A path id; anything that is not a UUID is answered 404, like an unknown id. */
export const IdParam = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" }, example: "0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f" }),
});

export const PageMeta = z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int() });

/** `{data: T}` */
export function dataOf<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

/** A JSON response entry for OpenAPI. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

const ERROR_DESCRIPTIONS = {
  400: "invalid_request: malformed JSON, wrong types, bad query values",
  401: "unauthorized: missing, invalid or revoked API key",
  403: "forbidden: the key lacks the scope",
  404: "not_found: unknown or malformed id",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type: the body must be application/json",
  422: "domain_not_verified or unsafe_url",
  429: "rate_limited: over the key's rate limit (see Retry-After)",
  500: "internal",
} as const;

/** Error responses for OpenAPI: the usual 401/403/429/500 plus the `extra` statuses of the route. */
export function errorResponses(...extra: (keyof typeof ERROR_DESCRIPTIONS)[]) {
  const statuses = [...new Set([401, 403, 429, 500, ...extra] as const)].sort();
  return Object.fromEntries(statuses.map((s) => [s, jsonContent(ErrorSchema, ERROR_DESCRIPTIONS[s])]));
}
