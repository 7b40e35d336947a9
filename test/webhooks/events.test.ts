import { describe, expect, test } from "bun:test";
import { isWebhookEvent, TEST_EVENT, WEBHOOK_EVENTS } from "../../src/webhooks/events.ts";

describe("webhook events", () => {
  test("the four subscribable kinds of spec part 6", () => {
    expect([...WEBHOOK_EVENTS]).toEqual(["crawl.started", "crawl.completed", "crawl.failed", "broken_links.found"]);
  });

  test("webhook.test is sendable but not subscribable", () => {
    expect(TEST_EVENT).toBe("webhook.test");
    expect(isWebhookEvent(TEST_EVENT)).toBe(false);
  });

  test.each(["crawl.started", "broken_links.found"])("%s is a kind", (kind) => {
    expect(isWebhookEvent(kind)).toBe(true);
  });

  test.each(["crawl.Started", "crawl.*", "", "crawl"])("%p is not a kind", (kind) => {
    expect(isWebhookEvent(kind)).toBe(false);
  });
});
