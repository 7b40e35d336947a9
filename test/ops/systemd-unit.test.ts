import { afterAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * deploy/linkpatrol.service: the hardening it promises is present, TimeoutStopSec leaves room for
 * server.shutdown_timeout, and `systemd-analyze verify` accepts it without a warning (when installed).
 */

const ROOT = join(import.meta.dir, "../..");
const UNIT_FILE = join(ROOT, "deploy/linkpatrol.service");
const UNIT = readFileSync(UNIT_FILE, "utf8");

/** Fallback when the schema cannot be read: the documented default of server.shutdown_timeout. */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 25_000;

function defaultShutdownTimeoutMs(): number {
  const schema = readFileSync(join(ROOT, "src/config/schema.ts"), "utf8");
  const match = /shutdown_timeout:[^\n]*\.default\(([\d_]+)\)/.exec(schema);
  return match ? Number(match[1]!.replaceAll("_", "")) : DEFAULT_SHUTDOWN_TIMEOUT_MS;
}

/** `[Section]` → key → values, in file order (a key may repeat, e.g. SystemCallFilter). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current = new Map<string, string[]>();
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const eq = line.indexOf("=");
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

/** A systemd time span such as `35`, `35s`, `1min 30s`, `500ms`, in milliseconds. */
function timeSpanMs(value: string): number {
  const units: Record<string, number> = { "": 1000, ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)\s*([a-z]*)/g)) {
    if (!(unit! in units)) throw new Error(`unknown time unit in ${value}`);
    total += Number(amount) * units[unit!]!;
  }
  return total;
}

const service = parseUnit(UNIT).get("Service")!;
const value = (key: string) => service.get(key)?.at(-1);

test("the unit runs the binary as its own user with the state directory as the only writable path", () => {
  expect(value("ExecStart")).toBe("/usr/local/bin/linkpatrol serve --config /etc/linkpatrol/linkpatrol.yaml");
  expect(value("User")).toBe("linkpatrol");
  expect(value("StateDirectory")).toBe("linkpatrol");
  expect(value("Restart")).toBe("on-failure");
  expect(service.has("ReadWritePaths")).toBe(false);
});

test("the unit carries the hardening options", () => {
  const required: Record<string, string> = {
    NoNewPrivileges: "true",
    ProtectSystem: "strict",
    ProtectHome: "true",
    PrivateTmp: "true",
    PrivateDevices: "true",
    ProtectKernelTunables: "true",
    ProtectKernelModules: "true",
    ProtectKernelLogs: "true",
    ProtectControlGroups: "true",
    ProtectClock: "true",
    ProtectHostname: "true",
    ProtectProc: "invisible",
    RestrictNamespaces: "true",
    RestrictRealtime: "true",
    RestrictSUIDSGID: "true",
    LockPersonality: "true",
    SystemCallArchitectures: "native",
    SystemCallFilter: "@system-service",
    CapabilityBoundingSet: "",
    UMask: "0027",
  };
  for (const [key, expected] of Object.entries(required)) expect({ key, value: value(key) }).toEqual({ key, value: expected });
  // Bun's JIT needs writable+executable memory: this option would kill the process at start.
  expect(service.has("MemoryDenyWriteExecute")).toBe(false);
});

test("the unit has the runtime's allocator give freed memory back within milliseconds (docs/operations.md, Memory)", () => {
  const environment = service.get("Environment") ?? [];
  const delay = environment.map((line) => /^MIMALLOC_PURGE_DELAY=(\d+)$/.exec(line)?.[1]).find((found) => found !== undefined);
  expect(delay).toBeDefined();
  expect(Number(delay)).toBeLessThanOrEqual(10);
});

test("TimeoutStopSec leaves room for server.shutdown_timeout", () => {
  const stopMs = timeSpanMs(value("TimeoutStopSec")!);
  expect(stopMs).toBeGreaterThan(defaultShutdownTimeoutMs());
});

const systemdAnalyze = Bun.which("systemd-analyze");
const dir = mkdtempSync(join(tmpdir(), "linkpatrol-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// verify needs ExecStart's binary to exist; --root= does not help outside a full systemd tree (it then
// misses sysinit.target), so the copy points ExecStart at a stand-in script instead.
test.skipIf(!systemdAnalyze)("systemd-analyze verify accepts the unit without warnings", () => {
  const fake = join(dir, "linkpatrol");
  writeFileSync(fake, "#!/bin/sh\nexit 0\n");
  chmodSync(fake, 0o755);
  const copy = join(dir, "linkpatrol.service");
  writeFileSync(copy, UNIT.replace(/^ExecStart=\/usr\/local\/bin\/linkpatrol /m, `ExecStart=${fake} `));

  const result = spawnSync(systemdAnalyze!, ["verify", copy], { encoding: "utf8", timeout: 30_000 });
  const ours = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line.includes("linkpatrol"));
  expect({ status: result.status, lines: ours }).toEqual({ status: 0, lines: [] });
});
