import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, startServeProcess, writeServeConfig } from "../helpers/serve-process.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * Deliveries survive the process: `linkpatrol serve` is SIGKILLed while its deliveries are still pending (the
 * receiver is down), the receiver comes up, the service starts again, and every event of the crawl arrives,
 * under the delivery ids it was queued with. None is lost.
 */

const KEY = `lp_${"W".repeat(40)}`;
const api = apiClient(KEY);
let dir: string;
let configFile: string;
let site: LoopbackSite;
let receiver: WebhookReceiver | undefined;
let receiverPort: number;

beforeAll(async () => {
  site = await startLoopbackSite({ "/": { body: "<a href='/gone'>gone</a>" }, "/gone": { status: 410 } });
  const placeholder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  receiverPort = placeholder.port!;
  placeholder.stop(true);
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-outbox-"));
  configFile = writeServeConfig(dir, KEY, ["webhooks: {allow_http: true, allow_private_targets: true, retry_schedule: [1s, 1s, 1s, 1s, 1s, 1s, 1s, 1s]}"]);
});
afterAll(async () => {
  await site?.stop();
  await receiver?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("deliveries pending when the process is killed are delivered after the restart", async () => {
  await setUpStore(["--config", configFile]);
  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", configFile]);
  expect(added.exitCode).toBe(0);
  const domainId = JSON.parse(added.stdout).id;

  const first = startServeProcess(configFile);
  let hook: any;
  let queued: any[] = [];
  try {
    const base = await first.ready;
    hook = (await api(base, "POST", "/webhooks", { url: `http://127.0.0.1:${receiverPort}/hook` })).data;
    await api(base, "POST", "/crawls", { domain_id: domainId });
    // Wait until all three events are queued and have failed at least once against the absent receiver.
    for (let i = 0; i < 200; i++) {
      queued = (await api(base, "GET", `/webhooks/${hook.id}/deliveries`)).data;
      if (queued.length === 3 && queued.every((d) => d.attempts.length >= 1)) break;
      await Bun.sleep(50);
    }
  } finally {
    first.proc.kill("SIGKILL");
    await first.proc.exited;
  }
  expect(queued.map((d) => d.event).sort()).toEqual(["broken_links.found", "crawl.completed", "crawl.started"]);
  expect(queued.every((d) => d.state === "pending")).toBe(true);

  receiver = await startWebhookReceiver({ tls: false, port: receiverPort, secret: hook.secret });
  const second = startServeProcess(configFile);
  try {
    await second.ready;
    await receiver.waitFor((requests) => new Set(requests.map((r) => r.headers["x-service-delivery"])).size === 3, 15_000);
    expect(new Set(receiver.requests.map((r) => r.headers["x-service-delivery"]))).toEqual(new Set(queued.map((d) => d.id)));
    expect(receiver.requests.every((r) => r.verified)).toBe(true);
    expect(receiver.requests.map((r) => r.headers["x-service-event"]).sort()).toEqual(["broken_links.found", "crawl.completed", "crawl.started"]);
  } finally {
    second.proc.kill("SIGTERM");
    await Promise.race([second.proc.exited, Bun.sleep(10_000)]);
  }
}, 10_000); // a `serve` process killed and restarted
