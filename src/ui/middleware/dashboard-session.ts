import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { ForbiddenError, UnauthorizedError } from "../../core/errors.ts";
import type { KeysService } from "../../services/keys.service.ts";
import { clearSessionCookie, SESSION_COOKIE } from "../session-cookie.ts";
import type { SessionCodec } from "../session.ts";
import type { SignOuts } from "../sign-outs.ts";
import type { UiEnv } from "../ui-env.ts";

/**
 * Who is signed in: a valid, unexpired session cookie whose key still exists and is not revoked, checked on
 * every request, so revoking a key ends its sessions with the next click; one signed out (on any node sharing the
 * store) is refused. Only dashboard routes read the cookie; the API under its base path never does (it takes
 * Bearer keys only).
 */
export function dashboardSession(keys: KeysService, codec: SessionCodec, signOuts: SignOuts): MiddlewareHandler<UiEnv> {
  return async function dashboardSessionMiddleware(c, next) {
    let session = codec.read(getCookie(c, SESSION_COOKIE));
    if (session !== null) {
      // A boolean from memory is used as it is: the appliance's request pays no await for it.
      const ended = signOuts.isEnded(session);
      if (ended === true || (ended !== false && (await ended))) session = null;
    }
    let viewer = null;
    if (session !== null) {
      try {
        viewer = { principal: await keys.principalOf(session.keyId), session, csrf: codec.csrfToken(session) };
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
      }
    }
    if (viewer === null && getCookie(c, SESSION_COOKIE) !== undefined) clearSessionCookie(c);
    c.set("viewer", viewer);
    await next();
  };
}

/** Sends a signed-out visitor to the sign-in page (JSON endpoints answer 401 instead). */
export function requireViewer(): MiddlewareHandler<UiEnv> {
  return async function requireViewerMiddleware(c, next) {
    if (c.get("viewer") !== null) return next();
    if (c.req.path.endsWith(".json")) return c.json({ error: { code: "unauthorized", message: "signed out" } }, 401);
    const back = c.req.method === "GET" ? `?next=${encodeURIComponent(c.req.path)}` : "";
    return c.redirect(`/ui/sign-in${back}`, 303);
  };
}

/**
 * Refuses a state-changing request without this session's CSRF token in its form (`_csrf`), or sent from
 * another origin. SameSite=Strict already keeps the cookie off cross-site requests; this holds even where it
 * does not (old browsers, a sibling subdomain).
 */
export function requireCsrf(codec: SessionCodec): MiddlewareHandler<UiEnv> {
  return async function requireCsrfMiddleware(c, next) {
    if (c.req.method !== "POST") return next();
    assertSameOrigin(c);
    const viewer = c.get("viewer");
    // `all`: Hono keeps the first parse for the handler, which may need repeated fields (checkbox lists).
    const form = await c.req.parseBody({ all: true });
    const token = typeof form._csrf === "string" ? form._csrf : undefined;
    if (viewer === null || !codec.csrfValid(viewer.session, token))
      throw new ForbiddenError("missing or wrong form token (CSRF); reload the page and try again");
    return next();
  };
}

/**
 * Throws ForbiddenError when the browser says the request comes from another site. `Sec-Fetch-Site` is sent by
 * current browsers whatever the referrer policy; `Origin` is "null" under our `no-referrer` policy, so only a
 * real origin naming another host counts against a request. The CSRF token stays the guard that decides.
 */
export function assertSameOrigin(c: Context): void {
  const site = c.req.header("Sec-Fetch-Site");
  if (site !== undefined && site !== "same-origin" && site !== "none") throw new ForbiddenError("cross-site form submission refused");
  const origin = c.req.header("Origin");
  if (origin === undefined || origin === "null") return;
  let originHost: string | null = null;
  try {
    originHost = new URL(origin).host;
  } catch {
    originHost = null;
  }
  if (originHost === null || originHost !== c.req.header("Host")) throw new ForbiddenError("cross-origin form submission refused");
}
