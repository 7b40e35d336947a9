import type { Bindings, Db } from "../../src/store/db.ts";

/** One node of a PostgreSQL plan (EXPLAIN … FORMAT JSON), as the plan tests read it. */
export type PlanNode = Record<string, unknown>;

/** PostgreSQL's plan of `text`: EXPLAIN (FORMAT JSON), or with `analyze` EXPLAIN (ANALYZE, FORMAT JSON), which runs it. */
export async function planOf(db: Db, text: string, params: Bindings | undefined, analyze = false): Promise<unknown> {
  const options = analyze ? "ANALYZE, FORMAT JSON" : "FORMAT JSON";
  return (await db.get<{ "QUERY PLAN": unknown }>(`EXPLAIN (${options}) ${text}`, params))!["QUERY PLAN"];
}

/** Every node of `plan`, the top one first. */
export function planNodes(plan: unknown): PlanNode[] {
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    nodes.push(node);
    for (const child of (node.Plans as PlanNode[] | undefined) ?? []) walk(child);
  };
  walk((plan as { Plan: PlanNode }[])[0]!.Plan);
  return nodes;
}

/** A node's count `field` over all its loops (EXPLAIN ANALYZE reports counts per loop). */
export function overLoops(node: PlanNode, field: string): number {
  return Number(node[field] ?? 0) * Number(node["Actual Loops"] ?? 1);
}
