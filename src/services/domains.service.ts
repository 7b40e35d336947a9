import { randomBytes } from "node:crypto";
import { ConflictError, CrawlInProgressError, DomainNotVerifiedError, InvalidRequestError, NotFoundError } from "../core/errors.ts";
import { canonicalId, newId } from "../core/ids.ts";
import type { CrawlOptions } from "../core/crawl-options.ts";
import type { AddressPolicy } from "../net/address-policy.ts";
import type { Resolve } from "../net/resolve.ts";
import { assertUrlAllowed } from "../net/url-policy.ts";
import type { DomainRecord, DomainsRepo } from "../store/domains.repo.ts";
import type { DomainVerifier } from "../verification/verifier.ts";
import { resolveDomain } from "./domain-name.ts";
import { toDomainView, type DomainView } from "./domain-view.ts";
import { scheduleProblem } from "./schedule.ts";

/** Domains: register, read, change, remove, and prove ownership before any crawl. */

export interface Page<T> {
  items: T[];
  total: number;
}

export interface DomainsServiceDeps {
  repo: DomainsRepo;
  verifier: DomainVerifier;
  policy: AddressPolicy;
  resolve: Resolve;
  /** The domain's pending or running crawl, if any: a domain is not deleted from under a crawl. */
  activeCrawlOf?: (domainId: string) => string | undefined;
  /** The domain's newest crawl, for `last_crawl_id`. */
  lastCrawlOf?: (domainId: string) => string | undefined;
  /** A domain's schedule changed (or the domain went): the scheduler reloads its jobs. */
  onScheduleChange?: () => void;
  /** Removes the domain's ended crawls a little at a time (services/retention.ts), before the domain goes. */
  removeEndedCrawlsOf?: (domainId: string) => Promise<unknown>;
}

export class DomainsService {
  constructor(private readonly deps: DomainsServiceDeps) {}

  /** Registers a domain; `vouched` (CLI `--verified`) marks it verified by the operator. */
  async add(input: { name: string; root_url?: string }, vouched = false): Promise<DomainView> {
    const domain = resolveDomain(input);
    await assertUrlAllowed(domain.rootUrl, this.deps.policy, this.deps.resolve);
    const now = new Date().toISOString();
    const row = this.deps.repo.insertUnlessNameTaken({
      id: newId(),
      name: domain.name,
      root_url: domain.rootUrl,
      verification_token: randomBytes(24).toString("base64url"),
      verified_at: vouched ? now : null,
      verified_by: vouched ? "operator" : null,
      created_at: now,
    });
    // The unique index decides, so two concurrent registrations (API and CLI) cannot both win.
    if (!row) {
      const existing = this.deps.repo.findByName(domain.name);
      throw new ConflictError(`domain ${domain.name} already exists`, [{ field: "name", id: existing?.id ?? null }]);
    }
    return this.view(row);
  }

  list(page: number, limit: number): Page<DomainView> {
    return { items: this.deps.repo.page((page - 1) * limit, limit).map((row) => this.view(row)), total: this.deps.repo.count() };
  }

  get(id: string): DomainView {
    return this.view(this.require(id));
  }

  /** The resource: the stored row plus what is derived (next scheduled run, newest crawl). */
  private view(row: DomainRecord): DomainView {
    return toDomainView(row, { lastCrawlId: this.deps.lastCrawlOf?.(row.id) ?? null });
  }

  /** The stored row, for services that act on a domain (crawls). */
  require(id: string): DomainRecord {
    const key = canonicalId(id);
    const row = key === null ? undefined : this.deps.repo.findById(key);
    if (!row) throw new NotFoundError("domain", id);
    return row;
  }

  /**
   * Deletes a domain and, with it, its finished crawls; refused while a crawl of it is pending or running. The
   * crawls go first, a little at a time, so the API answers throughout; a crawl started meanwhile (by the
   * schedule) then stops the delete, and the crawls already removed stay removed.
   */
  async delete(id: string): Promise<void> {
    const key = canonicalId(id);
    if (key === null || this.deps.repo.findById(key) === undefined) throw new NotFoundError("domain", id);
    this.refuseWhileCrawling(key);
    await this.deps.removeEndedCrawlsOf?.(key);
    this.refuseWhileCrawling(key);
    if (!this.deps.repo.delete(key)) throw new NotFoundError("domain", id);
    this.deps.onScheduleChange?.();
  }

  private refuseWhileCrawling(domainId: string): void {
    const active = this.deps.activeCrawlOf?.(domainId);
    if (active !== undefined) throw new CrawlInProgressError(domainId, active);
  }

  /** Sets the recurring-crawl schedule, its time zone and/or default crawl options; `null` clears a field. */
  update(
    id: string,
    changes: { schedule?: string | null; schedule_timezone?: string | null; default_options?: CrawlOptions | null },
  ): DomainView {
    const current = this.require(id);
    const schedule = changes.schedule !== undefined ? changes.schedule : current.schedule;
    const timezone = changes.schedule_timezone !== undefined ? changes.schedule_timezone : current.schedule_timezone;
    if (schedule !== null) {
      const problem = scheduleProblem(schedule, timezone);
      if (problem !== null) {
        const field = changes.schedule === undefined && changes.schedule_timezone !== undefined ? "schedule_timezone" : "schedule";
        throw new InvalidRequestError(`invalid ${field}`, [{ field, message: problem }]);
      }
    }
    const row = this.deps.repo.update(current.id, {
      ...(changes.schedule !== undefined && { schedule: changes.schedule }),
      ...(changes.schedule_timezone !== undefined && { schedule_timezone: changes.schedule_timezone }),
      ...(changes.default_options !== undefined && { default_options: changes.default_options }),
      updated_at: new Date().toISOString(),
    });
    // Deleted since require() (another request or the CLI).
    if (!row) throw new NotFoundError("domain", id);
    if (changes.schedule !== undefined || changes.schedule_timezone !== undefined) this.deps.onScheduleChange?.();
    return this.view(row);
  }

  /** The domain registered under `name`, canonicalised as on registration (case, punycode, default port). */
  findByName(name: string): DomainRecord | undefined {
    let canonical: string;
    try {
      canonical = resolveDomain({ name }).name;
    } catch {
      return undefined;
    }
    return this.deps.repo.findByName(canonical);
  }

  /** Domains with a schedule, for the scheduler. */
  scheduled(): DomainRecord[] {
    return this.deps.repo.scheduled();
  }

  /**
   * Runs every verification method; the first that passes verifies the domain. An already verified
   * domain is returned as it is. Otherwise DomainNotVerifiedError lists each method's reason.
   */
  async verify(id: string): Promise<DomainView> {
    const row = this.require(id);
    if (row.verified_at) return this.view(row);
    const results = await this.deps.verifier.verify({ name: row.name, rootUrl: row.root_url, token: row.verification_token });
    const passed = results.find((r) => r.passed);
    if (!passed) {
      throw new DomainNotVerifiedError(
        `domain ${row.name} could not be verified`,
        results.map((r) => ({ method: r.method, message: r.reason })),
      );
    }
    const now = new Date().toISOString();
    // The checks take seconds: the domain may have been deleted meanwhile.
    const verified = this.deps.repo.update(row.id, { verified_at: now, verified_by: passed.method, updated_at: now });
    if (!verified) throw new NotFoundError("domain", id);
    return this.view(verified);
  }
}
