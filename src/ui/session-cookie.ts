import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";

/** The session cookie's attributes in one place: HttpOnly, SameSite=Strict, Path=/, Secure over HTTPS. */

export const SESSION_COOKIE = "lp_session";
/** Nonce of the sign-in form, before any session exists. */
export const SIGN_IN_COOKIE = "lp_sign_in";

/** True when the browser reached us over HTTPS. */
function overHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("X-Forwarded-Proto")?.split(",")[0]?.trim() === "https";
}

export function setSessionCookie(c: Context, token: string, expiresAt: number): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "Strict",
    secure: overHttps(c),
    path: "/",
    expires: new Date(expiresAt),
    maxAge: Math.max(0, Math.floor((expiresAt - Date.now()) / 1000)),
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "Strict", secure: overHttps(c) });
}

export function setSignInCookie(c: Context, nonce: string): void {
  setCookie(c, SIGN_IN_COOKIE, nonce, { httpOnly: true, sameSite: "Strict", secure: overHttps(c), path: "/ui/sign-in", maxAge: 3600 });
}

export function clearSignInCookie(c: Context): void {
  deleteCookie(c, SIGN_IN_COOKIE, { path: "/ui/sign-in", httpOnly: true, sameSite: "Strict", secure: overHttps(c) });
}
