import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/core/logger.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * The client address behind a reverse proxy, over a real socket (the test's requests come from 127.0.0.1, in
 * the role of the proxy): with the peer trusted, two clients named by X-Forwarded-For (or Forwarded) are rate
 * limited apart and logged as themselves; from an untrusted peer the header is ignored, so a client cannot pick
 * its own bucket.
 */

const LIMIT = 5;

function capture(): { lines: any[]; logger: ReturnType<typeof createLogger> } {
  const lines: any[] = [];
  return { lines, logger: createLogger("info", (line) => lines.push(JSON.parse(line))) };
}

/** Statuses of `count` API requests without a usable key, sent as `headers` say. */
async function keyless(svc: TestService, count: number, headers: Record<string, string>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await svc.call("GET", "/domains", { key: null, headers })).status);
  return statuses;
}

describe("behind a trusted proxy", () => {
  let svc: TestService;
  const log = capture();
  beforeAll(async () => {
    svc = await startTestService({ auth: { rate_limit: LIMIT }, server: { trusted_proxies: ["127.0.0.1/32"] } }, { logger: log.logger });
  });
  afterAll(() => svc.stop());

  test("two clients with different X-Forwarded-For are limited apart, and logged by their address", async () => {
    expect(await keyless(svc, LIMIT + 1, { "x-forwarded-for": "203.0.113.7" })).toEqual([401, 401, 401, 401, 401, 429]);
    expect(await keyless(svc, 1, { "x-forwarded-for": "203.0.113.8" })).toEqual([401]);
    // A client that writes its own X-Forwarded-For is the leftmost entry: the proxy's appended one counts.
    expect(await keyless(svc, 1, { "x-forwarded-for": "203.0.113.8, 203.0.113.7" })).toEqual([429]);
    const clients = log.lines.filter((line) => line.msg === "request").map((line) => line.client);
    expect(clients).toContain("203.0.113.7");
    expect(clients).toContain("203.0.113.8");
    expect(clients).not.toContain("127.0.0.1");
  });
});

describe("behind a trusted proxy that writes Forwarded", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ auth: { rate_limit: LIMIT }, server: { trusted_proxies: ["127.0.0.0/8"], forwarded_header: "forwarded" } });
  });
  afterAll(() => svc.stop());

  test("clients are told apart by for=, and X-Forwarded-For (not what this proxy writes) is ignored", async () => {
    expect(await keyless(svc, LIMIT + 1, { forwarded: 'for="[2001:db8::1]:4711";proto=https' })).toEqual([401, 401, 401, 401, 401, 429]);
    // The same /64: the same subscriber.
    expect(await keyless(svc, 1, { forwarded: 'for="[2001:db8::2]"' })).toEqual([429]);
    expect(await keyless(svc, 1, { forwarded: "for=192.0.2.44" })).toEqual([401]);
    expect(await keyless(svc, 1, { forwarded: "for=192.0.2.44", "x-forwarded-for": "192.0.2.45" })).toEqual([401]);
  });
});

describe("from an untrusted peer", () => {
  let svc: TestService;
  const log = capture();
  beforeAll(async () => {
    svc = await startTestService({ auth: { rate_limit: LIMIT }, server: { trusted_proxies: ["10.0.0.0/8"] } }, { logger: log.logger });
  });
  afterAll(() => svc.stop());

  test("X-Forwarded-For is ignored: every request counts against the peer's own address", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push(...(await keyless(svc, 1, { "x-forwarded-for": `203.0.113.${i + 1}` })));
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const clients = new Set(log.lines.filter((line) => line.msg === "request").map((line) => line.client));
    expect([...clients]).toEqual(["127.0.0.1"]);
  });
});
