import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { startServeProcess, writeServeConfig, type ServeProcess } from "../helpers/serve-process.ts";

/**
 * Only first-run set-up makes a store. On a new install (nothing at storage.path, no lock file beside it) the
 * first `serve` creates it with no flag, as `npm start` on a fresh clone does; `keys` and `domains` never create
 * one. Once a service has used a store there, a start that finds it missing or emptied refuses (exit 2, naming
 * the file), a restored backup of that same store starts as is, and `--new-store` starts over.
 */

const KEY = `lp_${"F".repeat(40)}`;
const dirs: string[] = [];
const serves: ServeProcess[] = [];
afterAll(async () => {
  for (const serve of serves) {
    serve.proc.kill("SIGKILL");
    await serve.proc.exited;
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-first-start-"));
  dirs.push(dir);
  return dir;
}

/** Starts serve, waits until it listens, checks /healthz and stops it cleanly. */
async function serveOnce(config: string, args: string[] = []): Promise<void> {
  const serve = startServeProcess(config, args);
  serves.push(serve);
  const base = await serve.ready;
  expect((await fetch(`${new URL(base).origin}/healthz`)).status).toBe(200);
  serve.proc.kill("SIGTERM");
  expect(await Promise.race([serve.proc.exited, Bun.sleep(20_000).then(() => "timeout")])).toBe(0);
}

function removeStore(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
}

test("keys and domains never create a store; the first serve does, with no flag", async () => {
  const dir = tempDir();
  const store = join(dir, "store.db");
  const config = writeServeConfig(dir, KEY);
  for (const args of [
    ["keys", "list"],
    ["domains", "list"],
    ["keys", "create", "--name", "early"],
  ]) {
    const res = await runCli([...args, "--config", config]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain(`no store at ${store}`);
  }
  expect(existsSync(store)).toBe(false);

  await serveOnce(config);
  expect(existsSync(store)).toBe(true);
  expect((await runCli(["keys", "list", "--config", config])).exitCode).toBe(0);
  await serveOnce(config);
}, 60_000); // two `serve` processes and four CLI runs

test("a store deleted or emptied while stopped is refused at start; its restored backup starts; --new-store starts over", async () => {
  const dir = tempDir();
  const store = join(dir, "store.db");
  const config = writeServeConfig(dir, KEY);
  await serveOnce(config);
  const backup = join(dir, "backup.db");
  expect((await runCli(["backup", backup, "--config", config])).exitCode).toBe(0);

  // Deleted: serve and migrate refuse, naming the file and the flag; nothing is created.
  removeStore(store);
  for (const command of ["serve", "migrate"]) {
    const refused = await runCli([command, "--config", config], { timeoutMs: 20_000 });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`the store ${store} is missing`);
    expect(refused.stderr).toContain("--new-store");
    expect(existsSync(store)).toBe(false);
  }

  // An empty database where the store was (what a process that opened the path anew would leave).
  new Database(store).close();
  const emptied = await runCli(["serve", "--config", config], { timeoutMs: 20_000 });
  expect(emptied.exitCode).toBe(2);
  expect(emptied.stderr).toContain(`the store ${store} is an empty database`);

  // The store's own backup put back: the same store, so it starts as is.
  removeStore(store);
  copyFileSync(backup, store);
  await serveOnce(config);

  // Starting over on purpose.
  removeStore(store);
  const created = await runCli(["migrate", "--new-store", "--config", config]);
  expect(created.exitCode).toBe(0);
  expect(created.stdout).toContain(`created the store ${store}`);
  await serveOnce(config);
}, 90_000); // three `serve` processes and six CLI runs
