/** @jsxImportSource hono/jsx */
import { safeHref } from "../safe-url.ts";

/** A URL from a crawled page: a link only when it is http(s), otherwise plain text. */
export function CrawledUrl(props: { url: string }) {
  const href = safeHref(props.url);
  return href === undefined ? <code class="url">{props.url}</code> : <a class="url" href={href} rel="noreferrer noopener nofollow">{props.url}</a>;
}

/** A link's result in words: the error, "no answer", or the HTTP status. */
export function outcome(target: { status_code: number; error: string | null }): string {
  return target.error ?? (target.status_code === 0 ? "no answer" : `HTTP ${target.status_code}`);
}
