import { elapsedMs, monotonicNow } from "../core/clock.ts";
import type { Logger } from "../core/logger.ts";
import type { Db } from "../store/db.ts";
import { LeasesRepo, type Lease } from "../store/leases.repo.ts";
import { NodesRepo, type NodeRecord } from "../store/nodes.repo.ts";
import { storeNow } from "../store/store-clock.ts";

/**
 * A node's membership of a cluster (one PostgreSQL store, several `serve`): it takes its name in the database at
 * start (refused while another live process holds it: the one-serve-per-store lock, per node), then beats every
 * lease/3: one write marks it alive and extends every lease it holds. What it still holds goes to `onHeld`, so the
 * crawl pool and the dispatcher stop work that another node took over. A node that cannot beat for a whole lease
 * (cut off from the database) tells `onHeld` it holds nothing: by then others may have taken its work. Times are
 * the database's clock (store-clock.ts), which every node shares.
 */

/** Another live process already runs under this node name. */
export class NodeNameTakenError extends Error {
  constructor(readonly holder: NodeRecord) {
    super(
      `another linkpatrol process runs as node "${holder.name}" on this store (version ${holder.version}, started ${holder.started_at}, last seen ${holder.heartbeat_at}): give each node its own cluster.node_name, or stop that one first`,
    );
    this.name = "NodeNameTakenError";
  }
}

export interface NodeHeartbeatOptions {
  db: Db;
  name: string;
  version: string;
  leaseMs: number;
  logger: Logger;
  /** After each beat: the leases this node still holds (all of them, every kind); empty once it has lost touch. */
  onHeld?: (held: Lease[]) => void;
  /** Another process took this node's name after a silence: this one must stop serving. */
  onNameLost?: () => void;
}

export class NodeHeartbeat {
  /** This process among the processes that ever ran under the name. */
  readonly instance = crypto.randomUUID();
  private readonly nodes: NodesRepo;
  private readonly leases: LeasesRepo;
  private timer: ReturnType<typeof setInterval> | null = null;
  private beating: Promise<void> | null = null;
  /** Monotonic time of the last beat that reached the database. */
  private lastBeat = monotonicNow();
  private cutOff = false;

  constructor(private readonly options: NodeHeartbeatOptions) {
    this.nodes = new NodesRepo(options.db);
    this.leases = new LeasesRepo(options.db);
  }

  /** Takes the node's name; NodeNameTakenError while another live process holds it. Frees what an earlier process of the name held. */
  async join(): Promise<void> {
    const { name, version, leaseMs, logger } = this.options;
    const registration = await this.nodes.register({ name, instance: this.instance, version }, leaseMs, await storeNow(this.options.db));
    if (!registration.ok) throw new NodeNameTakenError(registration.holder);
    this.lastBeat = monotonicNow();
    if (registration.replaced) {
      const freed = await this.leases.releaseAll(name);
      if (freed > 0) logger.info("took the node name over from a process that went silent; its work is free to take again", { leases: freed });
    }
  }

  /** Beats every lease/3 until `leave`. */
  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.beat(), Math.max(1_000, Math.floor(this.options.leaseMs / 3)));
    this.timer.unref();
  }

  /** One beat (never overlapping another): alive, leases extended, `onHeld` told. */
  beat(): Promise<void> {
    this.beating ??= this.beatOnce().finally(() => {
      this.beating = null;
    });
    return this.beating;
  }

  /** Stops beating; with `release`, the name and every lease are given up at once (a clean stop: others take the work now). */
  async leave(release = true): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    if (!release) return;
    await this.leases.releaseAll(this.options.name);
    await this.nodes.leave(this.options.name, this.instance);
  }

  private async beatOnce(): Promise<void> {
    const { db, name, leaseMs, logger } = this.options;
    try {
      const now = await storeNow(db);
      const own = await this.nodes.heartbeat(name, this.instance, now);
      if (!own) {
        logger.error("another process took this node's name after it went silent: stopping its work", { node: name });
        this.options.onHeld?.([]);
        this.options.onNameLost?.();
        return;
      }
      const held = await this.leases.renew(name, leaseMs, now);
      this.lastBeat = monotonicNow();
      if (this.cutOff) logger.info("the store answers again", { node: name });
      this.cutOff = false;
      this.options.onHeld?.(held);
    } catch (error) {
      const silentMs = elapsedMs(this.lastBeat, monotonicNow());
      logger.warn("heartbeat failed", { error: String(error), silent_ms: Math.round(silentMs) });
      if (silentMs >= leaseMs && !this.cutOff) {
        this.cutOff = true;
        logger.error("no heartbeat reached the store for a whole lease: other nodes may take this node's work; stopping it here", {
          lease_ms: leaseMs,
        });
        this.options.onHeld?.([]);
      }
    }
  }
}
