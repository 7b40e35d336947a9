/**
 * A synthetic site whose every answer is held `delayMs` before it is sent, as a remote site's latency would: a
 * crawl of it is bound by the site (per-host concurrency ÷ delay), not by the crawler's CPU. The test fixtures'
 * server holds only the answers a table marks "slow", so each resource is handed to it marked so; the model
 * reads "slow" as answered (site-model.ts), so the ground truth is the plain site's.
 */
import { type RunningSite, startSite, SyntheticSite, type SyntheticProfile, RealisticSite } from "../../test/fixtures/site-generator.ts";
import type { Resource, SiteOrigins, SiteTable } from "../../test/fixtures/site-model.ts";

/** The same table, every answered resource marked "slow" (its lazy body and links read through the original). */
function everyAnswerHeld<T extends SiteTable>(table: T): T {
  const held = Object.create(table) as T;
  held.resource = (url: string): Resource | undefined => {
    const resource = table.resource(url);
    if (resource === undefined || resource.answer !== "normal") return resource;
    return Object.defineProperty(Object.create(resource), "answer", { value: "slow", enumerable: true }) as Resource;
  };
  return held;
}

/** Serves a synthetic site (no pages of its own kind of slow) whose every answer waits `delayMs`. */
export function startSlowSite(o: { pages: number; seed: number; delayMs: number; profile: SyntheticProfile }): Promise<RunningSite<SyntheticSite>> {
  const options = { pages: o.pages, seed: o.seed, slowPages: 0 };
  const build = (origins: SiteOrigins) =>
    everyAnswerHeld(o.profile === "realistic" ? new RealisticSite(origins, options) : new SyntheticSite(origins, options));
  return startSite<SyntheticSite>(build, o.delayMs);
}
