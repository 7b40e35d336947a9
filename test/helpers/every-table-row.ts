import type { Database } from "bun:sqlite";

/**
 * Gives every table an upgrade fixture leaves empty a row of its own (a blob among them), so a copy of the store
 * between engines carries a row of every table across: page ids went with 0013's rehash, the waiting spill needs
 * 262,144 targets, and one appliance writes no cluster rows, sign-outs, shared buckets or shared sign-in failures.
 * `node` names the node the cluster rows belong to.
 */
export function fillEmptyTables(sqlite: Database, node: string): void {
  const link = sqlite.query("SELECT id, crawl_id, target_id FROM links LIMIT 1").get() as { id: number; crawl_id: string; target_id: number };
  sqlite
    .query("INSERT INTO crawl_page_ids (crawl_id, url, id_hashes, gap) VALUES (?, 'http://fixture.test/ids', ?, NULL)")
    .run(link.crawl_id, new Uint8Array([0, 1, 2, 254, 255]));
  sqlite.query("INSERT INTO crawl_waiting (target_id, links, last_link_id) VALUES (?, 3, ?)").run(link.target_id, link.id);
  sqlite
    .query("INSERT INTO link_fragments (link_id, crawl_id, target_id, fragments, gap) VALUES (?, ?, ?, '[\"top\"]', NULL)")
    .run(link.id, link.crawl_id, link.target_id);
  const domain = sqlite.query("SELECT id FROM domains LIMIT 1").get() as { id: string };
  sqlite.query("INSERT INTO schedule_runs (domain_id, due_at, node) VALUES (?, '2026-11-28T00:00:00.000Z', ?)").run(domain.id, node);
  sqlite.exec("INSERT INTO store_secrets (name, value) VALUES ('example', 'kept')");
  sqlite.exec("INSERT INTO ended_sessions (nonce, expires_at) VALUES ('AAAAAAAAAAAAAAAAAAAAAA', '2026-11-29T00:00:00.000Z')");
  sqlite
    .query(
      "INSERT INTO cluster_nodes (name, instance, version, started_at, heartbeat_at) VALUES (?, 'i-1', '1.0.0', '2026-11-28T12:00:00.000Z', '2026-11-28T12:00:05.000Z')",
    )
    .run(node);
  sqlite.query("INSERT INTO work_leases (kind, key, holder, expires_at, fence) VALUES ('crawl', 'c-1', ?, '2026-11-28T12:00:30.000Z', 3)").run(node);
  sqlite.exec("INSERT INTO rate_buckets (caller, tokens, updated_at, allowed) VALUES ('key:k-1', 12.5, 1764331200000, 1)");
  sqlite.exec("INSERT INTO sign_in_failures (bucket, failures, last_failed_at) VALUES ('addr:192.0.2.1', 3, 1764331200000)");
}
