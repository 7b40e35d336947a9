import { describe } from "bun:test";
import { HAS_POSTGRES } from "./postgres.ts";

/**
 * The end-to-end suites (crawl, links, webhooks, schedules, dashboard) run on both stores a service can have
 * (issue 43): SQLite as the appliance, and PostgreSQL (a fresh database per service, helpers/service.ts);
 * PostgreSQL skips without a server, and fails under CI=true (helpers/postgres.ts).
 */

export type StoreEngine = "sqlite" | "postgres";

const ENGINES: { engine: StoreEngine; available: boolean }[] = [
  { engine: "sqlite", available: true },
  { engine: "postgres", available: HAS_POSTGRES },
];

/**
 * `body`'s tests once per store, in a describe block named `${title} on <engine>`; `body` starts its services
 * with `startTestService(overrides, { store })`, and keeps its own state inside (the two blocks share nothing).
 */
export function forEachStore(title: string, body: (store: StoreEngine) => void): void {
  for (const { engine, available } of ENGINES) describe.skipIf(!available)(`${title} on ${engine}`, () => body(engine));
}
