import { randomBytes } from "node:crypto";
import { ConflictError, CrawlInProgressError, DomainNotVerifiedError, InvalidRequestError, NotFoundError } from "../core/errors.ts";
import { canonicalId, newId } from "../core/ids.ts";
import type { CrawlOptions } from "../core/crawl-options.ts";
import type { ErrorDetail } from "../core/errors.ts";
import { hasNoRules, ignoreRulesProblems, type IgnoreRules } from "../core/ignore-rules.ts";
import { UrlPatterns } from "../core/url-patterns.ts";
import type { AddressPolicy } from "../net/address-policy.ts";
import type { Resolve } from "../net/resolve.ts";
import { assertUrlAllowed } from "../net/url-policy.ts";
import type { DomainRecord, DomainsRepo } from "../store/domains.repo.ts";
import type { DomainVerifier } from "../verification/verifier.ts";
import { parseDomainName, resolveDomain, resolveRootUrl } from "./domain-name.ts";
import { toDomainView, type DomainView } from "./domain-view.ts";
import { isTimeZone, scheduleProblem } from "./schedule.ts";
import { otherScheme, readSiteInput } from "./site-input.ts";

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
  activeCrawlOf?: (domainId: string) => Promise<string | undefined>;
  /** The newest crawl of each domain that has one, for `last_crawl_id` (a page of domains in one statement). */
  lastCrawlsOf?: (domainIds: readonly string[]) => Promise<Map<string, string>>;
  /** A domain's schedule changed (or the domain went): the scheduler reloads its jobs (awaited, so the answer follows the reload). */
  onScheduleChange?: () => Promise<void> | void;
  /** Removes the domain's ended crawls a little at a time (services/retention.ts), before the domain goes. */
  removeEndedCrawlsOf?: (domainId: string) => Promise<unknown>;
}

/** What a change of a domain may set; a field left out keeps its value, `null` clears it. */
export interface DomainChangeInput {
  schedule?: string | null;
  schedule_timezone?: string | null;
  default_options?: CrawlOptions | null;
  ignore_rules?: IgnoreRules | null;
}

/**
 * How the start page of a site typed in the dashboard was chosen: as typed (a URL, or a start page given), https
 * (it answered), http (https could not connect, http answered), or https though nothing answered yet.
 */
export type SchemeChoice = { kind: "as_typed" } | { kind: "https" } | { kind: "http"; httpsProblem: string } | { kind: "unreachable"; problem: string };

export class DomainsService {
  constructor(private readonly deps: DomainsServiceDeps) {}

  /** Registers a domain; `vouched` (CLI `--verified`) marks it verified by the operator. */
  async add(input: { name: string; root_url?: string }, vouched = false): Promise<DomainView> {
    const domain = resolveDomain(input);
    await assertUrlAllowed(domain.rootUrl, this.deps.policy, this.deps.resolve);
    const now = new Date().toISOString();
    const row = await this.deps.repo.insertUnlessNameTaken({
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
      const existing = await this.deps.repo.findByName(domain.name);
      throw new ConflictError(`domain ${domain.name} already exists`, [{ field: "name", id: existing?.id ?? null }]);
    }
    return this.view(row);
  }

  /**
   * Registers a site as typed in the dashboard or `domains add`: a pasted URL keeps its scheme and path as the
   * start page; a host tries https and, when https cannot connect but http answers, uses http. `startPage`, when
   * given, is the start page as it stands. Says how the start page was chosen.
   */
  async addSite(typed: string, startPage: string | null, vouched = false): Promise<{ domain: DomainView; choice: SchemeChoice }> {
    const site = readSiteInput(typed);
    if (startPage !== null) return { domain: await this.add({ name: site.name, root_url: startPage }, vouched), choice: { kind: "as_typed" } };
    if (site.kind === "url") return { domain: await this.add({ name: site.name, root_url: site.rootUrl }, vouched), choice: { kind: "as_typed" } };
    const https = resolveDomain({ name: site.name, root_url: new URL(site.path, `https://${site.name}/`).href });
    // What would refuse the site anyway is said before any probe: a name taken, an address not allowed.
    const taken = await this.deps.repo.findByName(https.name);
    if (taken) throw new ConflictError(`domain ${https.name} already exists`, [{ field: "name", id: taken.id }]);
    await assertUrlAllowed(https.rootUrl, this.deps.policy, this.deps.resolve);
    const reach = this.deps.verifier.reach?.bind(this.deps.verifier);
    if (reach === undefined) return { domain: await this.add({ name: site.name, root_url: https.rootUrl }, vouched), choice: { kind: "https" } };
    const plainUrl = otherScheme(https.rootUrl, site.name);
    // Both at once: a site that never answers costs one timeout, not two, while the form waits.
    const [secure, plain] = await Promise.all([reach(https.rootUrl), reach(plainUrl)]);
    if (secure.answered) return { domain: await this.add({ name: site.name, root_url: https.rootUrl }, vouched), choice: { kind: "https" } };
    if (!plain.answered)
      return { domain: await this.add({ name: site.name, root_url: https.rootUrl }, vouched), choice: { kind: "unreachable", problem: secure.reason } };
    return { domain: await this.add({ name: site.name, root_url: plainUrl }, vouched), choice: { kind: "http", httpsProblem: secure.reason } };
  }

  async list(page: number, limit: number): Promise<Page<DomainView>> {
    const rows = await this.deps.repo.page((page - 1) * limit, limit);
    const lastCrawls = (await this.deps.lastCrawlsOf?.(rows.map((row) => row.id))) ?? new Map<string, string>();
    return { items: rows.map((row) => toDomainView(row, { lastCrawlId: lastCrawls.get(row.id) ?? null })), total: await this.deps.repo.count() };
  }

  async get(id: string): Promise<DomainView> {
    return this.view(await this.require(id));
  }

  /** The resource: the stored row plus what is derived (next scheduled run, newest crawl). */
  private async view(row: DomainRecord): Promise<DomainView> {
    return toDomainView(row, { lastCrawlId: (await this.deps.lastCrawlsOf?.([row.id]))?.get(row.id) ?? null });
  }

  /** The stored row, for services that act on a domain (crawls). */
  async require(id: string): Promise<DomainRecord> {
    const key = canonicalId(id);
    const row = key === null ? undefined : await this.deps.repo.findById(key);
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
    if (key === null || (await this.deps.repo.findById(key)) === undefined) throw new NotFoundError("domain", id);
    await this.refuseWhileCrawling(key);
    await this.deps.removeEndedCrawlsOf?.(key);
    await this.refuseWhileCrawling(key);
    if (!(await this.deps.repo.delete(key))) throw new NotFoundError("domain", id);
    await this.deps.onScheduleChange?.();
  }

  private async refuseWhileCrawling(domainId: string): Promise<void> {
    const active = await this.deps.activeCrawlOf?.(domainId);
    if (active !== undefined) throw new CrawlInProgressError(domainId, active);
  }

  /**
   * Changes a domain: its start page (same host and port; refused while a crawl of it is pending or running, so a
   * crawl never sees its start page move), and what `update` changes. All or nothing.
   */
  async edit(id: string, changes: DomainChangeInput & { root_url?: string }): Promise<DomainView> {
    const current = await this.require(id);
    if (changes.root_url === undefined) return this.update(id, changes);
    const rootUrl = resolveRootUrl(parseDomainName(current.name), changes.root_url);
    await assertUrlAllowed(rootUrl, this.deps.policy, this.deps.resolve);
    return this.write(current.id, changes, rootUrl);
  }

  /** Sets the recurring-crawl schedule, its time zone, default crawl options and/or ignore rules; `null` clears a field. */
  async update(id: string, changes: DomainChangeInput): Promise<DomainView> {
    return this.write((await this.require(id)).id, changes, undefined);
  }

  /** Validates `changes` against the domain as it is now and writes them in one statement. */
  private async write(id: string, changes: DomainChangeInput, rootUrl: string | undefined): Promise<DomainView> {
    const current = await this.require(id);
    const schedule = changes.schedule !== undefined ? changes.schedule : current.schedule;
    const timezone = changes.schedule_timezone !== undefined ? changes.schedule_timezone : current.schedule_timezone;
    if (schedule !== null) {
      const problem = scheduleProblem(schedule, timezone);
      if (problem !== null) {
        const field =
          (changes.schedule === undefined && changes.schedule_timezone !== undefined) || (timezone !== null && !isTimeZone(timezone))
            ? "schedule_timezone"
            : "schedule";
        throw new InvalidRequestError(`invalid ${field}`, [{ field, message: problem }]);
      }
    }
    const rules = changes.ignore_rules === undefined ? current.ignore_rules : changes.ignore_rules;
    if (rules !== null) this.refuseBadRules(rules, rootUrl ?? current.root_url);
    if (rootUrl !== undefined && rootUrl !== current.root_url) await this.refuseWhileCrawling(current.id);
    const row = await this.deps.repo.update(current.id, {
      ...(rootUrl !== undefined && { root_url: rootUrl }),
      ...(changes.schedule !== undefined && { schedule: changes.schedule }),
      ...(changes.schedule_timezone !== undefined && { schedule_timezone: changes.schedule_timezone }),
      ...(changes.default_options !== undefined && { default_options: changes.default_options }),
      // No rule at all is stored as none, so "cleared" and "emptied" read the same.
      ...(changes.ignore_rules !== undefined && {
        ignore_rules: changes.ignore_rules === null || hasNoRules(changes.ignore_rules) ? null : changes.ignore_rules,
      }),
      updated_at: new Date().toISOString(),
    });
    // Deleted since require() (another request or the CLI).
    if (!row) throw new NotFoundError("domain", id);
    if (changes.schedule !== undefined || changes.schedule_timezone !== undefined) await this.deps.onScheduleChange?.();
    return this.view(row);
  }

  /** Refuses rules that are not valid patterns, and an `exclude` that would keep out the start page itself. */
  private refuseBadRules(rules: IgnoreRules, rootUrl: string): void {
    const problems: ErrorDetail[] = ignoreRulesProblems(rules).map((p) => ({ ...p }));
    if (problems.length === 0) {
      const rule = new UrlPatterns(rules.exclude).match(rootUrl);
      if (rule !== null)
        problems.push({
          field: "ignore_rules.exclude",
          message: `${JSON.stringify(rule)} would exclude the start page ${rootUrl}, so nothing could be crawled`,
        });
    }
    if (problems.length > 0) throw new InvalidRequestError("invalid ignore rules", problems);
  }

  /** The domain registered under `name`, canonicalised as on registration (case, punycode, default port). */
  async findByName(name: string): Promise<DomainRecord | undefined> {
    let canonical: string;
    try {
      canonical = resolveDomain({ name }).name;
    } catch {
      return undefined;
    }
    return this.deps.repo.findByName(canonical);
  }

  /** Domains with a schedule, for the scheduler. */
  scheduled(): Promise<DomainRecord[]> {
    return this.deps.repo.scheduled();
  }

  /**
   * Runs every verification method; the first that passes verifies the domain. An already verified
   * domain is returned as it is. Otherwise DomainNotVerifiedError lists each method's reason.
   */
  async verify(id: string): Promise<DomainView> {
    const row = await this.require(id);
    if (row.verified_at) return this.view(row);
    const results = await this.deps.verifier.verify({ name: row.name, rootUrl: row.root_url, token: row.verification_token });
    const passed = results.find((r) => r.passed);
    if (!passed) {
      const details: ErrorDetail[] = results.map((r) => ({ method: r.method, message: r.reason }));
      const hint = await this.schemeHint(row);
      if (hint !== null) details.push(hint);
      const why = hint === null ? "" : `: ${hint.message}`;
      throw new DomainNotVerifiedError(`domain ${row.name} could not be verified${why}`, details);
    }
    const now = new Date().toISOString();
    // The checks take seconds: the domain may have been deleted meanwhile.
    const verified = await this.deps.repo.update(row.id, { verified_at: now, verified_by: passed.method, updated_at: now });
    if (!verified) throw new NotFoundError("domain", id);
    return this.view(verified);
  }

  /**
   * After a failed verification: when the start page's scheme gets no HTTP answer but the other scheme on the same
   * host and port does, a detail saying so and the start page to use (`suggested_root_url`); otherwise null.
   */
  private async schemeHint(row: DomainRecord): Promise<ErrorDetail | null> {
    const reach = this.deps.verifier.reach?.bind(this.deps.verifier);
    if (reach === undefined) return null;
    const other = otherScheme(row.root_url, row.name);
    const [here, there] = await Promise.all([reach(row.root_url), reach(other)]);
    if (here.answered || !there.answered) return null;
    const origin = new URL(row.root_url).origin;
    const speaks = other.startsWith("http:") ? "plain HTTP" : "HTTPS";
    return {
      field: "root_url",
      message: `${here.reason} on ${origin}/, but ${new URL(other).origin}/ answers ${speaks}: use ${other} as the start page`,
      suggested_root_url: other,
    };
  }
}
