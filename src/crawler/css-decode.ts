import { bomEncoding, charsetOf, decoderFor } from "./decode.ts";

/**
 * Bytes to text for stylesheets, by CSS Syntax's fallback encoding, without the linking page's step: a sheet is
 * fetched once for every page that links it, so there is no one such page.
 */

/** The bytes `@charset "` that must open a sheet for its rule to count (CSS Syntax: exact, lowercase, one space). */
const CHARSET_RULE = new TextEncoder().encode('@charset "');
/** How far the label of an `@charset` rule is looked for. */
const CHARSET_PRESCAN_BYTES = 1024;

/** True when a Content-Type names a stylesheet. */
export function isCssContentType(contentType: string | undefined): boolean {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() === "text/css";
}

/** The label of an `@charset` rule opening `body`, by its exact byte form; UTF-16 labels read as UTF-8 (CSS Syntax). */
export function charsetRuleLabel(body: Uint8Array): string | null {
  for (let i = 0; i < CHARSET_RULE.length; i++) if (body[i] !== CHARSET_RULE[i]) return null;
  const end = Math.min(body.length - 1, CHARSET_PRESCAN_BYTES);
  for (let i = CHARSET_RULE.length; i < end; i++) {
    if (body[i] !== 0x22) continue;
    if (body[i + 1] !== 0x3b) return null;
    const label = new TextDecoder("latin1").decode(body.subarray(CHARSET_RULE.length, i)).trim().toLowerCase();
    return label === "utf-16be" || label === "utf-16le" ? "utf-8" : label;
  }
  return null;
}

/** Decodes a stylesheet body to text using the encoding its bytes, headers or `@charset` rule declare. */
export function decodeCss(body: Uint8Array, contentType: string | undefined): string {
  const decoder = decoderFor(bomEncoding(body)) ?? decoderFor(charsetOf(contentType)) ?? decoderFor(charsetRuleLabel(body)) ?? new TextDecoder("utf-8");
  return decoder.decode(body);
}
