/**
 * A small structured logger: one JSON object per line on stderr, so journald and log shippers can parse it.
 * Callers pass fields, never pre-formatted secrets; keys and tokens must not be logged at info level.
 */

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Whether lines at `at` are written; lets a caller skip gathering fields for a line that would be dropped. */
  enabled(at: LogLevel): boolean;
}

/**
 * A logger writing lines at or above `level` to `write` (stderr by default). `base` fields (the node's name) go
 * on every line, after time, level and msg.
 */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(line),
  base: Record<string, unknown> = {},
): Logger {
  const emit = (at: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...base, ...fields })}\n`);
  };
  const enabled = (at: LogLevel) => ORDER[at] >= ORDER[level];
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error"), enabled };
}

/** A logger that drops everything (tests, one-shot CLI commands). */
export const silentLogger: Logger = createLogger("error", () => {});
