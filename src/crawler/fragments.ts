import type { FragmentGap, PageIdsGap } from "../core/fragment-gap.ts";
import { MAX_URL_LENGTH, recordedForm } from "./normalize.ts";
import { IdHashes, MAX_PAGE_IDS, type PageIds } from "./page-ids.ts";

/**
 * The rules of a fragment verdict, after HTML's "find a potential indicated element" (docs/decisions.md,
 * "Fragments"). Missing on a page whose ids were all kept is broken; with a gap it is only a warning.
 */

/** The longest fragment checked, as the URL parser writes it; a longer one is recorded cut, like a URL, and not checked. */
export const MAX_FRAGMENT_LENGTH = MAX_URL_LENGTH;
/** Pages fetched only for their ids, per crawl, at most; fragments asked of further ones are not checked. */
export const MAX_ID_FETCHES = 10_000;
/** Characters of one fragment shown in an error at most. */
const SHOWN_LENGTH = 100;
/** Fragments named in one error or warning at most (a link stored by an older release may ask several). */
const NAMED_AT_MOST = 5;

/** True for the fragments every HTML page has: the empty one and `top`, in any ASCII case. */
export function alwaysValid(fragment: string): boolean {
  return fragment === "" || (fragment.length === 3 && fragment.toLowerCase() === "top");
}

/** A link's fragment as recorded in its identity: as written, or cut like a URL when longer than MAX_FRAGMENT_LENGTH. */
export function recordedFragment(fragment: string): string {
  return recordedForm(fragment);
}

/** True for a recorded fragment too long to be checked (recordedFragment cut it). */
function tooLong(fragment: string): boolean {
  return fragment.length > MAX_FRAGMENT_LENGTH;
}

/** True when the page with `ids` has what `fragment` (as the URL parser writes it) points at. */
export function fragmentFound(fragment: string, ids: { has(id: string): boolean }): boolean {
  if (alwaysValid(fragment) || ids.has(fragment)) return true;
  const decoded = percentDecodeUtf8(fragment);
  return decoded !== fragment && ids.has(decoded);
}

/** What a link's fragment comes to on a page: an error, a warning with the gap that caused it, or nothing to say. */
export type FragmentVerdict = { kind: "ok" } | { kind: "broken"; error: string } | { kind: "unproven"; gap: FragmentGap; warning: string };

/** The verdict on `fragments` (a link's own; several for a link stored by an older release) asked of a page with these ids. */
export function judgeFragments(fragments: readonly string[], ids: { has(id: string): boolean }, gap: PageIdsGap | null): FragmentVerdict {
  const long = fragments.filter(tooLong);
  const missing = fragments.filter((fragment) => !tooLong(fragment) && !fragmentFound(fragment, ids));
  if (missing.length > 0 && gap === null) return { kind: "broken", error: `${nameFragments(missing)} not found` };
  if (missing.length > 0) return unproven(gap!, missing);
  if (long.length > 0) return unproven("long_fragment", long);
  return { kind: "ok" };
}

/** The warning a link gets when `fragments` were not proven missing, for `gap`. */
export function unproven(gap: FragmentGap, fragments: readonly string[]): FragmentVerdict {
  const named = nameFragments(fragments);
  const warning = {
    body_cut: `${named} not found in the part of the page that was read (cut at max_body_bytes); not counted as broken`,
    too_many_ids: `${named} not found among the ${MAX_PAGE_IDS.toLocaleString("en")} ids kept of the page, which has more; not counted as broken`,
    long_fragment: `${named} longer than ${MAX_FRAGMENT_LENGTH.toLocaleString("en")} characters: not checked`,
    not_fetched: `${named} not checked: the page was not read for its ids (no answer when fetched again for them, or past the ${MAX_ID_FETCHES.toLocaleString("en")} pages a crawl fetches only for them)`,
  }[gap];
  return { kind: "unproven", gap, warning };
}

/** The crawl's warning for `links` links whose fragments got no verdict for `gap` (say how many and why). */
export function gapWarning(gap: FragmentGap, links: number, maxBodyBytes: number): string {
  const subject = links === 1 ? "1 link's #fragment" : `${links.toLocaleString("en")} links' #fragments`;
  const notBroken = "those links carry a warning and are not counted as broken";
  switch (gap) {
    case "body_cut":
      return `${subject} could not be proven missing: the page was cut at crawler.max_body_bytes (${maxBodyBytes} bytes) before its end; ${notBroken}`;
    case "too_many_ids":
      return `${subject} could not be proven missing: the page has more than ${MAX_PAGE_IDS.toLocaleString("en")} ids, past which ids are not kept; ${notBroken}`;
    case "long_fragment":
      return `${subject} ${links === 1 ? "is" : "are"} longer than ${MAX_FRAGMENT_LENGTH.toLocaleString("en")} characters: not checked; ${notBroken}`;
    case "not_fetched":
      return `${subject} ${links === 1 ? "was" : "were"} not checked: the page, checked without being read, gave no answer when fetched again for its ids, or was past the ${MAX_ID_FETCHES.toLocaleString("en")} such fetches of a crawl; ${notBroken}`;
  }
}

/** `fragment #a` or `fragments #a, #b and 3 more`, each shown at most SHOWN_LENGTH characters long. */
function nameFragments(fragments: readonly string[]): string {
  const shown = fragments.slice(0, NAMED_AT_MOST).map((fragment) => `#${fragment.length > SHOWN_LENGTH ? `${fragment.slice(0, SHOWN_LENGTH)}…` : fragment}`);
  const more = fragments.length - shown.length;
  const list = shown.join(", ") + (more > 0 ? ` and ${more} more` : "");
  return `${fragments.length === 1 ? "fragment" : "fragments"} ${list}`;
}

/** HTML's "UTF-8 decode without BOM" of the percent-decoding of `s`: invalid sequences become U+FFFD. */
function percentDecodeUtf8(s: string): string {
  if (!s.includes("%")) return s;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "%" && i + 2 < s.length && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      // A code point, possibly two UTF-16 units: encoded as a whole.
      const point = s.codePointAt(i)!;
      const text = String.fromCodePoint(point);
      for (const byte of encoder.encode(text)) bytes.push(byte);
      if (point > 0xffff) i++;
    }
  }
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(new Uint8Array(bytes));
}

/** What fragmentsToJudge needs of a link as the crawl keeps it. */
interface GatedLink {
  url: string;
  internal: boolean;
  kind: string;
  verdict?: unknown;
}

/**
 * For `check_fragments`: a function telling whether a link's (recorded) fragment waits for a verdict at the
 * crawl's end: from an anchor to an internal page whose URL can be checked, not always valid, and not one the
 * page it is on already has (a link within the page is settled while the page is parsed).
 */
export function fragmentsToJudge(page: { url: string; ids: PageIds | null }): (link: GatedLink, fragment: string) => boolean {
  let own: IdHashes | null = null;
  return (link, fragment) => {
    if (link.kind !== "anchor" || !link.internal || link.verdict !== undefined || alwaysValid(fragment)) return false;
    if (link.url === page.url && page.ids !== null && !tooLong(fragment)) {
      own ??= new IdHashes(page.ids.hashes);
      if (fragmentFound(fragment, own)) return false;
    }
    return true;
  };
}
