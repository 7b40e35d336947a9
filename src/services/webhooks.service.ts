import { randomBytes } from "node:crypto";
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from "../core/crawl-events.ts";
import { ConflictError, NotFoundError, UnsafeUrlError } from "../core/errors.ts";
import { canonicalId, newId } from "../core/ids.ts";
import type { AddressPolicy } from "../net/address-policy.ts";
import type { Resolve } from "../net/resolve.ts";
import { assertUrlAllowed } from "../net/url-policy.ts";
import type { DeliveriesRepo, DeliveryTarget } from "../store/deliveries.repo.ts";
import type { WebhooksRepo, WebhookRecord } from "../store/webhooks.repo.ts";
import { deliverOnce } from "../webhooks/deliver.ts";
import { TEST_EVENT } from "../webhooks/events.ts";
import { webhookUrlProblem } from "../webhooks/url-rules.ts";
import { toDeliveryView, toWebhookView, type DeliveryView, type TestResultView, type WebhookCreatedView, type WebhookView } from "./webhook-view.ts";
import type { Page } from "./domains.service.ts";

/**
 * Webhooks as use-cases: register an endpoint (its URL checked against the policy now, and again by the
 * dispatcher at every attempt), list and remove them, send a synchronous test, read the delivery log and put
 * an ended delivery back in the queue. Sending queued deliveries is the dispatcher's job (webhooks/dispatcher.ts).
 */

export interface WebhooksServiceDeps {
  repo: WebhooksRepo;
  /** The outbox's deliveries and attempts (shared with notification channels). */
  deliveries: DeliveriesRepo;
  policy: AddressPolicy;
  resolve: Resolve;
  allowHttp: boolean;
  timeoutMs: number;
  /** PEM bundle trusted instead of the system roots (webhooks.ca_file). */
  ca?: string;
  /** Tells the dispatcher a delivery became due. */
  wake: () => void;
}

/** The notice that comes with a new webhook's secret (sent as `meta.warning`). */
export const SECRET_WARNING = "Save the secret now: it is shown only in this response and cannot be read back.";

/** A new signing secret: 32 random bytes, base64url, with a prefix that makes it recognisable in a config file. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

function targetOf(webhook: WebhookRecord): DeliveryTarget {
  return { kind: "webhook", id: webhook.id };
}

export class WebhooksService {
  constructor(private readonly deps: WebhooksServiceDeps) {}

  /** Registers a webhook; omitted or empty `events` means every current kind, stored explicitly. */
  async create(input: { url: string; name?: string | null; events?: WebhookEventKind[] }): Promise<WebhookCreatedView> {
    const problem = webhookUrlProblem(input.url, this.deps.allowHttp);
    if (problem !== null) throw new UnsafeUrlError(problem, [{ field: "url", message: problem }]);
    await assertUrlAllowed(input.url, this.deps.policy, this.deps.resolve);
    const events = input.events === undefined || input.events.length === 0 ? [...WEBHOOK_EVENT_KINDS] : [...new Set(input.events)];
    const row = await this.deps.repo.insert({
      id: newId(),
      url: input.url,
      name: input.name ?? null,
      events,
      secret: newSecret(),
      createdAt: new Date().toISOString(),
    });
    return { ...toWebhookView(row), secret: row.secret };
  }

  /** Every webhook, newest first (GET /webhooks takes no paging parameters). */
  async list(): Promise<Page<WebhookView>> {
    const total = await this.deps.repo.count();
    return { items: (await this.deps.repo.page(0, Math.max(total, 1))).map(toWebhookView), total };
  }

  async get(id: string): Promise<WebhookView> {
    return toWebhookView(await this.require(id));
  }

  /** Removes a webhook; its pending deliveries are dropped with it. */
  async delete(id: string): Promise<void> {
    const row = await this.require(id);
    if (!(await this.deps.repo.delete(row.id))) throw new NotFoundError("webhook", id);
  }

  /** Sends a signed `webhook.test` now and reports honestly what happened; nothing is queued or retried. */
  async test(id: string): Promise<TestResultView> {
    const row = await this.require(id);
    const deliveryId = newId();
    const body = JSON.stringify({
      id: deliveryId,
      event: TEST_EVENT,
      timestamp: new Date().toISOString(),
      data: { webhook_id: row.id, message: "This is a test delivery from linkpatrol." },
    });
    const outcome = await deliverOnce(
      { url: row.url, secret: row.secret, event: TEST_EVENT, deliveryId, body },
      { policy: this.deps.policy, resolve: this.deps.resolve, timeoutMs: this.deps.timeoutMs, ca: this.deps.ca },
    );
    if (outcome.kind === "delivered") {
      return { delivered: true, status_code: outcome.statusCode, duration_ms: outcome.durationMs, error: null };
    }
    return { delivered: false, status_code: outcome.statusCode, duration_ms: outcome.durationMs, error: outcome.error };
  }

  /** One page of the webhook's deliveries, newest first, with every attempt. */
  async deliveries(id: string, page: number, limit: number): Promise<Page<DeliveryView>> {
    const target = targetOf(await this.require(id));
    return {
      items: (await this.deps.deliveries.page(target, (page - 1) * limit, limit)).map(({ delivery, attempts }) => toDeliveryView(delivery, attempts)),
      total: await this.deps.deliveries.count(target),
    };
  }

  /** Queues an ended (dead or delivered) delivery again, due now, with a fresh retry schedule. */
  async redeliver(id: string, deliveryId: string): Promise<DeliveryView> {
    const webhook = await this.require(id);
    const key = canonicalId(deliveryId);
    const delivery = key === null ? undefined : await this.deps.deliveries.find(targetOf(webhook), key);
    if (delivery === undefined) throw new NotFoundError("delivery", deliveryId);
    if (!webhook.active) {
      throw new ConflictError(`webhook ${webhook.id} is inactive (${webhook.disabled_reason ?? "disabled"}); nothing would be sent`);
    }
    if (!(await this.deps.deliveries.requeue(delivery.id, new Date().toISOString()))) {
      throw new ConflictError(`delivery ${delivery.id} is still pending; it will be attempted on its schedule`);
    }
    this.deps.wake();
    const entry = await this.deps.deliveries.withAttempts(delivery.id);
    if (entry === undefined) throw new NotFoundError("delivery", deliveryId); // the webhook was deleted meanwhile
    return toDeliveryView(entry.delivery, entry.attempts);
  }

  /**
   * Renames, re-subscribes, or switches a webhook on or off. Switching on clears the failure streak and the
   * reason it was switched off; switching off kills its pending deliveries (redeliver them after switching on).
   */
  async update(id: string, changes: { name?: string | null; events?: WebhookEventKind[]; active?: boolean }): Promise<WebhookView> {
    const row = await this.require(id);
    const events = changes.events === undefined ? undefined : changes.events.length === 0 ? [...WEBHOOK_EVENT_KINDS] : [...new Set(changes.events)];
    await this.deps.repo.update(row.id, { name: changes.name, events });
    if (changes.active !== undefined && changes.active !== row.active) {
      await this.deps.deliveries.setActive(targetOf(row), changes.active, changes.active ? null : "switched off through the API");
    }
    return this.get(row.id);
  }

  private async require(id: string): Promise<WebhookRecord> {
    const key = canonicalId(id);
    const row = key === null ? undefined : await this.deps.repo.findById(key);
    if (!row) throw new NotFoundError("webhook", id);
    return row;
  }
}
