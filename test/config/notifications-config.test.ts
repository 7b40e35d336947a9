import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config/load.ts";
import { crawlPageUrl } from "../../src/notifications/message.ts";

// server.public_url and the `notifications` section: defaults, env overrides, what a public URL may be.

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("notifications config", () => {
  test("defaults", () => {
    const { config } = loadConfig({ env: {} });
    expect(config.server.public_url).toBeNull();
    expect(config.notifications).toEqual({ timeout: 20_000, allow_http: false, allow_private_targets: false, ca_file: null });
  });

  test("every key can be set from the environment", () => {
    const { config } = loadConfig({
      env: {
        LINKPATROL_SERVER_PUBLIC_URL: "https://tools.example.com/linkpatrol/",
        LINKPATROL_NOTIFICATIONS_TIMEOUT: "10s",
        LINKPATROL_NOTIFICATIONS_ALLOW_HTTP: "true",
        LINKPATROL_NOTIFICATIONS_ALLOW_PRIVATE_TARGETS: "true",
        LINKPATROL_NOTIFICATIONS_CA_FILE: "/etc/ssl/lan-ca.pem",
      },
    });
    expect(config.server.public_url).toBe("https://tools.example.com/linkpatrol/");
    expect(config.notifications).toEqual({ timeout: 10_000, allow_http: true, allow_private_targets: true, ca_file: "/etc/ssl/lan-ca.pem" });
  });

  test("a public URL is an http(s) base without credentials, query or fragment", () => {
    for (const bad of ["linkpatrol.example.com", "ftp://x.example/", "https://u:p@x.example/", "https://x.example/?a=1", "https://x.example/#top"]) {
      const problems = problemsOf(() => loadConfig({ env: { LINKPATROL_SERVER_PUBLIC_URL: bad } }));
      expect(problems.join("\n"), bad).toContain("server.public_url");
    }
  });

  test("crawl pages are linked under the public URL, with or without its trailing slash and path prefix", () => {
    const id = "0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f";
    expect(crawlPageUrl("https://x.example", id)).toBe(`https://x.example/ui/crawls/${id}`);
    expect(crawlPageUrl("https://x.example/tools/linkpatrol", id)).toBe(`https://x.example/tools/linkpatrol/ui/crawls/${id}`);
    expect(crawlPageUrl("http://10.0.0.5:8080/", id)).toBe(`http://10.0.0.5:8080/ui/crawls/${id}`);
    expect(crawlPageUrl(null, id)).toBeNull();
  });
});
