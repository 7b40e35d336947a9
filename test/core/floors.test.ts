import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

/**
 * The floors of src/ (docs/architecture.md): data flows down, API and dashboard → their shared HTTP pieces →
 * services → store and crawler → webhooks and notifications, with core and net under everything. Read from the import statements
 * themselves, so a file that reaches up a floor fails here rather than in review.
 */

const SRC = join(import.meta.dir, "../../src");

/** Each file's imports of other files of src/, as paths relative to src/. */
function imports(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name)) {
        const text = readFileSync(path, "utf8");
        const targets = [...text.matchAll(/(?:\bfrom|\bimport\()\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) =>
          relative(SRC, normalize(join(dirname(path), m[1]!))),
        );
        found.set(
          relative(SRC, path),
          targets.filter((target) => !target.startsWith("..")),
        );
      }
    }
  };
  walk(SRC);
  return found;
}

/** A file's floor: its folder under src/, or the file itself for the few at the top (main.ts, runtime.ts). */
const floorOf = (path: string): string => (path.includes("/") ? path.slice(0, path.indexOf("/")) : path);

/** What each floor may import besides itself; a floor not listed may import anything (the composition roots). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  config: ["core"],
  net: ["core", "config"],
  store: ["core"],
  webhooks: ["core", "config", "net", "store"],
  cluster: ["core", "store", "webhooks"],
  notifications: ["core", "config", "net", "store", "webhooks"],
  crawler: ["core", "config", "net", "store", "notifications", "webhooks"],
  verification: ["core", "config", "net", "crawler"],
  metrics: ["core", "crawler", "webhooks"],
  services: ["core", "config", "net", "store", "crawler", "verification", "webhooks", "notifications"],
  scheduler: ["core", "config", "services"],
  http: ["core", "config", "net", "store", "services", "notifications"],
  api: ["core", "config", "net", "store", "services", "metrics", "notifications", "http"],
  ui: ["core", "config", "net", "services", "http"],
  cli: ["core", "config", "net", "store", "services", "scheduler", "api", "runtime.ts"],
};

test("no floor imports one above it", () => {
  const wrong: string[] = [];
  for (const [file, targets] of imports()) {
    const allowed = MAY_IMPORT[floorOf(file)];
    if (allowed === undefined) continue;
    for (const target of targets) {
      const floor = floorOf(target);
      if (floor !== floorOf(file) && !allowed.includes(floor)) wrong.push(`${file} → ${target}`);
    }
  }
  expect(wrong).toEqual([]);
});

test("the dashboard is imported by the composition root only", () => {
  const importers = [...imports()]
    .filter(([file, targets]) => floorOf(file) !== "ui" && targets.some((target) => floorOf(target) === "ui"))
    .map(([file]) => file);
  expect(importers).toEqual(["runtime.ts"]);
});
