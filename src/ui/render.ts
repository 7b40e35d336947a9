import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Answers with a rendered page (hono/jsx escapes every text and attribute value) and the HTML doctype. */
export async function renderPage(c: Context, page: unknown, status: ContentfulStatusCode = 200): Promise<Response> {
  const html = await Promise.resolve((page as { toString(): string | Promise<string> }).toString());
  return c.html(`<!doctype html>${html}`, status);
}
