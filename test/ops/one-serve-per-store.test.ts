import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acquireServiceLock } from "../../src/store/service-lock.ts";
import { runCli } from "../helpers/cli.ts";
import type { LoopbackSite } from "../helpers/loopback-site.ts";
import { startMeshSite } from "../helpers/mesh-site.ts";
import { apiClient, startServeProcess, type ServeProcess, writeServeConfig } from "../helpers/serve-process.ts";

/**
 * One serving process per store: a second `linkpatrol serve` on the same store refuses to start (exit 2, naming
 * the store and the holder's pid) before it touches anything, so the first one's running crawl is not "resumed"
 * twice. The CLI keeps working beside the service; the lock goes with the process, even after SIGKILL.
 */

const KEY = `lp_${"L".repeat(40)}`;
const api = apiClient(KEY);

let site: LoopbackSite;
let dir: string;
let configFile: string;
let store: string;
const started: ServeProcess[] = [];

beforeAll(async () => {
  site = await startMeshSite(300);
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-one-serve-"));
  configFile = writeServeConfig(dir, KEY, [], "allowed_cidrs: [127.0.0.1/32], concurrency: 2, per_host_concurrency: 2");
  store = join(dir, "store.db");
});
afterAll(async () => {
  for (const serve of started) {
    serve.proc.kill("SIGKILL");
    await serve.proc.exited;
  }
  await site?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function serve(): ServeProcess {
  const process = startServeProcess(configFile);
  started.push(process);
  return process;
}

async function waitForEnd(base: string, crawlId: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const crawl = (await api(base, "GET", `/crawls/${crawlId}`)).data;
    if (crawl.status !== "running" && crawl.status !== "pending") return crawl;
    await Bun.sleep(50);
  }
  throw new Error(`crawl ${crawlId} did not end`);
}

test("a second serve on the same store is refused while the first keeps crawling; the CLI works beside it; SIGKILL frees the store", async () => {
  const first = serve();
  const base = await first.ready;
  // The first start made the store; the CLI registers the site beside the running service.
  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", configFile]);
  expect(added.exitCode).toBe(0);
  const domainId = JSON.parse(added.stdout).id;
  const crawlId = (await api(base, "POST", "/crawls", { domain_id: domainId })).data.id;
  let pages = 0;
  for (let i = 0; i < 400 && pages < 10; i++) {
    await Bun.sleep(25);
    pages = (await api(base, "GET", `/crawls/${crawlId}`)).data.pages_crawled;
  }
  expect(pages).toBeGreaterThanOrEqual(10);

  const second = await runCli(["serve", "--config", configFile], { timeoutMs: 15_000 });
  expect(second.exitCode).toBe(2);
  expect(second.stderr).toContain(store);
  expect(second.stderr).toContain(`pid ${first.proc.pid}`);
  expect(second.stderr).not.toContain('"msg":"listening"');

  // Beside the running service: reads and writes through the CLI, a backup, and a migrate with nothing to do.
  const keys = await runCli(["keys", "list", "--json", "--config", configFile]);
  expect(keys.exitCode).toBe(0);
  expect(JSON.parse(keys.stdout).length).toBeGreaterThan(0);
  expect((await runCli(["keys", "create", "--name", "beside", "--config", configFile])).exitCode).toBe(0);
  const backup = await runCli(["backup", join(dir, "copy.db"), "--config", configFile]);
  expect(backup.exitCode).toBe(0);
  const migrate = await runCli(["migrate", "--config", configFile]);
  expect(migrate.stdout).toContain("already up to date");
  expect(migrate.exitCode).toBe(0);

  // The first service was not disturbed: its crawl ends as if nothing had happened.
  const crawl = await waitForEnd(base, crawlId);
  expect(crawl).toMatchObject({ status: "completed", pages_crawled: 301 });
  expect(first.proc.exitCode).toBeNull();

  first.proc.kill("SIGKILL");
  await first.proc.exited;
  const third = serve();
  const thirdBase = await third.ready;
  expect((await api(thirdBase, "GET", `/crawls/${crawlId}`)).data.status).toBe("completed");

  // A clean stop releases the store at once.
  third.proc.kill("SIGTERM");
  expect(await Promise.race([third.proc.exited, Bun.sleep(15_000).then(() => "timeout")])).toBe(0);
  const fourth = serve();
  await fourth.ready;
}, 30_000); // two `serve` processes and six CLI runs beside them

test("migrate refuses to change a store that a service holds; with nothing to apply it only reports", async () => {
  // A store of an older schema, "served" by this test process.
  const old = join(dir, "old.db");
  const fixture = join(import.meta.dir, "..", "fixtures", "upgrade", "0004_waiting_and_broken_links", "store.db");
  expect(existsSync(fixture)).toBe(true);
  copyFileSync(fixture, old);
  const env = { LINKPATROL_STORAGE_PATH: old };
  const lock = acquireServiceLock(old, "serve");
  try {
    const refused = await runCli(["migrate"], { env, timeoutMs: 15_000 });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(old);
    expect(refused.stderr).toContain(`pid ${process.pid}`);
    // keys (like every command that opens the store) would migrate it too: refused the same way.
    const keys = await runCli(["keys", "list"], { env, timeoutMs: 15_000 });
    expect(keys.exitCode).toBe(2);
    expect(keys.stderr).toContain(`pid ${process.pid}`);
  } finally {
    lock.release();
  }
  const migrated = await runCli(["migrate"], { env, timeoutMs: 15_000 });
  expect(migrated.exitCode).toBe(0);
  expect(migrated.stdout).toContain("applied:");
});
