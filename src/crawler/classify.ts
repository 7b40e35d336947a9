import type { LinkOutcome, LinkVerdict } from "../core/link-outcome.ts";

/**
 * From an outcome to the stored verdict (CONTRACT "Crawls and links"): an answer ≥ 400 is broken, no answer
 * is broken with status 0 and the reason, and `accept_status` codes are never broken. Bot walls (401, 403,
 * 429 and LinkedIn's 999) on *external* targets are not broken links but warnings: the page exists, the
 * site just refuses crawlers. On the domain's own pages they are broken: the owner can fix those.
 */

const BOT_WALL_STATUSES: ReadonlySet<number> = new Set([401, 403, 429, 999]);

export interface ClassifyContext {
  /** The target is on the crawled domain's host and port. */
  internal: boolean;
  /** Statuses configured never to count as broken (`crawler.accept_status`). */
  acceptStatus: ReadonlySet<number>;
}

/** The verdict for one checked target. */
export function classifyOutcome(outcome: LinkOutcome, context: ClassifyContext): LinkVerdict {
  if (outcome.kind === "no_answer") {
    return { status_code: 0, is_broken: true, error: outcome.message, warning: null };
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
