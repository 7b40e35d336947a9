import type { MiddlewareHandler } from "hono";
import { ForbiddenError, UnauthorizedError } from "../../../core/errors.ts";
import { hasScope, type Scope } from "../../../core/scopes.ts";
import type { KeysService } from "../../../services/keys.service.ts";
import type { AppEnv } from "../../env.ts";

/**
 * Authentication in two steps: `authenticate` runs on every request and only records who is calling
 * (the rate limiter needs that before any route runs); `requireScope` on each route turns a missing or
 * refused key into 401 and a missing scope into 403. Both are plain functions returning `next()`: with nothing
 * to do afterwards, an async wrapper would only add a promise to every request.
 */

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Resolves `Authorization: Bearer <key>` to a principal without rejecting anything yet. */
export function authenticate(keys: KeysService): MiddlewareHandler<AppEnv> {
  return function authenticateMiddleware(c, next) {
    c.set("principal", null);
    c.set("authError", null);
    const header = c.req.header("Authorization");
    if (header !== undefined) {
      const match = BEARER.exec(header);
      try {
        if (!match) throw new UnauthorizedError("Authorization header must be: Bearer <API key>");
        c.set("principal", keys.authenticate(match[1]!));
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        c.set("authError", error);
      }
    }
    return next();
  };
}

/** Lets the request through only for a key holding `scope` (or `admin`). */
export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return function requireScopeMiddleware(c, next) {
    const principal = c.get("principal");
    if (!principal) throw c.get("authError") ?? new UnauthorizedError("missing API key (Authorization: Bearer <key>)");
    if (!hasScope(principal.scopes, scope)) throw new ForbiddenError(`this API key lacks the ${scope} scope`);
    return next();
  };
}
