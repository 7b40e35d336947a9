import type { Config } from "../config/schema.ts";
import type { DomainsService } from "../services/domains.service.ts";
import { scheduleProblem } from "../services/schedule.ts";

/**
 * The `schedules:` section of the config file, applied at start-up: each entry sets its domain's schedule, time
 * zone and default options (the file wins over what PATCH set). Problems are returned as config-style lines
 * ("schedules[0].domain: …") so `serve` stops with them before anything runs.
 */
export function applyConfiguredSchedules(entries: Config["schedules"], domains: DomainsService): string[] {
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    const domain = domains.findByName(entry.domain);
    if (domain === undefined) {
      problems.push(`schedules[${index}].domain: no domain named "${entry.domain}"; register it first (linkpatrol domains add ${entry.domain})`);
      return;
    }
    const problem = scheduleProblem(entry.cron, entry.timezone);
    if (problem !== null) {
      problems.push(`schedules[${index}].cron: ${problem}`);
      return;
    }
    const current = domains.require(domain.id);
    const unchanged =
      current.schedule === entry.cron &&
      current.schedule_timezone === entry.timezone &&
      JSON.stringify(current.default_options) === JSON.stringify(entry.options ?? current.default_options);
    if (!unchanged) {
      domains.update(domain.id, {
        schedule: entry.cron,
        schedule_timezone: entry.timezone,
        ...(entry.options !== undefined && { default_options: entry.options }),
      });
    }
  });
  return problems;
}
