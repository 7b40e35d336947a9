import type { MiddlewareHandler } from "hono";

/**
 * Headers on every dashboard answer: a CSP allowing only our own script and stylesheet (no inline code, so an
 * escaped-too-little string from a crawled page still cannot run), no framing, no referrer (crawl URLs stay
 * private), no MIME sniffing, and no caching of pages that show a signed-in user's data.
 */

export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Sets the dashboard's security headers after the route answered (errors and redirects included). */
export function securityHeaders(): MiddlewareHandler {
  return async function securityHeadersMiddleware(c, next) {
    await next();
    c.res.headers.set("Content-Security-Policy", DASHBOARD_CSP);
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    c.res.headers.set("Referrer-Policy", "no-referrer");
    c.res.headers.set("X-Frame-Options", "DENY");
    c.res.headers.set("Cross-Origin-Opener-Policy", "same-origin");
    if (!c.res.headers.has("Cache-Control")) c.res.headers.set("Cache-Control", "no-store");
  };
}
