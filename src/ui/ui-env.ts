import type { AppEnv } from "../http/env.ts";
import { hasScope, type Scope } from "../core/scopes.ts";
import type { Principal } from "../services/keys.service.ts";
import type { Session } from "./session.ts";

/** Who is looking at the dashboard: the session's key (checked on this request), and the form token. */
export interface Viewer {
  principal: Principal;
  session: Session;
  /** The CSRF token every state-changing form of this session carries. */
  csrf: string;
}

/** Hono context of dashboard routes: the API chain's variables plus the viewer (null when signed out). */
export interface UiEnv {
  Variables: AppEnv["Variables"] & { viewer: Viewer | null };
}

/** True when the viewer's key holds `scope` (or admin): pages hide what it may not do, routes refuse it. */
export function can(viewer: Viewer | null, scope: Scope): boolean {
  return viewer !== null && hasScope(viewer.principal.scopes, scope);
}
