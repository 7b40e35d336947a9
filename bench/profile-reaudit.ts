/**
 * Profiling aid for the nightly re-audit (bench/reaudit.ts measures it; this says where its time goes): the
 * audited site (test/fixtures/audited-site.ts) served by a child process, audited once inline in THIS thread,
 * then `--rounds` times more after changing 2 % of its pages, reusing the previous crawl's pages (or with
 * `--full`, reading every page). Each audit's start and end are printed as offsets from the process start, so
 * a profile's samples can be cut to the re-audits.
 *
 *   bun --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-reaudit.ts [--pages 3000] [--rounds 2] [--no-validators] [--full] [--storage-url postgres://…]
 *
 * --storage-url: the store on that (empty) PostgreSQL database instead of a SQLite file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { configSchema } from "../src/config/schema.ts";
import { openRuntime } from "../src/runtime.ts";
import { withDefaultOptions } from "../src/core/stored-options.ts";
import { AuditedSite } from "../test/fixtures/audited-site.ts";

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "3000" },
    rounds: { type: "string", default: "2" },
    "no-validators": { type: "boolean" },
    full: { type: "boolean" },
    "storage-url": { type: "string" },
    serve: { type: "boolean" },
  },
});
const pages = Number(values.pages);

if (values.serve) {
  // The child: serves the site, changes 2 % of it on each line read from stdin, answers "changed".
  const site = await AuditedSite.start({ pages, validators: !values["no-validators"] });
  console.log(`root: ${site.rootUrl}`);
  for await (const _line of console) {
    site.change(0.02);
    console.log("changed");
  }
  process.exit(0);
}

const child = Bun.spawn({
  cmd: [process.execPath, import.meta.path, "--serve", "--pages", String(pages), ...(values["no-validators"] ? ["--no-validators"] : [])],
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
});
const reader = child.stdout.getReader();
const decoder = new TextDecoder();
let pending = "";
const nextLine = async (): Promise<string> => {
  for (let i = 0; i < 1000 && !pending.includes("\n"); i++) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the site's process ended");
    pending += decoder.decode(value);
  }
  const at = pending.indexOf("\n");
  const line = pending.slice(0, at);
  pending = pending.slice(at + 1);
  return line;
};
const rootUrl = /root: (\S+)/.exec(await nextLine())![1]!;

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-profile-reaudit-"));
const config = configSchema.parse({
  storage: values["storage-url"] === undefined ? { path: join(dir, "store.db") } : { url: values["storage-url"] },
  crawler: { allowed_cidrs: ["127.0.0.1/32"], concurrency: 32, per_host_concurrency: 32, max_pages: 1_000_000, header_timeout: "5s" },
  logging: { level: "warn" },
});
const runtime = await openRuntime(config, { inlineCrawls: true, createStore: true });
const options = withDefaultOptions({ scan_images: true, scan_scripts: true, scan_stylesheets: true });
try {
  const domain = await runtime.domains.add({ name: new URL(rootUrl).host, root_url: rootUrl }, true);
  runtime.crawlPool.start();
  for (let round = 0; round <= Number(values.rounds); round++) {
    if (round > 0) {
      child.stdin.write("change\n");
      await child.stdin.flush();
      await nextLine();
    }
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const crawl = await runtime.crawls.start(domain.id, options, "api", { full: round > 0 && values.full === true });
    let detail = await runtime.crawls.get(crawl.id);
    for (let i = 0; i < 36_000 && (detail.status === "pending" || detail.status === "running"); i++) {
      await Bun.sleep(20);
      detail = await runtime.crawls.get(crawl.id);
    }
    const ended = performance.now();
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `${round === 0 ? "first" : values.full ? "full" : "re-audit"} [${(started / 1000).toFixed(3)}–${(ended / 1000).toFixed(3)} s]: ${detail.status}, ` +
        `${detail.pages_crawled} pages (${detail.pages_reused} reused), ${detail.total_links} links, wall ${((ended - started) / 1000).toFixed(2)} s, ` +
        `CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`,
    );
  }
} finally {
  await runtime.crawlPool.stop();
  await runtime.close();
  child.kill("SIGINT");
  rmSync(dir, { recursive: true, force: true });
}
