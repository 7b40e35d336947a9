import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, setUpStore } from "../helpers/cli.ts";
import { startLoopbackSite } from "../helpers/loopback-site.ts";

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-cli-domains-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = {
  LINKPATROL_STORAGE_PATH: join(dir, "lp.db"),
  LINKPATROL_CRAWLER_ALLOW_PRIVATE_NETWORKS: "true",
  LINKPATROL_VERIFICATION_TIMEOUT: "2s",
};
beforeAll(() => setUpStore([], env));

describe("linkpatrol domains", () => {
  test("add prints the three proofs; --verified is the operator vouching; list shows both", async () => {
    const added = await runCli(["domains", "add", "cli.example"], { env });
    expect(added.exitCode).toBe(0);
    expect(added.stdout).toContain("_linkpatrol.cli.example");
    expect(added.stdout).toContain("https://cli.example/.well-known/linkpatrol-verify.txt");
    expect(added.stdout).toContain('<meta name="linkpatrol-verify"');

    const vouched = await runCli(["domains", "add", "own.example", "--verified", "--json"], { env });
    expect(vouched.exitCode).toBe(0);
    expect(JSON.parse(vouched.stdout)).toMatchObject({ name: "own.example", verified: true, verified_by: "operator" });

    const listed = JSON.parse((await runCli(["domains", "list", "--json"], { env })).stdout) as { name: string; verified: boolean }[];
    expect(listed.map((d) => [d.name, d.verified])).toEqual([
      ["own.example", true],
      ["cli.example", false],
    ]);
  }, 15_000); // three CLI child processes, the first one migrating a new store

  test("verify passes with the HTTP file, exit 0", async () => {
    let token = "";
    const site = await startLoopbackSite({ "/.well-known/linkpatrol-verify.txt": () => new Response(token) });
    try {
      const added = JSON.parse((await runCli(["domains", "add", site.host, "--root-url", `${site.origin}/`, "--json"], { env })).stdout);
      token = added.verification.token;
      const verified = await runCli(["domains", "verify", added.id], { env });
      expect(verified.exitCode).toBe(0);
      expect(verified.stdout).toContain("is verified (http_file)");
    } finally {
      await site.stop();
    }
  });

  test("verify with no proof: exit 1 and each method's reason on stderr", async () => {
    const site = await startLoopbackSite({});
    try {
      const added = JSON.parse((await runCli(["domains", "add", site.host, "--root-url", `${site.origin}/`, "--json"], { env })).stdout);
      const res = await runCli(["domains", "verify", added.id], { env });
      expect(res.exitCode).toBe(1);
      expect(res.stderr).toContain("dns_txt:");
      expect(res.stderr).toContain("http_file:");
      expect(res.stderr).toContain("meta_tag:");
    } finally {
      await site.stop();
    }
  });

  test("a private root URL under the default policy: exit 2 with the reason", async () => {
    const res = await runCli(["domains", "add", "127.0.0.1:8080"], { env: { LINKPATROL_STORAGE_PATH: join(dir, "lp.db") } });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain("127.0.0.1");
  });

  test("bad usage: exit 2", async () => {
    expect((await runCli(["domains", "add"], { env })).exitCode).toBe(2);
    expect((await runCli(["domains", "verify", "not-a-uuid"], { env })).exitCode).toBe(2);
    expect((await runCli(["domains", "explode"], { env })).exitCode).toBe(2);
  });
});
