import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configSchema } from "../../src/config/schema.ts";
import { CrawlOptionsSchema } from "../../src/core/crawl-options.ts";
import { openRuntime } from "../../src/runtime.ts";
import { cleanEnv, MAIN, runCli, setUpStore } from "../helpers/cli.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";

/**
 * `linkpatrol domains` managing what it registered: a URL given to `add` keeps its scheme and path, `edit` moves
 * the start page and sets ignore rules, `delete` takes the domain's crawls and results along, asking first on a
 * terminal and refusing without --yes when stdin is not one.
 */

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-cli-manage-"));
const storePath = join(dir, "lp.db");
const env = { LINKPATROL_STORAGE_PATH: storePath, LINKPATROL_CRAWLER_ALLOW_PRIVATE_NETWORKS: "true", LINKPATROL_VERIFICATION_TIMEOUT: "2s" };
let site: LoopbackSite;

beforeAll(async () => {
  await setUpStore([], env);
  site = await startLoopbackSite({
    "/docs/index.html": { body: `<a href="/docs/a.html">a</a> <a href="/docs/missing.html">missing</a>` },
    "/docs/a.html": { body: `<a href="/docs/index.html">home</a>` },
  });
});
afterAll(async () => {
  await site.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Crawls `domainId` once in this process, on the CLI's store, and returns the crawl's id. */
async function crawlOnce(domainId: string): Promise<string> {
  const config = configSchema.parse({ storage: { path: storePath }, crawler: { allow_private_networks: true }, logging: { level: "error" } });
  const runtime = await openRuntime(config, { inlineCrawls: true });
  try {
    const crawl = await runtime.crawls.start(domainId, CrawlOptionsSchema.parse({}));
    runtime.crawlPool.start();
    // Bounded: a two-page loopback site.
    for (let i = 0; i < 400 && ["pending", "running"].includes((await runtime.crawls.get(crawl.id)).status); i++) await Bun.sleep(25);
    expect((await runtime.crawls.get(crawl.id)).status).toBe("completed");
    return crawl.id;
  } finally {
    await runtime.crawlPool.stop();
    await runtime.close();
  }
}

/** Rows of the store's tables that belong to `crawlId`. */
async function rowsOf(crawlId: string): Promise<number> {
  const config = configSchema.parse({ storage: { path: storePath }, logging: { level: "error" } });
  const runtime = await openRuntime(config);
  try {
    return ["crawls", "crawl_targets", "links", "broken_links", "crawl_status_counts"]
      .map(
        (table) =>
          (runtime.store.sqlite!.query(`SELECT count(*) AS n FROM ${table} WHERE ${table === "crawls" ? "id" : "crawl_id"} = ?`).get(crawlId) as { n: number })
            .n,
      )
      .reduce((a, b) => a + b, 0);
  } finally {
    await runtime.close();
  }
}

/** Runs the CLI on a pseudo-terminal (util-linux `script`), typing `input`. */
async function onTerminal(args: string[], input: string): Promise<{ exitCode: number; output: string }> {
  const command = [process.execPath, MAIN, ...args].map((part) => `'${part}'`).join(" ");
  const proc = Bun.spawn({
    cmd: ["script", "-qec", command, "/dev/null"],
    env: { ...cleanEnv(), ...env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  });
  proc.stdin.write(input);
  await proc.stdin.end();
  const [output, exitCode] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { exitCode, output };
}

describe("linkpatrol domains add, edit, delete", () => {
  let domainId = "";

  test("add with a URL keeps its scheme and start path", async () => {
    const added = await runCli(["domains", "add", site.url("/docs/index.html"), "--verified", "--json"], { env });
    expect(added.exitCode).toBe(0);
    const domain = JSON.parse(added.stdout);
    expect(domain).toMatchObject({ name: site.host, root_url: site.url("/docs/index.html"), verified: true });
    domainId = domain.id;
  }, 15_000);

  test("edit sets ignore rules (each list flag replaces its list) and refuses a bad pattern with exit 2", async () => {
    const set = await runCli(["domains", "edit", domainId, "--exclude", "/private/", "--exclude", "\\.pdf$", "--mute", "/old/", "--json"], { env });
    expect(set.exitCode).toBe(0);
    expect(JSON.parse(set.stdout).ignore_rules).toEqual({ exclude: ["/private/", "\\.pdf$"], mute: ["/old/"] });
    const mute = await runCli(["domains", "edit", domainId, "--mute", "/older/"], { env });
    expect(mute.exitCode).toBe(0);
    expect(mute.stdout).toContain("not checked (exclude): /private/  \\.pdf$");
    expect(mute.stdout).toContain("never counted broken (mute): /older/");
    const bad = await runCli(["domains", "edit", domainId, "--exclude", "(oops"], { env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("ignore_rules.exclude.0");
    expect(bad.stderr).toContain("is not a regular expression");
    const cleared = await runCli(["domains", "edit", domainId, "--clear-rules", "--json"], { env });
    expect(JSON.parse(cleared.stdout).ignore_rules).toEqual({ exclude: [], mute: [] });
  }, 20_000);

  test("edit moves the start page within the host and refuses another host", async () => {
    const moved = await runCli(["domains", "edit", domainId, "--root-url", site.url("/docs/a.html"), "--json"], { env });
    expect(moved.exitCode).toBe(0);
    expect(JSON.parse(moved.stdout).root_url).toBe(site.url("/docs/a.html"));
    const elsewhere = await runCli(["domains", "edit", domainId, "--root-url", "http://other.example/"], { env });
    expect(elsewhere.exitCode).toBe(2);
    expect(elsewhere.stderr).toContain("must be on the domain's own host and port");
    await runCli(["domains", "edit", domainId, "--root-url", site.url("/docs/index.html")], { env });
  }, 20_000);

  test("delete without --yes and no terminal refuses, exit 2, and deletes nothing", async () => {
    const refused = await runCli(["domains", "delete", domainId], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("add --yes");
    expect(JSON.parse((await runCli(["domains", "list", "--json"], { env })).stdout).map((d: { id: string }) => d.id)).toContain(domainId);
  }, 15_000);

  test.skipIf(!existsSync("/usr/bin/script"))(
    "on a terminal delete asks: no keeps the domain (exit 1), yes deletes it with its crawls",
    async () => {
      const crawlId = await crawlOnce(domainId);
      expect(await rowsOf(crawlId)).toBeGreaterThan(4);
      const declined = await onTerminal(["domains", "delete", domainId], "n\n");
      expect(declined.output).toContain("and its 1 crawl with all their results? This cannot be undone. [y/N]");
      expect(declined.output).toContain("nothing deleted");
      expect(declined.exitCode).toBe(1);
      expect(await rowsOf(crawlId)).toBeGreaterThan(4);
      const confirmed = await onTerminal(["domains", "delete", domainId], "y\n");
      expect(confirmed.exitCode).toBe(0);
      expect(confirmed.output).toContain("and 1 crawl");
      expect(await rowsOf(crawlId)).toBe(0);
      expect(JSON.parse((await runCli(["domains", "list", "--json"], { env })).stdout)).toEqual([]);
    },
    40_000,
  );

  test("delete --yes in a script deletes at once; an unknown id is exit 2", async () => {
    const added = JSON.parse((await runCli(["domains", "add", site.url("/docs/index.html"), "--verified", "--json"], { env })).stdout);
    const deleted = await runCli(["domains", "delete", added.id, "--yes"], { env });
    expect(deleted.exitCode).toBe(0);
    expect(deleted.stdout).toContain(`deleted ${site.host}`);
    const again = await runCli(["domains", "delete", added.id, "--yes"], { env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("not found");
  }, 20_000);
});
