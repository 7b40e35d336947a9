import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * A report that cannot be written is a run error (exit 2, the reason on stderr), never a quiet success: on a full
 * disk (`/dev/full` answers every write with ENOSPC) `check` must not exit 0 or 1 as if its report were there.
 * Both sizes: a report smaller than one written block (its only write is the last) and one of many blocks.
 */

const FULL = "/dev/full";
let site: LoopbackSite;

beforeAll(async () => {
  // 2,000 links: a JSON Lines report of several hundred KiB, many 64 KiB blocks.
  const many = Array.from({ length: 2_000 }, (_, i) => `<a href="/p${i}">page ${i}</a>`).join(" ");
  site = await startLoopbackSite({ "/": { body: "<a href='/a'>A</a>" }, "/a": { body: "fine" }, "/many": { body: many } });
});
afterAll(() => site?.stop());

describe.skipIf(!existsSync(FULL))("check --output on a full disk", () => {
  test("a small text report, written at once", async () => {
    const result = await runCli(["check", site.url("/"), "--allow-private", "--output", FULL], { timeoutMs: 30_000 });
    expect(result.stderr).toContain("ENOSPC");
    expect(result.exitCode).toBe(2);
  });

  test("a JSON Lines report of many blocks: the first write fails", async () => {
    const result = await runCli(["check", site.url("/many"), "--allow-private", "--max-pages", "1", "--format", "jsonl", "--output", FULL], {
      timeoutMs: 30_000,
    });
    expect(result.stderr).toContain("ENOSPC");
    expect(result.exitCode).toBe(2);
  });
});
