import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createExtractor, readAttributes } from "../../src/crawler/extract.ts";
import { checkAttributeReads, HtmlScanner, ReadAttributes } from "../../src/crawler/html-scanner.ts";
import { attributesRead, CONTEXT_TAGS, LINK_TAGS } from "../../src/crawler/link-tags.ts";

/**
 * The scanner cuts out only the attributes it is told to, so a rule that reads another one would silently get
 * undefined. The contract: what the scanner is told comes from the tag table (and the walk's few extras, named in
 * extract.ts's readAttributes), and the walk reads nothing else — checked here with `checkAttributeReads`, through
 * the Wasm reader and the JS scanner,
 * over every row of the table, every option combination, real pages and generated tag soup.
 */

const OPTIONS = [
  { collectIds: false, scanCss: false },
  { collectIds: true, scanCss: false },
  { collectIds: false, scanCss: true },
  { collectIds: true, scanCss: true },
];

/** The attributes the scanner hands for the first `<tag>` of `html`, when told what `read` says. */
function handed(html: string, tag: string, read: ReadAttributes): Record<string, string> {
  let first: Record<string, string> | null = null;
  const scanner = new HtmlScanner(() => false, read, {
    onopentag: (name, attribs) => {
      if (name === tag) first ??= { ...attribs };
    },
    ontext: () => {},
    onclosetag: () => {},
  });
  scanner.write(html);
  scanner.end();
  return first ?? {};
}

/** Runs the extractor with reads checked; throws if the walk reads an attribute the scanner does not hand. */
function extractChecked(html: string, options: { collectIds: boolean; scanCss: boolean }, chunk = html.length || 1): number {
  const extractor = createExtractor("http://site.test/dir/page.html", { ...options, checkAttributeReads: true });
  for (let at = 0; at < html.length; at += chunk) extractor.write(html.slice(at, at + chunk));
  return extractor.end().length;
}

describe("every attribute a row of the tag table names is handed to the extractor", () => {
  for (const [tag, rows] of LINK_TAGS) {
    test(`<${tag}>`, () => {
      const names = [...attributesRead(rows)];
      const open = `<${tag} ${names.map((name, i) => `${name}="v${i}"`).join(" ")}>`;
      // SVG's own elements (`<image>` outside SVG is another tag) are read inside `<svg>`.
      const html = `${open}<svg>${open}</svg>`;
      for (const options of OPTIONS) {
        expect(handed(html, tag, readAttributes(options.collectIds, options.scanCss))).toMatchObject(
          Object.fromEntries(names.map((name, i) => [name, `v${i}`])),
        );
      }
    });
  }

  test("a row naming an attribute the scanner is not told of would read undefined: the check says so", () => {
    const told = new ReadAttributes(new Map([["img", new Set(["src"])]]), new Set());
    const scanner = new HtmlScanner(
      () => false,
      told,
      checkAttributeReads(
        {
          onopentag: (_name, attribs) => void attribs["data-src"],
          ontext: () => {},
          onclosetag: () => {},
        },
        told,
      ),
    );
    expect(() => scanner.write(`<img src="/a.png" data-src="/b.png">`)).toThrow(
      'the attribute "data-src" of <img> is read, but the scanner is not told to hand it',
    );
  });
});

describe("the extractor reads only what it tells the scanner to hand", () => {
  test("each row of the table, inside each context, with every option", () => {
    let links = 0;
    for (const [tag, rows] of LINK_TAGS) {
      for (const row of rows) {
        const attributes = row.attributes.flatMap((attribute) => attribute.names.map((name) => `${name}="/x-${name}.html"`));
        const conditions = (row.when ?? []).map((condition) => `${condition.attribute}="${condition.values[0] ?? ""}"`);
        const open = `<${tag} ${[...attributes, ...conditions].join(" ")} alt="alt text">text</${tag}>`;
        for (const context of [null, ...CONTEXT_TAGS]) {
          const html = `<base href="/base/"><a name="top" id="t">${context === null ? open : `<${context}>${open}</${context}>`}</a><style type="text/css">a{background:url(/bg.png)}</style><p style="background:url(/p.png)">`;
          for (const options of OPTIONS) links += extractChecked(html, options);
        }
      }
    }
    expect(links).toBeGreaterThan(LINK_TAGS.size);
  });

  test("generated tag soup from the table's vocabulary, in small chunks", () => {
    let seed = 20261128;
    const random = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const tags = [...LINK_TAGS.keys(), ...CONTEXT_TAGS, "base", "style", "div", "svg", "template", "script"];
    const names = [...new Set([...[...LINK_TAGS.values()].flatMap((rows) => [...attributesRead(rows)]), "id", "name", "style", "type", "alt", "data-x"])];
    for (let doc = 0; doc < 400; doc++) {
      let html = "";
      for (let k = 1 + Math.floor(random() * 30); k > 0; k--) {
        const tag = pick(tags);
        const attributes = Array.from(
          { length: Math.floor(random() * 4) },
          () => `${pick(names)}="${pick(["/a", "x", "", "stylesheet", "get", "url(/c.png)"])}"`,
        );
        html += random() < 0.7 ? `<${tag} ${attributes.join(" ")}>${pick(["t", "", "&amp;"])}` : `</${tag}>`;
      }
      for (const options of OPTIONS) extractChecked(html, options, 1 + Math.floor(random() * 9));
    }
  });

  const docs = ["/usr/share/doc/python3-doc/html", "/usr/share/doc/python3/html"].find((dir) => existsSync(join(dir, "index.html")));
  const skip = docs === undefined && process.env.CI !== "true";
  test.skipIf(skip)(
    `real pages (python3-doc)${skip ? " SKIPPED: apt-get install python3-doc" : ""}`,
    () => {
      if (docs === undefined) throw new Error("python3-doc is not installed (CI installs it in .ci/run)");
      const pages = ["index.html", "contents.html", "library/os.html", "library/stdtypes.html", "tutorial/classes.html"];
      for (const entry of readdirSync(join(docs, "library"))
        .filter((name) => name.endsWith(".html"))
        .slice(0, 40))
        pages.push(join("library", entry));
      let links = 0;
      for (const page of pages) {
        const html = readFileSync(join(docs, page), "latin1");
        for (const options of OPTIONS) links += extractChecked(html, options, 4096);
      }
      expect(links).toBeGreaterThan(1000);
    },
    30_000,
  );
});
