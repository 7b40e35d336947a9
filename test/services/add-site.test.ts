import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConflictError, InvalidRequestError, UnsafeUrlError } from "../../src/core/errors.ts";
import { DomainsService } from "../../src/services/domains.service.ts";
import { readSiteInput } from "../../src/services/site-input.ts";
import { DomainsRepo } from "../../src/store/domains.repo.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openStore, type Store } from "../../src/store/sqlite.ts";
import type { Reach } from "../../src/verification/verifier.ts";
import { tableResolver } from "../helpers/table-resolver.ts";

/**
 * What a typed site becomes (services/site-input.ts and DomainsService.addSite): a URL keeps its scheme, port and
 * path; a host tries https first, takes http only when https gets no answer and http does, and says which. The
 * answers of the probe are scripted here (the real probe is tested over sockets in test/ui/site-pages.test.ts).
 */

let store: Store;
/** URL → what the probe answers; anything else gets no answer. */
let answers: Record<string, Reach> = {};
const asked: string[] = [];
let service: DomainsService;

beforeAll(() => {
  store = openStore(":memory:");
  migrate(store.sqlite);
  service = new DomainsService({
    repo: new DomainsRepo(store.db),
    verifier: {
      verify: async () => [],
      reach: async (url) => {
        asked.push(url);
        return answers[url] ?? { answered: false, error: "refused", reason: "connection refused" };
      },
    },
    policy: { allowPrivateNetworks: true, allowedCidrs: [] },
    resolve: tableResolver({ "docs.example": ["192.0.2.10"], "plain.example": ["192.0.2.11"], "down.example": ["192.0.2.12"] }),
  });
});
afterAll(() => store.close());

describe("readSiteInput", () => {
  test.each([
    ["http://127.0.0.1:8080/docs/index.html", { kind: "url", name: "127.0.0.1:8080", rootUrl: "http://127.0.0.1:8080/docs/index.html" }],
    ["  HTTPS://Docs.Example.COM/a/b?x=1#top ", { kind: "url", name: "docs.example.com", rootUrl: "https://docs.example.com/a/b?x=1" }],
    ["https://docs.example.com:443/", { kind: "url", name: "docs.example.com", rootUrl: "https://docs.example.com/" }],
    ["docs.example.com", { kind: "host", name: "docs.example.com", path: "/" }],
    ["intranet.lan:8443/wiki/", { kind: "host", name: "intranet.lan:8443", path: "/wiki/" }],
  ])("%s", (typed, expected) => {
    expect(readSiteInput(typed)).toEqual(expected as never);
  });

  test("another scheme is unsafe_url; credentials and nonsense are invalid, naming the field", () => {
    expect(() => readSiteInput("ftp://files.example/")).toThrow(UnsafeUrlError);
    for (const typed of ["https://user:pw@docs.example/", "not a host!", "", "http://"]) {
      expect(() => readSiteInput(typed), typed).toThrow(InvalidRequestError);
    }
  });
});

describe("DomainsService.addSite", () => {
  test("a URL is taken as typed, without asking the site anything", async () => {
    asked.length = 0;
    const { domain, choice } = await service.addSite("http://docs.example:8080/manual/", null);
    expect(domain).toMatchObject({ name: "docs.example:8080", root_url: "http://docs.example:8080/manual/" });
    expect(choice).toEqual({ kind: "as_typed" });
    expect(asked).toEqual([]);
  });

  test("a host whose https answers gets https", async () => {
    answers = { "https://docs.example/": { answered: true, status: 200 } };
    const { domain, choice } = await service.addSite("docs.example", null);
    expect(domain.root_url).toBe("https://docs.example/");
    expect(choice).toEqual({ kind: "https" });
  });

  test("a host whose https gets no answer but http does gets http, and says why", async () => {
    answers = { "http://plain.example/guide/": { answered: true, status: 404 } };
    asked.length = 0;
    const { domain, choice } = await service.addSite("plain.example/guide/", null);
    expect(domain).toMatchObject({ name: "plain.example", root_url: "http://plain.example/guide/" });
    expect(choice).toEqual({ kind: "http", httpsProblem: "connection refused" });
    expect(asked.sort()).toEqual(["http://plain.example/guide/", "https://plain.example/guide/"]);
  });

  test("a host that answers on neither scheme keeps https and says nothing answered", async () => {
    answers = {};
    const { domain, choice } = await service.addSite("down.example", null);
    expect(domain.root_url).toBe("https://down.example/");
    expect(choice).toEqual({ kind: "unreachable", problem: "connection refused" });
  });

  test("a name already registered is refused before any probe", async () => {
    asked.length = 0;
    await expect(service.addSite("plain.example", null)).rejects.toBeInstanceOf(ConflictError);
    expect(asked).toEqual([]);
  });
});
