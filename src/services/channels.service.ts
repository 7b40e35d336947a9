import { CHANNEL_TEST_EVENT, DIGEST_EVENT, type ChannelKind, type NotifyWhen } from "../core/channels.ts";
import { ConflictError, InvalidRequestError, NotFoundError, UnsafeUrlError } from "../core/errors.ts";
import { canonicalId, newId } from "../core/ids.ts";
import type { AddressPolicy } from "../net/address-policy.ts";
import type { Resolve } from "../net/resolve.ts";
import { assertUrlAllowed } from "../net/url-policy.ts";
import { channelUrlProblem } from "../notifications/channel-url-rules.ts";
import { DESTINATIONS } from "../notifications/destinations/index.ts";
import type { Digest } from "../notifications/digest.ts";
import { crawlPageUrl, messageOf } from "../notifications/message.ts";
import { plainMessage } from "../notifications/plain-message.ts";
import { sampleDigest } from "../notifications/sample-digest.ts";
import type { ChannelRecord, ChannelsRepo } from "../store/channels.repo.ts";
import type { DeliveriesRepo, DeliveryTarget } from "../store/deliveries.repo.ts";
import type { AttemptOutcome } from "../webhooks/attempt.ts";
import { toChannelView, type ChannelTestResultView, type ChannelView } from "./channel-view.ts";
import type { Page } from "./domains.service.ts";
import { toDeliveryView, type DeliveryView } from "./webhook-view.ts";

/**
 * Notification channels as use-cases: create one (its chat URLs checked against the rules and the address
 * policy now, and again by the sender at every attempt; its secrets split off and never returned), list,
 * change and remove them, send a test message now, read the delivery log and put an ended delivery back in the
 * queue. The digests themselves are queued when crawls end (crawler/crawl-transitions.ts) and sent by the
 * outbox's dispatcher.
 */

export interface ChannelsServiceDeps {
  repo: ChannelsRepo;
  deliveries: DeliveriesRepo;
  policy: AddressPolicy;
  resolve: Resolve;
  allowHttp: boolean;
  /** True when the domain exists. */
  domainExists: (id: string) => Promise<boolean>;
  /** One attempt of a stored delivery body to a channel (notifications/notifier.ts, loaded when first used). */
  send: (channel: ChannelRecord, deliveryId: string, payload: string) => Promise<AttemptOutcome>;
  /** Tells the dispatcher a delivery became due. */
  wake: () => void;
  /** server.public_url, for the links in message previews. */
  publicUrl: string | null;
}

/** What a channel is created with: the common fields and its destination's own (validated by the API's schema). */
export type ChannelInput = { kind: ChannelKind; name: string; notify_when?: NotifyWhen; domain_ids?: string[] | null } & Record<string, unknown>;

const COMMON_FIELDS = new Set(["kind", "name", "notify_when", "domain_ids"]);
const DEFAULT_SMTP_PORTS = { starttls: 587, tls: 465, none: 25 } as const;

function targetOf(channel: ChannelRecord): DeliveryTarget {
  return { kind: "channel", id: channel.id };
}

export class ChannelsService {
  constructor(private readonly deps: ChannelsServiceDeps) {}

  /** Creates a channel; `domain_ids` omitted or null means every domain. */
  async create(input: ChannelInput): Promise<ChannelView> {
    const destination = DESTINATIONS[input.kind];
    const config = Object.fromEntries(Object.entries(input).filter(([key, value]) => !COMMON_FIELDS.has(key) && value !== undefined));
    for (const url of destination.urls(config)) {
      const problem = channelUrlProblem(url, this.deps.allowHttp);
      if (problem !== null) throw new UnsafeUrlError(problem, [{ field: "url", message: problem }]);
      await assertUrlAllowed(url, this.deps.policy, this.deps.resolve);
    }
    if (input.kind === "email" && config.port === undefined) config.port = DEFAULT_SMTP_PORTS[config.security as keyof typeof DEFAULT_SMTP_PORTS];
    const settings: Record<string, unknown> = {};
    const secrets: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(config)) (destination.secretFields.includes(key) ? secrets : settings)[key] = value;
    const row = await this.deps.repo.insert({
      id: newId(),
      name: input.name,
      kind: input.kind,
      settings,
      secrets,
      notifyWhen: input.notify_when ?? "changed",
      domainIds: await this.checkedDomains(input.domain_ids),
      createdAt: new Date().toISOString(),
    });
    return this.view(row);
  }

  /** Every channel, newest first. */
  async list(): Promise<Page<ChannelView>> {
    const rows = await this.deps.repo.all();
    const names = await this.deps.repo.domainNames(rows.flatMap((row) => row.domain_ids));
    return { items: rows.map((row) => toChannelView(row, names)), total: rows.length };
  }

  async get(id: string): Promise<ChannelView> {
    return this.view(await this.require(id));
  }

  /** Removes a channel; its pending deliveries are dropped with it. */
  async delete(id: string): Promise<void> {
    if (!(await this.deps.repo.delete((await this.require(id)).id))) throw new NotFoundError("channel", id);
  }

  /** Renames it, changes when it is told or which domains it is for, or switches it on or off. */
  async update(id: string, changes: { name?: string; notify_when?: NotifyWhen; domain_ids?: string[] | null; active?: boolean }): Promise<ChannelView> {
    const row = await this.require(id);
    const domainIds = changes.domain_ids === undefined ? undefined : await this.checkedDomains(changes.domain_ids);
    await this.deps.repo.update(row.id, { name: changes.name, notifyWhen: changes.notify_when, domainIds });
    if (changes.active !== undefined && changes.active !== row.active) {
      await this.deps.deliveries.setActive(targetOf(row), changes.active, changes.active ? null : "switched off by request", "channel");
    }
    return this.get(row.id);
  }

  /** Sends a sample digest now and reports what happened; nothing is queued or retried. */
  async test(id: string): Promise<ChannelTestResultView> {
    const row = await this.require(id);
    const deliveryId = newId();
    const payload = JSON.stringify({ id: deliveryId, event: CHANNEL_TEST_EVENT, timestamp: new Date().toISOString(), data: sampleDigest() });
    const outcome = await this.deps.send(row, deliveryId, payload);
    return {
      delivered: outcome.kind === "delivered",
      status_code: outcome.statusCode,
      duration_ms: outcome.durationMs,
      error: outcome.kind === "failed" ? outcome.error : null,
      response: outcome.responseBody,
    };
  }

  /** One page of the channel's deliveries, newest first, with every attempt. */
  async deliveries(id: string, page: number, limit: number): Promise<Page<DeliveryView>> {
    const target = targetOf(await this.require(id));
    return {
      items: (await this.deps.deliveries.page(target, (page - 1) * limit, limit)).map(({ delivery, attempts }) => toDeliveryView(delivery, attempts)),
      total: await this.deps.deliveries.count(target),
    };
  }

  /** The message one of the channel's deliveries carries, as plain text (the dashboard shows it); null when it holds none. */
  async deliveryPreview(id: string, deliveryId: string): Promise<string | null> {
    const key = canonicalId(deliveryId);
    const channel = await this.require(id);
    const delivery = key === null ? undefined : await this.deps.deliveries.find(targetOf(channel), key);
    if (delivery === undefined) throw new NotFoundError("delivery", deliveryId);
    if (delivery.event !== DIGEST_EVENT) return null;
    try {
      const digest = (JSON.parse(delivery.payload) as { data: Digest }).data;
      return plainMessage(messageOf(digest, crawlPageUrl(this.deps.publicUrl, digest.crawl_id)));
    } catch {
      return null;
    }
  }

  /** Queues an ended (dead or delivered) delivery again, due now, with a fresh retry schedule. */
  async redeliver(id: string, deliveryId: string): Promise<DeliveryView> {
    const channel = await this.require(id);
    const key = canonicalId(deliveryId);
    const delivery = key === null ? undefined : await this.deps.deliveries.find(targetOf(channel), key);
    if (delivery === undefined) throw new NotFoundError("delivery", deliveryId);
    if (!channel.active) throw new ConflictError(`channel ${channel.id} is inactive (${channel.disabled_reason ?? "disabled"}); nothing would be sent`);
    if (!(await this.deps.deliveries.requeue(delivery.id, new Date().toISOString()))) {
      throw new ConflictError(`delivery ${delivery.id} is still pending; it will be attempted on its schedule`);
    }
    this.deps.wake();
    const entry = await this.deps.deliveries.withAttempts(delivery.id);
    if (entry === undefined) throw new NotFoundError("delivery", deliveryId); // the channel was deleted meanwhile
    return toDeliveryView(entry.delivery, entry.attempts);
  }

  /** Null (every domain), or the given ids checked to exist and made canonical. */
  private async checkedDomains(ids: string[] | null | undefined): Promise<string[] | null> {
    if (ids === undefined || ids === null) return null;
    const unknown: string[] = [];
    for (const id of ids) {
      const key = canonicalId(id);
      if (key === null || !(await this.deps.domainExists(key))) unknown.push(id);
    }
    if (unknown.length > 0) {
      throw new InvalidRequestError(
        `unknown domain id: ${unknown.join(", ")}`,
        unknown.map((id) => ({ field: "domain_ids", message: `no domain ${id}` })),
      );
    }
    return [...new Set(ids.map((id) => canonicalId(id)!))];
  }

  private async view(row: ChannelRecord): Promise<ChannelView> {
    return toChannelView(row, await this.deps.repo.domainNames(row.domain_ids));
  }

  private async require(id: string): Promise<ChannelRecord> {
    const key = canonicalId(id);
    const row = key === null ? undefined : await this.deps.repo.findById(key);
    if (!row) throw new NotFoundError("channel", id);
    return row;
  }
}
