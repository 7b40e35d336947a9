import { afterAll, afterEach, expect, test } from "bun:test";
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { startServeProcess, type ServeProcess, writeServeConfig } from "../helpers/serve-process.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * /healthz reflects the store: 503 `{status: "unavailable", node, store, reason}` naming the file when it no longer holds a
 * database, when it cannot be written (a read-only file system, an immutable file), or while the last write
 * failed; `{status: "ok", version, node, store}` again once a write succeeds.
 */

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.stop().catch(() => undefined);
  svc = undefined;
});

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function health(origin: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(5_000) });
  return { status: res.status, body: await res.json() };
}

test("a store file overwritten with garbage while running makes /healthz 503, naming the file", async () => {
  svc = await startTestService({}, { startCrawls: false });
  const path = svc.config.storage.path;
  expect((await health(svc.origin)).status).toBe(200);

  // In place, as `cat junk > store.db` would: same file, the pages SQLite has cached still read fine.
  const fd = openSync(path, "r+");
  writeSync(fd, Buffer.alloc(16_384, 0x5a), 0, 16_384, 0);
  closeSync(fd);

  const after = await health(svc.origin);
  expect(after.status).toBe(503);
  expect(after.body.status).toBe("unavailable");
  expect(after.body.reason).toContain(path);
  expect(after.body.reason).toMatch(/not a SQLite database/);
});

test("a closed store connection makes /healthz 503", async () => {
  svc = await startTestService({}, { startCrawls: false });
  svc.runtime.store.sqlite!.close();
  const after = await health(svc.origin);
  expect(after.status).toBe(503);
  expect(after.body.reason).toContain(svc.config.storage.path);
});

test("a store file replaced while running makes /healthz 503", async () => {
  svc = await startTestService({}, { startCrawls: false });
  const path = svc.config.storage.path;
  rmSync(path);
  writeFileSync(path, "");
  const after = await health(svc.origin);
  expect(after.status).toBe(503);
  expect(after.body.reason).toContain(path);
});

test("a failed write makes /healthz 503 until a write succeeds again", async () => {
  svc = await startTestService({}, { startCrawls: false });
  const sqlite = svc.runtime.store.sqlite!;
  // What a store that turned read-only looks like to the service's connection: every write is refused.
  sqlite.exec("PRAGMA query_only = 1");
  const refused = await svc.call("POST", "/domains", { body: { name: "a.example" } });
  expect(refused.status).toBe(500);

  const failing = await health(svc.origin);
  expect(failing.status).toBe(503);
  expect(failing.body).toEqual({ status: "unavailable", node: hostname(), store: "sqlite", reason: expect.stringContaining(svc.config.storage.path) });
  expect(failing.body.reason).toMatch(/readonly/);

  sqlite.exec("PRAGMA query_only = 0");
  expect((await svc.call("POST", "/domains", { body: { name: "a.example" } })).status).toBe(201);
  const healed = await health(svc.origin);
  expect(healed.status).toBe(200);
  expect(healed.body).toEqual({ status: "ok", version: expect.any(String), node: hostname(), store: "sqlite" });
});

/** chattr +i works as root on ext4/xfs/btrfs, not on tmpfs or overlayfs. */
function immutableSupported(dir: string): boolean {
  const probe = join(dir, "chattr-probe");
  writeFileSync(probe, "");
  try {
    const set = Bun.spawnSync(["chattr", "+i", probe], { stderr: "ignore" });
    if (!set.success) return false;
    Bun.spawnSync(["chattr", "-i", probe]);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

test("a store made read-only under a running serve: API writes fail and /healthz answers 503 naming the file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-health-"));
  dirs.push(dir);
  if (!immutableSupported(dir)) {
    console.warn("skipped: chattr +i is not supported on", dir);
    return;
  }
  const key = `lp_${"H".repeat(40)}`;
  const config = writeServeConfig(dir, key);
  const store = join(dir, "store.db");
  let serve: ServeProcess | undefined;
  const frozen = [store, `${store}-wal`];
  try {
    serve = startServeProcess(config);
    const base = await serve.ready;
    const origin = new URL(base).origin;
    expect((await health(origin)).status).toBe(200);

    // Like a remount read-only: the service's open files refuse writes from now on.
    expect(Bun.spawnSync(["chattr", "+i", ...frozen]).success).toBe(true);
    const res = await fetch(`${base}/domains`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "b.example" }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe("store_unavailable");
    const failing = await health(origin);
    expect(failing.status).toBe(503);
    expect(failing.body.status).toBe("unavailable");
    expect(failing.body.reason).toContain(store);
  } finally {
    Bun.spawnSync(["chattr", "-i", ...frozen]);
    serve?.proc.kill("SIGKILL");
    await serve?.proc.exited;
  }
  // Writable again, the store still serves a fresh process.
  expect((await runCli(["keys", "list", "--config", config])).exitCode).toBe(0);
});
