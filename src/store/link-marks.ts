/**
 * Where deep pages of a link listing start. OFFSET makes SQLite walk (and join) every row before the page, so
 * page 500 of a big crawl costs 500 pages of work. Instead the link id at every STRIDE-th position of a listing
 * is remembered, and a deep page scans at most STRIDE rows from the nearest mark.
 *
 * For a crawl that has ended, its links never change again: marks are found once and kept. A running crawl's
 * listing grows anywhere (a link joins it when its target gets checked), so its marks drift: they are used for
 * at most `movingMaxAgeMs`, then found again in the background, a slice at a time between requests, while
 * requests keep using the old ones. A deep page of a running crawl is therefore placed as of up to a few
 * seconds ago — no less stable than pages of a running crawl are between any two requests. Finding them again
 * walks every row before the deepest one, so it is done every 5 s, not every second (bench/README.md, "How the
 * API met p99 < 20 ms during a 50k crawl").
 */

/** Positions between two marks: the most rows a marked page walks past before its first row. */
export const MARK_STRIDE = 100;

/** Listings remembered at once (each costs 8 bytes per STRIDE links). */
const MAX_LISTINGS = 128;

/**
 * A slice of mark finding (a background refresh, or reach()) stops after this many marks or this much time,
 * whichever comes first, then lets the event loop run: on a busy store a count alone let one slice hold every
 * queued API request too long (bench/README.md, "How the API met p99 < 20 ms during a 50k crawl").
 */
const SLICE_MARKS = 16;
const SLICE_BUDGET_MS = 1;

/**
 * The ids of the links at positions `stride`, 2 × `stride`, … `count` × `stride` after the link with id `afterId`
 * in a listing, in one statement (fewer at the listing's end): a store a round trip away (PostgreSQL) spent one
 * per mark, 500 for page 500.
 */
export type MarkFinder = (afterId: number, stride: number, count: number) => Promise<number[]>;

export interface LinkMarksOptions {
  /** How long marks of a running crawl's listing are used before they are found again; default 5 s. */
  movingMaxAgeMs?: number;
  now?: () => number;
  /** Schedules the next slice of a background refresh; setImmediate by default (after pending I/O). A task may return the promise of its work. */
  defer?: (task: () => unknown) => void;
  /**
   * Marks one statement finds; default 16. A store in another process (PostgreSQL) walks the rows on its own
   * cores, not this thread, so it takes bigger slices: a round trip each, under load the larger cost.
   */
  sliceMarks?: number;
}

/** Marks being found: the marks so far, and the statement under way from each id (callers at once share it). */
interface MarkRun {
  /** marks[k] is the id of the link just before position k * STRIDE (marks[0] = 0, before all). */
  marks: number[];
  finding: Map<number, Promise<number[]>>;
}

interface Listing extends MarkRun {
  /** When the marks were found (moving listings only). */
  foundAt: number;
  refreshing: boolean;
}

export class LinkMarks {
  private readonly listings = new Map<string, Listing>();
  private readonly movingMaxAgeMs: number;
  private readonly now: () => number;
  private readonly defer: (task: () => unknown) => void;
  private readonly sliceMarks: number;

  constructor(options: LinkMarksOptions = {}) {
    this.sliceMarks = options.sliceMarks ?? SLICE_MARKS;
    this.movingMaxAgeMs = options.movingMaxAgeMs ?? 5_000;
    this.now = options.now ?? Date.now;
    this.defer = options.defer ?? ((task) => void setImmediate(task));
  }

  /**
   * The id to continue after and the rows left to skip from there to reach `offset`. Marks up to `offset` are
   * found (and kept) on the way with `find`; a listing shorter than `offset` stops at its last mark. `moving`:
   * the listing still grows (a running crawl), so its marks are refreshed once they are older than the limit.
   */
  async seek(listing: string, offset: number, find: MarkFinder, moving = false): Promise<{ afterId: number; skip: number }> {
    const key = moving ? `~${listing}` : listing;
    const entry = this.touch(key);
    const wanted = Math.floor(offset / MARK_STRIDE);
    await extend(entry, wanted, find, this.sliceMarks);
    const k = Math.min(wanted, entry.marks.length - 1);
    const start = { afterId: entry.marks[k]!, skip: offset - k * MARK_STRIDE };
    if (moving && entry.marks.length > 1 && !entry.refreshing && this.now() - entry.foundAt > this.movingMaxAgeMs) this.refresh(key, entry, find);
    return start;
  }

  /**
   * Finds the marks a page at `offset` needs, a slice at a time with the event loop free in between: a first
   * deep page of a big listing walks every row before it, and an API that did it in one go would hold every
   * other request for that long (bench/README.md, "How the API met p99 < 20 ms during a 50k crawl"). seek()
   * afterwards starts from them. Concurrent callers share the work: each slice continues from the last mark found.
   */
  async reach(listing: string, offset: number, find: MarkFinder, moving = false): Promise<void> {
    const key = moving ? `~${listing}` : listing;
    const wanted = Math.floor(offset / MARK_STRIDE);
    // Bounded: each turn finds at least one more mark, or stops where the listing ends.
    for (;;) {
      const entry = this.touch(key);
      if (entry.marks.length > wanted) return;
      if (!(await extend(entry, Math.min(wanted, entry.marks.length - 1 + this.sliceMarks), find, this.sliceMarks, performance.now() + SLICE_BUDGET_MS)))
        return;
      if (entry.marks.length > wanted) return;
      await new Promise<void>((resolve) => this.defer(resolve));
    }
  }

  /** The listing's entry, created when new, and moved to the most recently used end of the map. */
  private touch(key: string): Listing {
    let entry = this.listings.get(key);
    if (entry === undefined) {
      if (this.listings.size >= MAX_LISTINGS) this.listings.delete(this.listings.keys().next().value!);
      entry = { marks: [0], finding: new Map(), foundAt: this.now(), refreshing: false };
    } else {
      this.listings.delete(key);
    }
    this.listings.set(key, entry);
    return entry;
  }

  /** Finds the listing's marks again, as deep as they went, in slices; they replace the old ones when complete. */
  private refresh(key: string, entry: Listing, find: MarkFinder): void {
    entry.refreshing = true;
    const startedAt = this.now();
    const depth = entry.marks.length - 1;
    const fresh: MarkRun = { marks: [0], finding: new Map() };
    const slice = async (): Promise<void> => {
      if (this.listings.get(key) !== entry) return; // forgotten meanwhile: nobody reads these marks any more
      let ended = false;
      try {
        ended =
          !(await extend(fresh, Math.min(depth, fresh.marks.length - 1 + this.sliceMarks), find, this.sliceMarks, performance.now() + SLICE_BUDGET_MS)) ||
          fresh.marks.length > depth;
      } catch {
        // The store went away (shutdown) or is busy: keep the old marks, try again on a later request.
        entry.refreshing = false;
        return;
      }
      if (!ended) {
        this.defer(runSlice);
        return;
      }
      entry.marks = fresh.marks;
      entry.finding = fresh.finding;
      entry.foundAt = startedAt;
      entry.refreshing = false;
    };
    // A slice's failure is caught inside it; its promise says when it is done (tests that drive `defer` await it).
    const runSlice = (): Promise<void> => slice();
    this.defer(runSlice);
  }
}

/**
 * Appends marks until `marks[wanted]` exists, or (with `until`, a performance.now() time) until that time has
 * passed, after at least one statement; false when the listing ended first. One statement finds up to a slice,
 * and callers that need the same slice at once wait for the same statement: on a store a round trip away, two
 * hundred first requests for a deep page each sent every statement of the walk.
 */
async function extend(run: MarkRun, wanted: number, find: MarkFinder, sliceMarks: number, until = Number.POSITIVE_INFINITY): Promise<boolean> {
  const { marks } = run;
  while (run.marks.length <= wanted) {
    const known = run.marks.length;
    const afterId = run.marks[known - 1]!;
    let finding = run.finding.get(afterId);
    if (finding === undefined) {
      finding = find(afterId, MARK_STRIDE, sliceMarks);
      run.finding.set(afterId, finding);
      // Settled either way; every waiter reads the outcome from its own await.
      finding.then(
        () => run.finding.delete(afterId),
        () => run.finding.delete(afterId),
      );
    }
    const found = await finding;
    // Another caller extended the same marks while this one waited on the store: continue from its last mark.
    if (run.marks !== marks || run.marks.length !== known) {
      if (run.marks !== marks) return true;
      continue;
    }
    marks.push(...found);
    if (found.length < sliceMarks) return marks.length > wanted;
    if (performance.now() >= until) break;
  }
  return true;
}
