import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startLoopbackSite, type LoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * The README's "Using the API" block, run as written with bash, curl and jq against a live service: every id it
 * uses is read from an answer first. Only the addresses change (the service, the site, the webhook receiver,
 * all on 127.0.0.1). Needs curl and jq (`.ci/run` installs them; outside CI the test skips without them).
 */

const README = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
const tools = ["bash", "curl", "jq"].every((tool) => Bun.which(tool) !== null);
if (!tools && process.env.CI !== "true") console.warn("README API test skipped: needs bash, curl and jq (apt-get install curl jq)");

/** The shell block under "## Using the API". */
function apiBlock(): string {
  const section = README.slice(README.indexOf("## Using the API"));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error("no sh block under ## Using the API");
  return block[1]!;
}

describe("the README's API examples", () => {
  test("every variable they use is set before its first use", () => {
    const lines = apiBlock().split("\n");
    const set = new Set(["LP", "KEY"]);
    for (const line of lines) {
      const code = line.replace(/\s#\s.*$/, "");
      for (const [, name] of code.matchAll(/\$([A-Z_]+)\b/g)) expect(set.has(name!), `${name} used before it is set in: ${line}`).toBe(true);
      for (const [, name] of code.matchAll(/(?:^|\s|export\s+)([A-Z_]+)=/g)) set.add(name!);
    }
    expect([...set]).toEqual(expect.arrayContaining(["DOMAIN_ID", "CRAWL_ID", "WEBHOOK_ID"]));
  });

  describe.skipIf(!tools && process.env.CI !== "true")("run with bash, curl and jq", () => {
    let svc: TestService;
    let site: LoopbackSite;
    let receiver: LoopbackSite;

    beforeAll(async () => {
      svc = await startTestService({ webhooks: { allow_http: true, allow_private_targets: true } });
      receiver = await startLoopbackSite({ "/linkpatrol": { status: 204 } });
      site = await startLoopbackSite({
        "/manual/": { body: `<a href="/manual/a.html">a</a> <a href="/archive/old.html">old</a> <img src="/legacy.pdf">` },
        "/manual/a.html": { body: `<a href="/manual/">home</a>` },
        // The token of whichever domain is registered for this host: the example publishes the HTTP file.
        "/.well-known/linkpatrol-verify.txt": async () => new Response((await svc.runtime.domains.findByName(site.host))?.verification_token ?? "none"),
      });
    });
    afterAll(async () => {
      await svc?.stop();
      await site?.stop();
      await receiver?.stop();
    });

    test("they run as written, in order, and end with the domain deleted", async () => {
      const escaped = site.origin.replaceAll(".", "\\\\.");
      const script = apiBlock()
        .replace("export LP=http://localhost:8080/v1", `export LP=${svc.base}`)
        .replace("export KEY=lp_...", `export KEY=${svc.adminKey}`)
        .replace("localhost:8080/healthz", `${svc.origin}/healthz`)
        .replaceAll("https://docs\\\\.example\\\\.com", escaped)
        .replaceAll("https://docs.example.com", site.origin)
        .replaceAll("docs.example.com", site.host)
        .replaceAll("https://hooks.example.com/linkpatrol", receiver.url("/linkpatrol"));
      const proc = Bun.spawn({
        cmd: ["bash", "-euo", "pipefail", "-c", `${script}\necho "ids: $DOMAIN_ID $CRAWL_ID $WEBHOOK_ID"`],
        stdout: "pipe",
        stderr: "pipe",
        timeout: 60_000,
      });
      const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      expect(exitCode, stderr).toBe(0);
      const ids = /ids: ([0-9a-f-]{36}) ([0-9a-f-]{36}) ([0-9a-f-]{36})/.exec(stdout);
      expect(ids, stdout).not.toBeNull();
      // Verified by the file, crawled with the rules the PATCH set, test webhook delivered, then the domain deleted.
      expect(stdout).toContain('"verified":true');
      expect(stdout).toContain('"delivered":true');
      expect(site.requests.some((line) => line.includes("/archive/"))).toBe(false);
      expect(await svc.runtime.domains.findByName(site.host)).toBeUndefined();
      expect(receiver.requests.length).toBeGreaterThan(0);
    }, 90_000);
  });
});
