import { describe, expect, test } from "bun:test";
import { configSchema } from "../../src/config/schema.ts";
import { isAddressAllowed } from "../../src/net/address-policy.ts";
import { webhookAddressPolicy, webhookUrlProblem } from "../../src/webhooks/url-rules.ts";

// What a webhook URL may look like (text only), and which addresses webhook deliveries may reach.

describe("webhookUrlProblem", () => {
  test.each([
    "https://hooks.example.com/linkpatrol",
    "https://hooks.example.com:8443/in?token=abc",
    "https://[2001:4860::8888]/hook",
    "HTTPS://Hooks.Example.com/",
  ])("%s is acceptable", (url) => {
    expect(webhookUrlProblem(url, false)).toBeNull();
  });

  test("http is refused unless allowed", () => {
    expect(webhookUrlProblem("http://hooks.example.com/", false)).toContain("must use https");
    expect(webhookUrlProblem("http://hooks.example.com/", false)).toContain("webhooks.allow_http");
    expect(webhookUrlProblem("http://hooks.example.com/", true)).toBeNull();
  });

  test.each(["ftp://hooks.example.com/", "file:///etc/passwd", "javascript:alert(1)", "ws://hooks.example.com/"])(
    "the scheme of %s is refused even with http allowed",
    (url) => {
      expect(webhookUrlProblem(url, true)).toMatch(/scheme is not allowed; webhook URLs must use https/);
    },
  );

  test.each(["", "hooks.example.com/x", "https://", "not a url", "https://exa mple.com/"])("%p is not a URL", (url) => {
    expect(webhookUrlProblem(url, true)).toStartWith("not a valid URL");
  });

  test.each(["https://user:pass@hooks.example.com/", "https://user@hooks.example.com/", "https://:pass@hooks.example.com/"])(
    "credentials in %s are refused",
    (url) => {
      expect(webhookUrlProblem(url, false)).toContain("credentials");
    },
  );

  test.each(["https://hooks.example.com/#token=abc", "https://hooks.example.com/#"])("the fragment in %s is refused", (url) => {
    expect(webhookUrlProblem(url, false)).toContain("fragment");
  });
});

describe("webhookAddressPolicy", () => {
  test("by default only public addresses are allowed", () => {
    const policy = webhookAddressPolicy(configSchema.parse({}).webhooks);
    expect(policy).toEqual({ allowPrivateNetworks: false, allowedCidrs: [] });
    expect(isAddressAllowed("93.184.216.34", policy)).toBe(true);
    for (const ip of ["127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "::ffff:192.168.1.1", "fd00::1"]) {
      expect(isAddressAllowed(ip, policy)).toBe(false);
    }
  });

  test("allow_private_targets allows them all", () => {
    const policy = webhookAddressPolicy({ allow_private_targets: true });
    expect(isAddressAllowed("127.0.0.1", policy)).toBe(true);
    expect(isAddressAllowed("10.1.2.3", policy)).toBe(true);
  });

  test("the crawler's settings do not leak into webhooks", () => {
    const config = configSchema.parse({ crawler: { allow_private_networks: true, allowed_cidrs: ["10.0.0.0/8"] } });
    expect(isAddressAllowed("10.1.2.3", webhookAddressPolicy(config.webhooks))).toBe(false);
  });
});
