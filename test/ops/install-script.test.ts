import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * scripts/install.sh into a staging root, with a stand-in for the binary (no build needed): files land with
 * their modes, a second run changes nothing, an operator's edited config is kept (the new example goes beside
 * it) and a new binary replaces the old one.
 */

const REPO = join(import.meta.dir, "../..");
const SCRIPT = join(REPO, "scripts/install.sh");
let dir: string;
let root: string;
let fake: string;

const BINARY = "usr/local/bin/linkpatrol";
const UNIT = "etc/systemd/system/linkpatrol.service";
const CONFIG = "etc/linkpatrol/linkpatrol.yaml";
const at = (path: string) => join(root, path);
const mode = (path: string) => statSync(at(path)).mode & 0o777;

function install(...args: string[]): string {
  const result = spawnSync("sh", [SCRIPT, "--root", root, "--binary", fake, ...args], {
    encoding: "utf8",
    timeout: 30_000,
  });
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: "" });
  return result.stdout;
}

/** path → mtime and contents of every file under the staging root. */
function snapshot(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path] = `${statSync(path).mtimeMs} ${readFileSync(path, "base64")}`;
  }
  return files;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "linkpatrol-install-"));
  root = join(dir, "root");
  mkdirSync(root);
  fake = join(dir, "linkpatrol");
  writeFileSync(fake, "#!/bin/sh\necho v1\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a first run installs the binary, the unit and the config with their modes", () => {
  const out = install();
  expect(out).toContain("skipped: user and systemctl");
  expect(readFileSync(at(BINARY), "utf8")).toBe("#!/bin/sh\necho v1\n");
  expect(readFileSync(at(UNIT), "utf8")).toBe(readFileSync(join(REPO, "deploy/linkpatrol.service"), "utf8"));
  expect([mode(BINARY), mode(UNIT), mode(CONFIG), mode("etc/linkpatrol")]).toEqual([0o755, 0o644, 0o640, 0o750]);

  const example = readFileSync(join(REPO, "deploy/linkpatrol.example.yaml"), "utf8");
  const config = readFileSync(at(CONFIG), "utf8");
  expect(config).toContain("\n  path: /var/lib/linkpatrol/linkpatrol.db\n");
  // Only storage.path differs from the example.
  expect(config.split("\n").filter((line, i) => line !== example.split("\n")[i])).toEqual(["  path: /var/lib/linkpatrol/linkpatrol.db"]);
  expect(existsSync(at(`${CONFIG}.example`))).toBe(false);
});

test("a second run changes nothing and says so", () => {
  const before = snapshot();
  const out = install();
  expect(snapshot()).toEqual(before);
  for (const path of [BINARY, UNIT, CONFIG]) expect(out).toContain(`unchanged: ${at(path)}`);
  expect(out).not.toMatch(/^(installed|updated|created):/m);
});

test("an edited config is kept and the new example is written beside it", () => {
  appendFileSync(at(CONFIG), "# local change\n");
  const edited = readFileSync(at(CONFIG), "utf8");
  const out = install();
  expect(readFileSync(at(CONFIG), "utf8")).toBe(edited);
  expect(out).toContain(`kept: ${at(CONFIG)}`);
  expect(out).toContain(`installed: ${at(`${CONFIG}.example`)}`);
  expect(readFileSync(at(`${CONFIG}.example`), "utf8")).toContain("  path: /var/lib/linkpatrol/linkpatrol.db\n");
  expect(install()).toContain(`unchanged: ${at(`${CONFIG}.example`)}`);
});

test("a new binary replaces the old one, leaving no temporary file", () => {
  writeFileSync(fake, "#!/bin/sh\necho v2\n");
  const out = install();
  expect(out).toContain(`updated: ${at(BINARY)}`);
  expect(readFileSync(at(BINARY), "utf8")).toBe("#!/bin/sh\necho v2\n");
  expect(mode(BINARY)).toBe(0o755);
  expect(readdirSync(at("usr/local/bin"))).toEqual(["linkpatrol"]);
});

test("a missing binary is refused with exit 2", () => {
  const result = spawnSync("sh", [SCRIPT, "--root", root, "--binary", join(dir, "absent")], {
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(result.status).toBe(2);
  expect(result.stderr).toContain("no binary at");
});
