/** @jsxImportSource hono/jsx */
import { Hono, type Context } from "hono";
import { getCookie } from "hono/cookie";
import { ForbiddenError, UnauthorizedError } from "../../core/errors.ts";
import type { KeysService } from "../../services/keys.service.ts";
import { assertSameOrigin } from "../middleware/dashboard-session.ts";
import { SignInPage } from "../pages/sign-in-page.tsx";
import { clearSessionCookie, clearSignInCookie, setSessionCookie, setSignInCookie, SIGN_IN_COOKIE } from "../session-cookie.ts";
import { SessionCodec } from "../session.ts";
import type { SignInGate } from "../sign-in-backoff.ts";
import type { SignOuts } from "../sign-outs.ts";
import type { UiEnv } from "../ui-env.ts";

/**
 * Sign in with an API key (it is checked like a Bearer key, then forgotten: the cookie names the key's id,
 * never its secret) and sign out. The sign-in form carries a token bound to a short-lived nonce cookie, so
 * another site cannot sign a browser in under a key of its own choosing. Failed attempts back off per address and
 * per key prefix (sign-in-backoff.ts; counted in the store on PostgreSQL, so across nodes): while either waits, an
 * attempt is answered 429 without checking the key.
 * Sign-out is recorded where every node sharing the store reads it (sign-outs.ts).
 */

/** Only local paths may be returned to after sign-in (no open redirect). */
function localPath(next: string | undefined): string {
  return next !== undefined && /^\/(?!\/)[A-Za-z0-9/._~%?=&-]*$/.test(next) && !next.includes("\\") ? next : "/";
}

export function signInRouter(keys: KeysService, codec: SessionCodec, backoff: SignInGate, signOuts: SignOuts) {
  const router = new Hono<UiEnv>();

  const form = (c: Context<UiEnv>, next: string, error?: string, status: 200 | 401 | 403 | 429 = 200) => {
    const nonce = SessionCodec.nonce();
    setSignInCookie(c, nonce);
    c.status(status);
    return c.render(<SignInPage token={codec.signInToken(nonce)} next={next} error={error} />, { title: "Sign in", signedOut: true });
  };

  router.get("/ui/sign-in", (c) => {
    if (c.get("viewer") !== null) return c.redirect(localPath(c.req.query("next")), 303);
    return form(c, localPath(c.req.query("next")));
  });

  const tooMany = (c: Context<UiEnv>, next: string, waitSeconds: number) => {
    c.header("Retry-After", String(waitSeconds));
    return form(c, next, `Too many failed sign-ins; try again in ${waitSeconds} s.`, 429);
  };

  router.post("/ui/sign-in", async (c) => {
    assertSameOrigin(c);
    const address = c.get("clientAddress");
    const addressWait = await backoff.addressWait(address);
    if (addressWait > 0) return tooMany(c, "/", addressWait);
    const body = await c.req.parseBody({ all: true });
    const next = localPath(typeof body.next === "string" ? body.next : undefined);
    const token = typeof body._token === "string" ? body._token : undefined;
    const secret = typeof body.key === "string" ? body.key.trim() : "";
    const keyWait = await backoff.keyWait(secret);
    if (keyWait > 0) return tooMany(c, next, keyWait);
    if (!codec.signInValid(getCookie(c, SIGN_IN_COOKIE), token)) {
      await backoff.failed(address, "");
      return form(c, next, "The sign-in form expired or came from elsewhere; please try again.", 403);
    }
    try {
      const principal = await keys.authenticate(secret);
      const { token: session, session: parts } = codec.issue(principal.keyId);
      setSessionCookie(c, session, parts.expiresAt);
      clearSignInCookie(c);
      return c.redirect(next, 303);
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      await backoff.failed(address, secret);
      return form(c, next, `Sign-in refused: ${error.message}.`, 401);
    }
  });

  router.post("/ui/sign-out", async (c) => {
    assertSameOrigin(c);
    const viewer = c.get("viewer");
    const body = await c.req.parseBody({ all: true });
    if (viewer !== null && !codec.csrfValid(viewer.session, typeof body._csrf === "string" ? body._csrf : undefined)) {
      throw new ForbiddenError("missing or wrong form token (CSRF)");
    }
    if (viewer !== null) await signOuts.end(viewer.session);
    clearSessionCookie(c);
    return c.redirect("/ui/sign-in", 303);
  });

  return router;
}
