import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { WEBHOOK_EVENTS, TEST_EVENT } from "../../src/webhooks/events.ts";

// docs/webhooks.md tells receivers to copy verifyWebhookSignature: what they copy must be what we test.

const root = join(import.meta.dir, "..", "..");
const doc = readFileSync(join(root, "docs", "webhooks.md"), "utf8");

describe("docs/webhooks.md", () => {
  test("shows src/webhooks/verify.ts verbatim, from its imports to the end", () => {
    const source = readFileSync(join(root, "src", "webhooks", "verify.ts"), "utf8");
    const code = source.slice(source.indexOf("import ")).trimEnd();
    expect(doc).toContain(`\`\`\`ts\n${code}\n\`\`\``);
  });

  test("names every event kind", () => {
    for (const event of [...WEBHOOK_EVENTS, TEST_EVENT]) expect(doc).toContain(`\`${event}\``);
  });
});
