import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, MAIN, runCli } from "../helpers/cli.ts";

/**
 * A `linkpatrol backup FILE` that does not finish leaves nothing in FILE's directory: neither the partial copy
 * nor SQLite's side files of it (`-journal`, `-wal`, `-shm`), whether the copy fails (a file-size limit hit
 * mid-way) or the command is stopped while it copies (SIGTERM, SIGINT: a timeout, systemd, Ctrl-C).
 */

let dir: string;
let env: Record<string, string>;
/** Bytes of filler in the store: big enough that the copy takes a while and exceeds the file-size limit. */
const FILLER_BYTES = 96 * 1024 * 1024;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-backup-cleanup-"));
  env = { LINKPATROL_STORAGE_PATH: join(dir, "lp.db") };
  expect((await runCli(["migrate"], { env })).exitCode).toBe(0);
  const db = new Database(env.LINKPATROL_STORAGE_PATH!);
  db.exec("CREATE TABLE filler (x BLOB)");
  const insert = db.query("INSERT INTO filler VALUES (randomblob(65536))");
  db.transaction(() => {
    for (let i = 0; i < FILLER_BYTES / 65536; i++) insert.run();
  })();
  db.close();
}, 30_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh, empty directory for one backup's target. */
function targetDir(name: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  return path;
}

test("a copy that fails mid-way (file-size limit) exits 2 with the reason and leaves nothing behind", async () => {
  const out = targetDir("ulimit");
  // 4 MiB (ulimit counts KiB): far below the store's size, so SQLite's write fails part way through the copy.
  const result = await runCli(["-c", `ulimit -f 4096; exec "$0" "$@"`, process.execPath, MAIN, "backup", join(out, "b.db")], {
    command: ["bash"],
    env,
  });
  expect(result.exitCode).toBe(2);
  expect(result.stderr).toContain("linkpatrol: backup failed");
  expect(readdirSync(out)).toEqual([]);
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal} while the copy is written: the partial copy and its journal are removed, exit 128+n`, async () => {
    const out = targetDir(signal);
    const proc = Bun.spawn({
      cmd: [process.execPath, MAIN, "backup", join(out, "b.db")],
      env: { ...cleanEnv(), ...env },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 30_000,
    });
    // Wait for the copy to be under way: its partial file and SQLite's journal of it exist.
    const started = Date.now();
    while (!readdirSync(out).some((name) => name.endsWith("-journal")) && Date.now() - started < 10_000) await Bun.sleep(2);
    const during = readdirSync(out);
    expect(during.some((name) => name.includes(".partial-"))).toBe(true);
    expect(statSync(join(dir, "lp.db")).size).toBeGreaterThan(FILLER_BYTES);
    proc.kill(signal);
    const [stderr, exitCode] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(exitCode).toBe(signal === "SIGTERM" ? 143 : 130);
    expect(stderr).toContain(`backup interrupted by ${signal}`);
    expect(readdirSync(out)).toEqual([]);
  });
}
