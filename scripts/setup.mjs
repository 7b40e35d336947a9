#!/usr/bin/env node
// Makes a fresh clone runnable with nothing but Node and npm: installs the locked dependencies,
// Bun among them (the `bun` npm package ships the binary), whenever node_modules is missing or
// older than package-lock.json. Plain Node on purpose: Bun may not exist yet when this runs.
import { existsSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const lockfile = join(root, "package-lock.json");
const installedMarker = join(root, "node_modules", ".package-lock.json");
const bunBinary = join(root, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun");

function installIsCurrent() {
  if (!existsSync(installedMarker) || !existsSync(bunBinary)) return false;
  return statSync(installedMarker).mtimeMs >= statSync(lockfile).mtimeMs;
}

if (!installIsCurrent()) {
  process.stderr.write("linkpatrol setup: installing locked dependencies (npm ci)...\n");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  if (result.status !== 0) {
    process.stderr.write(`linkpatrol setup: npm ci failed (exit ${result.status ?? result.signal})\n`);
    process.exit(result.status || 1);
  }
  if (!existsSync(bunBinary)) {
    process.stderr.write(`linkpatrol setup: npm ci finished but ${bunBinary} is missing (were install scripts disabled?)\n`);
    process.exit(1);
  }
}
