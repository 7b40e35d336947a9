import { createRoute, type RouteConfig, type z } from "@hono/zod-openapi";
import type { Scope } from "../core/scopes.ts";
import { requireScope } from "./middleware/auth/auth.ts";
import { keepAnswer } from "./middleware/response-cache/response-cache.ts";

/**
 * Route definitions for authenticated operations: one call sets the OpenAPI tag, the bearer security
 * requirement and the scope check together, so documentation and enforcement cannot disagree. A GET's answers
 * may be kept by the response cache while the store is unchanged (middleware/response-cache/), unless
 * `fromStore` is false: an answer made from anything else (the process's own counters) would go stale.
 */
export function securedRoute<const R extends Omit<RouteConfig, "tags" | "security" | "middleware">>(
  tag: string,
  scope: Scope,
  route: R,
  options: { fromStore?: boolean } = {},
) {
  const cached = route.method === "get" && options.fromStore !== false;
  const middleware = cached ? [requireScope(scope), keepAnswer(scope)] : [requireScope(scope)];
  return createRoute({ ...route, tags: [tag], security: [{ bearerAuth: [] }], middleware });
}

/** A required JSON request body validated by `schema`. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}
