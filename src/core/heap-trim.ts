/**
 * Full garbage collections at a fixed rhythm of work written out: a crawl's batches, a report's blocks.
 *
 * JSC sizes its heap from the host's RAM: on a machine with 16 GiB it lets a crawl's heap grow three to four
 * times its live size before collecting, and the slack fills with page bodies and link strings already written
 * to the store. A crawl's live heap is small and bounded (the frontier is on disk), so collecting every fourth
 * batch keeps a 10k-page check's peak RSS ~30 MiB lower at no measurable CPU cost; every second batch saves
 * a few MiB more but costs ~10 % CPU on `check`, whose single thread both fetches and collects
 * (bench/README.md, "Memory").
 */
export const BATCHES_PER_COLLECTION = 4;

/** A callback to run after each unit written: every `units`-th call runs `collect`. */
export function collectEvery(units: number, collect: () => void = () => Bun.gc(true)): () => void {
  let written = 0;
  return () => {
    written++;
    if (written % units === 0) collect();
  };
}
