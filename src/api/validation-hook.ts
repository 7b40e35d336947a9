import type { Hook } from "@hono/zod-openapi";
import type { z } from "zod";
import { InvalidRequestError, NotFoundError, type ErrorDetail } from "../core/errors.ts";
import type { AppEnv } from "../http/env.ts";

/**
 * Turns a failed zod validation into a core error: a bad path id is 404 (an id that cannot exist is an
 * unknown id), everything else 400 `invalid_request` with one `{field, message}` per problem.
 */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (result.success) return;
  if (result.target === "param") throw new NotFoundError("resource");
  const details = result.error.issues.flatMap((issue) => describe(issue, []));
  throw new InvalidRequestError(`invalid ${result.target === "json" ? "request body" : result.target}`, details);
};

function describe(issue: z.core.$ZodIssue, prefix: PropertyKey[]): ErrorDetail[] {
  const path = [...prefix, ...issue.path];
  const field = path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({ field: field ? `${field}.${key}` : key, message: "unknown field" }));
  }
  if (issue.code === "invalid_union") {
    // `X or null` fails in both branches; name the problem inside the branch the value was meant for.
    const meant = issue.errors.filter((branch) => !branch.every((i) => i.code === "invalid_type" && i.path.length === 0));
    if (meant.length === 1) return meant[0]!.flatMap((inner) => describe(inner, path));
  }
  return [{ field: field || "(body)", message: issue.message }];
}
