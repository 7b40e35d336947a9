import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildExecutable } from "../../scripts/build.ts";
import { cleanEnv, runCli } from "../helpers/cli.ts";
import { startLoopbackSite } from "../helpers/loopback-site.ts";
import { StreamWatcher } from "../helpers/process-output.ts";
import { startChatReceiver } from "../helpers/chat-receiver.ts";
import { smtpAvailable, startSmtpReceiver } from "../helpers/smtp-receiver.ts";

/**
 * Smoke test of the single executable: built with `bun build --compile`, copied alone into an empty
 * directory (no node_modules, no migrations folder), started, and called over HTTP.
 */

const buildDir = mkdtempSync(join(tmpdir(), "linkpatrol-build-"));
const runDir = mkdtempSync(join(tmpdir(), "linkpatrol-run-"));
let binary: string;

beforeAll(() => {
  const built = buildExecutable(join(buildDir, "linkpatrol"));
  binary = join(runDir, "linkpatrol");
  copyFileSync(built, binary);
  rmSync(buildDir, { recursive: true, force: true });
}, 60_000); // bun build --compile of the whole service
afterAll(() => rmSync(runDir, { recursive: true, force: true }));

/** Starts `linkpatrol serve` from the binary in runDir on 127.0.0.1 and an ephemeral port; its stderr is watched. */
function startServe(env: Record<string, string> = {}) {
  const proc = Bun.spawn({
    cmd: [binary, "serve"],
    cwd: runDir,
    env: { ...cleanEnv(), LINKPATROL_SERVER_HOST: "127.0.0.1", LINKPATROL_SERVER_PORT: "0", ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  return { proc, stderr: new StreamWatcher(proc.stderr) };
}

describe("dist/linkpatrol", () => {
  test("runs alone in an empty directory", async () => {
    expect(readdirSync(runDir)).toEqual(["linkpatrol"]);
    expect(statSync(binary).mode & 0o111).not.toBe(0);
    const version = await runCli(["version"], { command: [binary], cwd: runDir });
    expect(version.exitCode).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("reads no bunfig.toml and no .env from the directory it runs in", async () => {
    // What a checked-out repository may hold where `linkpatrol check` runs in CI.
    const repo = mkdtempSync(join(tmpdir(), "linkpatrol-repo-"));
    try {
      const marker = join(repo, "preload-ran");
      writeFileSync(join(repo, "preload.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");`);
      writeFileSync(join(repo, "bunfig.toml"), 'preload = ["./preload.ts"]\n[run]\npreload = ["./preload.ts"]\n');
      writeFileSync(join(repo, ".env"), "LINKPATROL_LOGGING_LEVEL=not-a-level\n");
      const version = await runCli(["version"], { command: [binary], cwd: repo });
      expect(version.exitCode).toBe(0);
      expect(existsSync(marker)).toBe(false);
      const config = await runCli(["config", "check"], { command: [binary], cwd: repo });
      expect(config.stderr).not.toContain("LINKPATROL_LOGGING_LEVEL");
      expect(config.exitCode).toBe(0);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  test("serve: migrates, prints a bootstrap key once, answers /healthz and an authenticated call, stops on SIGTERM", async () => {
    const { proc, stderr } = startServe();
    try {
      const key = (await stderr.waitFor(/\b(lp_[0-9A-Za-z]{40})\b/))[1]!;
      const port = Number((await stderr.waitFor(/"msg":"listening".*?"port":(\d+)/))[1]);
      const origin = `http://127.0.0.1:${port}`;

      const health = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(5_000) });
      expect(health.status).toBe(200);
      expect((await health.json()).status).toBe("ok");

      const authed = await fetch(`${origin}/v1/domains`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(5_000) });
      expect(authed.status).toBe(200);
      expect(await authed.json()).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0 } });

      const anonymous = await fetch(`${origin}/v1/domains`, { signal: AbortSignal.timeout(5_000) });
      expect(anonymous.status).toBe(401);

      // The dashboard, its stylesheet and script embedded in the executable.
      const root = await fetch(`${origin}/`, { redirect: "manual", signal: AbortSignal.timeout(5_000) });
      expect(root.status).toBe(303);
      expect(root.headers.get("location")).toStartWith("/ui/sign-in");
      const signIn = await fetch(`${origin}/ui/sign-in`, { signal: AbortSignal.timeout(5_000) });
      const signInHtml = await signIn.text();
      expect(signIn.status).toBe(200);
      expect(signIn.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(signInHtml).toContain('<form method="post" action="/ui/sign-in">');
      for (const asset of signInHtml.match(/\/ui\/assets\/[a-z]+\.[0-9a-f]+\.(css|js|svg)/g) ?? []) {
        const served = await fetch(`${origin}${asset}`, { signal: AbortSignal.timeout(5_000) });
        expect(served.status).toBe(200);
        expect((await served.text()).length).toBeGreaterThan(100);
      }
      expect(signInHtml.match(/\/ui\/assets\//g)).toHaveLength(3);

      expect(statSync(join(runDir, "data", "linkpatrol.db")).isFile()).toBe(true);
      expect(stderr.text).not.toContain('"level":"error"');
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await Promise.race([proc.exited, Bun.sleep(10_000).then(() => "timeout")])).toBe(0);
    expect(stderr.text).toContain('"msg":"stopped"');
  });

  test("a second start reuses the store and prints no new key", async () => {
    const { proc, stderr } = startServe();
    try {
      await stderr.waitFor(/"msg":"listening"/);
      expect(stderr.text).not.toMatch(/lp_[0-9A-Za-z]{40}/);
    } finally {
      proc.kill("SIGTERM");
      await Promise.race([proc.exited, Bun.sleep(10_000)]);
    }
    const keys = await runCli(["keys", "list", "--json"], { command: [binary], cwd: runDir });
    expect(JSON.parse(keys.stdout)).toHaveLength(1);
  });

  test("crawls a loopback site in a worker thread bundled into the binary", async () => {
    const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });
    const site = await startLoopbackSite({
      "/": () => html(`<a href="/a">A</a> <a href="/missing">Missing</a>`),
      "/a": () => html(`<a href="/">Home</a> <a href="/gone">Gone</a>`),
      "/gone": () => new Response("gone", { status: 410 }),
    });
    const privateOk = { LINKPATROL_CRAWLER_ALLOW_PRIVATE_NETWORKS: "true" };
    const add = await runCli(["domains", "add", new URL(site.origin).host, "--root-url", `${site.origin}/`, "--verified"], {
      command: [binary],
      cwd: runDir,
      env: privateOk,
    });
    expect(add.exitCode).toBe(0);
    const domainId = (await runCli(["domains", "list", "--json"], { command: [binary], cwd: runDir })).stdout.match(/"id":\s*"([0-9a-f-]{36})"/)![1]!;
    const { proc, stderr } = startServe(privateOk);
    try {
      const port = Number((await stderr.waitFor(/"msg":"listening".*?"port":(\d+)/))[1]);
      const key = (await runCli(["keys", "create", "--name", "e2e", "--scopes", "admin"], { command: [binary], cwd: runDir })).stdout.match(
        /lp_[0-9A-Za-z]{40}/,
      )![0];
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`http://127.0.0.1:${port}/v1${path}`, {
          ...init,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          signal: AbortSignal.timeout(5_000),
        });
      const created = await api("/crawls", { method: "POST", body: JSON.stringify({ domain_id: domainId }) });
      expect(created.status).toBe(201);
      const id = (await created.json()).data.id;
      let detail: any;
      for (let i = 0; i < 200; i++) {
        detail = (await (await api(`/crawls/${id}`)).json()).data;
        if (detail.status === "completed" || detail.status === "failed") break;
        await Bun.sleep(50);
      }
      expect(detail).toMatchObject({ status: "completed", pages_crawled: 2, total_links: 4, broken_links: 2 });
      const broken = (await (await api(`/crawls/${id}/broken`)).json()).data.map((link: any) => [link.url, link.status_code]);
      expect(broken.sort()).toEqual([
        [`${site.origin}/gone`, 410],
        [`${site.origin}/missing`, 404],
      ]);
      expect(stderr.text).not.toContain('"level":"error"');
    } finally {
      proc.kill("SIGTERM");
      await Promise.race([proc.exited, Bun.sleep(10_000)]);
      await site.stop();
    }
  }, 30_000); // starts the binary and runs a crawl: over bun's 5 s on a loaded machine

  test.skipIf(!smtpAvailable)(
    "sends a channel's test message by email (nodemailer bundled) and to a chat destination",
    async () => {
      const smtp = await startSmtpReceiver();
      const chat = await startChatReceiver();
      const { proc, stderr } = startServe({ LINKPATROL_NOTIFICATIONS_ALLOW_HTTP: "true", LINKPATROL_NOTIFICATIONS_ALLOW_PRIVATE_TARGETS: "true" });
      try {
        const port = Number((await stderr.waitFor(/"msg":"listening".*?"port":(\d+)/))[1]);
        const key = (
          await runCli(["keys", "create", "--name", "e2e-notify", "--scopes", "notifications:write"], { command: [binary], cwd: runDir })
        ).stdout.match(/lp_[0-9A-Za-z]{40}/)![0];
        const api = async (path: string, body?: unknown) =>
          (
            await fetch(`http://127.0.0.1:${port}/v1${path}`, {
              method: "POST",
              headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
              body: body === undefined ? undefined : JSON.stringify(body),
              signal: AbortSignal.timeout(15_000),
            })
          ).json();
        const mail = await api("/channels", {
          kind: "email",
          name: "mail",
          host: "127.0.0.1",
          port: smtp.port,
          security: "none",
          from: "lp@example.com",
          to: ["web@example.com"],
        });
        const push = await api("/channels", { kind: "ntfy", name: "push", server_url: chat.origin, topic: "binary" });
        expect((await api(`/channels/${mail.data.id}/test`)).data).toMatchObject({ delivered: true, error: null });
        expect((await api(`/channels/${push.data.id}/test`)).data).toMatchObject({ delivered: true, status_code: 200 });
        const [message] = await smtp.waitForMessages(1);
        expect(message!.subject).toStartWith("[test] ");
        expect(message!.html).toContain("<h2");
        expect(chat.requests[0]!.json).toMatchObject({ topic: "binary", markdown: true });
        expect(stderr.text).not.toContain('"level":"error"');
      } finally {
        proc.kill("SIGTERM");
        await Promise.race([proc.exited, Bun.sleep(10_000)]);
        await smtp.stop();
        await chat.stop();
      }
    },
    20_000,
  );

  test("check URL: one crawl without a server, junit report, exit 1 for a broken link", async () => {
    const site = await startLoopbackSite({ "/": { body: "<a href='/missing'>Missing</a> <a href='/ok'>OK</a>" }, "/ok": { body: "fine" } });
    try {
      const result = await runCli(["check", site.url("/"), "--allow-private", "--format", "junit"], { command: [binary], cwd: runDir });
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toContain('tests="2" failures="1"');
      expect(result.stdout).toContain(site.url("/missing"));
    } finally {
      await site.stop();
    }
  });
});
