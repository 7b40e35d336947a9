import type { Config } from "../config/schema.ts";
import type { DomainsService } from "../services/domains.service.ts";
import { scheduleProblem } from "../services/schedule.ts";

/**
 * The `schedules:` section of the config file, applied at start-up: each entry sets its domain's schedule, time
 * zone and default options (the file wins over what PATCH set). Problems are returned as config-style lines
 * ("schedules[0].domain: …") so `serve` stops with them before anything runs.
 */
export async function applyConfiguredSchedules(entries: Config["schedules"], domains: DomainsService): Promise<string[]> {
  const problems: string[] = [];
  for (const [index, entry] of entries.entries()) {
    const domain = await domains.findByName(entry.domain);
    if (domain === undefined) {
      problems.push(`schedules[${index}].domain: no domain named "${entry.domain}"; register it first (linkpatrol domains add ${entry.domain})`);
      continue;
    }
    const problem = scheduleProblem(entry.cron, entry.timezone);
    if (problem !== null) {
      problems.push(`schedules[${index}].cron: ${problem}`);
      continue;
    }
    const current = await domains.require(domain.id);
    const unchanged =
      current.schedule === entry.cron &&
      current.schedule_timezone === entry.timezone &&
      JSON.stringify(current.default_options) === JSON.stringify(entry.options ?? current.default_options);
    if (!unchanged) {
      await domains.update(domain.id, {
        schedule: entry.cron,
        schedule_timezone: entry.timezone,
        ...(entry.options !== undefined && { default_options: entry.options }),
      });
    }
  }
  return problems;
}
