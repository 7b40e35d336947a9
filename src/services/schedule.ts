import { Cron } from "croner";

/**
 * Recurring-crawl schedules: cron with 5 fields ("0 3 * * *"), 6 fields with seconds first ("0,30 * * * * *"),
 * or a nickname ("@daily"), read in an optional IANA time zone. A schedule shorter than a crawl is harmless: a
 * run due while the domain's crawl is still in progress is skipped, never doubled.
 */

const NICKNAMES = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);

/** Why a schedule is unusable, or null when croner can run it. */
export function scheduleProblem(expression: string, timezone: string | null = null): string | null {
  const text = expression.trim();
  const fields = text.split(/\s+/).length;
  if (!NICKNAMES.has(text.toLowerCase()) && fields !== 5 && fields !== 6) {
    return 'not a cron expression: use 5 fields ("0 3 * * *"), 6 with seconds first, or a nickname such as "@daily"';
  }
  if (timezone !== null && !isTimeZone(timezone)) return `unknown time zone "${timezone}" (use an IANA name such as "Europe/Berlin")`;
  try {
    new Cron(text, { paused: true, timezone: timezone ?? undefined }).stop();
    return null;
  } catch (error) {
    return `not a cron expression croner can run: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** True when `expression` is a schedule croner can run. */
export function isValidCron(expression: string): boolean {
  return scheduleProblem(expression) === null;
}

/** True for an IANA time zone name the runtime knows. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** When the schedule next fires after `from` (default now), or null for none. */
export function nextRunOf(expression: string, timezone: string | null, from = new Date()): Date | null {
  const job = new Cron(expression.trim(), { paused: true, timezone: timezone ?? undefined });
  try {
    return job.nextRun(from);
  } finally {
    job.stop();
  }
}

/**
 * The schedule's latest run at or before `at`: the nominal time a run that fires now stands for (a node's timer
 * fires a little after it), the same on every node however late each fires.
 */
export function runAtOrBefore(expression: string, timezone: string | null, at = new Date()): Date | null {
  const job = new Cron(expression.trim(), { paused: true, timezone: timezone ?? undefined });
  try {
    return job.previousRuns(1, new Date(at.getTime() + 1))[0] ?? null;
  } finally {
    job.stop();
  }
}
