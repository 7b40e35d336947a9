import type { Db } from "./db.ts";

/**
 * The nodes serving one store (issue 43): a row per node name, written at start and beaten while it runs. It is the
 * one-serve-per-store lock moved into the database: a name is held by one live process (`instance`, random per
 * start), and another process asking for it is refused until that one has been silent for a lease. No rules here
 * (how often to beat, what a refusal does): the caller's. Times are the callers' `now`.
 */

export interface NodeRecord {
  name: string;
  instance: string;
  version: string;
  started_at: string;
  heartbeat_at: string;
}

/** What `register` found: the name is this process's (`replaced`: a previous process of the name had gone silent), or a live one's. */
export type Registration = { ok: true; replaced: boolean } | { ok: false; holder: NodeRecord };

const NODE_COLUMNS = "name, instance, version, started_at, heartbeat_at";

export class NodesRepo {
  constructor(private readonly db: Db) {}

  /**
   * Takes the name `name` for this process (`instance`) unless another process of that name beat within the last
   * `leaseMs`. When it replaces a silent one, the caller frees that process's leases (LeasesRepo.releaseAll).
   */
  async register(node: { name: string; instance: string; version: string }, leaseMs: number, now: Date): Promise<Registration> {
    const at = now.toISOString();
    return this.db.transaction(async (tx) => {
      const before = await tx.get<{ instance: string }>("SELECT instance FROM cluster_nodes WHERE name = $name", { name: node.name });
      const taken = await tx.get<{ name: string }>(
        `INSERT INTO cluster_nodes (name, instance, version, started_at, heartbeat_at) VALUES ($name, $instance, $version, $at, $at)
         ON CONFLICT (name) DO UPDATE SET instance = excluded.instance, version = excluded.version, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at
         WHERE cluster_nodes.heartbeat_at <= $staleBefore OR cluster_nodes.instance = excluded.instance
         RETURNING name`,
        { ...node, at, staleBefore: new Date(now.getTime() - leaseMs).toISOString() },
      );
      if (taken !== undefined) return { ok: true, replaced: before !== undefined && before.instance !== node.instance };
      const holder = await tx.get<NodeRecord>(`SELECT ${NODE_COLUMNS} FROM cluster_nodes WHERE name = $name`, { name: node.name });
      return { ok: false, holder: holder! };
    });
  }

  /** This process's heartbeat: false when the name is no longer its own (another process took it after a silence). */
  async heartbeat(name: string, instance: string, now: Date): Promise<boolean> {
    const result = await this.db.run("UPDATE cluster_nodes SET heartbeat_at = $at WHERE name = $name AND instance = $instance", {
      name,
      instance,
      at: now.toISOString(),
    });
    return result.changes > 0;
  }

  /** A clean stop: the name is free at once. */
  async leave(name: string, instance: string): Promise<boolean> {
    return (await this.db.run("DELETE FROM cluster_nodes WHERE name = $name AND instance = $instance", { name, instance })).changes > 0;
  }

  /** Every registered node, by name, with when it was last seen (`heartbeat_at`). */
  async list(): Promise<NodeRecord[]> {
    return this.db.all<NodeRecord>(`SELECT ${NODE_COLUMNS} FROM cluster_nodes ORDER BY name`);
  }
}
