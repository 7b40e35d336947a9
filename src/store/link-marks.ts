/**
 * Where deep pages of a link listing start. OFFSET makes SQLite walk (and join) every row before the page, so
 * page 500 of a big crawl costs 500 pages of work. For a crawl that has ended, its links never change again,
 * so the link id at every STRIDE-th position of a listing can be remembered once and a deep page scans at
 * most STRIDE rows from the nearest mark. Listings of running crawls shift as targets get checked: they are
 * never marked.
 */

/** Positions between two marks: the most rows a marked page walks past before its first row. */
export const MARK_STRIDE = 100;

/** Listings remembered at once (each costs 8 bytes per STRIDE links). */
const MAX_LISTINGS = 128;

/** Finds the id of the link `skip` positions after the link with id `afterId` in a listing; null past the end. */
export type MarkFinder = (afterId: number, skip: number) => number | null;

export class LinkMarks {
  /** Per listing: marks[k] is the id of the link just before position k * STRIDE (marks[0] = 0, before all). */
  private readonly listings = new Map<string, number[]>();

  /**
   * The id to continue after and the rows left to skip from there to reach `offset`. Marks up to `offset` are
   * found (and kept) on the way with `find`; a listing shorter than `offset` stops at its last mark.
   */
  seek(listing: string, offset: number, find: MarkFinder): { afterId: number; skip: number } {
    let marks = this.listings.get(listing);
    if (marks === undefined) {
      if (this.listings.size >= MAX_LISTINGS) this.listings.delete(this.listings.keys().next().value!);
      marks = [0];
    } else {
      this.listings.delete(listing); // re-inserted below: the map's order is least recently used first
    }
    this.listings.set(listing, marks);
    const wanted = Math.floor(offset / MARK_STRIDE);
    while (marks.length <= wanted) {
      const next = find(marks[marks.length - 1]!, MARK_STRIDE - 1);
      if (next === null) break;
      marks.push(next);
    }
    const k = Math.min(wanted, marks.length - 1);
    return { afterId: marks[k]!, skip: offset - k * MARK_STRIDE };
  }
}
