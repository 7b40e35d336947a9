/**
 * Which methods a path supports, derived from the router's own route table, so a known path asked with
 * the wrong method gets 405 + Allow instead of Hono's default 404.
 */

interface RouteEntry {
  method: string;
  path: string;
}

/** Returns a lookup from path to its registered methods (empty when the path is unknown). */
export function methodLookup(routes: readonly RouteEntry[]): (path: string) => string[] {
  let table: { pattern: RegExp; method: string }[] | undefined;
  return (path) => {
    // Compiled on first use: by then every route is registered.
    table ??= routes
      .filter((r) => r.method !== "ALL" && !r.path.includes("*"))
      .map((r) => ({
        method: r.method,
        pattern: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[^/]+/g, "/[^/]+")}$`),
      }));
    const methods = new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
}
