import type { Context } from "hono";
import { ForbiddenError, UnauthorizedError } from "../core/errors.ts";
import type { Scope } from "../core/scopes.ts";
import { can, type UiEnv, type Viewer } from "./ui-env.ts";

/** The signed-in viewer, refused with 403 unless its key holds `scope`: the server enforces what pages hide. */
export function requireUiScope(c: Context<UiEnv>, scope: Scope): Viewer {
  const viewer = c.get("viewer");
  if (viewer === null) throw new UnauthorizedError("signed out");
  if (!can(viewer, scope)) throw new ForbiddenError(`this API key lacks the ${scope} scope`);
  return viewer;
}
