import { HtmlScanner, ReadAttributes } from "./html-scanner.ts";

/**
 * A page reduced to its title and hashed word 3-grams, to recognise a site's "not found" page (soft-404.ts). The
 * asked URL is taken out of the text first, since a 404 page often repeats it; only MAX_WORDS are read.
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
/** The reader wants no attribute of any tag, only names and text. */
const NO_ATTRIBUTES = new ReadAttributes(new Map(), new Set());
const WORD_SEPARATORS = /[^\p{L}\p{N}]+/u;
const WORDS = /[\p{L}\p{N}]+/gu;
const STARTS_IN_WORD = /^[\p{L}\p{N}]/u;
const ENDS_IN_WORD = /[\p{L}\p{N}]$/u;

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
  const reader = new FingerprintReader(needles, expectTitle);
  reader.write(html);
  return reader.result();
}

/**
 * fingerprintPage over a page that arrives in pieces: `write` each decoded chunk, then `result()`. Once enough is
 * read (`done`), further chunks are ignored, so what it keeps is bounded whatever the page's size.
 */
export class FingerprintReader {
  private title = "";
  private titleRead = false;
  /** The title differs from `expectTitle`: the page cannot match. */
  private mismatch = false;
  /** Enough text is read. */
  private stop = false;
  private inTitle = false;
  private hidden = 0;
  private text = "";
  /** Words of the text so far, counted exactly whatever pieces it came in, so where reading stops does not depend on them. */
  private words = 0;
  /** The text so far ends inside a word, which the next piece may continue. */
  private inWord = false;
  private readonly parser: HtmlScanner;

  constructor(
    private readonly needles: readonly string[],
    private readonly expectTitle?: string,
  ) {
    this.parser = new HtmlScanner(() => true, NO_ATTRIBUTES, {
      onopentag: (name) => {
        if (name === "title" && !this.titleRead) this.inTitle = true;
        else if (HIDDEN.has(name)) this.hidden++;
      },
      ontext: (chunk) => {
        if (this.inTitle) {
          if (this.title.length < 1024) this.title += chunk.slice(0, 1024 - this.title.length);
        } else if (this.hidden === 0 && this.text.length < MAX_TEXT_CHARS) {
          const kept = chunk.slice(0, MAX_TEXT_CHARS - this.text.length);
          this.text += kept;
          this.count(kept);
          if (this.text.length >= MAX_TEXT_CHARS) this.stop = true;
        }
      },
      onclosetag: (name) => {
        if (name === "title" && this.inTitle) {
          this.inTitle = false;
          if (!this.titleRead && this.expectTitle !== undefined && cleanTitle(this.title, this.needles) !== this.expectTitle) this.mismatch = true;
          this.titleRead = true;
        } else if (HIDDEN.has(name) && this.hidden > 0) this.hidden--;
      },
    });
  }

  private count(piece: string): void {
    if (piece === "") return;
    const found = piece.match(WORDS)?.length ?? 0;
    this.words += this.inWord && STARTS_IN_WORD.test(piece) ? found - 1 : found;
    this.inWord = ENDS_IN_WORD.test(piece);
  }

  /** True once the rest of the page cannot change the fingerprint. */
  get done(): boolean {
    return this.words > MAX_WORDS || this.stop || this.mismatch;
  }

  /** Reads the next piece of the page's HTML. */
  write(html: string): void {
    for (let offset = 0; offset < html.length && !this.done; offset += SLICE_CHARS) {
      this.parser.write(offset === 0 && html.length <= SLICE_CHARS ? html : html.slice(offset, offset + SLICE_CHARS));
    }
  }

  /** The fingerprint of what was read; call once, after the last write. */
  result(): PageFingerprint {
    if (this.mismatch) return { title: cleanTitle(this.title, this.needles), shingles: new Set() };
    if (!this.stop) this.parser.end();

    const list = withoutNeedles(this.text.toLowerCase(), this.needles).split(WORD_SEPARATORS).filter(Boolean).slice(0, MAX_WORDS);
    const shingles = new Set<number>();
    if (list.length < 3) for (const word of list) shingles.add(hash(word));
    for (let i = 0; i + 2 < list.length; i++) shingles.add(hash(`${list[i]} ${list[i + 1]} ${list[i + 2]}`));
    return { title: cleanTitle(this.title, this.needles), shingles };
  }
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
