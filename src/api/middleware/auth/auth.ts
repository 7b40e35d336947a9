import type { MiddlewareHandler } from "hono";
import { ForbiddenError, UnauthorizedError } from "../../../core/errors.ts";
import { hasScope, type Scope } from "../../../core/scopes.ts";
import type { KeysService, Principal } from "../../../services/keys.service.ts";
import type { AppEnv } from "../../../http/env.ts";

/**
 * Authentication in two steps: `authenticate` runs on every request and only records who is calling
 * (the rate limiter needs that before any route runs); `requireScope` on each route turns a missing or
 * refused key into 401 and a missing scope into 403. Both are plain functions returning `next()`: with nothing
 * to do afterwards, an async wrapper would only add a promise to every request.
 */

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

interface Caller {
  /** The authenticated key, or null when the request carried no usable credentials. */
  principal: Principal | null;
  /** Why credentials were refused. */
  authError: UnauthorizedError | null;
}

/** Resolves an `Authorization: Bearer <key>` header (absent: null) to its caller; rejects nothing yet. */
async function identifyCaller(keys: KeysService, header: string | null | undefined, token: string | null | undefined): Promise<Caller> {
  if (header === null || header === undefined) return { principal: null, authError: null };
  const match = BEARER.exec(header);
  try {
    if (!match) throw new UnauthorizedError("Authorization header must be: Bearer <API key>");
    return { principal: await keys.authenticate(match[1]!, token), authError: null };
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    return { principal: null, authError: error };
  }
}

/** Records who is calling (see `identifyCaller`) for the rate limiter and the routes. */
export function authenticate(keys: KeysService): MiddlewareHandler<AppEnv> {
  return async function authenticateMiddleware(c, next) {
    const caller = await identifyCaller(keys, c.req.header("Authorization"), c.get("storeVersion"));
    c.set("principal", caller.principal);
    c.set("authError", caller.authError);
    await next();
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
