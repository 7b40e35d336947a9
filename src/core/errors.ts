/**
 * Domain errors thrown by services and mapped to HTTP in exactly one place (api/error-envelope.ts).
 * Each error carries a stable `code` from the contract's error table; callers match on the class
 * or the code, never on message text.
 */

/** One entry of an error's `details` list. */
export type ErrorDetail = Record<string, string | number | boolean | null>;

/**
 * The contract's error codes, one per row of its table (plus the additions documented in docs/api.md), with the
 * HTTP status each answers with: in the API's envelope (api/error-envelope.ts) and on the dashboard's pages.
 */
export const STATUS_OF = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  crawl_in_progress: 409,
  payload_too_large: 413,
  headers_too_large: 431,
  unsupported_media_type: 415,
  domain_not_verified: 422,
  unsafe_url: 422,
  rate_limited: 429,
  store_unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof STATUS_OF;

/** Base of every error a service may throw on purpose. */
export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  readonly details?: ErrorDetail[];

  constructor(message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}

/** Input that does not match the schema; details list `{field, message}`. */
export class InvalidRequestError extends AppError {
  readonly code = "invalid_request";
}

/** Missing, malformed, unknown or revoked credentials. */
export class UnauthorizedError extends AppError {
  readonly code = "unauthorized";
}

/** Authenticated, but the key lacks the scope the operation needs. */
export class ForbiddenError extends AppError {
  readonly code = "forbidden";
}

/** Unknown id (or an id that cannot exist, such as a malformed one in a path). */
export class NotFoundError extends AppError {
  readonly code = "not_found";
  constructor(resource: string, id?: string) {
    super(id === undefined ? `${resource} not found` : `${resource} ${id} not found`);
  }
}

/** The route exists but not for this HTTP method. */
export class MethodNotAllowedError extends AppError {
  readonly code = "method_not_allowed";
  constructor(readonly allowed: string[]) {
    super(`method not allowed; allowed: ${allowed.join(", ")}`);
  }
}

/** A unique resource already exists (for example a domain name registered twice). */
export class ConflictError extends AppError {
  readonly code = "conflict";
}

/** A domain already has a pending or running crawl; details name it. */
export class CrawlInProgressError extends AppError {
  readonly code = "crawl_in_progress";
  constructor(domainId: string, crawlId: string) {
    super(`domain ${domainId} already has a crawl in progress (${crawlId})`, [{ field: "domain_id", crawl_id: crawlId }]);
  }
}

/** A domain must be verified first, or its verification failed; details give per-method reasons. */
export class DomainNotVerifiedError extends AppError {
  readonly code = "domain_not_verified";
}

/** A URL whose scheme or address the policy forbids. */
export class UnsafeUrlError extends AppError {
  readonly code = "unsafe_url";
}

/** A request body larger than the server accepts. */
export class PayloadTooLargeError extends AppError {
  readonly code = "payload_too_large";
}

/** A request line and headers larger than the server accepts. */
export class HeadersTooLargeError extends AppError {
  readonly code = "headers_too_large";
}

/** The caller's token bucket is empty; `retryAfterSeconds` says when one token is back. */
export class RateLimitedError extends AppError {
  readonly code = "rate_limited";
  constructor(readonly retryAfterSeconds: number) {
    super(`rate limit exceeded; retry after ${retryAfterSeconds} s`);
  }
}

/**
 * The store cannot take writes: its disk is full or failing, or its file was deleted, moved or replaced under the
 * running service. Nothing was changed; reads still answer.
 */
export class StoreUnavailableError extends AppError {
  readonly code = "store_unavailable";
  /** Seconds a client should wait before trying again. */
  readonly retryAfterSeconds = 60;
}
