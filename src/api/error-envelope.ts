import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError, MethodNotAllowedError, RateLimitedError, STATUS_OF, StoreUnavailableError, type ErrorCode, type ErrorDetail } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { AppEnv } from "../http/env.ts";
import { storeUnavailable, storeWriteFailure } from "../store/write-failure.ts";

/**
 * The one place where errors become HTTP responses with the contract's envelope
 * `{"error": {code, message, details?}}`. Unexpected errors are logged with the request id and answered
 * with a generic 500 whose body carries no stack, SQL or secret.
 */

/** Codes for statuses that Hono itself raises as HTTPException. */
const CODE_OF_STATUS: Partial<Record<number, ErrorCode>> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

/** Builds the envelope response for `error` (also used by middleware that answer without throwing). */
export function errorResponse(c: Context<AppEnv>, error: unknown, logger: Logger): Response {
  if (error instanceof AppError) {
    if (error.code === "unauthorized") c.header("WWW-Authenticate", 'Bearer realm="linkpatrol"');
    if (error instanceof RateLimitedError || error instanceof StoreUnavailableError) c.header("Retry-After", String(error.retryAfterSeconds));
    if (error instanceof MethodNotAllowedError) c.header("Allow", error.allowed.join(", "));
    return c.json(body(error.code, error.message, error.details), STATUS_OF[error.code]);
  }
  if (error instanceof HTTPException && CODE_OF_STATUS[error.status]) {
    const code = CODE_OF_STATUS[error.status]!;
    const message = error.message || code.replaceAll("_", " ");
    // Hono raises these for bodies it cannot read (malformed JSON): the 400 row promises {field, message}.
    const details = code === "invalid_request" ? [{ field: "(body)", message }] : undefined;
    return c.json(body(code, message, details), STATUS_OF[code]);
  }
  const writeFailure = storeWriteFailure(error);
  if (writeFailure !== null) {
    // Not the request's fault and not a bug: the operator frees space (or fixes the disk), the client retries.
    logger.error("store refused a write", { request_id: c.get("requestId"), reason: writeFailure, error: String(error) });
    return errorResponse(c, storeUnavailable(writeFailure), logger);
  }
  logger.error("unhandled error", {
    request_id: c.get("requestId"),
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return c.json(body("internal", "internal server error"), 500);
}

/** The envelope of an error (`{"error": {code, message, details?}}`), for a listener answering before the app. */
export function body(code: ErrorCode, message: string, details?: ErrorDetail[]): ErrorBody {
  return { error: details && details.length > 0 ? { code, message, details } : { code, message } };
}
