import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config/load.ts";

// The `webhooks` section: defaults, durations, and env overrides (lists as YAML flow sequences, like allowed_cidrs).

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("webhooks config", () => {
  test("defaults", () => {
    expect(loadConfig({ env: {} }).config.webhooks).toEqual({
      timeout: 15_000,
      retry_schedule: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000],
      allow_http: false,
      allow_private_targets: false,
      ca_file: null,
      disable_after: 432_000_000,
      max_concurrent: 8,
    });
  });

  test("every key can be set from the environment", () => {
    const { webhooks } = loadConfig({
      env: {
        LINKPATROL_WEBHOOKS_TIMEOUT: "5s",
        LINKPATROL_WEBHOOKS_RETRY_SCHEDULE: "[1s, 10s, 1m]",
        LINKPATROL_WEBHOOKS_ALLOW_HTTP: "true",
        LINKPATROL_WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
        LINKPATROL_WEBHOOKS_CA_FILE: "/etc/ssl/private-ca.pem",
        LINKPATROL_WEBHOOKS_DISABLE_AFTER: "2d",
        LINKPATROL_WEBHOOKS_MAX_CONCURRENT: "2",
      },
    }).config;
    expect(webhooks).toEqual({
      timeout: 5_000,
      retry_schedule: [1_000, 10_000, 60_000],
      allow_http: true,
      allow_private_targets: true,
      ca_file: "/etc/ssl/private-ca.pem",
      disable_after: 172_800_000,
      max_concurrent: 2,
    });
  });

  test("an empty retry schedule means one attempt only", () => {
    expect(loadConfig({ env: { LINKPATROL_WEBHOOKS_RETRY_SCHEDULE: "[]" } }).config.webhooks.retry_schedule).toEqual([]);
  });

  test("a bad schedule entry names its index", () => {
    const problems = problemsOf(() => loadConfig({ env: { LINKPATROL_WEBHOOKS_RETRY_SCHEDULE: "[5s, soon]" } }));
    expect(problems[0]).toStartWith("environment LINKPATROL_WEBHOOKS_RETRY_SCHEDULE: webhooks.retry_schedule.1: not a duration");
  });

  test("a schedule that is not a list is refused", () => {
    const problems = problemsOf(() => loadConfig({ env: { LINKPATROL_WEBHOOKS_RETRY_SCHEDULE: "5s" } }));
    expect(problems[0]).toStartWith("environment LINKPATROL_WEBHOOKS_RETRY_SCHEDULE: webhooks.retry_schedule:");
  });

  test.each([
    ["LINKPATROL_WEBHOOKS_TIMEOUT", "10m", "webhooks.timeout"],
    ["LINKPATROL_WEBHOOKS_MAX_CONCURRENT", "0", "webhooks.max_concurrent"],
    ["LINKPATROL_WEBHOOKS_CA_FILE", "", "webhooks.ca_file"],
    ["LINKPATROL_WEBHOOKS_DISABLE_AFTER", "10s", "webhooks.disable_after"],
  ])("%s=%p is refused", (name, value, path) => {
    expect(problemsOf(() => loadConfig({ env: { [name]: value } }))[0]).toContain(`${path}:`);
  });
});
