import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { DashboardClient, signedInClient, type Page } from "./dashboard-client.ts";
import { SignInBackoff } from "../../src/ui/sign-in-backoff.ts";

/**
 * Sign-in guessing and the dashboard's rate limit, over a real socket. Guesses at the sign-in form back off per
 * address and per key prefix, answered by the sign-in page with the dashboard's headers; a user already signed
 * in from the same address is limited per key and keeps working (the red team's 1,500 guesses once cost such a
 * user 429 on every page and progress poll); a dashboard 429 is a dashboard page, with its headers and
 * Retry-After.
 */

const LIMIT = 20;

function expectDashboardHeaders(page: Page, what: string): void {
  expect(page.headers.get("content-type"), what).toStartWith("text/html");
  expect(page.headers.get("content-security-policy"), what).toContain("frame-ancestors 'none'");
  expect(page.headers.get("x-frame-options"), what).toBe("DENY");
  expect(page.headers.get("cache-control"), what).toBe("no-store");
  expect(Number(page.headers.get("retry-after")), what).toBeGreaterThanOrEqual(1);
}

/** Sends `count` sign-ins with `keyOf(i)` (and extra headers), each with the form token of the previous answer. */
async function guesses(
  client: DashboardClient,
  count: number,
  keyOf: (i: number) => string,
  headers: (i: number) => Record<string, string> = () => ({}),
): Promise<Page[]> {
  let page = await client.get("/ui/sign-in");
  const answers: Page[] = [];
  for (let i = 0; i < count; i++) {
    const token = /name="_token" value="([^"]+)"/.exec(page.html)?.[1] ?? "";
    page = await client.post("/ui/sign-in", { _token: token, key: keyOf(i), _csrf: null }, headers(i));
    answers.push(page);
  }
  return answers;
}

const wrongKey = (i: number) => `lp_${String(i).padStart(8, "0")}${"x".repeat(32)}`;

describe("a burst of wrong keys at sign-in", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ auth: { rate_limit: LIMIT } });
  });
  afterAll(() => svc.stop());

  test("backs off (429 pages with the dashboard's headers) while a user signed in from the same address keeps working", async () => {
    const user = await signedInClient(svc);
    const guesser = new DashboardClient(svc.origin);
    const answers = await guesses(guesser, 2 * LIMIT, wrongKey);
    const statuses = answers.map((page) => page.status);
    expect(statuses.slice(0, 7)).toEqual([401, 401, 401, 401, 401, 401, 429]);
    // Checked again only when a wait (1 s, then 2, 4…) is over: a few at most on a slow machine.
    expect(statuses.slice(7).filter((status) => status === 401).length).toBeLessThanOrEqual(3);
    expect(statuses.slice(7).filter((status) => status === 429).length).toBeGreaterThanOrEqual(2 * LIMIT - 10);
    const refused = answers.find((page) => page.status === 429)!;
    expectDashboardHeaders(refused, "sign-in 429");
    expect(refused.html).toContain("Too many failed sign-ins");
    expect(refused.html).toContain('name="_token"');

    // The signed-in user on the same address: pages and the progress endpoint, more requests than the guesser
    // spent before its first 429 and than the old shared per-address bucket had left.
    for (let i = 0; i < LIMIT / 2; i++) {
      const page = await user.get(i % 2 === 0 ? "/" : "/ui/webhooks");
      expect(page.status, `request ${i}`).toBe(200);
    }
  });

  test("the same address is heard again once the wait is over", async () => {
    const client = new DashboardClient(svc.origin);
    let refused: Page | undefined;
    for (let i = 0; i < 5 && refused === undefined; i++) refused = (await guesses(client, 2, wrongKey)).find((page) => page.status === 429);
    expect(refused?.status).toBe(429);
    await Bun.sleep(Number(refused!.headers.get("retry-after")) * 1000 + 100);
    expect((await client.signIn(svc.adminKey)).status).toBe(303);
  }, 90_000);
});

describe("the dashboard's own rate limit", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ auth: { rate_limit: LIMIT } });
  });
  afterAll(() => svc.stop());

  test("a signed-in user past the limit gets a dashboard page with its headers and Retry-After, pages and polls alike", async () => {
    const user = await signedInClient(svc);
    let refused: Page | null = null;
    for (let i = 0; i < 2 * LIMIT && refused === null; i++) {
      const page = await user.get("/");
      if (page.status === 429) refused = page;
      else expect(page.status).toBe(200);
    }
    expect(refused).not.toBeNull();
    expectDashboardHeaders(refused!, "page 429");
    expect(refused!.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused!.html).toContain("Too many requests");
    const poll = await user.get("/ui/crawls/00000000-0000-7000-8000-000000000000/progress.json");
    expect(poll.status).toBe(429);
    expectDashboardHeaders(poll, "progress 429");
    // The key's API budget is its own.
    expect((await svc.call("GET", "/domains")).status).toBe(200);
  });
});

describe("the sign-in backoff per key prefix, behind a trusted proxy", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ server: { trusted_proxies: ["127.0.0.1"] } });
  });
  afterAll(() => svc.stop());

  test("guesses at one key's prefix from many addresses back off; other addresses and prefixes do not", async () => {
    const target = svc.adminKey.slice(0, 11);
    const client = new DashboardClient(svc.origin);
    const atPrefix = await guesses(
      client,
      8,
      (i) => `${target}${String(i).padStart(32, "z")}`,
      (i) => ({ "x-forwarded-for": `198.51.100.${i + 1}` }),
    );
    expect(atPrefix.map((page) => page.status)).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
    // The key itself waits too: the attack is on it.
    const owner = await guesses(
      client,
      1,
      () => svc.adminKey,
      () => ({ "x-forwarded-for": "198.51.100.200" }),
    );
    expect(owner[0]!.status).toBe(429);
    // Another prefix from a fresh address is heard.
    const other = await guesses(
      client,
      1,
      () => `lp_${"q".repeat(40)}`,
      () => ({ "x-forwarded-for": "198.51.100.201" }),
    );
    expect(other[0]!.status).toBe(401);
  });
});

describe("SignInBackoff", () => {
  test("waits double past the free failures, up to a minute, and forgets after a quiet spell", async () => {
    let now = 0;
    const backoff = new SignInBackoff(undefined, () => now);
    const waits: number[] = [];
    for (let i = 0; i < 14; i++) {
      await backoff.failed("192.0.2.1", "");
      waits.push(await backoff.addressWait("192.0.2.1"));
    }
    expect(waits).toEqual([0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60, 60]);
    now += 16 * 60_000;
    await backoff.failed("192.0.2.1", "");
    expect(await backoff.addressWait("192.0.2.1")).toBe(0);
  });

  test("memory is bounded whatever number of addresses and prefixes fail", async () => {
    const backoff = new SignInBackoff({ freeFailures: 5, firstDelayMs: 1_000, maxDelayMs: 60_000, forgetAfterMs: 900_000, maxEntries: 100 }, () => 0);
    for (let i = 0; i < 5_000; i++) await backoff.failed(`10.0.${i >> 8}.${i & 255}`, wrongKey(i));
    expect(backoff.sizes).toEqual({ addresses: 100, prefixes: 100 });
  });
});
