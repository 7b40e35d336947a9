import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, startServeProcess, writeServeConfig } from "../helpers/serve-process.ts";

/**
 * The `schedules:` section of the config file, through `linkpatrol serve`: an entry for an unknown domain stops
 * start-up with the key path and the reason; a known one sets the domain's schedule, its crawls run with
 * trigger "schedule", and the schedule is still there, and running, after a restart.
 */

const KEY = `lp_${"S".repeat(40)}`;
const api = apiClient(KEY);
let dir: string;
let site: LoopbackSite;

beforeAll(async () => {
  site = await startLoopbackSite({ "/": { body: "<p>hello</p>" } });
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-schedules-"));
});
afterAll(async () => {
  await site?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(schedules: string): string {
  return writeServeConfig(dir, KEY, [`schedules: ${schedules}`]);
}

async function serveUntilScheduledCrawls(configFile: string, atLeast: number): Promise<any[]> {
  const { proc, ready } = startServeProcess(configFile);
  try {
    const base = await ready;
    let crawls: any[] = [];
    for (let i = 0; i < 100 && crawls.filter((c) => c.status === "completed").length < atLeast; i++) {
      await Bun.sleep(100);
      crawls = (await api(base, "GET", "/crawls?limit=100")).data;
    }
    const details = [];
    for (const crawl of crawls) details.push((await api(base, "GET", `/crawls/${crawl.id}`)).data);
    return details;
  } finally {
    proc.kill("SIGTERM");
    await Promise.race([proc.exited, Bun.sleep(10_000)]);
  }
}

test("an entry for a domain that is not registered stops start-up with exit 2 and says why", async () => {
  const file = writeConfig("[{domain: nowhere.example, cron: '0 3 * * *'}]");
  const result = await runCli(["serve", "--config", file]);
  expect(result.exitCode).toBe(2);
  expect(result.stderr).toContain(`${file}: schedules[0].domain: no domain named "nowhere.example"`);
});

test("a schedule from the file runs crawls with trigger schedule, and keeps running after a restart", async () => {
  await setUpStore(["--config", writeConfig("[]")]);
  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", writeConfig("[]")]);
  expect(added.exitCode).toBe(0);
  const file = writeConfig(`[{domain: "${site.host}", cron: "* * * * * *", options: {scan_images: true}}]`);

  const first = await serveUntilScheduledCrawls(file, 1);
  expect(first.length).toBeGreaterThanOrEqual(1);
  for (const crawl of first) expect(crawl).toMatchObject({ trigger: "schedule", options: { scan_images: true } });

  const second = await serveUntilScheduledCrawls(file, first.length + 1);
  expect(second.length).toBeGreaterThan(first.length);
  const list = await runCli(["domains", "list", "--json", "--config", file]);
  expect(JSON.parse(list.stdout)[0]).toMatchObject({ schedule: "* * * * * *" });
}, 45_000); // waits for per-second schedule runs, before and after a restart
