import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { KeysService } from "../../src/services/keys.service.ts";
import type { Db } from "../../src/store/db.ts";
import { KeysRepo } from "../../src/store/keys.repo.ts";
import { HAS_POSTGRES } from "../helpers/postgres.ts";
import { postgresNodes } from "../helpers/postgres-nodes.ts";

/**
 * Nodes starting at once on an empty PostgreSQL store (a cluster's first start) each ask for the bootstrap key:
 * one key is made, printed by one node, and a configured key is stored once, not refused as a duplicate.
 */

describe.skipIf(!HAS_POSTGRES)("the bootstrap key on three nodes starting at once", () => {
  let nodes: { dbs: Db[]; close(): Promise<void> };
  beforeAll(async () => {
    nodes = await postgresNodes(3);
  });
  afterAll(() => nodes?.close());

  test("a generated key: exactly one node makes (and prints) it", async () => {
    const made = await Promise.all(nodes.dbs.map((db) => new KeysService(new KeysRepo(db)).bootstrap(null)));
    expect(made.filter((result) => result !== null)).toHaveLength(1);
    expect(made.find((result) => result !== null)!.generated).toBe(true);
    expect(await new KeysRepo(nodes.dbs[0]!).count()).toBe(1);
  });
});

describe.skipIf(!HAS_POSTGRES)("a configured bootstrap key on three nodes starting at once", () => {
  let nodes: { dbs: Db[]; close(): Promise<void> };
  beforeAll(async () => {
    nodes = await postgresNodes(3);
  });
  afterAll(() => nodes?.close());

  test("stored once; no node fails on a duplicate", async () => {
    const configured = `lp_${"B".repeat(40)}`;
    const made = await Promise.all(nodes.dbs.map((db) => new KeysService(new KeysRepo(db)).bootstrap(configured)));
    expect(made.filter((result) => result !== null)).toHaveLength(1);
    expect(await new KeysRepo(nodes.dbs[1]!).count()).toBe(1);
    expect((await new KeysService(new KeysRepo(nodes.dbs[2]!)).authenticate(configured)).scopes).toEqual(["admin"]);
  });
});
