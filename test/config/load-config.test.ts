import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/load.ts";

const dir = mkdtempSync(join(tmpdir(), "linkpatrol-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  test("built-in defaults when no file exists", () => {
    const { config, file: used } = loadConfig({ env: {}, file: undefined });
    expect(used).toBeNull();
    expect(config.server).toMatchObject({ port: 8080, base_path: "/v1", host: "0.0.0.0" });
    expect(config.storage.path).toBe("./data/linkpatrol.db");
    expect(config.auth.rate_limit).toBe(600);
    expect(config.crawler.allow_private_networks).toBe(false);
  });

  test("cluster.node_name: null by default, set from the file or LINKPATROL_CLUSTER_NODE_NAME", () => {
    expect(loadConfig({ env: {}, file: undefined }).config.cluster.node_name).toBeNull();
    const path = file("node.yaml", "cluster:\n  node_name: web-1.eu_2\n");
    expect(loadConfig({ file: path, env: {} }).config.cluster.node_name).toBe("web-1.eu_2");
    expect(loadConfig({ file: path, env: { LINKPATROL_CLUSTER_NODE_NAME: "web-2" } }).config.cluster.node_name).toBe("web-2");
    expect(problemsOf(() => loadConfig({ file: file("node-bad.yaml", "cluster:\n  node_name: ''\n"), env: {} }))[0]).toContain("cluster.node_name");
  });

  test("cluster.lease: 30s by default, set from the file or LINKPATROL_CLUSTER_LEASE, refused outside 5s-10m with the bounds", () => {
    expect(loadConfig({ env: {}, file: undefined }).config.cluster.lease).toBe(30_000);
    const path = file("lease.yaml", "cluster:\n  lease: 1m\n");
    expect(loadConfig({ file: path, env: {} }).config.cluster.lease).toBe(60_000);
    expect(loadConfig({ file: path, env: { LINKPATROL_CLUSTER_LEASE: "45s" } }).config.cluster.lease).toBe(45_000);
    expect(problemsOf(() => loadConfig({ env: { LINKPATROL_CLUSTER_LEASE: "2s" }, file: undefined }))[0]).toMatch(
      /cluster\.lease.*must be between 5s and 10m \(got 2s\)/,
    );
    expect(problemsOf(() => loadConfig({ env: { LINKPATROL_CLUSTER_LEASE: "1h" }, file: undefined }))[0]).toMatch(
      /cluster\.lease.*must be between 5s and 10m \(got 1h\)/,
    );
    expect(problemsOf(() => loadConfig({ file: file("lease-bad.yaml", "cluster:\n  lease: soon\n"), env: {} }))[0]).toMatch(/cluster\.lease.*not a duration/);
  });

  test("reads YAML values and converts durations to milliseconds", () => {
    const path = file("ok.yaml", "server:\n  port: 9191\ncrawler:\n  max_duration: 5m\n  connect_timeout: 1.5\n");
    const { config, file: used } = loadConfig({ file: path, env: {} });
    expect(used).toBe(path);
    expect(config.server.port).toBe(9191);
    expect(config.crawler.max_duration).toBe(300_000);
    expect(config.crawler.connect_timeout).toBe(1_500);
  });

  test("an unknown key names the file, the key path and the reason", () => {
    const path = file("unknown.yaml", "server:\n  prot: 80\n");
    expect(problemsOf(() => loadConfig({ file: path, env: {} }))).toEqual([`${path}: server.prot: unknown key`]);
  });

  test("an unknown section is refused", () => {
    const path = file("section.yaml", "srever:\n  port: 80\n");
    expect(problemsOf(() => loadConfig({ file: path, env: {} }))).toEqual([`${path}: srever: unknown key`]);
  });

  test("a bad value names the key path and why", () => {
    const path = file("bad.yaml", "server:\n  port: 70000\ncrawler:\n  max_duration: soon\n");
    const problems = problemsOf(() => loadConfig({ file: path, env: {} }));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toStartWith(`${path}: server.port: `);
    expect(problems[0]).toContain("65535");
    expect(problems[1]).toStartWith(`${path}: crawler.max_duration: not a duration`);
  });

  test("invalid YAML reports the line", () => {
    const path = file("broken.yaml", "server:\n  port: [1, 2\n");
    expect(problemsOf(() => loadConfig({ file: path, env: {} }))[0]).toMatch(new RegExp(`^${path}: line \\d+`));
  });

  test("a missing explicit file is an error, not silent defaults", () => {
    expect(problemsOf(() => loadConfig({ file: join(dir, "nope.yaml"), env: {} }))[0]).toContain("file not found");
  });

  test("LINKPATROL_<SECTION>_<KEY> overrides the file, typed by the key", () => {
    const path = file("env.yaml", "server:\n  port: 9191\n");
    const { config } = loadConfig({
      file: path,
      env: {
        LINKPATROL_SERVER_PORT: "9292",
        LINKPATROL_CRAWLER_ALLOW_PRIVATE_NETWORKS: "true",
        LINKPATROL_CRAWLER_PER_HOST_CONCURRENCY: "2",
        LINKPATROL_CRAWLER_ALLOWED_CIDRS: "[10.0.0.0/8, fd00::/8]",
        LINKPATROL_STORAGE_PATH: "/var/lib/linkpatrol/lp.db",
        LINKPATROL_AUTH_BOOTSTRAP_KEY: `lp_${"a".repeat(32)}`,
      },
    });
    expect(config.server.port).toBe(9292);
    expect(config.crawler.allow_private_networks).toBe(true);
    expect(config.crawler.per_host_concurrency).toBe(2);
    expect(config.crawler.allowed_cidrs).toEqual(["10.0.0.0/8", "fd00::/8"]);
    expect(config.storage.path).toBe("/var/lib/linkpatrol/lp.db");
    expect(config.auth.bootstrap_key).toBe(`lp_${"a".repeat(32)}`);
  });

  test("a bad override names the variable", () => {
    const problems = problemsOf(() => loadConfig({ env: { LINKPATROL_SERVER_PORT: "eighty" } }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toStartWith("environment LINKPATROL_SERVER_PORT: server.port: ");
  });

  test("an override for no known key is refused", () => {
    expect(problemsOf(() => loadConfig({ env: { LINKPATROL_SERVER_PROT: "1" } }))[0]).toStartWith("environment LINKPATROL_SERVER_PROT: no such config key");
  });

  test("a malformed bootstrap key is refused", () => {
    expect(problemsOf(() => loadConfig({ env: { LINKPATROL_AUTH_BOOTSTRAP_KEY: "secret" } }))[0]).toContain("auth.bootstrap_key");
  });
});

describe("network values are checked as strictly as they are used", () => {
  test.each(["10.0.0.999/8", "10.0.0.0/99", "fd00::/129", "10.0.0.0", "example.com/8"])("allowed_cidrs entry %p is refused", (entry) => {
    const problems = problemsOf(() => loadConfig({ env: { LINKPATROL_CRAWLER_ALLOWED_CIDRS: `[${entry}]` } }));
    expect(problems[0]).toContain("crawler.allowed_cidrs.0: must be a CIDR");
  });

  test("valid v4 and v6 CIDRs pass", () => {
    expect(loadConfig({ env: { LINKPATROL_CRAWLER_ALLOWED_CIDRS: "[10.0.0.0/8, 192.168.1.7/32, fd00::/8]" } }).config.crawler.allowed_cidrs).toHaveLength(3);
  });

  test("trusted proxies: addresses and CIDRs from the environment; anything else refused", () => {
    const env = { LINKPATROL_SERVER_TRUSTED_PROXIES: "[127.0.0.1, 10.0.0.0/8, fd00::/8]", LINKPATROL_SERVER_FORWARDED_HEADER: "forwarded" };
    expect(loadConfig({ env }).config.server).toMatchObject({ trusted_proxies: ["127.0.0.1", "10.0.0.0/8", "fd00::/8"], forwarded_header: "forwarded" });
    expect(problemsOf(() => loadConfig({ env: { LINKPATROL_SERVER_TRUSTED_PROXIES: "[proxy.lan]" } }))[0]).toContain("server.trusted_proxies.0");
    expect(problemsOf(() => loadConfig({ env: { LINKPATROL_SERVER_FORWARDED_HEADER: "x-real-ip" } }))[0]).toContain("server.forwarded_header");
  });

  test.each(["dns.google", "127.0.0.1:0", "127.0.0.1:70000", "[::1", "1.2.3.4:dns"])("dns_servers entry %p is refused", (entry) => {
    const problems = problemsOf(() => loadConfig({ env: { LINKPATROL_VERIFICATION_DNS_SERVERS: `["${entry}"]` } }));
    expect(problems[0]).toContain("verification.dns_servers.0:");
  });

  test("IP, IPv4:PORT and [IPv6]:PORT DNS servers pass", () => {
    const servers = ["1.1.1.1", "127.0.0.1:5353", "[::1]:53", "2606:4700::1111"];
    expect(loadConfig({ env: { LINKPATROL_VERIFICATION_DNS_SERVERS: JSON.stringify(servers) } }).config.verification.dns_servers).toEqual(servers);
  });

  test("a section with every key commented out means all defaults", () => {
    const path = file("empty-section.yaml", "server:\n  # port: 9000\nstorage:\n");
    expect(loadConfig({ file: path, env: {} }).config.server.port).toBe(8080);
  });
});
