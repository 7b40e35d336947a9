import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startTestService, type TestService } from "../helpers/service.ts";
import { signedInClient } from "./dashboard-client.ts";

/**
 * A dashboard form the store cannot take answers a 503 page, as the API answers 503 `store_unavailable`: when the
 * disk holding the store is full (it was a 500 "internal server error"), and when the store's file was deleted
 * under the service.
 */

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.stop().catch(() => undefined);
  svc = undefined;
});

test("a full disk: the dashboard's form answers a 503 page saying so, with Retry-After", async () => {
  svc = await startTestService({}, { startCrawls: false });
  const client = await signedInClient(svc);
  // SQLite refuses to grow the file past this many pages with SQLITE_FULL, as on a full disk.
  const sqlite = svc.runtime.store.sqlite!;
  const pages = (sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  sqlite.exec(`PRAGMA max_page_count = ${pages}`);
  // Some forms may fit in pages that are free; one of a bounded run will not.
  let answer = await client.post("/ui/domains", { name: "full0.example" });
  for (let i = 1; i < 500 && answer.status === 303; i++) answer = await client.post("/ui/domains", { name: `full${i}.example` });
  expect(answer.status).toBe(503);
  expect(answer.html).toContain("the disk holding the store is full");
  expect(answer.headers.get("retry-after")).toBe("60");
});

test("a store file deleted under the service: dashboard forms and API writes answer 503, reads still answer", async () => {
  svc = await startTestService({}, { startCrawls: false });
  const client = await signedInClient(svc);
  rmSync(svc.config.storage.path);
  const form = await client.post("/ui/domains", { name: "after.example" });
  expect(form.status).toBe(503);
  expect(form.html).toContain("deleted, moved or replaced");
  const api = await svc.call("POST", "/domains", { body: { name: "after.example" } });
  expect(api.status).toBe(503);
  expect(api.json.error.code).toBe("store_unavailable");
  expect((await client.get("/")).status).toBe(200);
  expect((await svc.call("GET", "/domains")).status).toBe(200);
});
