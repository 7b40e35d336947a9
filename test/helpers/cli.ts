import { join } from "node:path";

/**
 * Runs linkpatrol as a child process: from source (`bun src/main.ts`) or a compiled binary, with an
 * environment stripped of the caller's LINKPATROL_* variables. Bounded by a timeout.
 */

export const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` (default: bun src/main.ts) with `args`; kills it after `timeoutMs`. */
export async function runCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; command?: string[]; timeoutMs?: number } = {},
): Promise<CliResult> {
  const proc = Bun.spawn({
    cmd: [...(options.command ?? [process.execPath, MAIN]), ...args],
    cwd: options.cwd,
    env: { ...cleanEnv(), ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: options.timeoutMs ?? 30_000,
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { exitCode, stdout, stderr };
}

/** The current environment without LINKPATROL_* overrides, so tests see only what they set. */
export function cleanEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !k.startsWith("LINKPATROL_") && v !== undefined)) as Record<string, string>;
}

/**
 * Sets up a new install's store as `linkpatrol migrate` does (the first `serve` would too): the keys and domains
 * commands open an existing store only. `args`: --config FILE, or nothing with LINKPATROL_STORAGE_PATH in `env`.
 */
export async function setUpStore(args: string[], env: Record<string, string> = {}): Promise<void> {
  const res = await runCli(["migrate", ...args], { env });
  if (res.exitCode !== 0) throw new Error(`migrate failed (${res.exitCode}): ${res.stderr}`);
}
