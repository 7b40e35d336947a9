import { untilAborted } from "../core/until-aborted.ts";
import type { Logger } from "../core/logger.ts";
import type { AttemptResult, DeliveriesRepo, DueDelivery } from "../store/deliveries.repo.ts";
import type { AttemptOutcome } from "./attempt.ts";
import type { HeldLease } from "../store/leases.repo.ts";
import { nextAttemptDelayMs } from "./retry-schedule.ts";

/**
 * The outbox's sender for webhooks and channels, in named phases (after svix): one attempt per due delivery, stored
 * before deciding what comes next. One attempt in flight per target, so a slow receiver holds back only its own.
 */

/** What one attempt came to, as the dispatcher recorded it. */
export type AttemptOutcomeLabel = "delivered" | "retrying" | "dead";

/** Who sends a delivery's next attempt when several nodes send from one store (cluster/delivery-claims.ts). */
export interface DeliveryClaims {
  /** The lease to send `delivery`'s next attempt under, or null: another node is on its target, or sent it. */
  take(delivery: DueDelivery): Promise<HeldLease | null>;
  /** The attempt is recorded (or given up): its target is free for the next one. */
  done(lease: HeldLease): Promise<void>;
}

interface DispatcherOptions {
  repo: DeliveriesRepo;
  /** Makes one attempt of a delivery (never rejects for network outcomes). */
  send: (delivery: DueDelivery) => Promise<AttemptOutcome>;
  /** Delays between attempts, in ms (webhooks.retry_schedule). */
  scheduleMs: number[];
  disableAfterMs: number;
  maxConcurrent: number;
  logger: Logger;
  /** How often the outbox is looked at when nothing wakes the dispatcher; default 1 s. */
  pollMs?: number;
  /** Told each attempt's outcome, and whose it was, once it is recorded (metrics). */
  onAttempt?: (outcome: AttemptOutcomeLabel, target: DueDelivery["target"]["kind"]) => void;
  /**
   * Null while the store's path still names the file the service opened; else why not. Nothing is sent
   * meanwhile, to webhooks or channels: an event or digest read from a lost file would tell receivers of what
   * the store no longer holds.
   */
  storeProblem?: () => string | null;
  /** Several nodes send from one store: each attempt is claimed first (cluster/delivery-claims.ts). Null: this node alone. */
  claims?: DeliveryClaims | null;
}

const DEFAULT_POLL_MS = 1_000;

export class WebhookDispatcher {
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Targets (webhook or channel ids) with an attempt in flight. */
  private readonly busyTargets = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  /**
   * The look at the outbox under way, if any. Looks never overlap: two could read the same due delivery before
   * either sends it and, once the first attempt has ended, the second would send it again.
   */
  private looking: Promise<void> | null = null;
  /** Something became due while a look was under way: look once more when it ends. */
  private lookAgain = false;
  /** Why sending is paused (the store's file was lost), as last logged. */
  private paused: string | null = null;

  constructor(private readonly options: DispatcherOptions) {}

  /** Starts sending: deliveries left pending by an earlier run are due at once. */
  start(): void {
    this.running = true;
    this.tick();
  }

  /** A delivery may have become due: look now rather than at the next poll. */
  wake(): void {
    if (!this.running) return;
    queueMicrotask(() => this.tick());
  }

  /**
   * Stops taking new deliveries and waits for the attempts in flight (each bounded by the timeout), or until
   * `deadline` aborts: an attempt cut off there has no attempt row, so its delivery is sent again on the next start.
   */
  async stop(deadline?: AbortSignal): Promise<void> {
    this.running = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const settled = async () => {
      await this.looking;
      await Promise.all(this.inFlight.values());
    };
    await untilAborted(settled(), deadline);
  }

  private tick(): void {
    if (!this.running) return;
    if (this.looking !== null) {
      this.lookAgain = true;
      return;
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.looking = this.sendDue().finally(() => {
      this.looking = null;
      if (!this.running) return;
      if (this.lookAgain) {
        this.lookAgain = false;
        this.tick();
      } else {
        this.timer = setTimeout(() => this.tick(), this.options.pollMs ?? DEFAULT_POLL_MS);
      }
    });
  }

  /** One look at the outbox: sends what is due, as far as the concurrency allows. */
  private async sendDue(): Promise<void> {
    try {
      const free = this.options.maxConcurrent - this.inFlight.size;
      if (free <= 0 || this.storeLost()) return;
      const busy = new Set(this.inFlight.keys());
      const due = await this.options.repo.due(new Date().toISOString(), free * 4, busy);
      for (const delivery of due) {
        if (!this.running || this.inFlight.size >= this.options.maxConcurrent) break;
        if (this.busyTargets.has(delivery.target.id)) continue;
        this.send(delivery);
      }
    } catch (error) {
      this.options.logger.error("delivery dispatch failed", { error: String(error) });
    }
  }

  private storeLost(): boolean {
    const problem = this.options.storeProblem?.() ?? null;
    if (problem !== this.paused) {
      if (problem !== null) this.options.logger.warn("deliveries paused", { reason: problem });
      else this.options.logger.info("deliveries resumed");
    }
    this.paused = problem;
    return problem !== null;
  }

  private send(delivery: DueDelivery): void {
    this.busyTargets.add(delivery.target.id);
    const work = this.attempt(delivery)
      .catch((error: unknown) => this.options.logger.error("delivery attempt failed", { delivery_id: delivery.id, error: String(error) }))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.busyTargets.delete(delivery.target.id);
        this.wake();
      });
    this.inFlight.set(delivery.id, work);
  }

  private async attempt(delivery: DueDelivery): Promise<void> {
    const claims = this.options.claims ?? null;
    const lease = claims === null ? undefined : await claims.take(delivery);
    if (lease === null) return;
    try {
      await this.attemptClaimed(delivery, lease);
    } finally {
      if (lease !== undefined) await claims?.done(lease);
    }
  }

  private async attemptClaimed(delivery: DueDelivery, lease: HeldLease | undefined): Promise<void> {
    const { repo, logger } = this.options;
    const attemptNumber = await repo.nextAttemptNumber(delivery.id);
    const attemptedAt = new Date().toISOString();
    const outcome = await this.options.send(delivery);
    const result = this.decide(delivery, outcome, attemptNumber, attemptedAt);
    await repo.recordAttempt(delivery.target, result, lease);
    this.options.onAttempt?.(result.state === "pending" ? "retrying" : result.state, delivery.target.kind);
    // Ids, outcome and status only: a channel's error may come from its server, and no secret is ever logged.
    const target = delivery.target.kind === "webhook" ? { webhook_id: delivery.target.id } : { channel_id: delivery.target.id };
    logger.info(delivery.target.kind === "webhook" ? "webhook attempt" : "notification attempt", {
      delivery_id: delivery.id,
      ...target,
      event: delivery.event,
      attempt: attemptNumber,
      outcome: result.state,
      status_code: result.attempt.status_code,
    });

    if (outcome.kind === "failed" && outcome.gone) {
      await repo.setActive(delivery.target, false, "the endpoint answered 410 Gone");
      logger.warn(`${delivery.target.kind} disabled`, { ...target, reason: "410 Gone" });
      return;
    }
    const failingSince = outcome.kind === "failed" ? (delivery.failing_since ?? attemptedAt) : null;
    if (failingSince !== null && Date.parse(attemptedAt) - Date.parse(failingSince) >= this.options.disableAfterMs) {
      await repo.setActive(delivery.target, false, `every attempt failed since ${failingSince}`);
      logger.warn(`${delivery.target.kind} disabled`, { ...target, reason: "failing too long" });
    }
  }

  /** The delivery's next state after an attempt. */
  private decide(delivery: DueDelivery, outcome: AttemptOutcome, attemptNumber: number, attemptedAt: string): AttemptResult {
    const attempt = {
      delivery_id: delivery.id,
      attempt: attemptNumber,
      status_code: outcome.statusCode,
      error: outcome.kind === "failed" ? outcome.error : null,
      duration_ms: Math.round(outcome.durationMs),
      response_body: outcome.responseBody,
      attempted_at: attemptedAt,
    };
    if (outcome.kind === "delivered") return { attempt, state: "delivered", nextAttemptAt: null, succeeded: true };
    const delayMs = outcome.gone ? null : nextAttemptDelayMs(delivery.attempts + 1, this.options.scheduleMs, outcome.retryAfterMs);
    if (delayMs === null) return { attempt, state: "dead", nextAttemptAt: null, succeeded: false };
    return { attempt, state: "pending", nextAttemptAt: new Date(Date.parse(attemptedAt) + delayMs).toISOString(), succeeded: false };
  }
}
