/**
 * Per-host politeness: at most `perHost` requests in flight to one host at a time, the rest waiting in
 * arrival order. Hosts are independent, and a host's entry disappears when it goes idle, so memory follows
 * the hosts in use, not every host ever seen.
 */

interface HostSlots {
  active: number;
  waiting: (() => void)[];
}

export class HostLimiter {
  private readonly hosts = new Map<string, HostSlots>();

  constructor(private readonly perHost: number) {
    if (!Number.isInteger(perHost) || perHost < 1) throw new RangeError("perHost must be a positive integer");
  }

  /** Runs `task` once `host` has a free slot; the slot is released however the task ends. */
  async run<T>(host: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(host);
    try {
      return await task();
    } finally {
      this.release(host);
    }
  }

  /** Requests in flight to `host` (for tests and metrics). */
  inFlight(host: string): number {
    return this.hosts.get(host)?.active ?? 0;
  }

  /** Hosts with requests in flight or waiting. */
  get size(): number {
    return this.hosts.size;
  }

  private acquire(host: string): Promise<void> {
    let slots = this.hosts.get(host);
    if (!slots) {
      slots = { active: 0, waiting: [] };
      this.hosts.set(host, slots);
    }
    if (slots.active < this.perHost) {
      slots.active++;
      return Promise.resolve();
    }
    const queue = slots.waiting;
    return new Promise((resolve) => queue.push(resolve));
  }

  private release(host: string): void {
    const slots = this.hosts.get(host)!;
    const next = slots.waiting.shift();
    // The slot passes straight to the next waiter, so `active` stays the same and nobody can jump the queue.
    if (next) next();
    else if (--slots.active === 0) this.hosts.delete(host);
  }
}
