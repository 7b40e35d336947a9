import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startDnsServer, type TestDnsServer } from "../helpers/dns-server.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";
import { tableResolver } from "../helpers/table-resolver.ts";
import { signedInClient, type DashboardClient } from "./dashboard-client.ts";

/** The domain page through plain forms: add, the verification methods and their failures, verify, schedule, defaults. */

let dns: TestDnsServer;
let svc: TestService;
let site: LoopbackSite;
let client: DashboardClient;
let token = "";
let domainId = "";

beforeAll(async () => {
  dns = await startDnsServer({});
  svc = await startTestService({ verification: { dns_servers: [dns.address] } }, { resolve: tableResolver({}) });
  site = await startLoopbackSite({
    "/": { body: "<!doctype html><title>home</title><p>hello</p>" },
    "/.well-known/linkpatrol-verify.txt": () => (token === "" ? new Response("nope", { status: 404 }) : new Response(`${token}\n`)),
  });
  client = await signedInClient(svc);
});
afterAll(async () => {
  await svc.stop();
  await site.stop();
  await dns.stop();
});

describe("domain pages", () => {
  test("adding a domain redirects to its page, which shows the three methods exactly", async () => {
    const answer = await client.post("/ui/domains", { name: site.host, root_url: site.url("/") });
    expect(answer.status).toBe(303);
    const match = /^\/ui\/domains\/([0-9a-f-]{36})\?notice=added$/.exec(answer.location ?? "");
    expect(match).not.toBeNull();
    domainId = match![1]!;
    const page = await client.get(answer.location!);
    const domain = await svc.runtime.domains.get(domainId);
    const m = domain.verification.methods;
    expect(page.html).toContain("Domain added.");
    expect(page.html).toContain(`<code>${m.dns_txt.name}</code>`);
    expect(page.html).toContain(`<code>${m.dns_txt.value}</code>`);
    expect(page.html).toContain(m.http_file.url);
    expect(page.html).toContain(`<pre>${m.http_file.body}</pre>`);
    expect(page.html).toContain(`<pre>${m.meta_tag.html.replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;")}</pre>`);
    expect(page.html).toContain(">unverified<");
  });

  test("a domain that is not accepted is shown back with the reason", async () => {
    const answer = await client.post("/ui/domains", { name: "not a domain!" });
    expect(answer.status).toBe(400);
    expect(answer.html).toContain("notice error");
    expect(answer.html).toContain('value="not a domain!"');
  });

  test("verify fails with each method's reason, then passes once the file is published", async () => {
    const failed = await client.post(`/ui/domains/${domainId}/verify`);
    expect(failed.status).toBe(422);
    for (const method of ["DNS TXT record", "File on the site", "Meta tag"]) expect(failed.html).toContain(`<li>${method}: `);
    expect((await svc.runtime.domains.get(domainId)).verified).toBe(false);
    token = (await svc.runtime.domains.get(domainId)).verification.token;
    const passed = await client.post(`/ui/domains/${domainId}/verify`);
    expect(passed.status).toBe(303);
    expect(passed.location).toBe(`/ui/domains/${domainId}?notice=verified`);
    expect(await svc.runtime.domains.get(domainId)).toMatchObject({ verified: true, verified_by: "http_file" });
    const page = await client.get(passed.location!);
    expect(page.html).toContain("Domain verified");
    expect(page.html).not.toContain(">Verify<");
  });

  test("the schedule previews its next runs, saves, refuses a bad expression with the reason, and clears", async () => {
    const preview = await client.get(`/ui/domains/${domainId}?cron=${encodeURIComponent("0 3 * * *")}&timezone=Europe/Berlin`);
    // Shown on the schedule's own clock, its zone named; UTC on hover (03:00 in Berlin is 01:00 or 02:00 UTC).
    const runs = [
      ...preview.html.matchAll(
        /<li><time datetime="[^"]+" data-local="zoned" title="(\d{4}-\d\d-\d\d \d\d:\d\d UTC)">(\d{4}-\d\d-\d\d \d\d:\d\d) Europe\/Berlin<\/time><\/li>/g,
      ),
    ];
    expect(runs).toHaveLength(5);
    for (const [, utc, berlin] of runs) {
      expect(berlin).toMatch(/ 03:00$/);
      expect(utc).toMatch(/ 0[12]:00 UTC$/);
    }
    expect(preview.html).toContain("Next runs, in the schedule's time zone Europe/Berlin:".replace("'", "&#39;"));
    expect((await svc.runtime.domains.get(domainId)).schedule).toBeNull();
    const posted = await client.post(`/ui/domains/${domainId}/schedule`, { cron: "*/15 * * * *", timezone: "", action: "preview" });
    expect(posted.status).toBe(200);
    // Without a zone: server time, written in UTC (and labelled so) for the script to show in the reader's zone.
    expect([...posted.html.matchAll(/<li><time datetime="[^"]+" data-local="abs" title="[^"]+">(\d{4}-\d\d-\d\d \d\d:\d\d UTC)<\/time><\/li>/g)]).toHaveLength(
      5,
    );
    expect(posted.html).toContain("Preview of */15 * * * *");
    expect((await svc.runtime.domains.get(domainId)).schedule).toBeNull();

    const saved = await client.post(`/ui/domains/${domainId}/schedule`, { cron: "0 3 * * *", timezone: "Europe/Berlin", action: "set" });
    expect(saved.status).toBe(303);
    expect(await svc.runtime.domains.get(domainId)).toMatchObject({ schedule: "0 3 * * *", schedule_timezone: "Europe/Berlin" });
    expect((await client.get(saved.location!)).html).toContain("Clear schedule");

    const bad = await client.post(`/ui/domains/${domainId}/schedule`, { cron: "every day", timezone: "", action: "set" });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("not a cron expression");
    expect((await svc.runtime.domains.get(domainId)).schedule).toBe("0 3 * * *");

    const cleared = await client.post(`/ui/domains/${domainId}/schedule`, { action: "clear" });
    expect(cleared.status).toBe(303);
    expect((await svc.runtime.domains.get(domainId)).schedule).toBeNull();
  });

  test("default options are saved from the checkboxes and preselected for the next crawl", async () => {
    const saved = await client.post(`/ui/domains/${domainId}/options`, { scan_images: "on", follow_external: "on" });
    expect(saved.status).toBe(303);
    const saved_options = (await svc.runtime.domains.get(domainId)).default_options!;
    expect(
      Object.entries(saved_options)
        .filter(([, on]) => on)
        .map(([name]) => name)
        .sort(),
    ).toEqual(["follow_external", "scan_images"]);
    const page = await client.get(`/ui/domains/${domainId}`);
    expect(page.html).toMatch(/id="start-scan_images"[^>]*checked/);
    expect(page.html).not.toMatch(/id="start-scan_scripts"[^>]*checked/);
  });

  test("starting a crawl redirects to its page, with the options ticked", async () => {
    const started = await client.post(`/ui/domains/${domainId}/crawls`, { scan_images: "on" });
    expect(started.status).toBe(303);
    expect(started.location).toMatch(/^\/ui\/crawls\/[0-9a-f-]{36}$/);
    const crawlId = started.location!.split("/").pop()!;
    expect((await svc.runtime.crawls.get(crawlId)).options.scan_images).toBe(true);
  });

  test("an unknown domain is a 404 page", async () => {
    const page = await client.get("/ui/domains/00000000-0000-7000-8000-000000000000");
    expect(page.status).toBe(404);
    expect(page.html).toContain("Not found");
  });
});
