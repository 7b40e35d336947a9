/**
 * Profiling aid: one crawl of the synthetic site, run in THIS thread (inline, not a worker) so
 * `bun --cpu-prof bench/profile-crawl.ts` sees the crawler's own time. The site is served by a child process so
 * its CPU stays out of the profile.
 *
 *   bun --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-crawl.ts --pages 3000 [--options kinds|all] [--keep]
 *
 * `--options kinds` checks every internal link kind (the bench's default), `all` external links too.
 *
 * `--keep` leaves the crawl's store in place (its path is printed), to time queries on a real crawl's data.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { configSchema } from "../src/config/schema.ts";
import { openRuntime } from "../src/runtime.ts";
import { withDefaultOptions } from "../src/core/stored-options.ts";

const { values } = parseArgs({ options: { pages: { type: "string" }, options: { type: "string" }, keep: { type: "boolean" } } });
const pages = Number(values.pages ?? 3000);
const site = Bun.spawn({
  cmd: [process.execPath, join(import.meta.dir, "site-server.ts"), "serve", "--pages", String(pages), "--slow-ms", "300"],
  stdout: "pipe",
  stderr: "inherit",
});
const reader = site.stdout.getReader();
let banner = "";
while (!banner.includes("\n")) banner += new TextDecoder().decode((await reader.read()).value);
const rootUrl = /internal: (\S+)/.exec(banner)![1]!;

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-profile-"));
const config = configSchema.parse({
  storage: { path: join(dir, "store.db") },
  crawler: { allowed_cidrs: ["127.0.0.1/32"], concurrency: 32, per_host_concurrency: 32, max_pages: 1_000_000, header_timeout: "5s" },
  logging: { level: "warn" },
});
const runtime = await openRuntime(config, { inlineCrawls: true, createStore: true });
try {
  const domain = await runtime.domains.add({ name: new URL(rootUrl).host, root_url: rootUrl }, true);
  const all = values.options === "all";
  const kinds = all || values.options === "kinds";
  const started = performance.now();
  const crawl = await runtime.crawls.start(
    domain.id,
    withDefaultOptions({ scan_images: kinds, scan_scripts: kinds, scan_stylesheets: kinds, follow_external: all }),
  );
  runtime.crawlPool.start();
  let detail = await runtime.crawls.get(crawl.id);
  for (let i = 0; i < 36_000 && (detail.status === "pending" || detail.status === "running"); i++) {
    await Bun.sleep(50);
    detail = await runtime.crawls.get(crawl.id);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage();
  console.log(
    `${detail.status}: ${detail.pages_crawled} pages, ${detail.total_links} links in ${seconds.toFixed(1)} s ` +
      `(${(detail.pages_crawled / seconds).toFixed(0)} pages/s), CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, ` +
      `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
  );
} finally {
  await runtime.crawlPool.stop();
  await runtime.close();
  site.kill("SIGINT");
  if (values.keep) console.log(`store kept: ${join(dir, "store.db")}`);
  else rmSync(dir, { recursive: true, force: true });
}
