import { edenGC } from "bun:jsc";

/**
 * Garbage collections at a fixed rhythm of work done, because JSC sizes its heap from the host's RAM and lets a
 * crawl's heap grow to several times its live size (bench/README.md, "Memory").
 */
const BATCHES_PER_COLLECTION = 4;

const fullGc = (): void => Bun.gc(true);

/** A callback to run after each unit written: every `units`-th call runs `collect`. */
export function collectEvery(units: number, collect: () => void = fullGc): () => void {
  let written = 0;
  return () => {
    written++;
    if (written % units === 0) collect();
  };
}

/**
 * A `collect` for `collectEvery`: a young collection, and a full one every `youngPerFull`-th call to clear what the
 * young ones promoted (bench/README.md, "Memory").
 */
export function youngThenFull(youngPerFull: number, young: () => void = edenGC, full: () => void = fullGc): () => void {
  if (!Number.isInteger(youngPerFull) || youngPerFull < 1) throw new RangeError(`youngPerFull must be a positive integer, got ${youngPerFull}`);
  let collections = 0;
  return () => {
    collections++;
    if (collections % youngPerFull === 0) full();
    else young();
  };
}

/** Page bytes read between two full collections (bench/README.md, "Collections every 2 MiB of page text"). */
const PAGE_BYTES_PER_COLLECTION = 2 * 1024 * 1024;
/** Page bytes read between two young collections; every second one is full (bench/README.md, "Memory"). */
export const PAGE_BYTES_PER_YOUNG_COLLECTION = 1024 * 1024;

/** A callback told how many bytes were just processed; every `bytes` of them it runs `collect` (a full one by default). */
export function collectEveryBytes(bytes: number, collect: () => void = fullGc): (processed: number) => void {
  if (!Number.isInteger(bytes) || bytes < 1) throw new RangeError(`bytes must be a positive integer, got ${bytes}`);
  let since = 0;
  return (processed) => {
    since += processed;
    if (since >= bytes) {
      since = 0;
      collect();
    }
  };
}

/** The rhythm of a links walk loading its verdicts: young every 8 batches, full every 32 (bench/README.md, "Memory"). */
export function verdictLoadRhythm(): () => void {
  return collectEvery(8, youngThenFull(4));
}

/** Collections run for one piece of work (a crawl job), counted so that its rhythms can yield to one another, and to nothing else. */
export class Collections {
  private count = 0;

  /** `collect`, counted. */
  counted(collect: () => void): () => void {
    return () => {
      this.count++;
      collect();
    };
  }

  /** A `collect` that runs only when nothing counted here ran since its previous turn (its own runs aside). */
  unlessCollectedSince(collect: () => void): () => void {
    let seen = -1;
    return () => {
      if (this.count === seen) collect();
      seen = this.count;
    };
  }
}

/** A crawl job's GC rhythm: its page reader tells it the page bytes read, its batch writer each batch written. */
export interface CrawlGcRhythm {
  pageBytesRead(bytes: number): void;
  batchWritten(): void;
}

/**
 * A crawl job's rhythm: the batch turn yields to the page rhythm (bench/README.md, "One rhythm yields to the
 * other"). Its count is its own, so two inline jobs never yield to each other.
 */
export function crawlGcRhythm(young: () => void = edenGC, full: () => void = fullGc): CrawlGcRhythm {
  const collections = new Collections();
  const [countedYoung, countedFull] = [collections.counted(young), collections.counted(full)];
  const pageRhythm = youngThenFull(PAGE_BYTES_PER_COLLECTION / PAGE_BYTES_PER_YOUNG_COLLECTION, countedYoung, countedFull);
  return {
    pageBytesRead: collectEveryBytes(PAGE_BYTES_PER_YOUNG_COLLECTION, pageRhythm),
    batchWritten: collections.unlessCollectedSince(youngThenFull(BATCHES_PER_COLLECTION, countedYoung, countedFull)),
  };
}
