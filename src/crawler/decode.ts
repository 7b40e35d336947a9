/**
 * Bytes to text for HTML pages, choosing the encoding the way browsers do, in order: a byte-order mark, the
 * charset of the Content-Type header, a `<meta charset>` or `<meta http-equiv>` in the first 1024 bytes, then
 * UTF-8 (the web's default today; HTML's legacy windows-1252 fallback misreads far more pages than it fixes).
 * An unknown label falls back to UTF-8; undecodable bytes become U+FFFD rather than failing the page.
 */

const HTML_TYPES: ReadonlySet<string> = new Set(["text/html", "application/xhtml+xml"]);

/** How far into the document a meta charset is looked for (HTML's prescan limit). */
const PRESCAN_BYTES = 1024;

/** True when a Content-Type names an HTML document. */
export function isHtmlContentType(contentType: string | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return HTML_TYPES.has(type);
}

/** The `charset` parameter of a Content-Type, if any. */
export function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "");
  return match?.[1] ?? null;
}

/** The encoding a byte-order mark at the start of `body` names, if any. */
export function bomEncoding(body: Uint8Array): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  return null;
}

function metaCharset(body: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(body.subarray(0, PRESCAN_BYTES));
  const label = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase() ?? null;
  // HTML's prescan: a document that could state its encoding in ASCII is not UTF-16, whatever it says.
  if (label !== null && label.startsWith("utf-16")) return "utf-8";
  return label;
}

/** A decoder for an encoding label; null when the label is absent or unknown. */
export function decoderFor(label: string | null): TextDecoder | null {
  if (label === null) return null;
  try {
    return new TextDecoder(label.toLowerCase());
  } catch {
    return null;
  }
}

/** Decodes an HTML body to text using the encoding its headers or markup declare. */
export function decodeHtml(body: Uint8Array, contentType: string | undefined): string {
  const decoder =
    decoderFor(bomEncoding(body)) ??
    decoderFor(charsetOf(contentType)) ??
    decoderFor(metaCharset(body)) ??
    new TextDecoder("utf-8");
  return decoder.decode(body);
}
