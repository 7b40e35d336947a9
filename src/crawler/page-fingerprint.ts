import { Parser } from "htmlparser2";

/**
 * What a page says, reduced to what tells two pages apart: its title and the set of its word 3-grams
 * ("shingles", hashed), read from the visible text only (no script, style, template or noscript). Two pages
 * are the same page when their titles are equal and their shingle sets overlap by SAME_PAGE_SIMILARITY or more
 * (Jaccard). The URL a page was asked under is taken out of its text first, because a "not found" page often
 * repeats the path it was asked for. Bounded: the first MAX_WORDS words are read, the rest of the page is not
 * even tokenized. Used only to recognise a site's "not found" page (soft-404.ts).
 */

/** A page reduced to its title and its shingles. */
export interface PageFingerprint {
  title: string;
  shingles: ReadonlySet<number>;
}

/** Words read from a page at most. */
const MAX_WORDS = 4096;
/** Characters of visible text kept at most: enough for MAX_WORDS words, so one huge text node costs no more. */
const MAX_TEXT_CHARS = 128 * 1024;
/** HTML fed to the tokenizer per step, so a long page stops being read once MAX_WORDS are in. */
const SLICE_CHARS = 4096;
/** Least Jaccard similarity of the shingles of two pages that are the same page (titles equal too). */
export const SAME_PAGE_SIMILARITY = 0.9;
/** Needles shorter than this are not cut out of the text: "/a" would cut words apart. */
const MIN_NEEDLE = 4;
const HIDDEN = new Set(["script", "style", "template", "noscript"]);
const WORD_SEPARATORS = /[^\p{L}\p{N}]+/u;

/** FNV-1a, 32 bits: enough to tell a few thousand shingles apart. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function withoutNeedles(text: string, needles: readonly string[]): string {
  let out = text;
  for (const needle of needles) if (needle.length >= MIN_NEEDLE) out = out.replaceAll(needle, " ");
  return out;
}

/** The forms in which a page may repeat the URL it was asked under: the URL, its path, both percent-decoded. */
export function urlNeedles(...urls: string[]): string[] {
  const needles = new Set<string>();
  for (const url of urls) {
    const parsed = new URL(url);
    for (const form of [url, parsed.pathname + parsed.search, parsed.pathname]) {
      needles.add(form.toLowerCase());
      try {
        needles.add(decodeURIComponent(form).toLowerCase());
      } catch {
        // a malformed escape: the encoded form is enough
      }
    }
  }
  // Longest first, so a URL is cut out whole before its path is.
  return [...needles].sort((a, b) => b.length - a.length);
}

function cleanTitle(title: string, needles: readonly string[]): string {
  return withoutNeedles(title.toLowerCase(), needles).split(WORD_SEPARATORS).filter(Boolean).join(" ");
}

/**
 * Reads the title and visible text of `html`, without the `needles` (lower-case), into a fingerprint. With
 * `expectTitle`, reading stops at a title that differs from it (the page cannot match; its shingles are left empty).
 */
export function fingerprintPage(html: string, needles: readonly string[], expectTitle?: string): PageFingerprint {
  let title = "";
  let titleRead = false;
  /** The title differs from `expectTitle`: the page cannot match. */
  let mismatch = false;
  /** Enough text is read. */
  let stop = false;
  let inTitle = false;
  let hidden = 0;
  let text = "";
  let words = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === "title" && !titleRead) inTitle = true;
        else if (HIDDEN.has(name)) hidden++;
      },
      ontext(chunk) {
        if (inTitle) {
          if (title.length < 1024) title += chunk.slice(0, 1024 - title.length);
        } else if (hidden === 0 && text.length < MAX_TEXT_CHARS) {
          const kept = chunk.slice(0, MAX_TEXT_CHARS - text.length);
          text += kept;
          // A rough count is enough to stop reading; the exact cut is made below.
          if (kept.trim() !== "") words += kept.split(WORD_SEPARATORS).length;
          if (text.length >= MAX_TEXT_CHARS) stop = true;
        }
      },
      onclosetag(name) {
        if (name === "title" && inTitle) {
          inTitle = false;
          if (!titleRead && expectTitle !== undefined && cleanTitle(title, needles) !== expectTitle) mismatch = true;
          titleRead = true;
        } else if (HIDDEN.has(name) && hidden > 0) hidden--;
      },
    },
    { decodeEntities: true },
  );
  for (let offset = 0; offset < html.length && words <= MAX_WORDS && !stop && !mismatch; offset += SLICE_CHARS) {
    parser.write(html.slice(offset, offset + SLICE_CHARS));
  }
  if (mismatch) return { title: cleanTitle(title, needles), shingles: new Set() };
  if (!stop) parser.end();

  const list = withoutNeedles(text.toLowerCase(), needles).split(WORD_SEPARATORS).filter(Boolean).slice(0, MAX_WORDS);
  const shingles = new Set<number>();
  if (list.length < 3) for (const word of list) shingles.add(hash(word));
  for (let i = 0; i + 2 < list.length; i++) shingles.add(hash(`${list[i]} ${list[i + 1]} ${list[i + 2]}`));
  return { title: cleanTitle(title, needles), shingles };
}

/** Jaccard similarity of two shingle sets; two empty sets are the same. */
export function similarity(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const shingle of small) if (large.has(shingle)) common++;
  return common / (a.size + b.size - common);
}

/** True when two fingerprints are of the same page: equal titles and shingles at least SAME_PAGE_SIMILARITY alike. */
export function samePage(a: PageFingerprint, b: PageFingerprint): boolean {
  if (a.title !== b.title) return false;
  // Jaccard ≤ min/max of the sizes: a size mismatch alone rules the pair out without reading the sets.
  const [min, max] = a.shingles.size <= b.shingles.size ? [a.shingles.size, b.shingles.size] : [b.shingles.size, a.shingles.size];
  if (max > 0 && min / max < SAME_PAGE_SIMILARITY) return false;
  return similarity(a.shingles, b.shingles) >= SAME_PAGE_SIMILARITY;
}
