import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { signedInClient } from "../ui/dashboard-client.ts";

/**
 * Control and bidi characters a crawled page writes into its link texts and hrefs. Stored and answered by the API
 * with no control character (C0, DEL, C1) and each bidi control as a visible marker (`⟨U+202E⟩`), so
 * U+202E then "gnp.exe" never reads as "exe.png"; an href that does not parse is recorded percent-encoded. Every output —
 * the dashboard, its downloads, every `check` format, webhook bodies — shows the markers and never a raw
 * control, including for text stored raw by an earlier version (written into the store here by hand).
 */

/** Every character no output may carry raw: C0 but tab/LF/CR, DEL, C1, and the bidi controls. */
const UNSHOWN = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const RAW_TEXT = "A\u0000B\u0001C\u202Egnp.exe\u007f\u0085\u200Fz";
const SHOWN_TEXT = "ABC⟨U+202E⟩gnp.exe⟨U+200F⟩z";
const BAD_HREF = "http://exa mple.test/\u202Ex";
const BAD_HREF_RECORDED = "http://exa mple.test/%E2%80%AEx";

let svc: TestService;
let site: LoopbackSite;
let receiver: LoopbackSite;
const bodies: string[] = [];
let crawlId: string;

beforeAll(async () => {
  svc = await startTestService({ webhooks: { allow_http: true, allow_private_targets: true } });
  receiver = await startLoopbackSite({
    "/hook": async (request) => {
      bodies.push(await request.text());
      return new Response(null, { status: 204 });
    },
  });
  site = await startLoopbackSite({
    "/": { body: `<title>Home</title><a href="/missing">${RAW_TEXT}</a> <a href="/ok">ok \u2066x\u2069</a> <a href="${BAD_HREF}">bad href</a>` },
    "/ok": { body: "<title>OK</title>" },
  });
  const hook = await svc.call("POST", "/webhooks", { body: { url: receiver.url("/hook"), name: "receiver" } });
  if (hook.status !== 201) throw new Error(`POST /webhooks: ${hook.status} ${hook.text}`);
  crawlId = await startCrawl(svc, await verifiedDomain(svc, site.url("/")));
  await waitForCrawl(svc, crawlId);
}, 30_000);
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
  await receiver?.stop();
});

describe("on the way in", () => {
  test("the store and the API hold link texts without controls, bidi controls as markers, bad hrefs percent-encoded", async () => {
    const stored = svc.runtime.store.sqlite!.query<{ link_text: string }, [string]>("SELECT link_text FROM links WHERE crawl_id = ?1").all(crawlId);
    expect(stored.map((row) => row.link_text).sort()).toEqual(["bad href", SHOWN_TEXT, "ok ⟨U+2066⟩x⟨U+2069⟩"].sort());
    const links = await readAll(svc, `/crawls/${crawlId}/links`);
    const byPath = Object.fromEntries(links.map((link) => [link.url.startsWith(site.origin) ? new URL(link.url).pathname : link.url, link]));
    expect(byPath["/missing"]).toMatchObject({ link_text: SHOWN_TEXT, is_broken: true });
    expect(byPath[BAD_HREF_RECORDED]).toMatchObject({ link_text: "bad href", status_code: 0, is_broken: true });
    for (const link of links) for (const value of Object.values(link)) if (typeof value === "string") expect(value).not.toMatch(UNSHOWN);
  });

  test("webhook bodies carry the bad href percent-encoded, and no raw control anywhere", async () => {
    const deadline = Date.now() + 10_000;
    while (!bodies.some((body) => body.includes('"broken_links.found"')) && Date.now() < deadline) await Bun.sleep(50);
    const found = JSON.parse(bodies.find((body) => body.includes('"broken_links.found"'))!);
    expect(found.data.sample_links.map((link: { url: string }) => link.url)).toContain(BAD_HREF_RECORDED);
    for (const body of bodies) expect(body).not.toMatch(UNSHOWN);
  });
});

describe("every output, for text stored raw before", () => {
  beforeAll(() => {
    // As a store written by an earlier version holds it.
    svc.runtime.store.sqlite!.query("UPDATE links SET link_text = ?1 WHERE crawl_id = ?2 AND link_text = ?3").run(RAW_TEXT, crawlId, SHOWN_TEXT);
  });

  test("the dashboard's crawl page shows the markers, never the raw characters", async () => {
    const client = await signedInClient(svc);
    const page = await client.get(`/ui/crawls/${crawlId}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`“${SHOWN_TEXT}”`);
    expect(page.html).not.toMatch(UNSHOWN);
  });

  test("the dashboard's report downloads (csv, json) show the markers, never the raw characters", async () => {
    const client = await signedInClient(svc);
    for (const format of ["csv", "json"]) {
      const file = await client.get(`/ui/crawls/${crawlId}/report.${format}`);
      expect(file.status).toBe(200);
      expect(file.html).toContain(SHOWN_TEXT);
      expect(file.html).not.toMatch(UNSHOWN);
    }
  });
});

describe("linkpatrol check", () => {
  test("every format shows the markers and the encoded href, never a raw control", async () => {
    for (const format of ["text", "markdown", "csv", "json", "jsonl", "junit"]) {
      const result = await runCli(["check", site.url("/"), "--allow-private", "--format", format], { timeoutMs: 20_000 });
      expect(result.exitCode).toBe(1);
      expect(result.stdout).not.toMatch(UNSHOWN);
      expect(result.stderr).not.toMatch(UNSHOWN);
      // Markdown escapes punctuation ("exa mple\.test", "U\+202E"), so its form of the text is its own.
      const shown = format === "markdown" ? "ABC⟨U\\+202E⟩gnp\\.exe⟨U\\+200F⟩z" : SHOWN_TEXT;
      expect(result.stdout).toContain(shown);
      if (format !== "markdown") expect(result.stdout).toContain(BAD_HREF_RECORDED);
    }
  }, 60_000);
});
