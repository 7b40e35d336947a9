import { afterAll } from "bun:test";
import { rmSync } from "node:fs";

/**
 * Store directories removed once the whole test run is over (preloaded by bunfig.toml, so this afterAll is the
 * run's, not a file's). SQLite tells files apart by inode, and a closed connection whose prepared statements still
 * wait for garbage collection keeps its file open: a store deleted when its test ends frees its inode for a later
 * test's new store, which SQLite then takes for the old, still-locked file ("database is locked" on a fresh
 * store, seen in CI).
 */

const dirs: string[] = [];

export function removeAfterRun(dir: string): void {
  dirs.push(dir);
}

try {
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
} catch {
  // Loaded by a script outside the test runner (test/fixtures/upgrade/generate.ts): its stores are left to it.
}
