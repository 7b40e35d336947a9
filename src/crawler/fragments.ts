import { MAX_ID_LENGTH, type PageIds } from "./page-ids.ts";

/**
 * The rules of a fragment verdict (`check_fragments`; docs/decisions.md, "Fragments"), after HTML's "find a
 * potential indicated element": `#` and `#top` (any case) always scroll somewhere; otherwise the page needs an
 * element whose id, or an `<a>` whose name, equals the fragment as written or, failing that, its
 * percent-decoded form; ids are case-sensitive. A fragment not found on a page read in full is broken; on a
 * page read in part (cut at max_body_bytes, or more ids than are kept) it is only a warning.
 */

/** Distinct fragments remembered per link (per source page and target) at most; more are not checked. */
export const MAX_FRAGMENTS_PER_LINK = 32;
/**
 * The longest fragment checked, as the URL parser writes it: each character of an id kept is at most three
 * in percent-encoded form, so a longer fragment cannot name a kept id; it is not checked.
 */
export const MAX_FRAGMENT_LENGTH = 3 * MAX_ID_LENGTH;
/** Fragments named in one error or warning at most. */
const NAMED_AT_MOST = 5;
/** Characters of one fragment shown in an error at most. */
const SHOWN_LENGTH = 100;

/** True for the fragments every HTML page has: the empty one and `top`, in any ASCII case. */
export function alwaysValid(fragment: string): boolean {
  return fragment === "" || (fragment.length === 3 && fragment.toLowerCase() === "top");
}

/** True when a fragment is worth remembering for a verdict: not always valid, not longer than any kept id. */
export function checkable(fragment: string): boolean {
  return !alwaysValid(fragment) && fragment.length <= MAX_FRAGMENT_LENGTH;
}

/** Adds `fragment` to a link's list (distinct, at most MAX_FRAGMENTS_PER_LINK); the list, created when needed. */
export function rememberFragment(list: string[] | undefined, fragment: string): string[] {
  const fragments = list ?? [];
  if (fragments.length < MAX_FRAGMENTS_PER_LINK && !fragments.includes(fragment)) fragments.push(fragment);
  return fragments;
}

/** True when the page with `ids` has what `fragment` (as the URL parser writes it) points at. */
export function fragmentFound(fragment: string, ids: ReadonlySet<string>): boolean {
  if (alwaysValid(fragment) || ids.has(fragment)) return true;
  const decoded = percentDecodeUtf8(fragment);
  return decoded !== fragment && ids.has(decoded);
}

/** What a link's fragments come to on a page: an error, a warning, or nothing to say. */
export type FragmentVerdict = { kind: "ok" } | { kind: "broken"; error: string } | { kind: "unproven"; warning: string };

/** The verdict on `fragments` asked of a page with these ids. */
export function judgeFragments(fragments: readonly string[], ids: ReadonlySet<string>, complete: boolean): FragmentVerdict {
  const missing = fragments.filter((fragment) => !fragmentFound(fragment, ids));
  if (missing.length === 0) return { kind: "ok" };
  const named = nameFragments(missing);
  if (complete) return { kind: "broken", error: `${named} not found` };
  return {
    kind: "unproven",
    warning: `${named} not found in the part of the page that was read (cut at max_body_bytes, or more ids than are kept); not counted as broken`,
  };
}

/** `fragment #a` or `fragments #a, #b and 3 more`, each shown at most SHOWN_LENGTH characters long. */
function nameFragments(missing: readonly string[]): string {
  const shown = missing.slice(0, NAMED_AT_MOST).map((fragment) => `#${fragment.length > SHOWN_LENGTH ? `${fragment.slice(0, SHOWN_LENGTH)}…` : fragment}`);
  const more = missing.length - shown.length;
  const list = shown.join(", ") + (more > 0 ? ` and ${more} more` : "");
  return `${missing.length === 1 ? "fragment" : "fragments"} ${list}`;
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

/** What fragmentRecorder needs of a link as found on the page and of the Link it counts under. */
interface FoundWithFragments {
  internal: boolean;
  verdict?: unknown;
  fragments?: string[];
}

/**
 * For `check_fragments`: a function adding a link's fragment to the Link it counts under (one per target), when
 * the fragment is worth a verdict: from an anchor to an internal page whose URL can be checked, not always valid,
 * and not one the page it is on already has (a link within the page is settled while the page is parsed).
 */
export function fragmentRecorder(page: { url: string; ids: PageIds | null }) {
  let own: ReadonlySet<string> | null = null;
  return (found: FoundWithFragments, link: { url: string; kind: string; fragment?: string }): void => {
    const fragment = link.fragment;
    if (fragment === undefined || link.kind !== "anchor" || !found.internal || found.verdict !== undefined || !checkable(fragment)) return;
    if (link.url === page.url && page.ids !== null) {
      own ??= new Set(page.ids.ids);
      if (fragmentFound(fragment, own)) return;
    }
    found.fragments = rememberFragment(found.fragments, fragment);
  };
}
