import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeAfterRun } from "../helpers/after-run.ts";
import { runCli } from "../helpers/cli.ts";
import { faketimeMissing, SteppedClock } from "../helpers/faketime.ts";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { apiClient, startServeProcess, writeServeConfig, type ServeProcess } from "../helpers/serve-process.ts";

/**
 * Schedules across real wall-clock steps (libfaketime under a real `serve`). Croner looks at the clock at least
 * every 30 s, so the steps are timed around that. A per-minute schedule and a daily one due at the same minute
 * M both run at M; the clock is set back 10 minutes, long enough for croner to aim the daily one at M again, and
 * forward 10 minutes: the per-minute schedule runs once in the next minute, the daily one does not run M twice.
 * Then the clock jumps a day ahead: each runs exactly once (the daily one's next day is not lost; the per-minute
 * one fires no burst for the 1,440 minutes stepped over).
 */

const missing = faketimeMissing();
if (missing !== null) console.warn(`schedule clock-step test skipped: ${missing}`);

const KEY = `lp_${"T".repeat(40)}`;
const api = apiClient(KEY);

describe.skipIf(missing !== null)("schedules across wall-clock steps", () => {
  let dir: string;
  let clock: SteppedClock;
  let serve: ServeProcess;
  let base: string;
  let minutely: LoopbackSite;
  let daily: LoopbackSite;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "linkpatrol-schedule-clock-"));
    clock = new SteppedClock(dir);
    minutely = await startLoopbackSite({ "/": { body: "<p>minutely</p>" } });
    daily = await startLoopbackSite({ "/": { body: "<p>daily</p>" } });
    serve = startServeProcess(writeServeConfig(dir, KEY), [], clock.env());
    base = await serve.ready;
  }, 30_000);

  afterAll(async () => {
    serve?.proc.kill("SIGTERM");
    await Promise.race([serve?.proc.exited, Bun.sleep(10_000)]);
    await minutely?.stop();
    await daily?.stop();
    removeAfterRun(dir);
  });

  /** The scheduler's log lines about `site`'s domain: runs queued, and runs the step guard refused. */
  function runs(site: LoopbackSite): { queued: number; refused: number; fired: number } {
    const lines = serve.stderr.text
      .split("\n")
      .filter((line) => line.includes('"msg":"scheduled') && line.includes(`"domain":"${site.host}"`))
      .map((line) => JSON.parse(line).msg as string);
    const queued = lines.filter((msg) => msg === "scheduled crawl queued").length;
    const refused = lines.filter((msg) => msg.includes("the clock was set back")).length;
    return { queued, refused, fired: lines.length - refused };
  }

  async function until(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await Bun.sleep(100)) if (done()) return;
    throw new Error(
      `timed out waiting for ${what}; scheduler lines:\n${serve.stderr.text
        .split("\n")
        .filter((l) => l.includes("schedul"))
        .join("\n")}`,
    );
  }

  async function domainFor(site: LoopbackSite): Promise<string> {
    const added = await runCli(["domains", "add", site.host, "--root-url", site.url("/"), "--verified", "--json", "--config", join(dir, "linkpatrol.yaml")]);
    if (added.exitCode !== 0) throw new Error(`domains add: ${added.stderr}`);
    return JSON.parse(added.stdout).id;
  }

  test("a step back and forth repeats no run; a step a day ahead runs each schedule once", async () => {
    const minutelyId = await domainFor(minutely);
    const dailyId = await domainFor(daily);

    // Put the server's clock 6 s before a minute boundary M (whole seconds, so later steps keep M's alignment).
    const boundary = Math.ceil((Date.now() + 6_000) / 60_000) * 60_000;
    clock.set((boundary - (Date.now() + 6_000)) / 1000);
    const realM = boundary - clock.offsetSeconds * 1000;
    const at = new Date(boundary);
    const set = async (id: string, schedule: string) => {
      const res = await api(base, "PATCH", `/domains/${id}`, { schedule, schedule_timezone: "UTC" });
      if (res.data?.schedule !== schedule) throw new Error(`PATCH schedule: ${JSON.stringify(res)}`);
    };
    await set(minutelyId, "* * * * *");
    await set(dailyId, `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`);

    await until("both schedules' runs at M", () => runs(minutely).queued === 1 && runs(daily).queued === 1, 20_000);

    // Back 10 minutes; croner wakes within 30 s and aims the daily schedule at M again.
    await Bun.sleep(Math.max(0, realM + 1_500 - Date.now()));
    clock.step(-600);
    await Bun.sleep(Math.max(0, realM + 40_000 - Date.now()));
    // Forward 10 minutes, back where it was: M comes round for croner, and the guard refuses it.
    clock.step(600);
    await until("the daily repeat refused and the next minute's run", () => runs(daily).refused === 1 && runs(minutely).fired === 2, 45_000);
    expect(runs(daily)).toEqual({ queued: 1, refused: 1, fired: 1 });
    expect(runs(minutely).fired).toBe(2);
    expect(runs(minutely).refused).toBe(0);

    // A day ahead: the daily schedule's next run happens, once; the per-minute one catches up once, no burst.
    clock.step(86_400);
    await until("one run of each after the day's step", () => runs(daily).queued === 2 && runs(minutely).fired === 3, 45_000);
    await Bun.sleep(2_000);
    // Still before the next minute boundary of the per-minute schedule (M + 120 s in real time).
    if (Date.now() < realM + 118_000) expect(runs(minutely).fired).toBe(3);
    expect(runs(daily)).toEqual({ queued: 2, refused: 1, fired: 2 });
  }, 150_000);
});
