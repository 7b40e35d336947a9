import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { visibleText } from "../core/visible-text.ts";

/**
 * Answers with a rendered page (hono/jsx escapes every text and attribute value) and the HTML doctype. Every
 * page passes here, so this is where a crawled site's control characters are dropped and its bidi controls
 * made visible, whichever component shows its text (core/visible-text.ts).
 */
export async function renderPage(c: Context, page: unknown, status: ContentfulStatusCode = 200): Promise<Response> {
  const html = await Promise.resolve((page as { toString(): string | Promise<string> }).toString());
  return c.html(`<!doctype html>${visibleText(html)}`, status);
}
