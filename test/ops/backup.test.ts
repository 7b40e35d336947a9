import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, startServeProcess, writeServeConfig } from "../helpers/serve-process.ts";

/**
 * `linkpatrol backup FILE` while `serve` is busy writing a crawl: the copy is one consistent snapshot (the
 * crawl's counters agree with the rows it holds), passes SQLite's integrity check, and restores into a store
 * that resumes the crawl and ends it with the totals of an uninterrupted crawl.
 */

const KEY = `lp_${"B".repeat(40)}`;
const api = apiClient(KEY);
const PAGES = 300;
let dir: string;
let configFile: string;
let site: LoopbackSite;

/** Page n links to its children 2n+1 and 2n+2 and to a missing page: PAGES - 1 + PAGES links, PAGES broken. */
function page(n: number): Response {
  const children = [2 * n + 1, 2 * n + 2].filter((child) => child < PAGES);
  const links = [...children.map((child) => `<a href="/p/${child}">p${child}</a>`), `<a href="/missing/${n}">gone</a>`];
  return new Response(`<html><body>${links.join(" ")}</body></html>`, { headers: { "content-type": "text/html" } });
}

beforeAll(async () => {
  site = await startLoopbackSite(
    { "/": () => page(0) },
    {
      fallback: async (request) => {
        const match = new URL(request.url).pathname.match(/^\/p\/(\d+)$/);
        if (!match || Number(match[1]) >= PAGES) return new Response("not found", { status: 404 });
        await Bun.sleep(15); // slow enough that the crawl is still being written while the backup runs
        return page(Number(match[1]));
      },
    },
  );
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-backup-"));
  configFile = writeServeConfig(dir, KEY);
});
afterAll(async () => {
  await site?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a backup taken mid-crawl is consistent and restores into a store that finishes the crawl", async () => {
  await setUpStore(["--config", configFile]);
  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", configFile]);
  const domainId = JSON.parse(added.stdout).id;
  const server = startServeProcess(configFile);
  const backupFile = join(dir, "backup.db");
  let crawlId: string;
  try {
    const base = await server.ready;
    crawlId = (await api(base, "POST", "/crawls", { domain_id: domainId })).data.id;
    for (let i = 0; i < 300; i++) {
      if ((await api(base, "GET", `/crawls/${crawlId}`)).data.pages_crawled >= 30) break;
      await Bun.sleep(20);
    }
    const backup = await runCli(["backup", backupFile, "--config", configFile]);
    expect(backup.stderr).toBe("");
    expect(backup.exitCode).toBe(0);
    expect(backup.stdout).toMatch(/^backup written: .*backup\.db \(\d+ bytes, schema version \d{4}_\w+\)\n$/);
    expect((await api(base, "GET", `/crawls/${crawlId}`)).data.status).toBe("running");
  } finally {
    server.proc.kill("SIGKILL");
    await server.proc.exited;
  }
  expect(readdirSync(dir).filter((name) => name.includes("partial"))).toEqual([]);
  // It holds webhook secrets: its owner's alone, whatever the umask.
  expect(statSync(backupFile).mode & 0o777).toBe(0o600);

  const copy = new Database(backupFile, { readonly: true });
  try {
    expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    // A single snapshot: the counters moved in the same transactions as the rows, so they agree.
    const counters = copy.query<{ total_links: number; status: string }, [string]>("SELECT total_links, status FROM crawls WHERE id = ?").get(crawlId!)!;
    expect(counters.status).toBe("running");
    expect(counters.total_links).toBeGreaterThan(0);
    expect(counters.total_links).toBeLessThan(2 * PAGES - 1);
    const rows = copy
      .query<{ n: number }, [string]>("SELECT count(*) AS n FROM links l JOIN crawl_targets t ON t.id = l.target_id WHERE l.crawl_id = ? AND t.state = 'done'")
      .get(crawlId!)!.n;
    expect(rows).toBe(counters.total_links);
  } finally {
    copy.close();
  }

  // Restore: the copy becomes the store of a fresh service, which resumes the crawl.
  const restoredDir = mkdtempSync(join(tmpdir(), "linkpatrol-restored-"));
  try {
    const restoredConfig = writeServeConfig(restoredDir, KEY);
    copyFileSync(backupFile, join(restoredDir, "store.db"));
    const restored = startServeProcess(restoredConfig);
    try {
      const base = await restored.ready;
      let detail: any;
      for (let i = 0; i < 400; i++) {
        detail = (await api(base, "GET", `/crawls/${crawlId!}`)).data;
        if (detail.status !== "running") break;
        await Bun.sleep(50);
      }
      expect(detail).toMatchObject({ status: "completed", pages_crawled: PAGES, total_links: 2 * PAGES - 1, broken_links: PAGES });
      const links = await api(base, "GET", `/crawls/${crawlId!}/links?limit=1`);
      expect(links.meta.total).toBe(2 * PAGES - 1);
    } finally {
      restored.proc.kill("SIGTERM");
      await restored.proc.exited;
    }
  } finally {
    rmSync(restoredDir, { recursive: true, force: true });
  }
}, 20_000); // two `serve` processes and two CLI runs around a crawl

test("backup refuses to overwrite, to run without a store, and without a FILE; --force overwrites", async () => {
  const target = join(dir, "exists.db");
  writeFileSync(target, "not a database");
  const refused = await runCli(["backup", target, "--config", configFile]);
  expect(refused.exitCode).toBe(2);
  expect(refused.stderr).toContain("exists; choose another name or pass --force");

  const forced = await runCli(["backup", target, "--force", "--config", configFile]);
  expect(forced.exitCode).toBe(0);
  const copy = new Database(target, { readonly: true });
  expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  copy.close();

  const emptyDir = mkdtempSync(join(tmpdir(), "linkpatrol-nostore-"));
  try {
    const noStore = await runCli(["backup", join(emptyDir, "b.db"), "--config", writeServeConfig(emptyDir, KEY)]);
    expect(noStore.exitCode).toBe(2);
    expect(noStore.stderr).toContain("no database at");
    expect(existsSync(join(emptyDir, "store.db"))).toBe(false);
  } finally {
    rmSync(emptyDir, { recursive: true, force: true });
  }

  const noFile = await runCli(["backup", "--config", configFile]);
  expect(noFile.exitCode).toBe(2);
  expect(noFile.stderr).toContain("backup needs the FILE to write");
}, 15_000); // four `backup` child processes
