/**
 * A map that keeps recently used entries only, in two generations of at most `generationSize` entries each.
 * New entries go to the young generation; when it is full it becomes the old one and the previous old one is
 * dropped whole. A hit in the old generation moves the entry back to the young one, so an entry used once per
 * generation survives indefinitely while the rest ages out.
 *
 * Cheaper than an LRU list (no per-hit bookkeeping beyond one Map write) and, unlike clearing a single map
 * when it is full, it never forgets everything at once: the entries used most stay across the turnover.
 */
export class RecentMap<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  constructor(private readonly generationSize: number) {
    if (!Number.isInteger(generationSize) || generationSize < 1) throw new RangeError("generationSize must be a positive integer");
  }

  /** Entries held, at most twice the generation size. */
  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const young = this.young.get(key);
    if (young !== undefined) return young;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.generationSize && !this.young.has(key)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
    this.old.delete(key);
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }
}
