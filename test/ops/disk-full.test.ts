import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statfsSync, writeSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { apiClient, startServeProcess, writeServeConfig, type ServeProcess } from "../helpers/serve-process.ts";

/**
 * A full disk pauses a crawl instead of crashing the service: the store lives on a small tmpfs, a filler file
 * takes nearly all of it, and a crawl fills the rest. The crawl stays running with what it committed, the
 * process stays up without a storm of retries or threads, the API keeps answering reads, /healthz and refused
 * writes (503 store_unavailable) say why, the crawl's own detail says why it waits (`waiting_reason`), and once space is freed the crawl
 * resumes and ends with exact totals. Needs a tmpfs mount (root, as CI runs): skipped, saying so, where mounting is not permitted.
 */

const KEY = "lp_diskfulldiskfulldiskfulldiskfull0123";
const LINKS_PER_PAGE = 40;
const MAX_PAGES = 150;

const mountDir = mkdtempSync(join(tmpdir(), "linkpatrol-tmpfs-"));
const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mountDir]).status === 0;
if (!mounted) console.warn("SKIPPED: disk-full test needs to mount a tmpfs (root); not permitted here");

let site: http.Server;
let siteOrigin: string;
let serve: ServeProcess | undefined;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const n = Number(new URL(req.url ?? "/", "http://x").pathname.split("/").pop()) || 0;
    const links = Array.from(
      { length: LINKS_PER_PAGE },
      (_, k) => `<a href="/p/${n * LINKS_PER_PAGE + k + 1}">a link whose text takes some room in the store, number ${k}</a>`,
    );
    res.writeHead(200, { "content-type": "text/html" });
    res.end(links.join("\n"));
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  serve?.proc.kill("SIGKILL");
  await serve?.proc.exited;
  site?.closeAllConnections();
  site?.close();
  if (mounted) spawnSync("umount", [mountDir]);
  rmSync(mountDir, { recursive: true, force: true });
});

/** Fills the tmpfs until at most `leaveBytes` are free (0: until it refuses); returns the filler's path. */
function fill(leaveBytes: number, name = "filler"): string {
  const path = join(mountDir, name);
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(4 * 1024);
  try {
    // Bounded by the tmpfs size: each turn writes 4 KiB or stops.
    for (let free = statfsSync(mountDir).bavail * statfsSync(mountDir).bsize; free > leaveBytes; free -= chunk.length) {
      writeSync(fd, chunk);
    }
    fsyncSync(fd);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return path;
}

test.skipIf(!mounted)(
  "a full disk pauses the crawl, the service stays up and readable, and freeing space resumes it exactly",
  async () => {
    const config = writeServeConfig(mountDir, KEY, [], `allowed_cidrs: [127.0.0.1/32], max_pages: ${MAX_PAGES}`);
    await setUpStore(["--config", config]);
    const added = await runCli(["domains", "add", new URL(siteOrigin).host, "--root-url", `${siteOrigin}/`, "--verified", "--config", config]);
    expect(added.exitCode).toBe(0);
    const domainId = added.stdout.match(/\(([0-9a-f-]{36})\)/)![1]!;

    serve = startServeProcess(config);
    const base = await serve.ready;
    const api = apiClient(KEY);
    const filler = fill(256 * 1024);
    const crawl = (await api(base, "POST", "/crawls", { domain_id: domainId })).data;

    await serve.stderr.waitFor(/crawl paused: the store refused a write/, 20_000);
    await Bun.sleep(4_000);
    // No retry storm: within those seconds the crawl was taken up again at most twice (1 s, then 5 s later).
    expect(serve.stderr.text.match(/crawl paused: the store refused a write/g)!.length).toBeLessThanOrEqual(3);
    expect(serve.stderr.text).not.toContain("crawl job crashed");
    expect(serve.proc.exitCode).toBeNull();
    // The crawl's own detail says why it waits, from what the service holds in memory (the full store cannot say
    // it); asked a few times, since the pool takes the crawl up again now and then to try.
    let during = (await api(base, "GET", `/crawls/${crawl.id}`)).data;
    for (let i = 0; i < 20 && during.waiting_reason === null; i++) {
      await Bun.sleep(100);
      during = (await api(base, "GET", `/crawls/${crawl.id}`)).data;
    }
    expect(during.status).toBe("running");
    expect(during.waiting_reason).toContain("is full");
    const health = await fetch(`${new URL(base).origin}/healthz`);
    expect(health.status).toBe(503);
    expect((await health.json()).reason).toContain("is full");
    const rest = fill(0, "rest"); // whatever the crawl left, so that no write can fit
    // Small writes may still fit in the WAL's free frames; one of a bounded run of them will not.
    let write: Response | undefined;
    for (let i = 0; i < 2_000; i++) {
      write = await fetch(`${base}/domains`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `docs${i}.example.org` }),
      });
      if (write.status !== 201) break;
    }
    expect(write!.status).toBe(503);
    expect(write!.headers.get("retry-after")).toBe("60");
    expect((await write!.json()).error.code).toBe("store_unavailable");

    rmSync(filler);
    rmSync(rest);
    const deadline = Date.now() + 40_000;
    let detail = during;
    while (detail.status === "running" && Date.now() < deadline) {
      await Bun.sleep(250);
      detail = (await api(base, "GET", `/crawls/${crawl.id}`)).data;
    }
    expect((await fetch(`${new URL(base).origin}/healthz`)).status).toBe(200);
    expect(detail).toMatchObject({ status: "completed", pages_crawled: MAX_PAGES, truncated: true, total_links: MAX_PAGES * LINKS_PER_PAGE, broken_links: 0 });
    expect(detail.waiting_reason).toBeNull();
  },
  60_000,
); // waits out the pool's retry delays (1 s, 5 s, then 15 s once space is freed) on a busy machine

test.skipIf(!mounted).each([
  // Too little room for the migrations: the store cannot even be built.
  ["before its store is built", 96 * 1024],
  // Room for the migrations (a fresh temporary store is ~196 KiB with 0000–0007 and no WAL; with 160 KiB they fail),
  // not for the crawl's first batch of links.
  ["before the crawl can start", 256 * 1024],
  ["mid-crawl", 3 * 1024 * 1024],
])(
  "check stops with exit 2 when its temporary store's disk is full %s, instead of waiting",
  async (_when, leave) => {
    const tmp = join(mountDir, `check-tmp-${leave}`);
    mkdirSync(tmp);
    const filler = fill(leave, "check-filler");
    try {
      const started = Date.now();
      const run = await runCli(["check", `${siteOrigin}/`, "--allow-private", "--max-pages", "2000", "--format", "json"], {
        env: { TMPDIR: tmp },
        timeoutMs: 60_000,
      });
      expect(run.stderr).toContain("cannot be written (is the disk full?)");
      expect(run.exitCode).toBe(2);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(readdirSync(tmp)).toEqual([]); // its temporary store is gone
    } finally {
      rmSync(filler);
    }
  },
  30_000,
); // a check run each, which must end well within this (asserted above)
