import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { Hono } from "hono";
import type { AppEnv } from "../../src/http/env.ts";
import { acceptsGzip, keepAnswer, ResponseCache, responseCache } from "../../src/api/middleware/response-cache/response-cache.ts";
import { storeVersionToken } from "../../src/api/middleware/store-version-token.ts";
import { requireScope } from "../../src/api/middleware/auth/auth.ts";
import { createLogger } from "../../src/core/logger.ts";
import { KeysService } from "../../src/services/keys.service.ts";
import { KeysRepo } from "../../src/store/keys.repo.ts";
import { DIALECTS } from "../helpers/dbs.ts";
import { runCli } from "../helpers/cli.ts";
import { expectErrorEnvelope, startTestService, type TestService } from "../helpers/service.ts";

/**
 * GET answers and authenticated keys are kept while the store is unchanged (store/store-version.ts). These
 * tests change the store every way it can change, through the API, through a second connection (what the
 * crawl workers and `linkpatrol keys revoke` are), and by the clock, and check that the very next answer
 * shows it; that a kept answer never reaches a key without the route's scope; and that it passes the rest of
 * the chain like any answer (request id, RateLimit headers, metrics, request log).
 */

let svc: TestService;
const lines: any[] = [];
beforeAll(async () => {
  svc = await startTestService({ auth: { rate_limit: 1_000 } }, { logger: createLogger("info", (line) => lines.push(JSON.parse(line))) });
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
    const crawlsOnly = await svc.keyWith("crawls:read");
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

describe("a kept answer passes the chain like any other", () => {
  test("it equals the route's own answer and carries the request id and the RateLimit headers", async () => {
    const key = await svc.keyWith("domains:read");
    // A key's first use is written to the store (last_used_at), which moves the version: made before the count.
    expect((await svc.call("GET", "/domains?limit=6", { key })).status).toBe(200);
    const domains = svc.runtime.domains;
    const list = domains.list;
    let reads = 0;
    domains.list = (...args) => {
      reads += 1;
      return list.apply(domains, args);
    };
    const fromRoute = await svc.call("GET", "/domains?limit=7", { key });
    const kept = await svc.call("GET", "/domains?limit=7", { key, headers: { "X-Request-Id": "trace-kept" } });
    const again = await svc.call("GET", "/domains?limit=7", { key });
    domains.list = list;
    expect(reads).toBe(1); // the route ran once
    expect(kept.status).toBe(200);
    expect(kept.text).toBe(fromRoute.text);
    expect(kept.headers.get("content-type")).toBe(fromRoute.headers.get("content-type")!);
    expect(kept.headers.get("x-request-id")).toBe("trace-kept");
    expect(again.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(kept.headers.get("ratelimit-limit")).toBe("1000");
    const remaining = [fromRoute, kept, again].map((res) => Number(res.headers.get("ratelimit-remaining")));
    expect(remaining).toEqual([998, 997, 996]);
  });

  test("it is logged at info and timed under the route's pattern", async () => {
    const count = async () =>
      Number(
        (await svc.runtime.metrics.render()).match(
          /linkpatrol_http_request_duration_seconds_count\{route="\/v1\/domains",method="GET",status="200"\} (\d+)/,
        )?.[1] ?? 0,
      );
    expect((await svc.call("GET", "/domains?limit=9")).status).toBe(200); // kept now
    const before = await count();
    const kept = await svc.call("GET", "/domains?limit=9", { headers: { "X-Request-Id": "trace-log" } });
    expect(kept.status).toBe(200);
    expect(await count()).toBe(before + 1);
    const line = lines.find((l) => l.request_id === "trace-log");
    expect(line).toMatchObject({ level: "info", msg: "request", method: "GET", path: "/v1/domains", status: 200 });
    expect(line.key_id).toBeString();
  });

  test("HEAD is answered by the route, without a body", async () => {
    expect((await svc.call("GET", "/domains?limit=11")).status).toBe(200); // kept now
    const head = await svc.call("HEAD", "/domains?limit=11");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
  });
});

describe("authenticated keys kept while the store is unchanged", () => {
  test("a key revoked by the CLI beside the service is refused at the very next request", async () => {
    const secret = await svc.keyWith("domains:read");
    for (let i = 0; i < 3; i++) expect((await svc.call("GET", "/domains", { key: secret })).status).toBe(200);
    const id = (await svc.runtime.keys.list()).find((k) => secret.startsWith(k.prefix))!.id;
    const revoked = await runCli(["keys", "revoke", id], { env: { LINKPATROL_STORAGE_PATH: svc.config.storage.path } });
    expect(revoked.exitCode).toBe(0);
    expectErrorEnvelope(await svc.call("GET", "/domains", { key: secret }), 401, "unauthorized");
  });

  test("requests under one version that miss at once share one lookup of the key; a new version looks again", async () => {
    const opened = await DIALECTS[0]!.open();
    try {
      let lookups = 0;
      class CountingKeysRepo extends KeysRepo {
        override findByHash(hash: string) {
          lookups++;
          return super.findByHash(hash);
        }
      }
      const repo = new CountingKeysRepo(opened.db);
      const keys = new KeysService(repo);
      const { key, secret } = await keys.create("shared", ["domains:read"]);
      const principals = await Promise.all(Array.from({ length: 50 }, () => keys.authenticate(secret, "v1")));
      expect(new Set(principals.map((p) => p.keyId))).toEqual(new Set([key.id]));
      expect(lookups).toBe(1);
      await keys.authenticate(secret, "v1");
      expect(lookups).toBe(1);
      // Revoked, then asked under the version the commit made: every caller looks again, and is refused.
      await keys.revoke(key.id);
      const refused = await Promise.allSettled(Array.from({ length: 10 }, () => keys.authenticate(secret, "v2")));
      expect(refused.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => "rejected"));
      expect(lookups).toBe(2);
    } finally {
      await opened.close();
    }
  });
});

describe("ResponseCache", () => {
  /** The middleware under test reads the version only for a request that carries a key (what the key is: not its concern). */
  const KEYED = { authorization: `Bearer lp_${"T".repeat(40)}` };
  const body = (text: string) => ({ body: new Blob([text]), gzip: null, contentType: "application/json", scope: "domains:read" as const });
  const textOf = (kept: { body: Blob } | undefined) => kept?.body.text();

  test("an answer is kept under its version, and not past its age", async () => {
    let now = 0;
    const cache = new ResponseCache({ now: () => now, maxAgeMs: 1_000 });
    cache.set("/a", "1", body("one"));
    expect(await textOf(cache.get("/a", "1"))).toBe("one");
    expect(cache.get("/a", "2")).toBeUndefined();
    cache.set("/a", "2", body("two"));
    now = 1_000;
    expect(await textOf(cache.get("/a", "2"))).toBe("two");
    now = 1_001;
    expect(cache.get("/a", "2")).toBeUndefined();
  });

  test("it holds at most maxBytes, dropping the oldest answers, and never one over maxBodyBytes", async () => {
    const cache = new ResponseCache({ maxBytes: 10, maxBodyBytes: 6 });
    cache.set("/a", "1", body("aaaa"));
    cache.set("/b", "1", body("bbbb"));
    cache.set("/c", "1", body("cccc"));
    expect(cache.get("/a", "1")).toBeUndefined();
    expect(await textOf(cache.get("/b", "1"))).toBe("bbbb");
    expect(await textOf(cache.get("/c", "1"))).toBe("cccc");
    cache.set("/d", "1", body("ddddddd"));
    expect(cache.get("/d", "1")).toBeUndefined();
  });

  test("requests that miss at once share one run of the route; a key without its scope is not given it", async () => {
    let runs = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let version = "v1";
    const app = new Hono<AppEnv>()
      .use(storeVersionToken(() => version))
      .use((c, next) => {
        const scope = c.req.header("x-scope") ?? "domains:read";
        c.set("principal", { keyId: scope, name: scope, scopes: [scope as "domains:read"] });
        return next();
      })
      .use(responseCache(new ResponseCache()))
      .get("/x", requireScope("domains:read"), keepAnswer("domains:read"), async (c) => {
        const run = ++runs;
        await gate;
        return c.json({ run });
      })
      .onError((error, c) => c.text(error.message, 403));
    const waiting = Array.from({ length: 20 }, () => app.request("/x", { headers: KEYED }));
    const other = app.request("/x", { headers: { ...KEYED, "x-scope": "crawls:read" } });
    for (let i = 0; i < 50 && runs === 0; i++) await Bun.sleep(1);
    open();
    const bodies = await Promise.all(waiting.map(async (res) => (await res).json()));
    expect(bodies).toEqual(Array.from({ length: 20 }, () => ({ run: 1 })));
    // Not given the shared answer: its own way through the route ends at the scope check.
    expect((await other).status).toBe(403);
    expect(runs).toBe(1);
    // Kept: the next request under the same version runs nothing; under a new one, the route runs again.
    expect(await (await app.request("/x", { headers: KEYED })).json()).toEqual({ run: 1 });
    version = "v2";
    expect(await (await app.request("/x", { headers: KEYED })).json()).toEqual({ run: 2 });
  });

  test("a big answer (computed, shared, kept) is gzipped for a client that accepts it, whole for one that does not", async () => {
    let runs = 0;
    const big = { data: Array.from({ length: 400 }, (_, i) => ({ url: `https://example.com/page/${i}`, status: 200 })) };
    const app = new Hono<AppEnv>()
      .use(storeVersionToken(async () => "v1"))
      .use((c, next) => {
        c.set("principal", { keyId: "k", name: "k", scopes: ["domains:read"] });
        return next();
      })
      .use(responseCache(new ResponseCache()))
      .get("/big", requireScope("domains:read"), keepAnswer("domains:read"), async (c) => {
        runs++;
        await Bun.sleep(20);
        return c.json(big);
      })
      .get("/small", requireScope("domains:read"), keepAnswer("domains:read"), (c) => c.json({ data: "small" }));
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
    try {
      // Bytes as they came over the socket (fetch would inflate them), asked with `encoding` as Accept-Encoding.
      const raw = async (path: string, encoding: string) => {
        const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: { ...KEYED, "Accept-Encoding": encoding }, decompress: false });
        return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
      };
      const json = JSON.stringify(big);
      // Two at once (one computes, one shares), then one kept.
      const gzipped = [...(await Promise.all([raw("/big", "gzip, deflate"), raw("/big", "br, gzip;q=0.5")])), await raw("/big", "*")];
      expect(runs).toBe(1);
      for (const { res, bytes } of gzipped) {
        expect(res.status).toBe(200);
        expect(res.headers.get("content-encoding")).toBe("gzip");
        expect(res.headers.get("vary")).toBe("Accept-Encoding");
        expect(res.headers.get("content-type")).toStartWith("application/json");
        expect(bytes.length).toBeLessThan(json.length / 4);
        expect(new TextDecoder().decode(Bun.gunzipSync(bytes))).toBe(json);
      }
      for (const encoding of ["identity", "gzip;q=0, deflate", "br"]) {
        const { res, bytes } = await raw("/big", encoding);
        expect(res.headers.get("content-encoding")).toBeNull();
        expect(res.headers.get("vary")).toBe("Accept-Encoding");
        expect(new TextDecoder().decode(bytes)).toBe(json);
      }
      expect(runs).toBe(1);
      // A small answer is not worth it.
      const small = await raw("/small", "gzip");
      expect(small.res.headers.get("content-encoding")).toBeNull();
      expect(new TextDecoder().decode(small.bytes)).toBe(JSON.stringify({ data: "small" }));
    } finally {
      server.stop(true);
    }
  });

  test("with no version to keep answers under (rate limits on PostgreSQL), a big answer is still gzipped, and run every time", async () => {
    let runs = 0;
    const big = { data: Array.from({ length: 400 }, (_, i) => ({ url: `https://example.com/page/${i}` })) };
    const app = new Hono<AppEnv>()
      .use((c, next) => {
        c.set("principal", { keyId: "k", name: "k", scopes: ["domains:read"] });
        return next();
      })
      .use(responseCache(new ResponseCache()))
      .get("/big", requireScope("domains:read"), keepAnswer("domains:read"), (c) => {
        runs++;
        return c.json(big);
      });
    for (let i = 0; i < 2; i++) {
      const res = await app.request("/big", { headers: { ...KEYED, "Accept-Encoding": "gzip" } });
      expect(res.headers.get("content-encoding")).toBe("gzip");
      expect(JSON.parse(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await res.arrayBuffer()))))).toEqual(big);
    }
    expect(await (await app.request("/big", { headers: KEYED })).json()).toEqual(big);
    expect(runs).toBe(3);
  });

  test("acceptsGzip reads Accept-Encoding by name, wildcard and q", () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip("gzip")).toBe(true);
    expect(acceptsGzip("deflate, GZIP;q=0.8")).toBe(true);
    expect(acceptsGzip("x-gzip")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip; q=0.0, br")).toBe(false);
    expect(acceptsGzip("identity, br, deflate")).toBe(false);
  });

  test("a route that keeps nothing (metrics, a download) is never waited for: requests at once each run it", async () => {
    let runs = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const app = new Hono<AppEnv>()
      .use(storeVersionToken(() => "v1"))
      .use((c, next) => {
        c.set("principal", { keyId: "k", name: "k", scopes: ["admin"] });
        return next();
      })
      .use(responseCache(new ResponseCache()))
      .get("/plain", async (c) => {
        const run = ++runs;
        await gate;
        return c.json({ run });
      });
    const both = [app.request("/plain", { headers: KEYED }), app.request("/plain", { headers: KEYED })];
    for (let i = 0; i < 50 && runs < 2; i++) await Bun.sleep(1);
    // Both are inside the route before either has answered.
    expect(runs).toBe(2);
    open();
    expect((await Promise.all(both.map(async (res) => (await res).json()))).map((body) => body.run).sort()).toEqual([1, 2]);
  });

  test("a store that fails while its version is read: the route answers (and reports it)", async () => {
    const failing = () => {
      throw new Error("SQLITE_IOERR");
    };
    const app = new Hono<AppEnv>()
      .use(storeVersionToken(failing))
      .use(responseCache(new ResponseCache()))
      .get("/x", (c) => c.text("from the route", 503));
    const res = await app.request("/x", { headers: KEYED });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe("from the route");
  });

  test("a request without an API key reads no version (it could use no kept key or answer)", async () => {
    let reads = 0;
    const app = new Hono<AppEnv>()
      .use(
        storeVersionToken(() => {
          reads++;
          return "v1";
        }),
      )
      .get("/x", (c) => c.text(String(c.get("storeVersion"))));
    expect(await (await app.request("/x")).text()).toBe("undefined");
    expect(reads).toBe(0);
    expect(await (await app.request("/x", { headers: KEYED })).text()).toBe("v1");
    expect(reads).toBe(1);
  });
});
