import type { PageIdsGap } from "../core/fragment-gap.ts";

/**
 * A page's element ids and `<a name>`s as 64-bit xxHash64 hashes (8 bytes each, collision ≈ n/2⁶⁴). At most
 * MAX_PAGE_IDS are kept; past that the page has a `gap` and no fragment can be proven missing (docs/decisions.md,
 * "Fragments").
 */

/** Distinct ids kept per page at most (781 KiB of hashes): far above real pages, a bound for hostile ones. */
export const MAX_PAGE_IDS = 100_000;
/** Slots the collector starts with; it doubles as ids arrive, up to MAX_PAGE_IDS. */
const INITIAL_SLOTS = 64;

/** A page's ids as kept: sorted distinct hashes; `gap` says why some may be missing, null when none are. */
export interface PageIds {
  hashes: BigUint64Array;
  gap: PageIdsGap | null;
}

/** The hash an id is kept as. */
export function idHash(id: string): bigint {
  return Bun.hash.xxHash64(id);
}

/** Looks ids up among a page's sorted hashes. */
export class IdHashes {
  constructor(private readonly hashes: BigUint64Array) {}

  /** True when the page has an id equal to `id`. */
  has(id: string): boolean {
    const hash = idHash(id);
    const hashes = this.hashes;
    // Binary search: bounded by log2 of the count.
    for (let low = 0, high = hashes.length - 1; low <= high; ) {
      const middle = (low + high) >>> 1;
      const value = hashes[middle]!;
      if (value === hash) return true;
      if (value < hash) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }
}

/** The stored form of a page's hashes: their bytes (little-endian on every platform we run on). */
export function hashesToBytes(hashes: BigUint64Array): Uint8Array {
  return new Uint8Array(hashes.buffer, hashes.byteOffset, hashes.byteLength);
}

/** A page's hashes from their stored bytes (copied: a blob's bytes need not be 8-byte aligned). */
export function hashesFromBytes(bytes: Uint8Array): BigUint64Array {
  const hashes = new BigUint64Array(Math.floor(bytes.byteLength / 8));
  new Uint8Array(hashes.buffer).set(bytes.subarray(0, hashes.byteLength));
  return hashes;
}

/** Collects a page's ids within the bound above; duplicates are kept once. */
export class PageIdCollector {
  private hashes = new BigUint64Array(INITIAL_SLOTS);
  private count = 0;
  private overflow = false;

  /** Takes the ids an element with these attributes can be pointed at by. */
  element(name: string, attribs: Readonly<Record<string, string>>): void {
    const id = attribs.id;
    if (id !== undefined && id !== "") this.add(id);
    if (name === "a" && attribs.name !== undefined && attribs.name !== "") this.add(attribs.name);
  }

  /** The ids gathered; `cut` says the page itself was read only in part. */
  result(cut: boolean): PageIds {
    this.compact();
    return { hashes: this.hashes.slice(0, this.count), gap: cut ? "body_cut" : this.overflow ? "too_many_ids" : null };
  }

  private add(id: string): void {
    if (this.overflow) return;
    if (this.count === this.hashes.length) {
      // Full: duplicates go first (a page repeating its ids is not a page with too many), then the array grows.
      this.compact();
      if (this.count === MAX_PAGE_IDS) {
        this.overflow = true;
        return;
      }
      if (this.count > this.hashes.length / 2 && this.hashes.length < MAX_PAGE_IDS) {
        const grown = new BigUint64Array(Math.min(MAX_PAGE_IDS, this.hashes.length * 2));
        grown.set(this.hashes.subarray(0, this.count));
        this.hashes = grown;
      }
    }
    this.hashes[this.count++] = idHash(id);
  }

  /** Sorts the hashes gathered and keeps each once. */
  private compact(): void {
    const used = this.hashes.subarray(0, this.count).sort();
    let kept = 0;
    for (let i = 0; i < used.length; i++) {
      if (kept === 0 || used[i] !== used[kept - 1]) used[kept++] = used[i]!;
    }
    this.count = kept;
  }
}
