import type { Db } from "../store/db.ts";
import type { DeliveriesRepo, DueDelivery } from "../store/deliveries.repo.ts";
import { LeasesRepo, type HeldLease } from "../store/leases.repo.ts";
import { storeNow } from "../store/store-clock.ts";
import type { DeliveryClaims } from "../webhooks/dispatcher.ts";

/**
 * Which node sends a delivery's next attempt, when several send from one store: the sender takes the lease of
 * the delivery's target (one attempt in flight per target across the cluster, as the dispatcher keeps within a
 * node), then checks the delivery is still due with the attempts it read, so an attempt another node made
 * meanwhile is not made again. The attempt is recorded only while the lease is held (DeliveriesRepo
 * recordAttempt); a node that dies mid-attempt leaves the lease to expire, and another node sends that attempt
 * again, with the same delivery id.
 */

export const DELIVERY_TARGET_LEASE = "delivery-target";

export class LeasedDeliveryClaims implements DeliveryClaims {
  private readonly leases: LeasesRepo;

  constructor(
    private readonly db: Db,
    private readonly deliveries: DeliveriesRepo,
    private readonly node: string,
    private readonly leaseMs: number,
  ) {
    this.leases = new LeasesRepo(db);
  }

  /** The lease to send `delivery`'s next attempt under, or null: another node is on its target, or sent it already. */
  async take(delivery: DueDelivery): Promise<HeldLease | null> {
    const key = `${delivery.target.kind}:${delivery.target.id}`;
    const now = await storeNow(this.db);
    const fence = await this.leases.claim(DELIVERY_TARGET_LEASE, key, this.node, this.leaseMs, now);
    if (fence === null) return null;
    const lease = { kind: DELIVERY_TARGET_LEASE, key, node: this.node, fence };
    if (await this.deliveries.stillDue(delivery.id, delivery.attempts, now.toISOString())) return lease;
    await this.done(lease);
    return null;
  }

  /** The attempt is recorded (or given up): the target is free for the next one, on any node. */
  async done(lease: HeldLease): Promise<void> {
    await this.leases.finish(lease.kind, lease.key, lease.node, lease.fence);
  }
}
