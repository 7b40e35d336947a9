import { parseArgs, type ParseArgsConfig } from "node:util";

/**
 * Shared CLI plumbing: argument parsing that reports mistakes as UsageError (exit 2), and the
 * exit codes every command uses.
 */

export const EXIT_OK = 0;
/** Something was checked and found wanting (a failed verification; later: broken links). */
export const EXIT_FAILED = 1;
/** Bad usage, bad config, or a runtime error. */
export const EXIT_USAGE = 2;

/** A mistake in how the command was called; the message is printed with a pointer to --help. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Options every command takes. */
const COMMON_OPTIONS = {
  config: { type: "string", short: "c" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

/** parseArgs in strict mode, with errors turned into UsageError. */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Refuses positional arguments a command does not take (rather than silently ignoring them). */
export function rejectExtraArgs(extra: readonly string[]): void {
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
}

/** Writes a line to stdout. */
export function out(line = ""): void {
  process.stdout.write(`${line}\n`);
}

/** Writes a line to stderr. */
export function err(line: string): void {
  process.stderr.write(`${line}\n`);
}
