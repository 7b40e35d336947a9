import type { Context, TypedResponse } from "hono";
import type { JSONValue } from "hono/utils/types";

/**
 * JSON bodies rendered once per unchanged result. The crawl service hands out the same page object for as long
 * as that page of links cannot change (services/link-page-cache.ts); serialising 100 links is ~30 µs, a third
 * of such a request, so the text is kept beside the object and dropped with it.
 */
const rendered = new WeakMap<object, string>();

/** Responds 200 with `body()` as JSON, rendered on the first response for `result` and reused after. */
export function jsonRenderedOnce<T extends JSONValue>(c: Context, result: object, body: () => T): Response & TypedResponse<T, 200, "json"> {
  let text = rendered.get(result);
  if (text === undefined) {
    text = JSON.stringify(body());
    rendered.set(result, text);
  }
  // Typed as c.json's answer, so the route's response schema still checks what `body` builds.
  const response: Response = c.body(text, 200, { "Content-Type": "application/json" });
  return response as Response & TypedResponse<T, 200, "json">;
}
