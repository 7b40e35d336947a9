import { hostname } from "node:os";
import type { Config } from "./schema.ts";

/** The name this node answers with: cluster.node_name, or the machine's host name when none is set. */
export function nodeNameOf(config: Config): string {
  return config.cluster.node_name ?? hostname();
}
