import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildExecutable } from "../../scripts/build.ts";
import { cleanEnv, runCli } from "../helpers/cli.ts";
import { StreamWatcher } from "../helpers/process-output.ts";

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
}, 300_000);
afterAll(() => rmSync(runDir, { recursive: true, force: true }));

/** Starts `linkpatrol serve` from the binary in runDir on 127.0.0.1 and an ephemeral port; its stderr is watched. */
function startServe() {
  const proc = Bun.spawn({
    cmd: [binary, "serve"],
    cwd: runDir,
    env: { ...cleanEnv(), LINKPATROL_SERVER_HOST: "127.0.0.1", LINKPATROL_SERVER_PORT: "0" },
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

      expect(statSync(join(runDir, "data", "linkpatrol.db")).isFile()).toBe(true);
      expect(stderr.text).not.toContain("\"level\":\"error\"");
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
});
