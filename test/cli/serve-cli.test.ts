import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-cli-serve-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a start that cannot bind its port exits 2 and does not use up the bootstrap key", async () => {
  const squatter = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("busy") });
  const env = { LINKPATROL_STORAGE_PATH: join(dir, "lp.db"), LINKPATROL_SERVER_HOST: "127.0.0.1", LINKPATROL_SERVER_PORT: String(squatter.port) };
  try {
    const res = await runCli(["serve"], { env, timeoutMs: 15_000 });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).not.toMatch(/lp_[0-9A-Za-z]{40}/);
  } finally {
    await squatter.stop(true);
  }
  const keys = await runCli(["keys", "list", "--json"], { env });
  expect(JSON.parse(keys.stdout)).toEqual([]);
});

test("a bad cluster.node_name stops start-up with the config error naming the key", async () => {
  const env = { LINKPATROL_STORAGE_PATH: join(dir, "named.db"), LINKPATROL_SERVER_HOST: "127.0.0.1", LINKPATROL_SERVER_PORT: "0" };
  for (const bad of ["web 1", "n".repeat(101)]) {
    const res = await runCli(["serve"], { env: { ...env, LINKPATROL_CLUSTER_NODE_NAME: bad }, timeoutMs: 15_000 });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain("cluster.node_name");
  }
});
