#!/usr/bin/env bun
import { ConfigError } from "./config/load.ts";
import { AppError } from "./core/errors.ts";
import { VERSION } from "./core/version.ts";
import { SchemaTooNewError } from "./store/migrate.ts";
import { backupCommand } from "./cli/backup.ts";
import { checkCommand } from "./cli/check.ts";
import { configCommand } from "./cli/config.ts";
import { domainsCommand } from "./cli/domains.ts";
import { keysCommand } from "./cli/keys.ts";
import { migrateCommand } from "./cli/migrate.ts";
import { serveCommand } from "./cli/serve.ts";
import { versionCommand } from "./cli/version.ts";
import { err, EXIT_OK, EXIT_USAGE, out, UsageError } from "./cli/usage.ts";

/** The `linkpatrol` entry point: picks the command, runs it, and turns known failures into exit codes. */

const HELP = `linkpatrol ${VERSION}: self-hosted link checking

Usage: linkpatrol <command> [options]

Commands:
  serve                      run the HTTP API (see: linkpatrol serve --help)
  check URL                  crawl a site once and report its links (for CI; see: linkpatrol check --help)
  keys create|list|revoke    manage API keys
  domains add|list|verify    manage domains and prove ownership
  migrate                    apply database migrations
  backup FILE                write a consistent copy of the store while it runs
  config check [FILE]        validate a configuration file
  version                    print the version

Every command takes --config FILE (default ./linkpatrol.yaml, else built-in defaults) and --help.
Docs: README.md, docs/cli.md, and /docs on a running server.`;

const COMMANDS: Record<string, (args: string[]) => number | Promise<number>> = {
  serve: serveCommand,
  check: checkCommand,
  keys: keysCommand,
  domains: domainsCommand,
  migrate: migrateCommand,
  backup: backupCommand,
  config: configCommand,
  version: versionCommand,
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    out(HELP);
    return command === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (command === "--version" || command === "-v") return COMMANDS.version!(rest);
  const run = COMMANDS[command];
  if (!run) throw new UsageError(`unknown command: ${command}`);
  return run(rest);
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    err(`linkpatrol: ${error.message} (see linkpatrol --help)`);
  } else if (error instanceof ConfigError) {
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
  process.exitCode = EXIT_USAGE;
}
