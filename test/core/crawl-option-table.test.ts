import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CRAWL_OPTION_ROWS, CRAWL_OPTION_TABLE, OPTION_OF_KIND } from "../../src/core/crawl-option-table.ts";
import { CrawlOptionsSchema } from "../../src/core/crawl-options.ts";
import { LINK_KINDS } from "../../src/core/link-kind.ts";
import { describeOptions } from "../../src/core/options-summary.ts";
import { withDefaultOptions } from "../../src/core/stored-options.ts";
import { runCli } from "../helpers/cli.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";

/**
 * The option table is the one list of crawl options: the API schema, the stored defaults, the crawl's kind gate,
 * the words for a crawl's options and `check`'s flags all follow it. These tests hold each of those to the table,
 * so a row added there is a row everywhere, and a place that kept its own list fails here.
 */

const names = CRAWL_OPTION_ROWS.map(([name]) => name);

describe("derived in process", () => {
  test("the API schema has exactly the table's options, each off unless asked for", () => {
    expect(Object.keys(CrawlOptionsSchema.shape)).toEqual(names);
    expect(CrawlOptionsSchema.parse({})).toEqual(Object.fromEntries(names.map((name) => [name, false])) as never);
    for (const name of names) expect(CrawlOptionsSchema.parse({ [name]: true })[name]).toBe(true);
  });

  test("options stored before an option existed read it as off, the same as the schema's default", () => {
    expect(withDefaultOptions({})).toEqual(CrawlOptionsSchema.parse({}));
  });

  test("every stored link kind but anchors is let through by exactly one option, the one whose row names it", () => {
    expect(OPTION_OF_KIND.anchor).toBeNull();
    for (const kind of LINK_KINDS.filter((kind) => kind !== "anchor")) {
      const option = OPTION_OF_KIND[kind];
      expect(option).not.toBeNull();
      expect(CRAWL_OPTION_TABLE[option!].kind).toBe(kind);
      expect(CRAWL_OPTION_ROWS.filter(([, row]) => row.kind === kind)).toHaveLength(1);
    }
  });

  test("each option with words of its own shows in the summary of a crawl that ran with it, and only then", () => {
    const off = CrawlOptionsSchema.parse({});
    for (const [name, row] of CRAWL_OPTION_ROWS) {
      if (row.summary === null) continue;
      const words = "kind" in row.summary ? row.summary.kind : row.summary.extra;
      expect(describeOptions({ ...off, [name]: true })).toContain(words);
      expect(describeOptions(off)).not.toContain(words);
    }
  });

  test("flags and labels are distinct", () => {
    expect(new Set(CRAWL_OPTION_ROWS.map(([, row]) => row.flag)).size).toBe(names.length);
    expect(new Set(CRAWL_OPTION_ROWS.map(([, row]) => row.label)).size).toBe(names.length);
  });
});

describe("linkpatrol check", () => {
  let site: LoopbackSite;
  beforeAll(async () => {
    site = await startLoopbackSite({ "/": { body: `<a href="/a">A</a>` }, "/a": { body: "a" } });
  });
  afterAll(async () => {
    await site?.stop();
  });
  const optionsOf = async (...flags: string[]) => {
    const run = await runCli(["check", site.url("/"), "--allow-private", "--format", "json", ...flags], { timeoutMs: 30_000 });
    expect(run.exitCode).toBe(0);
    return JSON.parse(run.stdout).options as Record<string, boolean>;
  };

  test("each row's flag turns on its option and no other; --all the rows marked for it", async () => {
    for (const [name, row] of CRAWL_OPTION_ROWS) {
      const options = await optionsOf(`--${row.flag}`);
      expect(Object.entries(options).filter(([, on]) => on)).toEqual([[name, true]]);
    }
    const all = await optionsOf("--all");
    expect(
      Object.entries(all)
        .filter(([, on]) => on)
        .map(([name]) => name),
    ).toEqual(CRAWL_OPTION_ROWS.filter(([, row]) => row.inAll).map(([name]) => name));
  }, 60_000); // nine check runs of a two-page site

  test("the help lists every row's flag", async () => {
    const help = await runCli(["check", "--help"], { timeoutMs: 10_000 });
    for (const [, row] of CRAWL_OPTION_ROWS) expect(help.stdout).toContain(`--${row.flag} `);
  }, 10_000);
});
