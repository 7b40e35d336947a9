#!/usr/bin/env bun
import { VERSION } from "./core/version.ts";
import { err, EXIT_OK, EXIT_USAGE, out, UsageError } from "./cli/usage.ts";

/**
 * The `linkpatrol` entry point. Each command's module is loaded only when it runs, so `version` does not pay for
 * the API's start-up (docs/decisions.md, "Start-up: a command loads what it runs").
 */

const HELP = `linkpatrol ${VERSION}: self-hosted link checking

Usage: linkpatrol <command> [options]

Commands:
  serve                      run the HTTP API (see: linkpatrol serve --help)
  check URL                  crawl a site once and report its links (for CI; see: linkpatrol check --help)
  keys create|list|revoke    manage API keys
  domains add|list|verify|edit|delete   manage domains, prove ownership, set ignore rules
  migrate                    apply database migrations
  backup FILE                write a consistent copy of the store while it runs
  store copy --to URL        copy the SQLite store into an empty PostgreSQL database (several nodes)
  store copy --from URL      copy a PostgreSQL store back into a new SQLite store (one appliance)
  config check [FILE]        validate a configuration file
  version                    print the version

Every command takes --config FILE (default ./linkpatrol.yaml, else built-in defaults) and --help.
Docs: README.md, docs/cli.md, and /docs on a running server.`;

type Command = (args: string[]) => number | Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./cli/serve.ts")).serveCommand,
  check: async () => (await import("./cli/check.ts")).checkCommand,
  keys: async () => (await import("./cli/keys.ts")).keysCommand,
  domains: async () => (await import("./cli/domains.ts")).domainsCommand,
  migrate: async () => (await import("./cli/migrate.ts")).migrateCommand,
  backup: async () => (await import("./cli/backup.ts")).backupCommand,
  store: async () => (await import("./cli/store.ts")).storeCommand,
  config: async () => (await import("./cli/config.ts")).configCommand,
  version: async () => (await import("./cli/version.ts")).versionCommand,
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    out(HELP);
    return command === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const name = command === "--version" || command === "-v" ? "version" : command;
  if (!Object.hasOwn(COMMANDS, name)) throw new UsageError(`unknown command: ${command}`);
  const run = await COMMANDS[name]!();
  return run(rest);
}

/** Prints a failure the way its kind is reported; the error classes are loaded here, on the failure path only. */
async function reportFailure(error: unknown): Promise<void> {
  if (error instanceof UsageError) {
    err(`linkpatrol: ${error.message} (see linkpatrol --help)`);
    return;
  }
  const [{ ConfigError }, { AppError }, { SchemaTooNewError }] = await Promise.all([
    import("./config/load.ts"),
    import("./core/errors.ts"),
    import("./store/migrate.ts"),
  ]);
  if (error instanceof ConfigError) {
    err("linkpatrol: invalid configuration:");
    for (const problem of error.problems) err(`  ${problem}`);
  } else if (error instanceof AppError) {
    err(`linkpatrol: ${error.message}`);
    for (const d of error.details ?? []) err(`  ${Object.values(d).join(": ")}`);
  } else if (error instanceof SchemaTooNewError) {
    err(`linkpatrol: ${error.message}`);
  } else {
    err(`linkpatrol: ${error instanceof Error ? error.message : String(error)}`);
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  await reportFailure(error);
  process.exitCode = EXIT_USAGE;
}
