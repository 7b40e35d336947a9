/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { safeHref } from "../safe-url.ts";

/** After these a URL may wrap: its own separators, so a narrow screen breaks it between parts, not letters. */
const SEPARATORS = new Set(["/", "?", "&", "=", ".", "-", "_", "#", ":", ";", ",", "+", "~", "%"]);
/** A run this long without a separator may wrap too, so no part of a hostile URL sets a column's width. */
const LONGEST_RUN = 24;

/** `text` with a `<wbr>` after each separator and inside long runs; the text itself unchanged (escaped as text). */
export function Breakable(props: { text: string }): Child {
  const parts: Child[] = [];
  let start = 0;
  let run = 0;
  const text = props.text;
  for (let i = 0; i < text.length; i++) {
    run += 1;
    const highSurrogate = text.charCodeAt(i) >= 0xd800 && text.charCodeAt(i) <= 0xdbff; // never split a pair
    if (SEPARATORS.has(text[i]!) || (run >= LONGEST_RUN && !highSurrogate)) {
      parts.push(text.slice(start, i + 1), <wbr />);
      start = i + 1;
      run = 0;
    }
  }
  if (start < text.length) parts.push(text.slice(start));
  return <>{parts}</>;
}

/** A URL from a crawled page: a link only when it is http(s), otherwise plain text; it wraps at its separators. */
export function CrawledUrl(props: { url: string }) {
  const href = safeHref(props.url);
  return href === undefined ? (
    <code class="url">
      <Breakable text={props.url} />
    </code>
  ) : (
    <a class="url" href={href} rel="noreferrer noopener nofollow">
      <Breakable text={props.url} />
    </a>
  );
}

/** A link's result in words: the error, "no answer", or the HTTP status. */
export function outcome(target: { status_code: number; error: string | null }): string {
  return target.error ?? (target.status_code === 0 ? "no answer" : `HTTP ${target.status_code}`);
}
