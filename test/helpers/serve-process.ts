import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, MAIN } from "./cli.ts";
import { StreamWatcher } from "./process-output.ts";

/**
 * `linkpatrol serve` as a child process from source, for tests that kill it (SIGKILL, restarts): the process,
 * its stderr, and the API base URL once it logs that it listens. `apiClient` calls that API with a key.
 */

export interface ServeProcess {
  proc: ReturnType<typeof Bun.spawn>;
  stderr: StreamWatcher;
  /** Resolves to "http://127.0.0.1:PORT/v1" once the server listens. */
  ready: Promise<string>;
}

/**
 * Writes `dir`/linkpatrol.yaml for a test server: 127.0.0.1 on a free port, its store in `dir`, `key` as the
 * bootstrap key, crawls allowed to 127.0.0.1 only, plus `extra` YAML lines (a `server:` line there replaces the
 * default one). Returns the file's path.
 */
export function writeServeConfig(dir: string, key: string, extra: string[] = [], crawler = "allowed_cidrs: [127.0.0.1/32]"): string {
  const file = join(dir, "linkpatrol.yaml");
  const ownServer = extra.some((line) => line.startsWith("server:"));
  const lines = [
    ...(ownServer ? [] : ["server: {host: 127.0.0.1, port: 0}"]),
    `storage: {path: ${join(dir, "store.db")}}`,
    `auth: {bootstrap_key: ${key}}`,
    `crawler: {${crawler}}`,
    ...extra,
  ];
  writeFileSync(file, lines.join("\n"));
  return file;
}

/** Starts `serve --config configFile` (listen on port 0 in that file), plus `args` (`--new-store`), with `env` added to its environment. */
export function startServeProcess(configFile: string, args: string[] = [], env: Record<string, string> = {}): ServeProcess {
  const proc = Bun.spawn({
    cmd: [process.execPath, MAIN, "serve", "--config", configFile, ...args],
    env: { ...cleanEnv(), ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const stderr = new StreamWatcher(proc.stderr as ReadableStream<Uint8Array>);
  const ready = stderr.waitFor(/"msg":"listening".*?"port":(\d+)/).then((match) => `http://127.0.0.1:${match[1]}/v1`);
  return { proc, stderr, ready };
}

/** A JSON call to the API at `base` with `key`; returns the parsed body. */
export function apiClient(key: string) {
  return async (base: string, method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5_000),
    });
    return res.json();
  };
}
