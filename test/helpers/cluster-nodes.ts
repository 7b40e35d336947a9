import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshDatabase } from "./postgres.ts";
import { startServeProcess, writeServeConfig, type ServeProcess } from "./serve-process.ts";

/**
 * Several `linkpatrol serve` processes on one fresh PostgreSQL database, as an operator runs a cluster: the same
 * config but each node its own name (and port). `start(name)` starts one (again, after a kill, under the same
 * name); `stopAll` ends every process and drops the database.
 */

export interface ClusterNodes {
  url: string;
  configFile: string;
  /** Starts node `name`; `url` reaches the store as another role (default: the database's own URL); `env` is added. */
  start(name: string, url?: string, env?: Record<string, string>): ServeProcess;
  stopAll(): Promise<void>;
}

export async function clusterNodes(key: string, extra: string[] = [], crawler = "allowed_cidrs: [127.0.0.1/32]"): Promise<ClusterNodes> {
  const database = await freshDatabase();
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-cluster-"));
  const configFile = writeServeConfig(dir, key, extra, crawler);
  const started: ServeProcess[] = [];
  return {
    url: database.url,
    configFile,
    start(name, url = database.url, env = {}) {
      const node = startServeProcess(configFile, [], { ...env, LINKPATROL_STORAGE_URL: url, LINKPATROL_CLUSTER_NODE_NAME: name });
      started.push(node);
      return node;
    },
    async stopAll() {
      for (const node of started) node.proc.kill("SIGKILL");
      await Promise.all(started.map((node) => node.proc.exited));
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
