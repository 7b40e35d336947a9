import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/core/logger.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

/** Keys never reach logs; an unexpected failure answers a bare 500 and is logged (at error level only). */

const lines: { level: string; msg: string; [field: string]: unknown }[] = [];
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({}, { logger: createLogger("debug", (line) => lines.push(JSON.parse(line))) });
});
afterAll(() => svc.stop());

describe("logs and error bodies", () => {
  test("one info line per request with status and key id, and never the key", async () => {
    const secret = await svc.keyWith("domains:read");
    await svc.call("GET", "/domains?token=abc", { key: secret });
    await svc.call("GET", "/domains", { key: `lp_${"z".repeat(40)}` });
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.at(-2)).toMatchObject({ level: "info", method: "GET", path: "/v1/domains", status: 200, key_id: expect.any(String) });
    expect(requests.at(-1)).toMatchObject({ status: 401 });
    const all = JSON.stringify(lines);
    expect(all).not.toContain(secret);
    expect(all).not.toContain("z".repeat(40));
    expect(all).not.toContain("token=abc");
  });

  test("an internal failure: 500 internal with no stack or SQL in the body; details only in an error-level line", async () => {
    // A key not used yet, so authenticating it needs the store (/healthz answers 503 for a closed store instead).
    const key = await svc.keyWith("domains:read");
    svc.runtime.store.sqlite!.close();
    const res = await svc.call("GET", "/domains", { key });
    const error = expectErrorEnvelope(res, 500, "internal");
    expect(error).toEqual({ code: "internal", message: "internal server error" });
    const failure = lines.find((l) => l.msg === "unhandled error");
    expect(failure?.level).toBe("error");
    expect(failure?.request_id).toBe(res.headers.get("x-request-id"));
    for (const line of lines.filter((l) => l.level === "info" || l.level === "debug")) expect(JSON.stringify(line)).not.toContain("stack");
  });
});
