import { VERSION } from "../core/version.ts";
import type { CrawlProgress } from "../crawler/crawl.ts";
import type { AttemptOutcomeLabel } from "../webhooks/dispatcher.ts";
import { CallbackGauge, Counter, Histogram, Registry } from "./registry.ts";

/** The service's metrics (GET /metrics); counters start at zero with the process, as Prometheus expects. */

interface MetricsSources {
  /** The node's name, a label of linkpatrol_build_info. */
  node: string;
  crawlsByStatus(): Promise<Record<string, number>>;
  /** Deliveries by state, of webhooks or of notification channels. */
  deliveriesByState(target: "webhook" | "channel"): Promise<Record<string, number>>;
}

/** The store's counts as the last scrape read them. */
interface StoreCounts {
  crawls: Record<string, number>;
  webhookDeliveries: Record<string, number>;
  channelDeliveries: Record<string, number>;
}

const CRAWL_STATES = ["pending", "running", "completed", "failed"];
const DELIVERY_STATES = ["pending", "delivered", "dead"];
/** Seconds; API answers are expected in milliseconds, so the buckets are fine at the low end. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class ServiceMetrics {
  private readonly registry = new Registry();
  private readonly pagesCrawled = this.registry.add(new Counter("linkpatrol_pages_crawled_total", "Pages fetched and parsed by crawls."));
  private readonly linksChecked = this.registry.add(new Counter("linkpatrol_links_checked_total", "Link targets checked (each distinct URL once per crawl)."));
  private readonly fetchErrors = this.registry.add(
    new Counter("linkpatrol_fetch_errors_total", "Link checks that got no HTTP answer, by kind (dns, refused, tls, timeout, ...).", ["kind"]),
  );
  private readonly webhookAttempts = this.registry.add(
    new Counter("linkpatrol_webhook_attempts_total", "Webhook delivery attempts by outcome (delivered, retrying, dead).", ["outcome"]),
  );
  private readonly notificationAttempts = this.registry.add(
    new Counter("linkpatrol_notification_attempts_total", "Email and chat notification attempts by outcome (delivered, retrying, dead).", ["outcome"]),
  );
  private readonly requestDuration = this.registry.add(
    new Histogram("linkpatrol_http_request_duration_seconds", "API request duration by route, method and status.", DURATION_BUCKETS, [
      "route",
      "method",
      "status",
    ]),
  );

  private counts: StoreCounts = { crawls: {}, webhookDeliveries: {}, channelDeliveries: {} };

  constructor(private readonly sources: MetricsSources) {
    const startedAt = Date.now() / 1000;
    this.pagesCrawled.inc({}, 0);
    this.linksChecked.inc({}, 0);
    this.registry.add(
      new CallbackGauge("linkpatrol_build_info", "The running version and the node's name.", () => [
        { labels: { version: VERSION, node: sources.node }, value: 1 },
      ]),
    );
    this.registry.add(
      new CallbackGauge("process_start_time_seconds", "Start time of the process since the Unix epoch.", () => [{ labels: {}, value: startedAt }]),
    );
    this.registry.add(
      new CallbackGauge("process_resident_memory_bytes", "Resident memory of the process.", () => [{ labels: {}, value: process.memoryUsage.rss() }]),
    );
    this.registry.add(new CallbackGauge("linkpatrol_crawls", "Crawls in the store by state.", () => byState(CRAWL_STATES, this.counts.crawls)));
    this.registry.add(
      new CallbackGauge("linkpatrol_webhook_deliveries", "Webhook deliveries in the store by state.", () =>
        byState(DELIVERY_STATES, this.counts.webhookDeliveries),
      ),
    );
    this.registry.add(
      new CallbackGauge("linkpatrol_notification_deliveries", "Email and chat notification deliveries in the store by state.", () =>
        byState(DELIVERY_STATES, this.counts.channelDeliveries),
      ),
    );
  }

  recordCrawlProgress(progress: CrawlProgress): void {
    if (progress.pages > 0) this.pagesCrawled.inc({}, progress.pages);
    if (progress.checked > 0) this.linksChecked.inc({}, progress.checked);
    for (const [kind, count] of Object.entries(progress.failures)) this.fetchErrors.inc({ kind }, count);
  }

  recordWebhookAttempt(outcome: AttemptOutcomeLabel): void {
    this.webhookAttempts.inc({ outcome });
  }

  recordNotificationAttempt(outcome: AttemptOutcomeLabel): void {
    this.notificationAttempts.inc({ outcome });
  }

  recordRequest(route: string, method: string, status: number, seconds: number): void {
    this.requestDuration.observe({ route, method, status: String(status) }, seconds);
  }

  /** The Prometheus text of a scrape: the store's counts are read first (asynchronously), then every metric rendered at once. */
  async render(): Promise<string> {
    const [crawls, webhookDeliveries, channelDeliveries] = await Promise.all([
      this.sources.crawlsByStatus(),
      this.sources.deliveriesByState("webhook"),
      this.sources.deliveriesByState("channel"),
    ]);
    this.counts = { crawls, webhookDeliveries, channelDeliveries };
    return this.registry.render();
  }
}

function byState(states: string[], counts: Record<string, number>) {
  return states.map((state) => ({ labels: { state }, value: counts[state] ?? 0 }));
}
