import { afterAll, beforeAll, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { signedInClient } from "../ui/dashboard-client.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * A node named by cluster.node_name says so wherever an operator looks, over real sockets: /healthz,
 * /metrics' build_info line and the dashboard's footer (signed in or not). Log lines: test/ops/logging.test.ts;
 * the host name when no name is set: test/api/health-and-docs.test.ts.
 */

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ cluster: { node_name: "node-a" } }, { startCrawls: false });
});
afterAll(() => svc?.stop());

test("/healthz names the node", async () => {
  const res = await svc.call("GET", "/healthz", { root: true, key: null });
  expect(res.json).toEqual({ status: "ok", version: pkg.version, node: "node-a", store: "sqlite" });
});

test("/metrics' linkpatrol_build_info carries the node label", async () => {
  const res = await svc.call("GET", "/metrics", { root: true });
  expect(res.status).toBe(200);
  expect(res.text).toContain(`linkpatrol_build_info{version="${pkg.version}",node="node-a"} 1\n`);
});

test("the dashboard's footer names the node that answered, signed in or not", async () => {
  const client = await signedInClient(svc);
  const overview = await client.get("/");
  expect(overview.status).toBe(200);
  expect(overview.html).toContain(`<footer>linkpatrol ${pkg.version} · node node-a</footer>`);
  const signIn = await fetch(`${svc.origin}/ui/sign-in`);
  expect(await signIn.text()).toContain(`· node node-a</footer>`);
});
