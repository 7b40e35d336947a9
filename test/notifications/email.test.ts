import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "parse5";
import { startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { smtpAvailable, startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from "../helpers/smtp-receiver.ts";
import { HOSTILE_PATHS, HOSTILE_TEXTS, startHostileSite } from "./hostile-site.ts";

/**
 * Email through a real SMTP server (python3-aiosmtpd on 127.0.0.1, which parses each message with Python's MIME
 * parser): a crawl's digest arrives over STARTTLS with authentication, with a text and an HTML part naming each
 * new broken link, where it is linked from, and the crawl's page under server.public_url; hostile link texts
 * stay text in both parts and no header can be injected. A server that refuses, drops the connection or stops
 * answering gives a failed attempt with the reason, retried until the server accepts.
 */

if (!smtpAvailable) console.warn("email tests skipped: python3-aiosmtpd is missing (apt-get install python3-aiosmtpd)");

const PASSWORD = "s3cret-smtp-pass";
const PUBLIC_URL = "https://patrol.example.com/base/";

let svc: TestService;
let hostile: LoopbackSite;
let flakySite: LoopbackSite;
let mailbox: SmtpReceiver;
const flaky: Record<string, SmtpReceiver> = {};
let crawlId = "";
let mail: ReceivedMail;

async function channel(body: Record<string, unknown>): Promise<string> {
  const res = await svc.call("POST", "/channels", { body });
  if (res.status !== 201) throw new Error(`POST /channels: ${res.status} ${res.text}`);
  return res.json.data.id;
}

async function deliveriesUntil(channelId: string, predicate: (list: any[]) => boolean, timeoutMs = 20_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = (await svc.call("GET", `/channels/${channelId}/deliveries`)).json.data as any[];
    if (predicate(list)) return list;
    if (Date.now() > deadline) throw new Error(`deliveries of ${channelId}: condition not met: ${JSON.stringify(list)}`);
    await Bun.sleep(100);
  }
}

/** Every element name in an HTML document, parsed by a real HTML parser. */
function elementNames(html: string): string[] {
  const names: string[] = [];
  const walk = (node: any) => {
    if (node.tagName) names.push(node.tagName);
    for (const child of node.childNodes ?? []) walk(child);
  };
  walk(parse(html));
  return names;
}

function hrefs(html: string): string[] {
  const found: string[] = [];
  const walk = (node: any) => {
    if (node.tagName === "a") found.push(node.attrs.find((a: any) => a.name === "href")?.value ?? "");
    for (const child of node.childNodes ?? []) walk(child);
  };
  walk(parse(html));
  return found;
}

function textOf(html: string): string {
  let text = "";
  const walk = (node: any) => {
    if (node.nodeName === "#text") text += node.value;
    for (const child of node.childNodes ?? []) walk(child);
  };
  walk(parse(html));
  return text;
}

beforeAll(async () => {
  if (!smtpAvailable) return;
  mailbox = await startSmtpReceiver({ starttls: true, auth: `linkpatrol:${PASSWORD}` });
  hostile = await startHostileSite();
  flakySite = await startLoopbackSite({ "/": { body: "<a href='/gone'>Gone</a>" }, "/gone": { status: 404 } });
  svc = await startTestService({
    server: { public_url: PUBLIC_URL },
    notifications: { ca_file: mailbox.caFile, timeout: "2s" },
    webhooks: { retry_schedule: ["1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s"] },
  });
  const hostileDomain = await verifiedDomain(svc, hostile.url("/"));
  await channel({
    kind: "email",
    name: "webmasters",
    host: "127.0.0.1",
    port: mailbox.port,
    security: "starttls",
    username: "linkpatrol",
    password: PASSWORD,
    from: "linkpatrol@example.com",
    to: ["web@example.com", "ops@example.com"],
    domain_ids: [hostileDomain],
  });
  crawlId = await startCrawl(svc, hostileDomain);
  await waitForCrawl(svc, crawlId);
  mail = (await mailbox.waitForMessages(1, 20_000))[0]!;
}, 40_000); // a crawl, an SMTP conversation over TLS

afterAll(async () => {
  await svc?.stop();
  await Promise.all([mailbox?.stop(), hostile?.stop(), flakySite?.stop(), ...Object.values(flaky).map((r) => r.stop())]);
});

describe.skipIf(!smtpAvailable)("a crawl's digest by email", () => {
  test("arrives over STARTTLS with AUTH, to every address, with a text and an HTML part", () => {
    expect(mail.tls).toBe(true);
    expect(mail.authenticated).toBe(true);
    expect(mail.mail_from).toBe("linkpatrol@example.com");
    expect(mail.rcpt_tos.sort()).toEqual(["ops@example.com", "web@example.com"]);
    expect(mail.content_type).toBe("multipart/alternative");
    expect(mail.text).not.toBeNull();
    expect(mail.html).not.toBeNull();
    expect(mailbox.messages()).toHaveLength(1);
  });

  test("names each new broken link, where it is linked from, and links to the crawl's page under server.public_url", () => {
    const domain = new URL(hostile.url("/")).host;
    expect(mail.subject).toBe(`${domain}: 8 new broken links`);
    for (const path of Object.values(HOSTILE_PATHS)) expect(mail.text).toContain(hostile.url(path));
    expect(mail.text).toContain(`linked from ${hostile.url("/")}`);
    expect(mail.text).toContain("New broken links (8 links)");
    expect(mail.text).toContain("HTTP 404");
    const link = `${PUBLIC_URL}ui/crawls/${crawlId}`;
    expect(mail.text).toContain(`See the crawl: ${link}`);
    expect(hrefs(mail.html!)).toContain(link);
  });

  test("hostile link texts are text in the HTML part: no element or link of theirs, shown as typed", () => {
    const names = new Set(elementNames(mail.html!));
    for (const forbidden of ["script", "img", "svg", "iframe", "style"]) expect(names.has(forbidden)).toBe(false);
    const text = textOf(mail.html!);
    expect(text).toContain(HOSTILE_TEXTS.script);
    expect(text).toContain(HOSTILE_TEXTS.img);
    expect(text).toContain(HOSTILE_TEXTS.marks);
    // Every link is either a crawled target or source on the site, or the dashboard link: none the page chose.
    for (const href of hrefs(mail.html!)) expect(href.startsWith(hostile.origin) || href.startsWith(PUBLIC_URL)).toBe(true);
    expect(hrefs(mail.html!).some((href) => href.includes("evil.example"))).toBe(false);
  });

  test("CR/LF in a link text cannot add a header, and every text stays on its own line", () => {
    const names = mail.headers.map(([name]) => name.toLowerCase());
    expect(names.filter((name) => name === "subject")).toHaveLength(1);
    expect(names).not.toContain("bcc");
    expect(mail.raw_headers).not.toMatch(/^Bcc:/im);
    expect(mail.rcpt_tos).not.toContain("victim@example.com");
    expect(mail.headers.find(([name]) => name === "Auto-Submitted")?.[1]).toBe("auto-generated");
    // The text part shows it on one line, never starting a line with the injected header.
    expect(mail.text).not.toMatch(/^Bcc:/m);
    expect(mail.text).toContain("line one Bcc: victim@example.com Subject: injected");
    // The bidi override shows as a marker (as in every output) and reorders nothing.
    expect(mail.text).not.toContain("\u202E");
    expect(mail.text).toContain("abc⟨U+202E⟩txt.exe");
  });

  test("the attempt keeps the server's answer; the password is in no answer or log", async () => {
    const channels = (await svc.call("GET", "/channels")).json.data;
    const [delivered] = await deliveriesUntil(channels[0].id, (list) => list[0]?.state === "delivered");
    expect(delivered.event).toBe("notification.digest");
    expect(delivered.attempts[0]).toMatchObject({ attempt: 1, status_code: null, error: null });
    expect(delivered.attempts[0].response_body).toMatch(/^250 2\.0\.0 Ok: queued as TEST1/);
    expect(JSON.stringify(channels)).not.toContain(PASSWORD);
    expect(channels[0].secrets_set).toEqual(["password"]);
    expect(channels[0].settings).toMatchObject({ host: "127.0.0.1", port: mailbox.port, security: "starttls", username: "linkpatrol" });
  });
});

describe.skipIf(!smtpAvailable)("servers that fail", () => {
  test("implicit TLS: Send test arrives and reports the server's answer", async () => {
    flaky.tls = await startSmtpReceiver({ tls: true });
    // The service trusts the first receiver's CA only: this one gets its own service-wide CA through a new service.
    const tlsSvc = await startTestService({ notifications: { ca_file: flaky.tls.caFile } });
    try {
      const res = await tlsSvc.call("POST", "/channels", {
        body: { kind: "email", name: "smtps", host: "127.0.0.1", port: flaky.tls.port, security: "tls", from: "lp@example.com", to: ["x@example.com"] },
      });
      expect(res.status).toBe(201);
      const test = await tlsSvc.call("POST", `/channels/${res.json.data.id}/test`);
      expect(test.status).toBe(200);
      expect(test.json.data).toMatchObject({ delivered: true, status_code: null, error: null });
      expect(test.json.data.response).toMatch(/^250 /);
      const sample = (await flaky.tls.waitForMessages(1))[0]!;
      expect(sample.tls).toBe(true);
      expect(sample.subject).toBe("[test] www.example.com: 1 new broken link, 1 link fixed");
    } finally {
      await tlsSvc.stop();
    }
  }, 20_000);

  test("refused, dropped and hung: each attempt fails with the reason, is retried, and is delivered once the server accepts", async () => {
    flaky.refuse = await startSmtpReceiver({ mode: "refuse" });
    flaky.rcpt = await startSmtpReceiver({ mode: "refuse-rcpt" });
    flaky.drop = await startSmtpReceiver({ mode: "drop" });
    flaky.hang = await startSmtpReceiver({ mode: "hang" });
    const domainId = await verifiedDomain(svc, flakySite.url("/"));
    const ids: Record<string, string> = {};
    for (const name of ["refuse", "rcpt", "drop", "hang"]) {
      ids[name] = await channel({
        kind: "email",
        name,
        host: "127.0.0.1",
        port: flaky[name]!.port,
        security: "none",
        from: "lp@example.com",
        to: ["x@example.com"],
        domain_ids: [domainId],
      });
    }
    await waitForCrawl(svc, await startCrawl(svc, domainId));

    const reasons: Record<string, RegExp> = {
      refuse: /^SMTP 554: 554 5\.7\.1 Message rejected by policy$/,
      rcpt: /^SMTP 550: .*No such user here/,
      drop: /closed|ECONNECTION|421/i,
      hang: /timed out: the SMTP server did not finish within 2000 ms/,
    };
    for (const name of Object.keys(reasons)) {
      const [failing] = await deliveriesUntil(ids[name]!, (list) => list[0]?.attempts.length >= 2);
      expect(failing.state).toBe("pending");
      expect(failing.attempts[0].error).toMatch(reasons[name]!);
      expect(failing.last_error).toMatch(reasons[name]!);
      expect(flaky[name]!.messages()).toHaveLength(0);
    }
    for (const name of Object.keys(reasons)) flaky[name]!.setMode("accept");
    for (const name of Object.keys(reasons)) {
      const [delivered] = await deliveriesUntil(ids[name]!, (list) => list[0]?.state === "delivered");
      expect(delivered.attempts.at(-1).response_body).toMatch(/^250 /);
      const arrived = (await flaky[name]!.waitForMessages(1))[0]!;
      expect(arrived.text).toContain(flakySite.url("/gone"));
    }
  }, 60_000); // retries on a 1 s schedule, a hung server's 2 s timeout each time
});
