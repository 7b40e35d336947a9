import type { MiddlewareHandler } from "hono";
import type { Logger } from "../core/logger.ts";
import { storeUnavailable } from "../store/write-failure.ts";

/**
 * Nothing is acknowledged that is not in the store the service opened: a write request is checked before and after
 * its handler, so a write that raced a replaced file is a 503, never a 2xx (docs/decisions.md, "A store file deleted").
 */

/** What the guard asks: null while the store file is the one opened, else what happened (naming the file). */
export interface StoreFileCheck {
  problem(): string | null;
}

/** Methods that may write: the guard is registered for these only. */
export const WRITE_METHODS = ["POST", "PUT", "PATCH", "DELETE"];

/** Refuses writes (503 `store_unavailable`) while the store's file is not the one the service opened. */
export function storeGuard(file: StoreFileCheck, logger: Logger): MiddlewareHandler {
  let reported: string | null = null;
  const refuse = (problem: string, requestId: unknown) => {
    // Once per loss in the log; every refused request has its own request line anyway.
    if (problem !== reported) logger.error("writes refused: the store file is not the one opened", { request_id: requestId, reason: problem });
    reported = problem;
    return storeUnavailable("file_lost");
  };
  return async function storeGuardMiddleware(c, next) {
    const before = file.problem();
    if (before !== null) throw refuse(before, c.get("requestId"));
    reported = null;
    await next();
    if (c.res.status >= 400) return;
    const after = file.problem();
    if (after === null) return;
    // The error answer takes over this one's headers: a Location would point at what was not kept.
    c.res.headers.delete("location");
    throw refuse(after, c.get("requestId"));
  };
}
