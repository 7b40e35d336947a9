import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, type ServeProcess, startServeProcess, writeServeConfig } from "../helpers/serve-process.ts";

/**
 * `serve`'s log as an operator reads it from journald: one JSON object per line; a request's line carries the
 * request id the response carries; every line names the node (cluster.node_name, or the host name); logging.level filters the service and its crawl worker threads alike; and
 * no secret (the configured bootstrap key, a webhook's signing secret, a key in a query string) ever shows.
 */

const KEY = `lp_${"L".repeat(40)}`;
const api = apiClient(KEY);

let dir: string | undefined;
let site: LoopbackSite | undefined;
let server: ServeProcess | undefined;
afterEach(async () => {
  server?.proc.kill("SIGKILL");
  await server?.proc.exited;
  await site?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = site = server = undefined;
});

/** Serves with `level`, crawls a small site once, and returns the log lines parsed. */
async function serveAndCrawl(level: string, work: (base: string) => Promise<void> = async () => {}, extra: string[] = []) {
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-logging-"));
  site = await startLoopbackSite({ "/": { body: "<a href='/a'>a</a>" }, "/a": { body: "<p>a</p>" } });
  // A port of our own: above info, "listening" (which names the port) is not logged.
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  const config = writeServeConfig(dir, KEY, [
    `server: {host: 127.0.0.1, port: ${port}}`,
    `logging: {level: ${level}}`,
    "webhooks: {allow_http: true, allow_private_targets: true}",
    ...extra,
  ]);
  await setUpStore(["--config", config]);
  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", config]);
  server = startServeProcess(config);
  server.ready.catch(() => {}); // above info the "listening" line it waits for never comes: the port is ours
  const base = `http://127.0.0.1:${port}/v1`;
  // Bounded: 400 tries of 25 ms.
  for (let i = 0; i < 400; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) break;
    await Bun.sleep(25);
  }
  await work(base);
  const crawlId = (await api(base, "POST", "/crawls", { domain_id: JSON.parse(added.stdout).id })).data.id;
  let status = "";
  // Bounded: 600 polls of 25 ms.
  for (let i = 0; i < 600 && (status === "" || status === "pending" || status === "running"); i++) {
    status = (await api(base, "GET", `/crawls/${crawlId}`)).data.status;
    if (status === "pending" || status === "running") await Bun.sleep(25);
  }
  expect(status).toBe("completed"); // a worker thread ran, and had its chance to log
  server.proc.kill("SIGTERM");
  await server.proc.exited;
  const lines = server.stderr.text
    .trim()
    .split("\n")
    .filter((line) => line !== "");
  return { lines: lines.map((line) => JSON.parse(line) as Record<string, unknown>), text: server.stderr.text };
}

test("at info: JSON lines, each request's with the id its response carries, and no secret anywhere", async () => {
  let hookSecret = "";
  let responseId = null as string | null;
  const { lines, text } = await serveAndCrawl(
    "info",
    async (base) => {
      hookSecret = (await api(base, "POST", "/webhooks", { url: "http://127.0.0.1:9/hook" })).data.secret;
      const res = await fetch(`${base}/domains?api_key=${KEY}`, { headers: { authorization: `Bearer ${KEY}`, "x-request-id": "trace-42" } });
      responseId = res.headers.get("x-request-id");
    },
    ["cluster: {node_name: node-a}"],
  );
  expect(responseId).toBe("trace-42");
  const request = lines.find((line) => line.msg === "request" && line.request_id === "trace-42");
  expect(request).toMatchObject({ level: "info", method: "GET", path: "/v1/domains", status: 200, key_id: expect.any(String) });
  expect(lines.some((line) => line.msg === "crawl completed")).toBe(true); // the worker thread's own line
  // Every line names the node, the worker thread's too: with several nodes an operator sees which one wrote it.
  expect(lines.filter((line) => line.node !== "node-a")).toEqual([]);
  expect(hookSecret).toStartWith("whsec_");
  expect(text).not.toContain(hookSecret);
  expect(text).not.toContain(KEY);
}, 20_000);

test("at warn: no info lines, from the service or from the crawl's worker thread", async () => {
  const { lines, text } = await serveAndCrawl("warn");
  expect(lines.filter((line) => line.level === "info" || line.level === "debug")).toEqual([]);
  // No cluster.node_name: the lines there are name the machine's host.
  expect(lines.filter((line) => line.node !== hostname())).toEqual([]);
  expect(text).not.toContain(KEY);
}, 20_000);
