import { Cron } from "croner";

/** True when `expression` is a cron pattern croner accepts (5 or 6 fields, or a nickname like @daily). */
export function isValidCron(expression: string): boolean {
  try {
    new Cron(expression, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}
