import type { Config } from "./schema.ts";

/**
 * Settings that are valid but work against each other: start-up logs each one (serve) and `config check`
 * prints them. Nothing here stops the service.
 */

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

/** One sentence per problem, naming the keys. */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  const { shutdown_timeout } = config.server;
  if (config.webhooks.timeout > shutdown_timeout) {
    warnings.push(
      `webhooks.timeout (${seconds(config.webhooks.timeout)}) is longer than server.shutdown_timeout (${seconds(shutdown_timeout)}): ` +
        "a delivery attempt in flight at SIGTERM can be cut off, and is then sent again after the restart",
    );
  }
  if (config.notifications.timeout > shutdown_timeout) {
    warnings.push(
      `notifications.timeout (${seconds(config.notifications.timeout)}) is longer than server.shutdown_timeout (${seconds(shutdown_timeout)}): ` +
        "an email or chat attempt in flight at SIGTERM can be cut off, and is then sent again after the restart",
    );
  }
  return warnings;
}
