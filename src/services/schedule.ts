import { Cron } from "croner";

/**
 * Recurring-crawl schedules: standard 5-field cron ("0 3 * * *") or a nickname ("@daily"). croner also
 * accepts a seconds field, which would allow a crawl every second: refused here.
 */

const NICKNAMES = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]);

/** True when `expression` is a 5-field cron pattern or a nickname that croner can run. */
export function isValidCron(expression: string): boolean {
  const text = expression.trim();
  if (!NICKNAMES.has(text.toLowerCase()) && text.split(/\s+/).length !== 5) return false;
  try {
    new Cron(text, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}
