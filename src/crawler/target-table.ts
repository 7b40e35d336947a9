import type { TargetState } from "../store/schema.ts";

/**
 * The crawl's targets by URL, all held (up to `maxEntries`) because a cache of recent ones misses most links of a
 * big site. An open-addressing table over typed arrays keyed by a 96-bit fingerprint (collision ≈ n²/2⁹⁷). Past
 * `maxEntries`, `complete` turns false and the caller asks the store about a URL it does not find.
 */

/** A target as recording links and verdicts needs it. */
export interface KnownTarget {
  id: number;
  state: TargetState;
  /** Fetched as a page (an internal anchor points at it). */
  asPage: boolean;
  /** The verdict, once `state` is done. */
  statusCode: number;
  isBroken: boolean;
  /** Links recorded while the target is queued, and the newest of them (0: none). */
  waitingLinks: number;
  lastWaitingLinkId: number;
}

const STATES: readonly TargetState[] = ["queued", "done", "skipped"];
const USED = 1;
const AS_PAGE = 2;
const BROKEN = 4;
const STATE_SHIFT = 3;
const MAX_LOAD = 0.75;
const INITIAL_CAPACITY = 1 << 12;

function nextPowerOfTwo(n: number): number {
  let power = 1;
  while (power < n) power *= 2;
  return power;
}

export class TargetTable {
  private capacity = INITIAL_CAPACITY;
  private entries = 0;
  private overflowed = false;
  private readonly maxCapacity: number;
  private keys = new Uint32Array(INITIAL_CAPACITY * 3);
  private flags = new Uint8Array(INITIAL_CAPACITY);
  private ids = new Float64Array(INITIAL_CAPACITY);
  private statusCodes = new Uint16Array(INITIAL_CAPACITY);
  private waitingLinks = new Uint32Array(INITIAL_CAPACITY);
  private lastWaitingLinkIds = new Float64Array(INITIAL_CAPACITY);

  constructor(private readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError("maxEntries must be a positive integer");
    this.maxCapacity = Math.max(INITIAL_CAPACITY, nextPowerOfTwo(Math.ceil(maxEntries / MAX_LOAD)));
  }

  /** Targets held. */
  get size(): number {
    return this.entries;
  }

  /** How many more targets it can hold. */
  get room(): number {
    return this.maxEntries - this.entries;
  }

  /** True while every target ever set is held: a URL not found here is then not a target of the crawl. */
  get complete(): boolean {
    return !this.overflowed;
  }

  get(url: string): KnownTarget | undefined {
    const slot = this.find(url);
    return slot < 0 ? undefined : this.read(slot);
  }

  /** Remembers `target` under `url`; false (and `complete` false from then on) when the table is full. */
  set(url: string, target: KnownTarget): boolean {
    let slot = this.find(url);
    if (slot < 0) {
      if (this.entries >= this.maxEntries) {
        this.overflowed = true;
        return false;
      }
      if (this.entries + 1 > this.capacity * MAX_LOAD) {
        this.grow();
        slot = this.find(url);
      }
      slot = -slot - 1;
      this.keys.set(scratch, slot * 3); // find() left the URL's fingerprint there
      this.entries++;
    }
    this.write(slot, target);
    return true;
  }

  /** Forgets everything; the table is complete again. */
  clear(): void {
    this.flags.fill(0);
    this.entries = 0;
    this.overflowed = false;
  }

  /** The slot holding `url`, or -(free slot) - 1 where it would go; leaves the URL's fingerprint in `scratch`. */
  private find(url: string): number {
    const key = fingerprint(url);
    const a = key[0]!;
    const b = key[1]!;
    const c = key[2]!;
    const mask = this.capacity - 1;
    for (let slot = a & mask; ; slot = (slot + 1) & mask) {
      if ((this.flags[slot]! & USED) === 0) return -slot - 1;
      const k = slot * 3;
      if (this.keys[k] === a && this.keys[k + 1] === b && this.keys[k + 2] === c) return slot;
    }
  }

  private read(slot: number): KnownTarget {
    const flags = this.flags[slot]!;
    return {
      id: this.ids[slot]!,
      state: STATES[flags >> STATE_SHIFT]!,
      asPage: (flags & AS_PAGE) !== 0,
      statusCode: this.statusCodes[slot]!,
      isBroken: (flags & BROKEN) !== 0,
      waitingLinks: this.waitingLinks[slot]!,
      lastWaitingLinkId: this.lastWaitingLinkIds[slot]!,
    };
  }

  private write(slot: number, target: KnownTarget): void {
    this.flags[slot] = USED | (target.asPage ? AS_PAGE : 0) | (target.isBroken ? BROKEN : 0) | (STATES.indexOf(target.state) << STATE_SHIFT);
    this.ids[slot] = target.id;
    this.statusCodes[slot] = target.statusCode;
    this.waitingLinks[slot] = target.waitingLinks;
    this.lastWaitingLinkIds[slot] = target.lastWaitingLinkId;
  }

  /** Doubles the table, up to the capacity `maxEntries` needs, moving every entry to its new slot. */
  private grow(): void {
    if (this.capacity >= this.maxCapacity) return;
    const old = {
      capacity: this.capacity,
      keys: this.keys,
      flags: this.flags,
      ids: this.ids,
      statusCodes: this.statusCodes,
      waitingLinks: this.waitingLinks,
      lastWaitingLinkIds: this.lastWaitingLinkIds,
    };
    this.capacity *= 2;
    this.keys = new Uint32Array(this.capacity * 3);
    this.flags = new Uint8Array(this.capacity);
    this.ids = new Float64Array(this.capacity);
    this.statusCodes = new Uint16Array(this.capacity);
    this.waitingLinks = new Uint32Array(this.capacity);
    this.lastWaitingLinkIds = new Float64Array(this.capacity);
    const mask = this.capacity - 1;
    for (let from = 0; from < old.capacity; from++) {
      if ((old.flags[from]! & USED) === 0) continue;
      const a = old.keys[from * 3]!;
      let to = a & mask;
      while ((this.flags[to]! & USED) !== 0) to = (to + 1) & mask;
      this.keys.set(old.keys.subarray(from * 3, from * 3 + 3), to * 3);
      this.flags[to] = old.flags[from]!;
      this.ids[to] = old.ids[from]!;
      this.statusCodes[to] = old.statusCodes[from]!;
      this.waitingLinks[to] = old.waitingLinks[from]!;
      this.lastWaitingLinkIds[to] = old.lastWaitingLinkIds[from]!;
    }
  }
}

const scratch = new Uint32Array(3);

/** Three independent 32-bit hashes of `url` (in a shared scratch array: read it before the next call). */
function fingerprint(url: string): Uint32Array {
  scratch[0] = Bun.hash.xxHash32(url);
  scratch[1] = Bun.hash.murmur32v3(url);
  scratch[2] = Bun.hash.cityHash32(url);
  return scratch;
}
