import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatReceiver, type ChatReceiver } from "../helpers/chat-receiver.ts";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, startServeProcess, writeServeConfig, type ServeProcess } from "../helpers/serve-process.ts";
import { freePort, smtpAvailable, startSmtpReceiver, type SmtpReceiver } from "../helpers/smtp-receiver.ts";

/**
 * The whole path, through `linkpatrol serve`: a scheduled audit (a schedule in the config file) finds a new
 * broken link; its digest goes to a mailbox and to a chat room, each naming the link, the page it is on, since
 * when, and the crawl's page under the public URL given by LINKPATROL_SERVER_PUBLIC_URL. The mail server is down
 * when the crawl ends: the delivery is retried (a 1 s schedule from the config file) and arrives once the server
 * is up, with nothing lost and nothing sent twice.
 */

if (!smtpAvailable) console.warn("notification end-to-end test skipped: python3-aiosmtpd is missing");

const KEY = `lp_${"N".repeat(40)}`;
const api = apiClient(KEY);
const PUBLIC_URL = "https://audit.example.net/linkpatrol/";
let dir: string;
let site: LoopbackSite;
let chat: ChatReceiver;
let smtp: SmtpReceiver | undefined;
let serve: ServeProcess | undefined;
let smtpPort = 0;
/** The link breaks only once the channels exist: scheduled crawls before that find nothing to tell. */
let broken = false;

beforeAll(async () => {
  if (!smtpAvailable) return;
  site = await startLoopbackSite({
    "/": { body: "<a href='/docs'>Docs</a> <a href='/gone'>Old release notes</a>" },
    "/docs": { body: "ok" },
    "/gone": () => new Response(broken ? "gone" : "ok", { status: broken ? 404 : 200 }),
  });
  chat = await startChatReceiver();
  smtpPort = freePort(); // nothing listens there yet: the mail server is down
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-notify-e2e-"));
  const config = writeServeConfig(dir, KEY, [
    "webhooks: {retry_schedule: [1s, 1s, 1s, 1s, 1s, 1s, 1s, 1s, 1s, 1s, 1s, 1s]}",
    "notifications: {allow_http: true, allow_private_targets: true, timeout: 2s}",
    `schedules: [{domain: "${site.host}", cron: "*/2 * * * * *"}]`,
  ]);
  await setUpStore(["--config", config]); // domains add opens an existing store only
  const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", config]);
  if (added.exitCode !== 0) throw new Error(`domains add: ${added.stderr}`);
  serve = startServeProcess(config, [], { LINKPATROL_SERVER_PUBLIC_URL: PUBLIC_URL });
}, 20_000);

afterAll(async () => {
  if (!smtpAvailable) return;
  serve?.proc.kill("SIGTERM");
  await serve?.proc.exited;
  await Promise.all([site?.stop(), chat?.stop(), smtp?.stop()]);
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe.skipIf(!smtpAvailable)("a scheduled audit's news, by email and in chat", () => {
  test("the digest reaches the chat room at once and the mailbox once the mail server is back", async () => {
    const base = await serve!.ready;
    expect(serve!.stderr.text).toContain(`"public_url":"${PUBLIC_URL}"`);
    const mail = await api(base, "POST", "/channels", {
      kind: "email",
      name: "webmaster",
      host: "127.0.0.1",
      port: smtpPort,
      security: "none",
      from: "audit@example.net",
      to: ["webmaster@example.net"],
    });
    const room = await api(base, "POST", "/channels", {
      kind: "matrix",
      name: "ops room",
      homeserver: chat.origin,
      room_id: "!ops:example.net",
      access_token: "syt_secret",
    });
    expect(mail.data.id).toBeDefined();
    expect(room.data.id).toBeDefined();
    broken = true;

    // The chat room hears of the scheduled crawl's new broken link.
    const [message] = await chat.waitFor(1, 30_000);
    const crawlId = /ui\/crawls\/([0-9a-f-]+)/.exec(message!.json.body)![1]!;
    const crawl = (await api(base, "GET", `/crawls/${crawlId}`)).data;
    expect(crawl.status).toBe("completed");
    const body: string = message!.json.body;
    expect(body).toContain(`${site.host}: 1 new broken link`);
    expect(body).toContain(`${site.url("/gone")} (HTTP 404, broken since`);
    expect(body).toContain(`linked from ${site.url("/")} as "Old release notes"`);
    expect(body).toContain(`See the crawl: ${PUBLIC_URL}ui/crawls/${crawl.id}`);
    expect(body).toContain(`broken since ${crawl.started_at.slice(0, 16).replace("T", " ")} UTC`);

    // The mail server is down: the email delivery fails, is retried, and stays pending.
    let deliveries: any[] = [];
    for (let i = 0; i < 300 && !(deliveries[0]?.attempts.length >= 2); i++) {
      deliveries = (await api(base, "GET", `/channels/${mail.data.id}/deliveries`)).data;
      await Bun.sleep(50);
    }
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].state).toBe("pending");
    expect(deliveries[0].attempts[0].error).toMatch(/ECONNREFUSED|refused/i);

    // It comes back: the next retry delivers, once.
    smtp = await startSmtpReceiver({ port: smtpPort });
    const email = (await smtp.waitForMessages(1, 20_000))[0]!;
    expect(email.subject).toBe(`${site.host}: 1 new broken link`);
    expect(email.text).toContain(site.url("/gone"));
    expect(email.text).toContain("broken since");
    expect(email.text).toContain(`linked from ${site.url("/")} as "Old release notes"`);
    expect(email.html).toContain(`href="${PUBLIC_URL}ui/crawls/${crawl.id}"`);
    for (let i = 0; i < 200 && deliveries[0]?.state !== "delivered"; i++) {
      deliveries = (await api(base, "GET", `/channels/${mail.data.id}/deliveries`)).data;
      await Bun.sleep(50);
    }
    expect(deliveries[0].state).toBe("delivered");
    expect(deliveries[0].attempts.at(-1).response_body).toMatch(/^250 /);

    // Later scheduled crawls change nothing: `changed` channels hear nothing more.
    const seen = (await api(base, "GET", "/crawls")).meta.total;
    for (let i = 0; i < 200 && (await api(base, "GET", "/crawls")).meta.total < seen + 2; i++) await Bun.sleep(100);
    await Bun.sleep(1_500);
    expect(smtp.messages()).toHaveLength(1);
    expect(chat.requests).toHaveLength(1);
  }, 90_000); // scheduled crawls every 2 s, retries every 1 s
});
