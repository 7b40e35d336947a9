import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localOrigin } from "../../src/cli/serve.ts";
import { startServeProcess, writeServeConfig, type ServeProcess } from "../helpers/serve-process.ts";

/**
 * The start-up log names addresses that work: the dashboard's and the API's base, on a host a browser can
 * open (localhost when the service listens on every address), and the API's base answers rather than 404.
 */

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-serve-urls-"));
const KEY = `lp_${"u".repeat(40)}`;
let server: ServeProcess | undefined;
afterAll(async () => {
  server?.proc.kill();
  await server?.proc.exited;
  rmSync(dir, { recursive: true, force: true });
});

describe("the listening line", () => {
  test.each([
    ["0.0.0.0", 8080, "http://localhost:8080"],
    ["::", 8080, "http://localhost:8080"],
    ["127.0.0.1", 9000, "http://127.0.0.1:9000"],
    ["::1", 9000, "http://[::1]:9000"],
    ["192.0.2.7", 80, "http://192.0.2.7:80"],
  ])("%s:%d is opened as %s", (host, port, origin) => {
    expect(localOrigin(host, port)).toBe(origin);
  });

  test("bound to every address, it names localhost URLs for the dashboard and the API, and both answer", async () => {
    server = startServeProcess(writeServeConfig(dir, KEY, ["server: {host: 0.0.0.0, port: 0}"]));
    const line = JSON.parse((await server.stderr.waitFor(/\{[^\n]*"msg":"listening"[^\n]*\}/))[0]);
    const port = line.port as number;
    expect(line).toMatchObject({
      dashboard: `http://localhost:${port}/`,
      api: `http://localhost:${port}/v1/`,
      docs: `http://localhost:${port}/docs`,
      address: `0.0.0.0:${port}`,
    });
    expect(JSON.stringify(line)).not.toContain(`0.0.0.0:${port}/`);
    // localhost may name ::1 first, where an IPv4 wildcard does not listen: asked on 127.0.0.1.
    const dashboard = await fetch(line.dashboard.replace("localhost", "127.0.0.1"), { redirect: "manual" });
    expect(dashboard.status).toBe(303);
    expect(dashboard.headers.get("location")).toContain("/ui/sign-in");
    for (const base of [line.api, line.api.slice(0, -1)]) {
      const api = await fetch(base.replace("localhost", "127.0.0.1"));
      expect(api.status).toBe(200);
      expect((await api.json()).data).toMatchObject({ name: "linkpatrol", docs: "/docs", openapi: "/v1/openapi.json" });
    }
  }, 30_000);
});
