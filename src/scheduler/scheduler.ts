import { Cron } from "croner";
import { CrawlInProgressError, DomainNotVerifiedError, NotFoundError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { CrawlOptions } from "../core/crawl-options.ts";
import { nextRunOf, runAtOrBefore } from "../services/schedule.ts";
import { ClockStepGuard, type Clocks } from "./clock-step-guard.ts";

/**
 * Recurring crawls: one croner job per scheduled domain, whose callback only asks the crawls service to queue
 * a crawl (trigger "schedule") with the domain's default options. A run due while the domain's crawl is
 * pending or running is skipped and logged, never doubled (the store's one-active-crawl index decides). At
 * start-up, a domain whose schedule came due while the service was down gets one catch-up run. Across wall-clock
 * steps a run is neither repeated nor lost (clock-step-guard.ts).
 */

/** A scheduled domain as the scheduler needs it. */
export interface ScheduledDomain {
  id: string;
  name: string;
  schedule: string;
  timezone: string | null;
  options: CrawlOptions | null;
  /** When the schedule was last set (catch-up counts missed runs from here at the earliest). */
  scheduleSetAt: string;
}

interface SchedulerDeps {
  /** Every domain with a schedule, read fresh at each reload. */
  domains: () => Promise<ScheduledDomain[]>;
  /** Queues a crawl; rejects with CrawlInProgressError, DomainNotVerifiedError or NotFoundError. */
  startCrawl: (domainId: string, options: CrawlOptions | null) => Promise<{ id: string }>;
  /** When the domain's newest scheduled crawl was created. */
  lastScheduledAt: (domainId: string) => Promise<string | undefined>;
  /** Run once at start-up for a schedule missed while the service was down. */
  catchUp: boolean;
  logger: Logger;
  /** The clocks the step guard reads (tests); the system's by default. */
  clocks?: Clocks;
  /**
   * Several nodes on one store: true for exactly one node per domain and due time (store/schedule-runs.repo.ts),
   * which alone starts the run. Absent on the appliance.
   */
  fireOnce?: (domainId: string, dueAt: Date) => Promise<boolean>;
  /** Several nodes: schedules set through another node are read again this often. */
  reloadEveryMs?: number;
}

export class CrawlScheduler {
  private jobs: Cron[] = [];
  private running = false;
  /** Counts reloads and stops: a reload whose read of the store was overtaken by a newer one leaves the jobs alone. */
  private generation = 0;
  private readonly guard: ClockStepGuard;
  /** The schedules the jobs were made from, as read (JSON); null before the first load. */
  private loaded: string | null = null;
  private reloadTimer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly deps: SchedulerDeps) {
    this.guard = new ClockStepGuard(deps.clocks);
  }

  /** Starts every domain's job, then runs the catch-ups that are due. */
  async start(): Promise<void> {
    this.running = true;
    await this.reload();
    if (this.deps.reloadEveryMs !== undefined && this.reloadTimer === null) {
      this.reloadTimer = setInterval(() => void this.reload(), this.deps.reloadEveryMs);
      this.reloadTimer.unref();
    }
    if (!this.deps.catchUp || !this.running) return;
    const now = new Date();
    for (const domain of await this.deps.domains()) {
      const since = [domain.scheduleSetAt, await this.deps.lastScheduledAt(domain.id)]
        .filter((at): at is string => at !== undefined)
        .sort()
        .at(-1)!;
      const missed = nextRunOf(domain.schedule, domain.timezone, new Date(since));
      if (missed !== null && missed < now) await this.fire(domain, "catch-up", missed);
    }
  }

  /** Rebuilds the jobs from the store (a schedule was set, changed or removed, or a domain deleted). */
  async reload(): Promise<void> {
    if (!this.running) return;
    const generation = ++this.generation;
    let domains: ScheduledDomain[];
    try {
      domains = await this.deps.domains();
    } catch (error) {
      this.deps.logger.error("schedules could not be read; the jobs loaded before stay", { error: String(error) });
      return;
    }
    // Two reloads may overlap while the store answers: only the newest replaces the jobs, so no job is made twice.
    if (!this.running || generation !== this.generation) return;
    // Unchanged schedules keep their jobs: a periodic reload (several nodes) must not drop a run due meanwhile.
    const loaded = JSON.stringify(domains);
    if (loaded === this.loaded) return;
    this.loaded = loaded;
    for (const job of this.jobs) job.stop();
    this.guard.retain(new Set(domains.map((domain) => domain.id)));
    this.jobs = domains.map(
      (domain) =>
        new Cron(
          domain.schedule,
          { timezone: domain.timezone ?? undefined, protect: true, name: domain.id },
          () => void this.fire(domain, "schedule", runAtOrBefore(domain.schedule, domain.timezone) ?? new Date()),
        ),
    );
    this.deps.logger.debug("schedules loaded", { jobs: this.jobs.length });
  }

  stop(): void {
    this.running = false;
    this.generation++;
    if (this.reloadTimer !== null) clearInterval(this.reloadTimer);
    this.reloadTimer = null;
    for (const job of this.jobs) job.stop();
    this.jobs = [];
    this.loaded = null;
  }

  private async fire(domain: ScheduledDomain, reason: "schedule" | "catch-up", dueAt: Date): Promise<void> {
    const { logger } = this.deps;
    const storedLastRun = await this.deps.lastScheduledAt(domain.id);
    if (!this.guard.admit(domain, () => storedLastRun)) {
      logger.info("scheduled run skipped: the clock was set back over a run already made", { domain: domain.name, reason });
      return;
    }
    try {
      if (this.deps.fireOnce !== undefined && !(await this.deps.fireOnce(domain.id, dueAt))) {
        logger.debug("scheduled run started by another node", { domain: domain.name, due_at: dueAt.toISOString(), reason });
        return;
      }
      const crawl = await this.deps.startCrawl(domain.id, domain.options);
      logger.info("scheduled crawl queued", { domain: domain.name, crawl_id: crawl.id, reason });
    } catch (error) {
      if (error instanceof CrawlInProgressError) {
        logger.info("scheduled crawl skipped: a crawl of the domain is in progress", { domain: domain.name, reason });
      } else if (error instanceof DomainNotVerifiedError) {
        logger.warn("scheduled crawl skipped: the domain is not verified", { domain: domain.name });
      } else if (error instanceof NotFoundError) {
        await this.reload();
      } else {
        logger.error("scheduled crawl failed to start", { domain: domain.name, error: String(error) });
      }
    }
  }
}
