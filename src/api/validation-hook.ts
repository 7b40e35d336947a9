import type { Hook } from "@hono/zod-openapi";
import { InvalidRequestError, NotFoundError } from "../core/errors.ts";
import type { AppEnv } from "./env.ts";

/**
 * Turns a failed zod validation into a core error: a bad path id is 404 (an id that cannot exist is an
 * unknown id), everything else 400 `invalid_request` with one `{field, message}` per problem.
 */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (result.success) return;
  if (result.target === "param") throw new NotFoundError("resource");
  const details = result.error.issues.flatMap((issue) => {
    const field = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ field: field ? `${field}.${key}` : key, message: "unknown field" }));
    }
    return [{ field: field || "(body)", message: issue.message }];
  });
  throw new InvalidRequestError(`invalid ${result.target === "json" ? "request body" : result.target}`, details);
};
