import type { Context } from "hono";
import { AppError, STATUS_OF, type ErrorCode, type ErrorDetail } from "../core/errors.ts";

/**
 * Why a form was refused, in the page's words: one sentence, then one line per problem naming the field by its
 * label. Only AppErrors become problems; anything else is rethrown.
 */

export interface Problem {
  /** The plain sentence: "The schedule was not saved." */
  message: string;
  /** One line per problem, its subject first. */
  lines: string[];
  /** A start page the service suggests (a verification that failed on the scheme). */
  suggestedRootUrl?: string;
}

/** What the forms call their fields and the verification methods. */
const LABELS: Record<string, string> = {
  name: "Site",
  root_url: "Start page",
  schedule: "Schedule",
  schedule_timezone: "Time zone",
  default_options: "Default options",
  url: "Endpoint URL",
  events: "Events",
  scopes: "Scopes",
  dns_txt: "DNS TXT record",
  http_file: "File on the site",
  meta_tag: "Meta tag",
  "ignore_rules.exclude": "Not checked",
  "ignore_rules.mute": "Never counted broken",
};

/** "ignore_rules.mute.2" → "Never counted broken, line 3"; known fields by their label; others in words. */
function labelOf(field: string, labels: Record<string, string> = {}): string {
  const line = /^(ignore_rules\.(?:exclude|mute))\.(\d+)$/.exec(field);
  if (line !== null) return `${LABELS[line[1]!]}, line ${Number(line[2]) + 1}`;
  return labels[field] ?? LABELS[field] ?? field.replaceAll("_", " ").replaceAll(".", " ");
}

/** The line a detail stands for, or null when it carries no reason (an id, a crawl id). */
function lineOf(detail: ErrorDetail, labels: Record<string, string>): string | null {
  if (typeof detail.message !== "string" || detail.message === "") return null;
  const subject = typeof detail.method === "string" ? detail.method : typeof detail.field === "string" ? detail.field : null;
  return subject === null ? detail.message : `${labelOf(subject, labels)}: ${detail.message}`;
}

/** How a form says it was refused. */
export interface Refusal {
  /** What did not happen, in one plain sentence: "The schedule was not saved." */
  sentence: string;
  /** The form's own field labels, where they differ from the domain forms'. */
  labels?: Record<string, string>;
  /** The whole message for an error code the form explains in its own words. */
  explained?: Partial<Record<ErrorCode, string>>;
}

/**
 * The answer to a refused form: `page` again (with what was typed, which the caller keeps) showing the problem
 * `error` makes, under the status core/errors.ts gives its code. What is not a refusal to show beside the form (not
 * an AppError; a 401, 403 or 404) is rethrown, to the dashboard's error page.
 */
export function showAgain<R>(c: Context, error: unknown, refusal: string | Refusal, page: (problem: Problem) => R): R {
  if (!(error instanceof AppError) || error.code === "forbidden" || error.code === "not_found" || error.code === "unauthorized") throw error;
  const { sentence, labels = {}, explained = {} } = typeof refusal === "string" ? { sentence: refusal } : refusal;
  const details = error.details ?? [];
  const lines = details.map((detail) => lineOf(detail, labels)).filter((line): line is string => line !== null);
  const suggestion = details.find((d) => typeof d.suggested_root_url === "string")?.suggested_root_url;
  // Without a line of its own, the service's message is the reason.
  const message = explained[error.code] ?? (lines.length === 0 ? `${sentence.replace(/\.$/, "")}: ${error.message}.` : sentence);
  c.status(STATUS_OF[error.code]);
  return page({ message, lines, ...(typeof suggestion === "string" && { suggestedRootUrl: suggestion }) });
}
