import { afterAll, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN, runCli } from "../helpers/cli.ts";

/**
 * A store that cannot be used stops `serve` at start (exit 2) and every command that opens it, with a message
 * naming the file: a directory where the file should be, a file that is not a database, a path under a file,
 * a store the service user cannot write (root-owned, 0444), and a file system that refuses to let files grow.
 */

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-store-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function envFor(path: string): Record<string, string> {
  return { LINKPATROL_STORAGE_PATH: path, LINKPATROL_SERVER_HOST: "127.0.0.1", LINKPATROL_SERVER_PORT: "0" };
}

async function expectRefused(args: string[], path: string, reason: RegExp, env = envFor(path)) {
  const res = await runCli(args, { env, timeoutMs: 15_000 });
  expect(res.exitCode).toBe(2);
  expect(res.stderr).toContain(path);
  expect(res.stderr).toMatch(reason);
  expect(res.stderr).not.toContain('"msg":"listening"');
}

test("a directory where the store file should be", async () => {
  const path = join(dir, "is-a-dir.db");
  mkdirSync(path);
  await expectRefused(["serve"], path, /unable to open database file|is a directory/);
  await expectRefused(["keys", "list"], path, /unable to open database file|is a directory/);
}, 30_000); // two CLI processes

test("a file that is not a database", async () => {
  const path = join(dir, "garbage.db");
  writeFileSync(path, Buffer.alloc(8192, 0x5a));
  await expectRefused(["serve"], path, /not a database/);
  await expectRefused(["keys", "list"], path, /not a database/);
  await expectRefused(["domains", "list"], path, /not a database/);
  await expectRefused(["migrate"], path, /not a database/);
}, 30_000); // four CLI processes

test("a store path under a regular file", async () => {
  writeFileSync(join(dir, "plain-file"), "x");
  const path = join(dir, "plain-file", "store.db");
  await expectRefused(["serve"], path, /cannot create the directory/);
});

const asRoot = process.getuid?.() === 0 && Bun.which("setpriv") !== null;

test.skipIf(!asRoot)("a store the service user cannot write (owned by root, mode 0444) stops serve at start", async () => {
  const own = join(dir, "readonly");
  mkdirSync(own);
  const path = join(own, "store.db");
  expect((await runCli(["migrate"], { env: envFor(path) })).exitCode).toBe(0);
  rmSync(`${path}.lock`, { force: true });
  chmodSync(path, 0o444);
  // The service user owns the directory (as under systemd's StateDirectory=), not the file.
  chownSync(own, 65534, 65534);
  chmodSync(dir, 0o755);
  const { stderr, exitCode } = await runCli(["serve"], {
    command: ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, MAIN],
    env: { ...envFor(path), HOME: own },
    timeoutMs: 15_000,
  });
  expect(exitCode).toBe(2);
  expect(stderr).toContain(path);
  expect(stderr).toMatch(/cannot be written/);
  expect(stderr).not.toContain('"msg":"listening"');
});

test("a file system that refuses writes (file size limit 0) stops serve at start, naming the store", async () => {
  const path = join(dir, "nospace", "store.db");
  expect((await runCli(["migrate"], { env: envFor(path) })).exitCode).toBe(0);
  // Every write then fails with EFBIG, as on a full or failing disk; SIGXFSZ ignored so the write reports it.
  const { stderr, exitCode } = await runCli(["serve"], {
    command: ["sh", "-c", `trap '' XFSZ; ulimit -f 0; exec "$0" "$@"`, process.execPath, MAIN],
    env: envFor(path),
    timeoutMs: 15_000,
  });
  expect(exitCode).toBe(2);
  expect(stderr).toContain(path);
  expect(stderr).toMatch(/disk I\/O error|cannot be written/);
  expect(stderr).not.toContain('"msg":"listening"');
});
