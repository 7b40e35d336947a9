import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../http/env.ts";

/**
 * Reads the store's version token once, as the request begins, for the kept keys (services/keys.service.ts) and
 * the kept answers (response-cache.ts): on PostgreSQL each read is a round trip, so a request makes one, and one
 * without an API key (a health check, the dashboard, an anonymous caller) none, as it uses neither. Read before
 * anything runs, a commit meanwhile files the request's answer under a token already gone, never the reverse. A
 * store that cannot answer leaves null: nothing kept is used, and the route reports the store.
 */
export function storeVersionToken(version: () => string | Promise<string>): MiddlewareHandler<AppEnv> {
  return async function storeVersionTokenMiddleware(c, next) {
    if (c.req.header("Authorization") === undefined) return next();
    let token: string | null;
    try {
      token = await version();
    } catch {
      token = null;
    }
    c.set("storeVersion", token);
    await next();
  };
}
