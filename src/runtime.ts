import type { App } from "./api/app.ts";
import type { Config } from "./config/schema.ts";
import { silentLogger, type Logger } from "./core/logger.ts";
import { openServiceStore, type ServiceStore } from "./store/service-store.ts";
import { NodeHeartbeat } from "./cluster/node-heartbeat.ts";
import { LeasedDeliveryClaims } from "./cluster/delivery-claims.ts";
import { VERSION } from "./core/version.ts";
import { policyFromCrawlerConfig } from "./net/address-policy.ts";
import { systemResolve, type Resolve } from "./net/resolve.ts";
import { availableParallelism } from "node:os";
import { CrawlOptionsSchema } from "./core/crawl-options.ts";
import { CrawlPool } from "./crawler/pool.ts";
import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { CrawlScheduler } from "./scheduler/scheduler.ts";
import { RetentionPruner } from "./services/retention.ts";
import { ServiceMetrics } from "./metrics/service-metrics.ts";
import { RetentionRepo } from "./store/retention.repo.ts";
import { CrawlsService } from "./services/crawls.service.ts";
import { WebhooksService } from "./services/webhooks.service.ts";
import { WebhooksRepo } from "./store/webhooks.repo.ts";
import { ChannelsRepo, type ChannelRecord } from "./store/channels.repo.ts";
import { DeliveriesRepo, type DueDelivery } from "./store/deliveries.repo.ts";
import { ChannelsService } from "./services/channels.service.ts";
import { channelAddressPolicy, channelAllowHttp } from "./notifications/channel-url-rules.ts";
import { failedWithoutAnswer, type AttemptOutcome } from "./webhooks/attempt.ts";
import { deliverOnce } from "./webhooks/deliver.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import { webhookAddressPolicy } from "./webhooks/url-rules.ts";
import { DomainsService } from "./services/domains.service.ts";
import { KeysService } from "./services/keys.service.ts";
import { CrawlsRepo } from "./store/crawls.repo.ts";
import { LinksRepo } from "./store/links.repo.ts";
import { StoreWatch } from "./store/store-watch.ts";
import { DomainsRepo } from "./store/domains.repo.ts";
import { KeysRepo } from "./store/keys.repo.ts";
import { createDomainVerifier } from "./verification/verifier.ts";
import { loadSessionSecret, loadSharedSessionSecret } from "./ui/session-secret.ts";
import { SignOuts } from "./ui/sign-outs.ts";
import { SharedSignInBackoff } from "./ui/shared-sign-in-backoff.ts";
import { SignInFailuresRepo } from "./store/sign-in-failures.repo.ts";
import { SharedTokenBuckets } from "./http/shared-buckets.ts";
import { SecretsRepo } from "./store/secrets.repo.ts";
import { ScheduleRunsRepo } from "./store/schedule-runs.repo.ts";
import { EndedSessionsRepo } from "./store/ended-sessions.repo.ts";
import { RateBucketsRepo } from "./store/rate-buckets.repo.ts";
import { nodeNameOf } from "./config/node-name.ts";

/**
 * The composition root: config → store → migrations → repos → services → HTTP app. The only module that
 * wires concrete pieces together; CLI commands and tests build what they need through it.
 */

export interface Runtime {
  config: Config;
  store: ServiceStore;
  keys: KeysService;
  domains: DomainsService;
  crawls: CrawlsService;
  /** Runs crawls; `serve` starts it, and stops it before closing the store. */
  crawlPool: CrawlPool;
  webhooks: WebhooksService;
  /** Notification channels (email and chat). */
  channels: ChannelsService;
  /** Sends queued webhook and channel deliveries; `serve` starts it, and stops it before closing the store. */
  dispatcher: WebhookDispatcher;
  /** Starts recurring crawls; `serve` starts it. */
  scheduler: CrawlScheduler;
  /** Prunes old crawls and deliveries (storage.retention); `serve` starts it. */
  retention: RetentionPruner;
  /** Watches the store's file for deletion or replacement (null for check's and in-memory stores); `serve` starts it. */
  storeWatch: StoreWatch | null;
  /** This node among the nodes on a PostgreSQL store (null on SQLite: one serve per store); `serve` joins and beats. */
  cluster: NodeHeartbeat | null;
  metrics: ServiceMetrics;
  logger: Logger;
  /** The name this node answers with (cluster.node_name, or the host name). */
  nodeName: string;
  /**
   * Builds the HTTP app over this runtime's services. The API and the dashboard are loaded here, when first
   * needed: the one-shot commands that open a runtime (`check`, `keys`, `domains`) never serve HTTP.
   */
  app(): Promise<App>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger?: Logger;
  /** DNS resolution for outbound requests; tests inject one that answers chosen addresses. */
  resolve?: Resolve;
  /** Run crawls in this thread (with `resolve`) rather than in worker threads; for tests. */
  inlineCrawls?: boolean;
  /** The caller holds the store's service lock (`serve`); otherwise pending migrations take it while they run. */
  lockHeld?: boolean;
  /** Called after a crawl of the pool starts or ends: `check` waits for its crawl's end on it. */
  onCrawlTransition?: () => void;
  /**
   * The store is a temporary file of this process alone, deleted when it ends (`check`): no other process can
   * hold it, so migrating it takes no lock, and its commits are not synced to disk. Its crawls run in this
   * thread (`inlineCrawls`): the store has no WAL, so a second thread's reads would hold up the writes.
   */
  temporaryStore?: boolean;
  /**
   * First-run set-up (`serve`; tests): create the store when none is there and the lock file beside it records
   * none. Without it a missing store is refused, naming the file (store/store-admission.ts).
   */
  createStore?: boolean;
  /** The node's name, resolved once by the caller (`serve`, whose logger carries it); default: nodeNameOf(config). */
  nodeName?: string;
  /** Another process took this node's name after it went silent (a cluster): `serve` stops. */
  onNodeNameLost?: () => void;
  /** The operator's `serve --new-store`: create the store, or take the one there, whatever the lock file records. */
  newStore?: boolean;
}

/** Opens the store, applies pending migrations and builds the services. */
export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? silentLogger;
  if (options.temporaryStore && !options.inlineCrawls) throw new RangeError("a temporary store needs inline crawls");
  const store = await openServiceStore(config.storage, { ...options, logger });
  try {
    return buildRuntime(config, store, options, logger);
  } catch (error) {
    await store.close();
    throw error;
  }
}

function buildRuntime(config: Config, store: ServiceStore, options: RuntimeOptions, logger: Logger): Runtime {
  const nodeName = options.nodeName ?? nodeNameOf(config);
  // Every writer asks before it writes or tells anyone: a store file deleted, moved or replaced under the service
  // would keep taking writes into the file it opened, and lose them (store/store-file.ts).
  const storeFile = { problem: () => store.file?.problem() ?? null };
  // On PostgreSQL with shared rate limits every API request commits its take, so the snapshot never repeats from
  // one request to the next: reading it would cost a round trip and keep nothing (docs/decisions.md).
  const version = store.engine === "postgres" && config.auth.rate_limit > 0 ? null : store.version;
  const keys = new KeysService(new KeysRepo(store.db), version ?? undefined);
  const resolve = options.resolve ?? systemResolve;
  // A running crawl's deep-page positions are found again by walking its listing: on PostgreSQL, a round trip and
  // ~25 µs a row where SQLite takes ~1 µs, so a minute between walks rather than 5 s, and 64 marks a statement
  // rather than 16, since the server's cores walk them, not this thread (docs/decisions.md).
  const postgres = store.engine === "postgres";
  const linksRepo = new LinksRepo(store.db, { marks: { movingMaxAgeMs: postgres ? 60_000 : 5_000, sliceMarks: postgres ? 64 : 16 } });
  const crawlsRepo = new CrawlsRepo(store.db);
  const domainsRepo = new DomainsRepo(store.db);
  const domains = new DomainsService({
    repo: domainsRepo,
    verifier: createDomainVerifier(config, { resolve }),
    policy: policyFromCrawlerConfig(config.crawler),
    resolve,
    activeCrawlOf: (domainId) => crawlsRepo.activeCrawlId(domainId),
    lastCrawlsOf: (domainIds) => crawlsRepo.lastCrawlIds(domainIds),
    onScheduleChange: () => scheduler.reload(),
    removeEndedCrawlsOf: (domainId) => retention.removeEndedCrawlsOf(domainId),
  });
  const webhooksRepo = new WebhooksRepo(store.db);
  const channelsRepo = new ChannelsRepo(store.db);
  const deliveriesRepo = new DeliveriesRepo(store.db);
  const metrics = new ServiceMetrics({
    node: nodeName,
    crawlsByStatus: () => crawlsRepo.countByStatus(),
    deliveriesByState: (target) => deliveriesRepo.countByState(target),
  });
  const webhookPolicy = webhookAddressPolicy(config.webhooks);
  const ca = config.webhooks.ca_file === null ? undefined : readFileSync(config.webhooks.ca_file, "utf8");
  const channelCa = config.notifications.ca_file === null ? undefined : [...rootCertificates, readFileSync(config.notifications.ca_file, "utf8")];
  // Loaded with the first channel delivery or test: commands that never send one do not load the formatters' mail library.
  const sendToChannel = async (channel: ChannelRecord, deliveryId: string, payload: string): Promise<AttemptOutcome> =>
    (await import("./notifications/notifier.ts")).sendToChannel(channel, deliveryId, payload, {
      publicUrl: config.server.public_url,
      policy: channelAddressPolicy(config),
      resolve: options.resolve,
      timeoutMs: config.notifications.timeout,
      ca: channelCa,
    });
  const sendDelivery = async (delivery: DueDelivery): Promise<AttemptOutcome> => {
    if (delivery.target.kind === "channel") {
      const channel = await channelsRepo.findById(delivery.target.id);
      return channel === undefined ? failedWithoutAnswer(0, "the channel was deleted") : sendToChannel(channel, delivery.id, delivery.payload);
    }
    const hook = await webhooksRepo.findById(delivery.target.id);
    if (hook === undefined) return failedWithoutAnswer(0, "the webhook was deleted");
    return deliverOnce(
      { url: hook.url, secret: hook.secret, event: delivery.event, deliveryId: delivery.id, body: delivery.payload },
      { policy: webhookPolicy, resolve: options.resolve, timeoutMs: config.webhooks.timeout, ca },
    );
  };
  const dispatcher = new WebhookDispatcher({
    repo: deliveriesRepo,
    send: sendDelivery,
    scheduleMs: config.webhooks.retry_schedule,
    disableAfterMs: config.webhooks.disable_after,
    maxConcurrent: config.webhooks.max_concurrent,
    logger,
    onAttempt: (outcome, target) => (target === "webhook" ? metrics.recordWebhookAttempt(outcome) : metrics.recordNotificationAttempt(outcome)),
    storeProblem: storeFile.problem,
    claims: store.engine === "postgres" ? new LeasedDeliveryClaims(store.db, deliveriesRepo, nodeName, config.cluster.lease) : null,
  });
  const channels = new ChannelsService({
    repo: channelsRepo,
    deliveries: deliveriesRepo,
    policy: channelAddressPolicy(config),
    resolve,
    allowHttp: channelAllowHttp(config),
    domainExists: async (id) => (await domainsRepo.findById(id)) !== undefined,
    send: sendToChannel,
    wake: () => dispatcher.wake(),
    publicUrl: config.server.public_url,
  });
  const webhooks = new WebhooksService({
    repo: webhooksRepo,
    deliveries: deliveriesRepo,
    policy: webhookPolicy,
    resolve,
    allowHttp: config.webhooks.allow_http,
    timeoutMs: config.webhooks.timeout,
    ca,
    wake: () => dispatcher.wake(),
  });
  const crawlPool = new CrawlPool({
    size: config.crawler.workers === 0 ? availableParallelism() : config.crawler.workers,
    settings: {
      dbPath: config.storage.path,
      storeFile: store.file?.opened,
      busyTimeoutMs: config.storage.busy_timeout,
      temporaryStore: options.temporaryStore === true,
      storeUrl: config.storage.url,
      crawler: config.crawler,
      logLevel: config.logging.level,
      nodeName,
    },
    repo: crawlsRepo,
    logger,
    storeProblem: storeFile.problem,
    cluster:
      store.engine === "postgres"
        ? { db: store.db, node: nodeName, leaseMs: config.cluster.lease, pollMs: Math.min(2_000, Math.floor(config.cluster.lease / 3)) }
        : null,
    inline: options.inlineCrawls ? { resolve } : undefined,
    // A crawl that starts or ends has queued webhook deliveries.
    onTransition: () => {
      dispatcher.wake();
      options.onCrawlTransition?.();
    },
    onProgress: (progress) => metrics.recordCrawlProgress(progress),
  });
  const crawls = new CrawlsService({ repo: crawlsRepo, links: linksRepo, domains, runner: crawlPool });
  const scheduleRuns = new ScheduleRunsRepo(store.db);
  const scheduler: CrawlScheduler = new CrawlScheduler({
    domains: async () =>
      (await domains.scheduled()).map((row) => ({
        id: row.id,
        name: row.name,
        schedule: row.schedule!,
        timezone: row.schedule_timezone,
        options: row.default_options,
        scheduleSetAt: row.updated_at ?? row.created_at,
      })),
    startCrawl: (domainId, options) => {
      store.file?.assertSame();
      return crawls.start(domainId, options ?? CrawlOptionsSchema.parse({}), "schedule");
    },
    lastScheduledAt: (domainId) => crawlsRepo.lastScheduledAt(domainId),
    catchUp: config.scheduler.catch_up,
    logger,
    ...(store.engine === "postgres" && {
      fireOnce: async (domainId: string, dueAt: Date) => {
        if (!(await scheduleRuns.fireOnce(domainId, dueAt, nodeName))) return false;
        // The rows only need to outlive the nodes' disagreement about a run: a week is ample, and keeps the table small.
        await scheduleRuns.pruneBefore(new Date(dueAt.getTime() - 7 * 86_400_000));
        return true;
      },
      reloadEveryMs: config.cluster.lease,
    }),
  });
  const retention = new RetentionPruner({
    repo: new RetentionRepo(store.db),
    settings: {
      maxAgeMs: config.storage.retention.max_age,
      keepLast: config.storage.retention.keep_last,
      intervalMs: config.storage.retention.interval,
    },
    storeProblem: storeFile.problem,
    logger,
  });
  // Several nodes on one store: this node's name and leases in the database (cluster/node-heartbeat.ts).
  const cluster =
    store.engine === "postgres"
      ? new NodeHeartbeat({
          db: store.db,
          name: nodeName,
          version: VERSION,
          leaseMs: config.cluster.lease,
          logger,
          onHeld: (held) => crawlPool.leasesHeld(held),
          onNameLost: options.onNodeNameLost,
        })
      : null;
  const storeWatch = store.sqlite === null || store.file === null || options.temporaryStore ? null : new StoreWatch(store.sqlite, store.file, logger);
  return {
    config,
    store,
    keys,
    domains,
    crawls,
    crawlPool,
    webhooks,
    channels,
    dispatcher,
    scheduler,
    retention,
    storeWatch,
    cluster,
    metrics,
    logger,
    nodeName,
    app: async () => {
      // The composition root is the one place that knows the dashboard: the API app is handed its routes.
      const [{ createApp }, ui] = await Promise.all([import("./api/app.ts"), config.ui.enabled ? import("./ui/dashboard.tsx") : null]);
      // Several nodes share one store: the session key, sign-outs, rate limits and failed sign-ins live in it, not in one node.
      const shared = store.engine === "postgres";
      const sessionSecret = ui === null ? null : shared ? await loadSharedSessionSecret(new SecretsRepo(store.db)) : loadSessionSecret(config.storage.path);
      const signOuts = ui === null ? undefined : await SignOuts.load(new EndedSessionsRepo(store.db), shared);
      const signInBackoff = shared ? new SharedSignInBackoff(new SignInFailuresRepo(store.db)) : undefined;
      return createApp({
        basePath: config.server.base_path,
        rateLimitPerMinute: config.auth.rate_limit,
        trustedProxies: config.server.trusted_proxies,
        forwardedHeader: config.server.forwarded_header,
        maxRequestBodyBytes: config.server.max_request_body_bytes,
        sharedRateLimits: shared ? (capacity) => new SharedTokenBuckets(new RateBucketsRepo(store.db), capacity) : undefined,
        keys,
        domains,
        crawls,
        webhooks,
        channels,
        storeHealth: store.health,
        storeFile,
        logger,
        nodeName,
        metrics,
        metricsOnApi: config.metrics.enabled && config.metrics.port === null,
        storeVersion: version === null ? null : poolAware(version, crawlPool),
        dashboard:
          ui === null || sessionSecret === null
            ? null
            : (app, limiter) =>
                app.route(
                  "/",
                  ui.dashboardRouter({
                    keys,
                    domains,
                    crawls,
                    webhooks,
                    channels,
                    storeFile,
                    logger,
                    nodeName,
                    sessionSecret,
                    limiter,
                    signOuts,
                    signInBackoff,
                  }),
                ),
      });
    },
    close: async () => {
      storeWatch?.stop();
      await store.close();
    },
  };
}

/** The store's version with the crawl pool's: a crawl's detail also says why it waits, which the pool holds in memory. */
function poolAware(version: () => string | Promise<string>, pool: CrawlPool): () => string | Promise<string> {
  return () => {
    const token = version();
    return typeof token === "string" ? `${token}.${pool.stateVersion}` : token.then((read) => `${read}.${pool.stateVersion}`);
  };
}
