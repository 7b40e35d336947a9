import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startMeshSite } from "../helpers/mesh-site.ts";
import { startServeProcess, writeServeConfig, type ServeProcess } from "../helpers/serve-process.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { DashboardClient } from "../ui/dashboard-client.ts";

/**
 * The store file deleted, moved away or replaced by another install's store under a running `serve`: every write
 * of the API and the dashboard answers 503 `store_unavailable` (none is acknowledged into a file that is no longer
 * the store), /healthz 503, reads still answer, the crawl running at the time pauses and the one queued behind
 * it is not started (its worker would open the path anew), no webhook goes out, and nothing makes a new file at
 * the path. A restart then refuses, exit 2, naming the file and `--new-store`; with `--new-store` it starts.
 */

const KEY = `lp_${"S".repeat(40)}`;

let slowSite: LoopbackSite;
let smallSite: LoopbackSite;
const dirs: string[] = [];
const serves: ServeProcess[] = [];
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  // 2,000 pages at 15 ms each, two at a time: a crawl that is still running when the store goes.
  slowSite = await startMeshSite(2_000);
  smallSite = await startLoopbackSite({ "/": { body: "<a href='/a'>A</a>" }, "/a": { body: "<a href='/'>Home</a>" } });
});
afterAll(async () => {
  for (const serve of serves) {
    serve.proc.kill("SIGKILL");
    await serve.proc.exited;
  }
  for (const receiver of receivers) await receiver.stop();
  await slowSite?.stop();
  await smallSite?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-store-lost-"));
  dirs.push(dir);
  return dir;
}

function serve(config: string, args: string[] = []): ServeProcess {
  const started = startServeProcess(config, args);
  serves.push(started);
  return started;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === "" ? null : JSON.parse(text) };
}

async function addDomain(config: string, site: LoopbackSite): Promise<string> {
  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", config]);
  expect(added.exitCode).toBe(0);
  return JSON.parse(added.stdout).id;
}

type Loss = "deleted" | "moved" | "replaced";

test.each<[Loss]>([["deleted"], ["moved"], ["replaced"]])(
  "a store file %s under a running serve: writes refused, nothing acknowledged or created, and a restart refuses until --new-store",
  async (loss) => {
    const dir = tempDir();
    const store = join(dir, "store.db");
    const config = writeServeConfig(
      dir,
      KEY,
      ["webhooks: {allow_http: true, allow_private_targets: true}"],
      "allowed_cidrs: [127.0.0.1/32], workers: 1, concurrency: 2, per_host_concurrency: 2",
    );
    // Another install's store, to be put in this one's place.
    const other = join(tempDir(), "other.db");
    if (loss === "replaced") {
      await setUpStore([], { LINKPATROL_STORAGE_PATH: other });
      // Whole in its one file, as a restored backup is.
      const db = new Database(other);
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.close();
    }

    const first = serve(config);
    const base = await first.ready;
    const origin = new URL(base).origin;
    const slowDomain = await addDomain(config, slowSite);
    const smallDomain = await addDomain(config, smallSite);
    const receiver = await startWebhookReceiver({ tls: false });
    receivers.push(receiver);
    const hook = await call(base, "POST", "/webhooks", { url: receiver.url() });
    expect(hook.status).toBe(201);
    receiver.useSecret(hook.body.data.secret);
    const dashboard = await new DashboardClient(origin).signedIn(KEY);

    // One crawl running, one queued behind it (a single worker).
    const running = (await call(base, "POST", "/crawls", { domain_id: slowDomain })).body.data.id;
    await first.stderr.waitFor(new RegExp(`"msg":"crawl running".*"crawl_id":"${running}"`), 15_000);
    const queued = await call(base, "POST", "/crawls", { domain_id: smallDomain });
    expect(queued.status).toBe(201);
    await receiver.waitFor((requests) => requests.some((r) => r.headers["x-service-event"] === "crawl.started"), 15_000);
    const sentBefore = receiver.requests.length;

    if (loss === "deleted") rmSync(store);
    if (loss === "moved") renameSync(store, join(dir, "moved-away.db"));
    if (loss === "replaced") renameSync(other, store);
    const atPath = loss === "replaced" ? statSync(store).ino : null;

    const health = await fetch(`${origin}/healthz`);
    expect(health.status).toBe(503);
    expect((await health.json()).reason).toContain(store);

    // Every write answers 503 store_unavailable; none is acknowledged.
    const writes: [string, string, unknown?][] = [
      ["POST", "/domains", { name: "after.example" }],
      ["PATCH", `/domains/${smallDomain}`, { schedule: "0 3 * * *" }],
      ["POST", "/webhooks", { url: receiver.url("/second") }],
      ["DELETE", `/webhooks/${hook.body.data.id}`],
      ["POST", `/crawls/${running}/cancel`],
      ["POST", "/crawls", { domain_id: slowDomain }],
    ];
    for (const [method, path, body] of writes) {
      const answer = await call(base, method, path, body);
      expect({ write: `${method} ${path}`, status: answer.status, code: answer.body?.error?.code }).toEqual({
        write: `${method} ${path}`,
        status: 503,
        code: "store_unavailable",
      });
      expect(answer.headers.get("retry-after")).toBe("60");
      expect(answer.headers.get("location")).toBeNull();
    }
    const form = await dashboard.post("/ui/domains", { name: "dashboard.example" });
    expect(form.status).toBe(503);
    expect(form.html).toContain("deleted, moved or replaced");
    // Reads still answer, from the file the service opened.
    expect((await call(base, "GET", `/crawls/${running}`)).status).toBe(200);

    // The running crawl notices at its next batch and pauses; the queued one is never handed to a worker, which
    // would open the path anew. Then a few pool retries (1 s apart) pass.
    await first.stderr.waitFor(new RegExp(`"msg":"crawl paused: the store refused a write".*"crawl_id":"${running}"`), 15_000);
    await Bun.sleep(3_000);
    expect(first.stderr.text).not.toMatch(new RegExp(`"msg":"crawl running".*"crawl_id":"${queued.body.data.id}"`));
    expect(first.stderr.text).not.toContain("no such table");
    expect(receiver.requests.length).toBe(sentBefore);
    if (atPath === null) expect(existsSync(store)).toBe(false);
    else expect(statSync(store).ino).toBe(atPath);
    expect(first.proc.exitCode).toBeNull();

    first.proc.kill("SIGTERM");
    expect(await Promise.race([first.proc.exited, Bun.sleep(20_000).then(() => "timeout")])).toBe(0);
    // The WAL at the path is left empty: the other install's store gets nothing of this one, and a store moved
    // away holds all it had, on its own.
    const domainsIn = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.query<{ n: number }, []>("SELECT count(*) AS n FROM domains").get()!.n;
      } finally {
        db.close();
      }
    };
    if (loss === "replaced") expect(domainsIn(store)).toBe(0);
    if (loss === "moved") {
      const alone = join(tempDir(), "alone.db");
      renameSync(join(dir, "moved-away.db"), alone);
      expect(domainsIn(alone)).toBe(2);
    }

    // A restart (and the CLI) refuses, naming the file and the way out; nothing is created.
    const refused = await runCli(["serve", "--config", config], { timeoutMs: 20_000 });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(store);
    expect(refused.stderr).toContain("--new-store");
    expect(refused.stderr).toMatch(loss === "replaced" ? /another store was put in its place/ : /is missing/);
    expect(refused.stderr).not.toContain('"msg":"listening"');
    const keys = await runCli(["keys", "list", "--config", config]);
    expect(keys.exitCode).toBe(2);
    expect(keys.stderr).toContain(store);
    if (atPath === null) expect(existsSync(store)).toBe(false);

    // Told it is a new store, it starts on it, and later starts need no flag.
    const fresh = serve(config, ["--new-store"]);
    const freshBase = await fresh.ready;
    expect((await fetch(`${new URL(freshBase).origin}/healthz`)).status).toBe(200);
    expect((await call(freshBase, "POST", "/domains", { name: "new.example" })).status).toBe(201);
    // Nothing of the lost store came back into the new one.
    const listed = (await call(freshBase, "GET", "/domains")).body;
    expect(listed.data.map((d: { name: string }) => d.name)).toEqual(["new.example"]);
    fresh.proc.kill("SIGTERM");
    expect(await Promise.race([fresh.proc.exited, Bun.sleep(20_000).then(() => "timeout")])).toBe(0);
    const again = serve(config);
    await again.ready;
    again.proc.kill("SIGTERM");
    expect(await Promise.race([again.proc.exited, Bun.sleep(20_000).then(() => "timeout")])).toBe(0);
  },
  120_000, // three `serve` processes, CLI runs beside them, and a wait through the pool's retries
);
