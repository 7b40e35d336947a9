import { createRoute, type RouteConfig, type z } from "@hono/zod-openapi";
import type { Scope } from "../core/scopes.ts";
import { requireScope } from "./middleware/auth/auth.ts";
import { keepAnswer } from "./middleware/response-cache/response-cache.ts";

/**
 * Authenticated route definitions: the OpenAPI tag, bearer security and scope check set in one call, so docs and
 * enforcement agree. `fromStore: false` keeps a GET's answer out of the response cache (it would go stale).
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
