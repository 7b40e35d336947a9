import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-cli-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("linkpatrol config check", () => {
  test("a valid file: ok, exit 0", async () => {
    const file = join(dir, "ok.yaml");
    writeFileSync(file, "server:\n  port: 9000\n");
    const res = await runCli(["config", "check", file]);
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toContain(`ok: ${file}`);
  });

  test("an unknown key: exit 2 naming file, key path and reason", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "crawler:\n  max_pagez: 10\n");
    const res = await runCli(["config", "check", file]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain(`${file}: crawler.max_pagez: unknown key`);
  });

  test("serve refuses to start on a bad config, with exit 2", async () => {
    const file = join(dir, "bad-serve.yaml");
    writeFileSync(file, "server:\n  port: -1\n");
    const res = await runCli(["serve", "--config", file], { timeoutMs: 15_000 });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain(`${file}: server.port:`);
  });

  test("--print shows the effective config without secrets: the bootstrap key and crawler header values", async () => {
    const file = join(dir, "secrets.yaml");
    writeFileSync(
      file,
      `auth:\n  bootstrap_key: lp_${"S".repeat(40)}\ncrawler:\n  headers:\n    Authorization: Bearer staging-secret-123\n    X-Env: staging\n`,
    );
    const res = await runCli(["config", "check", file, "--print"]);
    expect(res.exitCode).toBe(0);
    const printed = JSON.parse(res.stdout.slice(res.stdout.indexOf("{")));
    expect(printed.auth.bootstrap_key).toBe("(set)");
    expect(printed.crawler.headers).toEqual({ Authorization: "(set)", "X-Env": "(set)" });
    expect(res.stdout).not.toContain("staging-secret-123");
    expect(res.stdout).not.toContain("S".repeat(40));
  });

  test("--print hides the password of storage.url, keeping its user, host and database", async () => {
    const res = await runCli(["config", "check", "--print"], {
      env: { LINKPATROL_STORAGE_URL: "postgres://linkpatrol:pg-secret-987@db.internal:5432/linkpatrol" },
      cwd: dir,
    });
    expect(res.exitCode).toBe(0);
    const printed = JSON.parse(res.stdout.slice(res.stdout.indexOf("{")));
    expect(printed.storage.url).toBe("postgres://linkpatrol:***@db.internal:5432/linkpatrol");
    expect(res.stdout).not.toContain("pg-secret-987");
  });

  test("a storage.url that is not a PostgreSQL URL is refused without echoing it", async () => {
    const res = await runCli(["config", "check"], { env: { LINKPATROL_STORAGE_URL: "mysql://root:my-secret-55@db/x" }, cwd: dir });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain("environment LINKPATROL_STORAGE_URL: storage.url: must be a postgres:// or postgresql:// URL");
    expect(res.stderr).not.toContain("my-secret-55");
  });

  test("valid settings that work against each other are warnings: printed, exit 0", async () => {
    const file = join(dir, "warn.yaml");
    writeFileSync(file, "server:\n  shutdown_timeout: 10s\nwebhooks:\n  timeout: 20s\n");
    const res = await runCli(["config", "check", file]);
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toContain("warning: webhooks.timeout (20 s) is longer than server.shutdown_timeout (10 s)");
    expect(res.stdout).toContain("warning: notifications.timeout (20 s) is longer than server.shutdown_timeout (10 s)");
    const quiet = await runCli(["config", "check", join(dir, "ok.yaml")]);
    expect(quiet.stdout).not.toContain("warning");
  });

  test("a bad environment override stops start-up naming the variable", async () => {
    const res = await runCli(["config", "check"], { env: { LINKPATROL_AUTH_RATE_LIMIT: "lots" }, cwd: dir });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain("environment LINKPATROL_AUTH_RATE_LIMIT: auth.rate_limit:");
  });
});

describe("linkpatrol top level", () => {
  test("version and --help", async () => {
    const version = await runCli(["version"]);
    expect(version.exitCode).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const help = await runCli(["--help"]);
    expect(help.exitCode).toBe(0);
    for (const command of ["serve", "keys", "domains", "migrate", "config"]) expect(help.stdout).toContain(command);
  });

  test("an unknown command exits 2", async () => {
    const res = await runCli(["frobnicate"]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain("unknown command");
  });

  test("migrate applies the schema and is idempotent", async () => {
    const env = { LINKPATROL_STORAGE_PATH: join(dir, "migrate.db") };
    const first = await runCli(["migrate"], { env });
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain("applied: 0000_init");
    const second = await runCli(["migrate"], { env });
    expect(second.stdout).toContain("already up to date");
  });
});

describe("argument checking", () => {
  // keys and domains check their arguments on an existing store (they never create one).
  beforeAll(() => setUpStore([], { LINKPATROL_STORAGE_PATH: join(dir, "args.db") }));
  test.each([
    [["serve", "extra"]],
    [["migrate", "extra"]],
    [["version", "extra"]],
    [["keys", "list", "extra"]],
    [["domains", "list", "extra"]],
    [["config", "check", "a.yaml", "b.yaml"]],
    [["keys"]],
    [["domains"]],
    [["config"]],
  ])("%p is a usage error (exit 2), not ignored", async (args) => {
    const res = await runCli(args, { env: { LINKPATROL_STORAGE_PATH: join(dir, "args.db") }, timeoutMs: 15_000 });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain("--help");
  });

  test.each(["serve", "keys", "domains", "migrate", "config", "version"])("%s --help prints usage, exit 0", async (command) => {
    const res = await runCli([command, "--help"]);
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toStartWith(`Usage: linkpatrol ${command}`);
  });
});
