import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, type ServeProcess, startServeProcess, writeServeConfig } from "../helpers/serve-process.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * SIGTERM as systemd sends it to `linkpatrol serve`: the listener closes, requests in flight finish, webhook
 * attempts in flight are finished and recorded, running crawls are checkpointed and resume on the next start,
 * and the process exits 0 — cutting off whatever is still running once server.shutdown_timeout has passed.
 */

const KEY = `lp_${"T".repeat(40)}`;
const api = apiClient(KEY);
const WEBHOOKS = "webhooks: {allow_http: true, allow_private_targets: true, retry_schedule: [1s, 1s, 1s]}";

let dir: string;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function setUp(extra: string[]): string {
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-shutdown-"));
  return writeServeConfig(dir, KEY, extra);
}

function serve(configFile: string): ServeProcess {
  const server = startServeProcess(configFile);
  cleanups.push(async () => {
    server.proc.kill("SIGKILL");
    await server.proc.exited;
  });
  return server;
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver({ tls: false });
  cleanups.push(() => started.stop());
  return started;
}

async function exitWithin(server: ServeProcess, ms: number): Promise<number | "still running"> {
  return Promise.race([server.proc.exited, Bun.sleep(ms).then(() => "still running" as const)]);
}

async function registerSite(configFile: string, site: LoopbackSite): Promise<string> {
  await setUpStore(["--config", configFile]);
  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", configFile]);
  expect(added.exitCode).toBe(0);
  return JSON.parse(added.stdout).id;
}

/** A service with a webhook whose receiver answers after `delayMs`, and a test delivery to it in flight. */
async function serveWithSlowTestDelivery(configFile: string, delayMs: number) {
  const hooks = await receiver();
  const server = serve(configFile);
  const base = await server.ready;
  const hook = (await api(base, "POST", "/webhooks", { url: hooks.ipUrl(), events: ["crawl.failed"] })).data;
  hooks.useSecret(hook.secret);
  hooks.script({ delayMs });
  const inFlight = fetch(`${base}/webhooks/${hook.id}/test`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}` },
    signal: AbortSignal.timeout(10_000),
  });
  return { hooks, server, base, inFlight };
}

test("SIGTERM closes the listener, lets a request in flight finish, and exits 0", async () => {
  // POST /webhooks/{id}/test answers only once the receiver has: it is in flight for 1.5 s.
  const { hooks, server, base, inFlight } = await serveWithSlowTestDelivery(setUp([WEBHOOKS]), 1_500);
  await hooks.waitFor((requests) => requests.length === 1, 5_000);
  server.proc.kill("SIGTERM");
  await server.stderr.waitFor(/"msg":"shutting down"/);

  const refused = await fetch(`${base}/healthz`.replace("/v1", ""), { signal: AbortSignal.timeout(2_000) }).then(
    (res) => `answered ${res.status}`,
    (error: Error) => error.name,
  );
  expect(refused).not.toStartWith("answered");

  const answer = await inFlight;
  expect(answer.status).toBe(200);
  expect((await answer.json()).data.status_code).toBe(200);
  expect(await exitWithin(server, 10_000)).toBe(0);
  await server.stderr.waitFor(/"msg":"stopped"/, 2_000);
}, 10_000); // a `serve` process, stopped

test("a SIGTERM the moment serve says it is listening still stops it cleanly: exit 0, five starts in a row", async () => {
  // The handlers were installed just after the "listening" line: a stop sent on reading it could come first and
  // kill the process outright (exit 143) — a supervisor or a script that starts and stops the service at once.
  const configFile = setUp([]);
  for (let i = 0; i < 5; i++) {
    const server = serve(configFile);
    await server.ready;
    server.proc.kill("SIGTERM");
    expect(await exitWithin(server, 10_000)).toBe(0);
  }
}, 30_000); // five `serve` processes, one after another

test("a second SIGTERM (or SIGINT) during the shutdown does not cut it short: the request in flight still finishes, exit 0", async () => {
  const { hooks, server, inFlight } = await serveWithSlowTestDelivery(setUp([WEBHOOKS]), 1_500);
  await hooks.waitFor((requests) => requests.length === 1, 5_000);
  server.proc.kill("SIGTERM");
  await server.stderr.waitFor(/"msg":"shutting down"/);
  server.proc.kill("SIGTERM");
  server.proc.kill("SIGINT");
  await server.stderr.waitFor(/"msg":"already shutting down"/);

  const answer = await inFlight;
  expect(answer.status).toBe(200);
  expect(await exitWithin(server, 10_000)).toBe(0);
  await server.stderr.waitFor(/"msg":"stopped"/, 2_000);
}, 10_000); // a `serve` process, stopped

test("a webhook attempt in flight at SIGTERM is finished and recorded, so the restart does not send it again", async () => {
  const configFile = setUp([WEBHOOKS]);
  const site = await startLoopbackSite({ "/": { body: "<a href='/gone'>gone</a>" }, "/gone": { status: 410 } });
  cleanups.push(() => site.stop());
  const domainId = await registerSite(configFile, site);
  const hooks = await receiver();

  const first = serve(configFile);
  const base = await first.ready;
  const hook = (await api(base, "POST", "/webhooks", { url: hooks.ipUrl(), events: ["crawl.started"] })).data;
  hooks.useSecret(hook.secret);
  hooks.script({ delayMs: 1_500 });
  await api(base, "POST", "/crawls", { domain_id: domainId });
  await hooks.waitFor((requests) => requests.length === 1, 10_000);
  first.proc.kill("SIGTERM");
  expect(await exitWithin(first, 10_000)).toBe(0);

  const second = serve(configFile);
  const base2 = await second.ready;
  const deliveries = (await api(base2, "GET", `/webhooks/${hook.id}/deliveries`)).data;
  expect(deliveries).toHaveLength(1);
  expect(deliveries[0].state).toBe("delivered");
  expect(deliveries[0].attempts.map((a: any) => a.status_code)).toEqual([200]);
  // Two dispatcher polls later, the receiver has still seen it only once.
  await Bun.sleep(2_500);
  expect(hooks.requests).toHaveLength(1);
  expect(hooks.requests[0]!.headers["x-service-delivery"]).toBe(deliveries[0].id);
}, 20_000); // a `serve` process stopped mid-delivery and restarted

test("a crawl running at SIGTERM is checkpointed, stays running, and completes after the restart", async () => {
  const configFile = setUp([]);
  let slowAnswers = 0;
  const site = await startLoopbackSite({
    "/": { body: "<a href='/a'>a</a> <a href='/slow'>slow</a> <a href='/missing'>missing</a>" },
    "/a": { body: "<a href='/'>home</a>" },
    // The first answer takes long enough for SIGTERM to arrive mid-crawl; the one after the restart is quick.
    "/slow": async () => {
      if (slowAnswers++ === 0) await Bun.sleep(3_000);
      return new Response("<a href='/a'>a</a>", { headers: { "content-type": "text/html" } });
    },
  });
  cleanups.push(() => site.stop());
  const domainId = await registerSite(configFile, site);

  const first = serve(configFile);
  const base = await first.ready;
  const crawl = (await api(base, "POST", "/crawls", { domain_id: domainId })).data;
  for (let i = 0; i < 100 && !site.requests.includes("GET /slow"); i++) await Bun.sleep(30);
  expect(site.requests).toContain("GET /slow");
  first.proc.kill("SIGTERM");
  expect(await exitWithin(first, 10_000)).toBe(0);

  const second = serve(configFile);
  const base2 = await second.ready;
  expect((await api(base2, "GET", `/crawls/${crawl.id}`)).data.status).toBeOneOf(["running", "completed"]);
  let detail: any;
  for (let i = 0; i < 200; i++) {
    detail = (await api(base2, "GET", `/crawls/${crawl.id}`)).data;
    if (detail.status !== "running") break;
    await Bun.sleep(50);
  }
  expect(detail).toMatchObject({ status: "completed", pages_crawled: 3, total_links: 5, broken_links: 1 });
}, 20_000); // a `serve` process stopped mid-crawl and restarted

test("work still running when server.shutdown_timeout runs out is cut off, and the process still exits 0", async () => {
  const configFile = setUp([WEBHOOKS, "server: {host: 127.0.0.1, port: 0, shutdown_timeout: 1s}"]);
  const started = await serveWithSlowTestDelivery(configFile, 8_000);
  const { hooks, server } = started;
  const inFlight = started.inFlight.then(
    (res) => res.status,
    (error: Error) => error.name,
  );
  await hooks.waitFor((requests) => requests.length === 1, 5_000);
  server.proc.kill("SIGTERM");
  // Well before the receiver's 8 s answer: the 1 s budget plus start-up slack.
  expect(await exitWithin(server, 5_000)).toBe(0);
  await server.stderr.waitFor(/shutdown timeout reached/, 2_000);
  expect(await inFlight).not.toBe(200);
}, 10_000); // a `serve` process, stopped
