/**
 * The ids a page's fragments can point at, gathered while the page is parsed: every element's `id` and every
 * `<a name>` (HTML's "find a potential indicated element"). Bounded, because a page is hostile input and the
 * ids are stored for the whole crawl: at most MAX_PAGE_IDS ids, MAX_ID_LENGTH characters each and
 * MAX_PAGE_ID_CHARS in all. Past a bound the page's ids are `complete: false`, and a fragment that is not
 * among them cannot be proven missing (docs/decisions.md, "Fragments").
 */

/** Ids kept per page at most. */
export const MAX_PAGE_IDS = 10_000;
/** The longest id kept; a longer one makes the page's ids incomplete. */
export const MAX_ID_LENGTH = 1_024;
/** Characters of ids kept per page at most (all ids together). */
export const MAX_PAGE_ID_CHARS = 64 * 1024;

/** A page's ids as stored: `complete` is false when a bound or a cut body may have left some out. */
export interface PageIds {
  ids: string[];
  complete: boolean;
}

/** Collects a page's ids within the bounds above; duplicates are kept once. */
export class PageIdCollector {
  private readonly seen = new Set<string>();
  private chars = 0;
  private overflow = false;

  /** Takes the ids an element with these attributes can be pointed at by. */
  element(name: string, attribs: Readonly<Record<string, string>>): void {
    const id = attribs.id;
    if (id !== undefined && id !== "") this.add(id);
    if (name === "a" && attribs.name !== undefined && attribs.name !== "") this.add(attribs.name);
  }

  /** The ids gathered; `cut` says the page itself was read only in part. */
  result(cut: boolean): PageIds {
    return { ids: [...this.seen], complete: !this.overflow && !cut };
  }

  private add(id: string): void {
    if (this.overflow || this.seen.has(id)) return;
    if (id.length > MAX_ID_LENGTH || this.seen.size >= MAX_PAGE_IDS || this.chars + id.length > MAX_PAGE_ID_CHARS) {
      this.overflow = true;
      return;
    }
    this.seen.add(id);
    this.chars += id.length;
  }
}
