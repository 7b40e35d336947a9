import type { LinkOutcome, LinkVerdict } from "../core/link-outcome.ts";
import { cleanPageText } from "../core/visible-text.ts";
import type { UncheckableReason } from "./extract.ts";
import { MAX_URL_LENGTH } from "./normalize.ts";

/**
 * An outcome and its findings → the stored verdict (docs/api.md "Links and broken links"). Bot walls (401, 403,
 * 429, 999) are warnings on external targets, broken on the domain's own pages, which the owner can fix.
 */

const BOT_WALL_STATUSES: ReadonlySet<number> = new Set([401, 403, 429, 999]);

export interface ClassifyContext {
  /** The target is on the crawled domain's host and port. */
  internal: boolean;
  /** Statuses configured never to count as broken (`crawler.accept_status`). */
  acceptStatus: ReadonlySet<number>;
}

/** What fetching or reading a target found besides its answer; each kind has one row in FINDINGS. */
export type Finding =
  /** The page is the site's "not found" page; `broken` when the crawl counts soft 404s as broken (`soft_404_broken`). */
  | { kind: "soft_404"; broken: boolean }
  /** A limit cut the page or stylesheet short. */
  | { kind: "cut"; cut: PageCut; what: "page" | "stylesheet" }
  /** A redirect was not followed: robots.txt disallows its target, or an ignore rule (`rule`) excludes it. */
  | { kind: "not_followed"; url: string; rule: string | null };

type FindingOf<K extends Finding["kind"]> = Extract<Finding, { kind: K }>;

/**
 * What each finding does to a verdict: the warning it adds (given the answer's status) and whether it makes the
 * link broken. The rows' order is the order of their warnings in the verdict, before the answer's own.
 */
const FINDINGS: { [K in Finding["kind"]]: (finding: FindingOf<K>, status: number) => { warning: string; broken: boolean } } = {
  soft_404: (finding, status) => ({
    warning: `soft_404: answers HTTP ${status} with the site's "not found" page (the page a URL that does not exist gets)`,
    broken: finding.broken,
  }),
  cut: (finding) => ({ warning: pageCutWarning(finding.cut, finding.what), broken: false }),
  not_followed: (finding) => {
    const why = finding.rule === null ? "robots.txt disallows" : `the ignore rule ${JSON.stringify(finding.rule)} excludes`;
    return { warning: `redirects to ${finding.url}, which ${why}; not followed`, broken: false };
  },
};
const FINDING_ORDER = Object.keys(FINDINGS) as Finding["kind"][];

/** The verdict for one checked target: its outcome, then what was found, composed here and nowhere else. */
export function composeVerdict(outcome: LinkOutcome, findings: readonly Finding[], context: ClassifyContext): LinkVerdict {
  const verdict = classifyOutcome(outcome, context);
  if (findings.length === 0) return verdict;
  const warnings: string[] = [];
  let broken = verdict.is_broken;
  for (const kind of FINDING_ORDER) {
    for (const finding of findings) {
      if (finding.kind !== kind) continue;
      const effect = (FINDINGS[kind] as (finding: Finding, status: number) => { warning: string; broken: boolean })(finding, verdict.status_code);
      warnings.push(effect.warning);
      broken ||= effect.broken;
    }
  }
  if (verdict.warning !== null) warnings.push(verdict.warning);
  return { ...verdict, is_broken: broken, warning: warnings.join("; ") };
}

/** The verdict an outcome alone gives. */
function classifyOutcome(outcome: LinkOutcome, context: ClassifyContext): LinkVerdict {
  if (outcome.kind === "no_answer") {
    // A message may quote what the server sent (a certificate's names, a Location header): stored clean.
    return { status_code: 0, is_broken: true, error: cleanPageText(outcome.message), warning: null };
  }
  const { status } = outcome;
  if (status < 400 || context.acceptStatus.has(status)) {
    return { status_code: status, is_broken: false, error: null, warning: null };
  }
  if (!context.internal && BOT_WALL_STATUSES.has(status)) {
    return {
      status_code: status,
      is_broken: false,
      error: null,
      warning: `HTTP ${status}: the site refuses automated checks; the link was not judged broken`,
    };
  }
  return { status_code: status, is_broken: true, error: null, warning: null };
}

const UNCHECKABLE_ERRORS: Record<UncheckableReason, string> = {
  invalid_url: "invalid_url: the href is not a valid URL, so no request was made",
  url_too_long: `url_too_long: the URL is longer than ${MAX_URL_LENGTH} characters, the crawler's limit, so no request was made`,
};

/** The verdict for an href that cannot be checked: broken, since a visitor cannot follow it either. */
export function uncheckableVerdict(reason: UncheckableReason): LinkVerdict {
  return { status_code: 0, is_broken: true, error: UNCHECKABLE_ERRORS[reason], warning: null };
}

/**
 * Whether a stored verdict is one uncheckableVerdict gave (no request made): read back from the crawler's own
 * words for a reused page's links (page-reuse.ts), whose targets must again be recorded without a request.
 */
export function isUncheckableVerdict(statusCode: number | null, error: string | null): boolean {
  return statusCode === 0 && error !== null && UNCHECKABLE_TEXTS.has(error);
}
const UNCHECKABLE_TEXTS: ReadonlySet<string> = new Set(Object.values(UNCHECKABLE_ERRORS));

/** Which limit cut a page short: its body at max_body_bytes, or its links at max_links_per_page. */
export type PageCut = { limit: "max_body_bytes"; value: number } | { limit: "max_links_per_page"; value: number; dropped: number };

/** The warning a page (or a stylesheet) carries when a limit cut it short. */
export function pageCutWarning(cut: PageCut, what: "page" | "stylesheet" = "page"): string {
  if (cut.limit === "max_body_bytes") return `${what} cut at ${cut.value} bytes (crawler.max_body_bytes): links after the cut were not seen`;
  return `${what} has more than ${cut.value} links (crawler.max_links_per_page): the ${cut.dropped} after them were not checked`;
}
