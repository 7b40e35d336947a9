import { afterEach, expect, test } from "bun:test";
import { createLogger } from "../../src/core/logger.ts";
import { verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";
import { forEachStore } from "../helpers/stores.ts";

/**
 * Recurring crawls with croner, on a per-second schedule and bounded in time: runs happen with trigger
 * "schedule" and the domain's default options, a run due while the last is still going is skipped and logged,
 * the domain shows its schedule, next run and newest crawl, and a run missed while the service was down is
 * caught up once at start-up.
 */

forEachStore("recurring crawls", (store) => {
  let svc: TestService | undefined;
  let site: LoopbackSite | undefined;
  afterEach(async () => {
    await svc?.stop();
    await site?.stop();
    svc = site = undefined;
  });

  /** A one-page site whose page takes `delayMs` to answer. */
  async function slowSite(delayMs: number): Promise<LoopbackSite> {
    return startLoopbackSite({
      "/": async () => (await Bun.sleep(delayMs), new Response("<a href='/'>home</a>", { headers: { "content-type": "text/html" } })),
    });
  }

  async function crawlsOf(domainId: string): Promise<any[]> {
    return (await svc!.call("GET", `/crawls?domain_id=${domainId}&limit=100`)).json.data;
  }

  test("a per-second schedule starts crawls, skips runs while one is in progress, and shows on the domain", async () => {
    const lines: string[] = [];
    site = await slowSite(1_500);
    svc = await startTestService({}, { logger: createLogger("debug", (line) => lines.push(line)), store });
    const domainId = await verifiedDomain(svc, site.url("/"));
    const patched = await svc.call("PATCH", `/domains/${domainId}`, { body: { schedule: "* * * * * *", default_options: { scan_images: true } } });
    expect(patched.status).toBe(200);
    await svc.runtime.scheduler.start();

    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (await crawlsOf(domainId)).filter((c) => c.status === "completed").length < 2) await Bun.sleep(100);
    svc.runtime.scheduler.stop();
    const crawls = await crawlsOf(domainId);
    expect(crawls.filter((c) => c.status === "completed").length).toBeGreaterThanOrEqual(2);
    for (const crawl of crawls) await waitForCrawl(svc, crawl.id);
    const details = await Promise.all(crawls.map(async (c) => (await svc!.call("GET", `/crawls/${c.id}`)).json.data));
    for (const detail of details) expect(detail).toMatchObject({ trigger: "schedule", options: { scan_images: true } });
    // Never two at once: each crawl started after the one before had ended.
    const ordered = details.sort((a, b) => a.created_at.localeCompare(b.created_at));
    for (let i = 1; i < ordered.length; i++) expect(ordered[i].started_at >= ordered[i - 1].completed_at).toBe(true);
    expect(lines.some((line) => line.includes("scheduled crawl skipped: a crawl of the domain is in progress"))).toBe(true);

    const domain = (await svc.call("GET", `/domains/${domainId}`)).json.data;
    expect(domain).toMatchObject({ schedule: "* * * * * *", schedule_timezone: null, last_crawl_id: ordered.at(-1).id });
    expect(Date.parse(domain.next_run_at) - Date.now()).toBeLessThanOrEqual(1_000);
  }, 30_000); // waits through several runs of a per-second schedule

  test("schedules are validated: a bad cron or time zone is a 400 with the reason", async () => {
    svc = await startTestService({}, { store });
    const domainId = await verifiedDomain(svc, "http://127.0.0.1:9/");
    for (const [body, field] of [
      [{ schedule: "every night" }, "schedule"],
      [{ schedule: "* * * *" }, "schedule"],
      [{ schedule: "61 * * * *" }, "schedule"],
      // The field named is the one that is wrong: here the time zone, though the schedule came with it.
      [{ schedule: "0 3 * * *", schedule_timezone: "Mars/Olympus" }, "schedule_timezone"],
    ] as const) {
      const error = expectErrorEnvelope(await svc.call("PATCH", `/domains/${domainId}`, { body }), 400, "invalid_request");
      expect(error.details?.[0]).toMatchObject({ field });
      expect(String(error.details?.[0]?.message)).not.toBe("");
    }
    const ok = await svc.call("PATCH", `/domains/${domainId}`, { body: { schedule: "0 3 * * *", schedule_timezone: "Europe/Berlin" } });
    expect(ok.json.data).toMatchObject({ schedule: "0 3 * * *", schedule_timezone: "Europe/Berlin" });
    // 03:00 in Berlin is 01:00 or 02:00 UTC.
    expect([1, 2]).toContain(new Date(ok.json.data.next_run_at).getUTCHours());
    const cleared = await svc.call("PATCH", `/domains/${domainId}`, { body: { schedule: null } });
    expect(cleared.json.data).toMatchObject({ schedule: null, next_run_at: null });
  });

  test("a run missed while the service was down is caught up once at start-up; not with catch_up off", async () => {
    site = await slowSite(0);
    svc = await startTestService({}, { store });
    const domainId = await verifiedDomain(svc, site.url("/"));
    await svc.call("PATCH", `/domains/${domainId}`, { body: { schedule: "0 3 * * *" } });
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
    await svc.runtime.store.db.run("UPDATE domains SET updated_at = $at WHERE id = $id", { at: twoDaysAgo, id: domainId });
    await svc.runtime.scheduler.start();
    const [caughtUp] = await crawlsOf(domainId);
    expect(caughtUp).toBeDefined();
    expect((await waitForCrawl(svc, caughtUp.id)).trigger).toBe("schedule");
    // Started again (a restart): the last scheduled crawl is recent now, so nothing is missed.
    svc.runtime.scheduler.stop();
    await svc.runtime.scheduler.start();
    expect(await crawlsOf(domainId)).toHaveLength(1);
    await svc.stop();

    svc = await startTestService({ scheduler: { catch_up: false } }, { store });
    const other = await verifiedDomain(svc, site.url("/"));
    await svc.call("PATCH", `/domains/${other}`, { body: { schedule: "0 3 * * *" } });
    await svc.runtime.store.db.run("UPDATE domains SET updated_at = $at WHERE id = $id", { at: twoDaysAgo, id: other });
    await svc.runtime.scheduler.start();
    expect(await crawlsOf(other)).toHaveLength(0);
  }, 30_000); // two service starts and a crawl; a loaded machine took past the 5 s default
});
