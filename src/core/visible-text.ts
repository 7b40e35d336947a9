/**
 * Site-written text must read as what it is in every output: control characters are dropped and bidi controls
 * shown as markers like `⟨U+202E⟩` (docs/decisions.md, "Control and bidi characters").
 */

/** The bidi formatting characters: ALM, LRM, RLM, LRE…RLO, LRI…PDI. */
const BIDI = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";
/** C0 controls but tab, line feed and carriage return; DEL; C1 controls. */
const CONTROLS = "\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f";

/** What `cleanPageText` changes: every control (whitespace ones become spaces) and every bidi control. */
const UNCLEAN = new RegExp(`[\\t\\n\\r${CONTROLS}${BIDI}]`);
const UNCLEAN_ALL = new RegExp(UNCLEAN.source, "g");
/** What `visibleText` changes: the same but tab, line feed and carriage return, which outputs lay text out with. */
const UNSHOWN = new RegExp(`[${CONTROLS}${BIDI}]`);
const UNSHOWN_ALL = new RegExp(UNSHOWN.source, "g");
const IS_BIDI = new RegExp(`[${BIDI}]`);

/** The visible marker standing for the bidi control `c`: `⟨U+202E⟩`. */
export function bidiMarker(c: string): string {
  return `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

function replaceForPage(c: string): string {
  const code = c.charCodeAt(0);
  if (code === 0x09 || code === 0x0a || code === 0x0d || code === 0x0b || code === 0x0c) return " ";
  return IS_BIDI.test(c) ? bidiMarker(c) : "";
}

function replaceForOutput(c: string): string {
  return IS_BIDI.test(c) ? bidiMarker(c) : "";
}

/**
 * Text taken from a page, as it is stored: control characters dropped (tab, line breaks and the other C0
 * whitespace become spaces) and bidi controls replaced by their markers. Text with none is returned as it is.
 */
export function cleanPageText(text: string): string {
  return UNCLEAN.test(text) ? text.replace(UNCLEAN_ALL, replaceForPage) : text;
}

/**
 * Any text an output writes (a report, a page, a message body, JSON included), as it must be written: control
 * characters but tab, line feed and carriage return dropped, bidi controls replaced by their markers.
 */
export function visibleText(text: string): string {
  return UNSHOWN.test(text) ? text.replace(UNSHOWN_ALL, replaceForOutput) : text;
}

/** True when `text` holds a character `visibleText` would change. */
export function hasUnshown(text: string): boolean {
  return UNSHOWN.test(text);
}

/**
 * Text that stands for a URL but is kept as written (an href that does not parse): control and bidi characters
 * percent-encoded, as the URL parser writes them in a URL that does parse.
 */
export function encodeUnshown(text: string): string {
  return UNCLEAN.test(text) ? text.replace(UNCLEAN_ALL, (c) => encodeURIComponent(c)) : text;
}
