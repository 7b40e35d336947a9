import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { ResponseCache } from "../../src/api/middleware/response-cache/response-cache.ts";
import { runCli } from "../helpers/cli.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

/**
 * GET answers and authenticated keys are kept while the store is unchanged (store/store-version.ts). These
 * tests change the store every way it can change, through the API, through a second connection (what the
 * crawl workers and `linkpatrol keys revoke` are), and by the clock, and check that the very next answer
 * shows it; and that a kept answer never reaches a key without the route's scope.
 */

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

/** A second connection to the service's store, as another process would have. */
function otherConnection<T>(work: (db: Database) => T): T {
  const db = new Database(svc.config.storage.path);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    return work(db);
  } finally {
    db.close();
  }
}

async function domainNames(): Promise<string[]> {
  const res = await svc.call("GET", "/domains?limit=100");
  expect(res.status).toBe(200);
  return res.json.data.map((d: { name: string }) => d.name).sort();
}

describe("answers kept while the store is unchanged", () => {
  test("a write through the API shows in the next answer", async () => {
    const before = await domainNames();
    expect(await domainNames()).toEqual(before); // answered from the cache
    expect((await svc.call("POST", "/domains", { body: { name: "cache-a.example" } })).status).toBe(201);
    expect(await domainNames()).toEqual([...before, "cache-a.example"].sort());
  });

  test("a write by another connection (a crawl worker, the CLI) shows in the next answer", async () => {
    const before = await domainNames();
    otherConnection((db) =>
      db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES (?, 'cache-b.example', 'https://cache-b.example/', 'tok')", [
        "01a20900-0000-7000-8000-00000000cb01",
      ]),
    );
    expect(await domainNames()).toEqual([...before, "cache-b.example"].sort());
  });

  test("a kept answer is not given to a key that lacks the route's scope", async () => {
    expect((await svc.call("GET", "/domains")).status).toBe(200); // kept now
    const crawlsOnly = svc.keyWith("crawls:read");
    expectErrorEnvelope(await svc.call("GET", "/domains", { key: crawlsOnly }), 403, "forbidden");
    expectErrorEnvelope(await svc.call("GET", "/domains", { key: null }), 401, "unauthorized");
  });

  test("an error answer is not kept", async () => {
    const id = "01a20900-0000-7000-8000-00000000cb02";
    expectErrorEnvelope(await svc.call("GET", `/domains/${id}`), 404, "not_found");
    otherConnection((db) =>
      db.run("INSERT INTO domains (id, name, root_url, verification_token) VALUES (?, 'cache-c.example', 'https://cache-c.example/', 'tok')", [id]),
    );
    expect((await svc.call("GET", `/domains/${id}`)).json.data.name).toBe("cache-c.example");
  });
});

describe("authenticated keys kept while the store is unchanged", () => {
  test("a key revoked by the CLI beside the service is refused at the very next request", async () => {
    const secret = svc.keyWith("domains:read");
    for (let i = 0; i < 3; i++) expect((await svc.call("GET", "/domains", { key: secret })).status).toBe(200);
    const id = svc.runtime.keys.list().find((k) => secret.startsWith(k.prefix))!.id;
    const revoked = await runCli(["keys", "revoke", id], { env: { LINKPATROL_STORAGE_PATH: svc.config.storage.path } });
    expect(revoked.exitCode).toBe(0);
    expectErrorEnvelope(await svc.call("GET", "/domains", { key: secret }), 401, "unauthorized");
  });
});

describe("ResponseCache", () => {
  const body = (text: string) => ({ body: new Blob([text]), contentType: "application/json", scope: "domains:read" as const, route: "/v1/domains" });

  test("an answer is kept under its version, and not past its age", async () => {
    let now = 0;
    const cache = new ResponseCache({ version: () => "v", now: () => now, maxAgeMs: 1_000 });
    cache.set("/a", "1", body("one"));
    expect(await cache.get("/a", "1")?.body.text()).toBe("one");
    expect(cache.get("/a", "2")).toBeUndefined();
    cache.set("/a", "2", body("two"));
    now = 1_000;
    expect(await cache.get("/a", "2")?.body.text()).toBe("two");
    now = 1_001;
    expect(cache.get("/a", "2")).toBeUndefined();
  });

  test("it holds at most maxBytes, dropping the oldest answers, and never one over maxBodyBytes", async () => {
    const cache = new ResponseCache({ version: () => "v", maxBytes: 10, maxBodyBytes: 6 });
    cache.set("/a", "1", body("aaaa"));
    cache.set("/b", "1", body("bbbb"));
    cache.set("/c", "1", body("cccc"));
    expect(cache.get("/a", "1")).toBeUndefined();
    expect(await cache.get("/b", "1")?.body.text()).toBe("bbbb");
    expect(await cache.get("/c", "1")?.body.text()).toBe("cccc");
    cache.set("/d", "1", body("ddddddd"));
    expect(cache.get("/d", "1")).toBeUndefined();
  });
});
