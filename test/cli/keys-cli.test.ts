import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-cli-keys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { LINKPATROL_STORAGE_PATH: join(dir, "lp.db") };
beforeAll(() => setUpStore([], env));

describe("linkpatrol keys", () => {
  test("create prints the key once on stdout; list never shows it; revoke marks it", async () => {
    const created = await runCli(["keys", "create", "--name", "ci", "--scopes", "crawls:read,crawls:write"], { env });
    expect(created.exitCode).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^lp_[0-9A-Za-z]{40}$/);
    expect(created.stderr).toContain("crawls:read,crawls:write");

    const listed = await runCli(["keys", "list", "--json"], { env });
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).not.toContain(secret);
    const keys = JSON.parse(listed.stdout) as { id: string; name: string; prefix: string; scopes: string[]; revoked_at: string | null }[];
    const key = keys.find((k) => k.name === "ci")!;
    expect(key).toMatchObject({ prefix: secret.slice(0, 11), scopes: ["crawls:read", "crawls:write"], revoked_at: null });

    const revoked = await runCli(["keys", "revoke", key.id.toUpperCase()], { env });
    expect(revoked.exitCode).toBe(0);
    const after = JSON.parse((await runCli(["keys", "list", "--json"], { env })).stdout) as { id: string; revoked_at: string | null }[];
    expect(after.find((k) => k.id === key.id)!.revoked_at).not.toBeNull();
  }, 15_000); // four CLI child processes

  test("an unknown scope is refused with exit 2 and the known list", async () => {
    const res = await runCli(["keys", "create", "--name", "x", "--scopes", "crawls:delete"], { env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain("crawls:delete");
    expect(res.stderr).toContain("domains:write");
  });

  test("an empty or blank --scopes is a usage error naming the valid scopes, and creates no key", async () => {
    for (const [i, scopes] of ["", ",", " , ", "crawls:read,"].entries()) {
      const name = `empty-scopes-${i}`;
      const res = await runCli(["keys", "create", "--name", name, "--scopes", scopes], { env });
      if (scopes === "crawls:read,") {
        // A trailing comma is only punctuation: the listed scope stands.
        expect(res.exitCode).toBe(0);
        continue;
      }
      expect(res.exitCode).toBe(2);
      expect(res.stdout).toBe("");
      expect(res.stderr).toContain("crawls:read");
      expect(res.stderr).toContain("admin");
      const listed = JSON.parse((await runCli(["keys", "list", "--json"], { env })).stdout) as { name: string }[];
      expect(listed.map((k) => k.name)).not.toContain(name);
    }
  }, 15_000); // seven CLI child processes

  test("--scopes omitted still creates an admin key", async () => {
    const res = await runCli(["keys", "create", "--name", "default-scopes", "--json"], { env });
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).scopes).toEqual(["admin"]);
  });

  test("create without --name and revoke of an unknown id exit 2", async () => {
    expect((await runCli(["keys", "create"], { env })).exitCode).toBe(2);
    const unknown = await runCli(["keys", "revoke", "0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f"], { env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("not found");
  });

  test("an unknown flag is a usage error", async () => {
    const res = await runCli(["keys", "list", "--frobnicate"], { env });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain("--help");
  });
});
