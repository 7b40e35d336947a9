/**
 * One robots.txt path pattern against one URL path (RFC 9309 §2.2.2–2.2.3), both first brought to one
 * percent-encoding. Pieces between stars take their leftmost fit, which never loses a match, so a hostile
 * pattern costs a few scans, not a backtracking search.
 */

const HEX = "0123456789ABCDEF";
// RFC 3986 unreserved characters: the only escapes that mean the same as the bare character.
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
// Printable ASCII without "%": such text is already in normal form, the common case.
const ALREADY_NORMAL = /^[\x21-\x24\x26-\x7E]*$/;
const encoder = new TextEncoder();

function percentEncode(text: string): string {
  let out = "";
  for (const byte of encoder.encode(text)) out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  return out;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1; // a-f / A-F
}

/**
 * Brings a path or a path pattern to the one spelling rules are compared in: escapes of unreserved
 * characters decoded, other escapes in upper-case hex, non-ASCII, space and control characters encoded as
 * UTF-8 escapes. `*` and `$` pass through untouched, so patterns keep their wildcards.
 */
export function normalizeRobotsPath(value: string): string {
  if (ALREADY_NORMAL.test(value)) return value;
  let out = "";
  let i = 0;
  while (i < value.length) {
    const code = value.charCodeAt(i);
    if (code === 0x25 /* % */) {
      const high = hexValue(value.charCodeAt(i + 1));
      const low = hexValue(value.charCodeAt(i + 2));
      if (high >= 0 && low >= 0) {
        const decoded = String.fromCharCode(high * 16 + low);
        out += UNRESERVED.test(decoded) ? decoded : `%${HEX[high]}${HEX[low]}`;
        i += 3;
        continue;
      }
      // A stray "%" is kept as written: guessing what it meant would make two different paths equal.
      out += "%";
      i += 1;
      continue;
    }
    if (code > 0x20 && code < 0x7f) {
      out += value[i];
      i += 1;
      continue;
    }
    // One whole code point, so a surrogate pair becomes one 4-octet UTF-8 sequence.
    const point = value.codePointAt(i) ?? code;
    const width = point > 0xffff ? 2 : 1;
    out += percentEncode(value.slice(i, i + width));
    i += width;
  }
  return out;
}

/**
 * Whether a normalised pattern matches a normalised path: from the path's start, to its end when the
 * pattern ends in `$`, otherwise as a prefix. A `$` anywhere else is an ordinary character.
 */
export function matchesPattern(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith("$");
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const pieces = body.split("*");
  const head = pieces[0] ?? "";
  if (pieces.length === 1) return anchored ? path === head : path.startsWith(head);
  if (!path.startsWith(head)) return false;

  let position = head.length;
  const lastIndex = pieces.length - 1;
  for (let i = 1; i < lastIndex; i++) {
    const piece = pieces[i] ?? "";
    const found = path.indexOf(piece, position);
    if (found < 0) return false;
    position = found + piece.length;
  }
  const tail = pieces[lastIndex] ?? "";
  // Anchored: the last piece must end the path without overlapping what the earlier pieces used.
  if (anchored) return path.length - tail.length >= position && path.endsWith(tail);
  return path.indexOf(tail, position) >= 0;
}
