import { randomBytes } from "node:crypto";
import { ConflictError, CrawlInProgressError, DomainNotVerifiedError, InvalidRequestError, NotFoundError } from "../core/errors.ts";
import { canonicalId, newId } from "../core/ids.ts";
import type { CrawlOptions } from "../core/crawl-options.ts";
import type { AddressPolicy } from "../net/address-policy.ts";
import type { Resolve } from "../net/resolve.ts";
import { assertUrlAllowed } from "../net/url-policy.ts";
import type { DomainsRepo } from "../store/domains.repo.ts";
import type { DomainRow } from "../store/schema.ts";
import type { DomainVerifier } from "../verification/verifier.ts";
import { resolveDomain } from "./domain-name.ts";
import { toDomainView, type DomainView } from "./domain-view.ts";
import { isValidCron } from "./schedule.ts";

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
      rootUrl: domain.rootUrl,
      verificationToken: randomBytes(24).toString("base64url"),
      verifiedAt: vouched ? now : null,
      verifiedBy: vouched ? "operator" : null,
      createdAt: now,
    });
    // The unique index decides, so two concurrent registrations (API and CLI) cannot both win.
    if (!row) {
      const existing = this.deps.repo.findByName(domain.name);
      throw new ConflictError(`domain ${domain.name} already exists`, [{ field: "name", id: existing?.id ?? null }]);
    }
    return toDomainView(row);
  }

  list(page: number, limit: number): Page<DomainView> {
    return { items: this.deps.repo.page((page - 1) * limit, limit).map(toDomainView), total: this.deps.repo.count() };
  }

  get(id: string): DomainView {
    return toDomainView(this.require(id));
  }

  /** The stored row, for services that act on a domain (crawls). */
  require(id: string): DomainRow {
    const key = canonicalId(id);
    const row = key === null ? undefined : this.deps.repo.findById(key);
    if (!row) throw new NotFoundError("domain", id);
    return row;
  }

  /** Deletes a domain and, with it, its finished crawls; refused while a crawl of it is pending or running. */
  delete(id: string): void {
    const key = canonicalId(id);
    const active = key === null ? undefined : this.deps.activeCrawlOf?.(key);
    if (key !== null && active !== undefined) throw new CrawlInProgressError(key, active);
    if (key === null || !this.deps.repo.delete(key)) throw new NotFoundError("domain", id);
  }

  /** Sets the recurring-crawl schedule and/or default crawl options; `null` clears a field. */
  update(id: string, changes: { schedule?: string | null; default_options?: CrawlOptions | null }): DomainView {
    const { id: key } = this.require(id);
    if (changes.schedule != null && !isValidCron(changes.schedule)) {
      throw new InvalidRequestError("invalid schedule", [
        { field: "schedule", message: "not a 5-field cron expression or nickname (e.g. \"0 3 * * *\" or \"@daily\")" },
      ]);
    }
    const row = this.deps.repo.update(key, {
      ...(changes.schedule !== undefined && { schedule: changes.schedule }),
      ...(changes.default_options !== undefined && { defaultOptions: changes.default_options }),
      updatedAt: new Date().toISOString(),
    });
    // Deleted since require() (another request or the CLI).
    if (!row) throw new NotFoundError("domain", id);
    return toDomainView(row);
  }

  /**
   * Runs every verification method; the first that passes verifies the domain. An already verified
   * domain is returned as it is. Otherwise DomainNotVerifiedError lists each method's reason.
   */
  async verify(id: string): Promise<DomainView> {
    const row = this.require(id);
    if (row.verifiedAt) return toDomainView(row);
    const results = await this.deps.verifier.verify({ name: row.name, rootUrl: row.rootUrl, token: row.verificationToken });
    const passed = results.find((r) => r.passed);
    if (!passed) {
      throw new DomainNotVerifiedError(
        `domain ${row.name} could not be verified`,
        results.map((r) => ({ method: r.method, message: r.reason })),
      );
    }
    const now = new Date().toISOString();
    // The checks take seconds: the domain may have been deleted meanwhile.
    const verified = this.deps.repo.update(row.id, { verifiedAt: now, verifiedBy: passed.method, updatedAt: now });
    if (!verified) throw new NotFoundError("domain", id);
    return toDomainView(verified);
  }
}
