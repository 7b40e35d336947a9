import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { fingerprintPage, urlNeedles } from "../../src/crawler/page-fingerprint.ts";
import { ParserClient, startParserThread } from "../../src/crawler/page-parser.ts";
import { readPageHere, type PageReader, type PageReadRequest, type PageReadResult } from "../../src/crawler/page-reading.ts";

/**
 * Pages read on the parser thread (page-parser.ts) give exactly what reading them in the calling thread gives:
 * the same links in the same order, the same ids, the same soft-404 verdict, whatever the page's size, encoding
 * and chunking. A real parser thread over a real message port, compared with the in-thread reader; and when the
 * thread dies, the pages waiting for it fail and later ones are read in the calling thread.
 */

const SITE = "http://127.0.0.1:8080";

function request(path: string, options: PageReadRequest["options"], extra: Partial<PageReadRequest> = {}): PageReadRequest {
  return { finalUrl: `${SITE}${path}`, contentType: "text/html; charset=utf-8", options, notFound: null, ...extra };
}

/** Feeds `bytes` to a reader in `chunkSize` pieces (each its own buffer, as a body's chunks are) and finishes it. */
function read(reader: PageReader, bytes: Uint8Array, chunkSize: number, cut = false): Promise<PageReadResult> {
  for (let at = 0; at < bytes.length; at += chunkSize) reader.consumer(bytes.slice(at, at + chunkSize));
  return reader.finish(cut);
}

const encoder = new TextEncoder();

/** A page with every kind of link, text with entities, ids, a base and a template: what the extractor cares about. */
function samplePage(n: number): string {
  const links = Array.from({ length: 40 }, (_, i) => {
    const forms = [`p${n}-${i}.html`, `./d/${i}/`, `../up/${i}`, `/abs/${i}?q=${i}&amp;r=1`, `${SITE}/full/${i}#frag-${i}`, `#local-${i}`];
    return `<p id="para-${i}">Text &amp; more <a href="${forms[i % forms.length]}">link ${i} &eacute;</a> <img src="img/${i}.png" alt="alt ${i}"></p>`;
  }).join("\n");
  return `<!doctype html><html><head><title>Page ${n}</title><link rel="stylesheet" href="/s.css"><script src="/a.js"></script>
<style>body { background: url("bg.png") }</style></head><body><a name="top"></a>
<template><a href="/inert">inert</a></template>${links}<a href="mailto:x@example.com">mail</a><a href="http://[bad">bad</a></body></html>`;
}

/** A page of several MB: many messages to the parser before its last. */
function bigPage(): string {
  const rows = Array.from({ length: 30_000 }, (_, i) => `<tr id="r${i}"><td><a href="/row/${i}">row ${i}</a></td><td>${"x".repeat(40)}</td></tr>`);
  return `<!doctype html><title>Big</title><table>${rows.join("\n")}</table>`;
}

/** Where python3-doc puts its HTML, or null when it is not installed (that part of the test then says so). */
function pythonDocDir(): string | null {
  const candidates = ["/usr/share/doc/python3/html", "/usr/share/doc/python3-doc/html"];
  for (const dir of candidates) if (existsSync(join(dir, "genindex-all.html"))) return realpathSync(dir);
  return null;
}

let port1: MessagePort;
let worker: Worker;
let client: ParserClient;

beforeAll(async () => {
  const channel = new MessageChannel();
  port1 = channel.port1;
  worker = startParserThread(channel.port2);
  client = new ParserClient(port1);
  // Bounded: a parser thread answers within milliseconds; 10 s means it never started.
  await Promise.race([client.started, Bun.sleep(10_000).then(() => Promise.reject(new Error("the parser thread did not start")))]);
});
afterAll(() => {
  worker?.terminate();
});

describe("the parser thread reads a page as the calling thread does", () => {
  const options = [
    { name: "links only", options: { maxLinks: 10_000 } },
    { name: "ids and CSS too", options: { maxLinks: 10_000, collectIds: true, scanCss: true } },
    { name: "a cap on links", options: { maxLinks: 7 } },
  ];
  for (const { name, options: readOptions } of options) {
    test(`sample pages, ${name}, in one chunk and in small ones`, async () => {
      for (let n = 0; n < 20; n++) {
        const bytes = encoder.encode(samplePage(n));
        const here = await read(readPageHere(request(`/dir/page${n}.html`, readOptions)), bytes, bytes.length);
        const there = await read(client.reader(request(`/dir/page${n}.html`, readOptions)), bytes, n % 2 === 0 ? bytes.length : 97);
        expect(there).toEqual(here);
        expect(here.links.length).toBeGreaterThan(readOptions.maxLinks === 7 ? 6 : 40);
      }
    });
  }

  test("a page of several MB, sent in parts, cut or not", async () => {
    const bytes = encoder.encode(bigPage());
    expect(bytes.length).toBeGreaterThan(2 * 1024 * 1024);
    for (const cut of [false, true]) {
      const options = { maxLinks: 50_000, collectIds: true };
      const here = await read(readPageHere(request("/big.html", options)), bytes, 64 * 1024, cut);
      const there = await read(client.reader(request("/big.html", options)), bytes, 64 * 1024, cut);
      expect(there).toEqual(here);
      expect(there.links.length).toBe(30_000);
      expect(there.ids!.complete).toBe(false);
    }
  });

  test("a page in its own encoding (windows-1252 from its meta tag)", async () => {
    const html = `<meta charset="windows-1252"><title>caf\xe9</title><a href="/caf\xe9">caf\xe9 \x93quoted\x94</a>`;
    const bytes = Uint8Array.from(html, (char) => char.charCodeAt(0));
    const req = { ...request("/latin.html", { maxLinks: 100 }), contentType: "text/html" };
    const here = await read(readPageHere(req), bytes, 5);
    const there = await read(client.reader(req), bytes, 5);
    expect(there).toEqual(here);
    expect(there.links[0]!.text).toBe("café “quoted”");
  });

  test("the soft-404 comparison: the not-found page is told apart from a real one", async () => {
    const notFoundHtml = (path: string) =>
      `<html><title>Not here</title><body><h1>Sorry</h1><p>The page ${path} could not be found on this site, please try the search box or go back to the start page of the documentation.</p></body></html>`;
    const notFound = fingerprintPage(notFoundHtml("/probe-123"), urlNeedles(`${SITE}/probe-123`));
    for (const [path, html, expected] of [
      ["/gone.html", notFoundHtml("/gone.html"), true],
      ["/real.html", samplePage(1), false],
    ] as const) {
      const req = request(path, { maxLinks: 100 }, { notFound: { notFound, needles: urlNeedles(`${SITE}${path}`) } });
      const here = await read(readPageHere(req), encoder.encode(html), 64);
      const there = await read(client.reader(req), encoder.encode(html), 64);
      expect(there).toEqual(here);
      expect(there.notFound).toBe(expected);
    }
  });

  const docDir = pythonDocDir();
  if (docDir === null) console.warn("page-parser.test.ts: the python3-doc part is SKIPPED: install python3-doc for real pages");
  test.skipIf(docDir === null)(
    "every page of python3-doc's library reference and its indexes",
    async () => {
      const files = [
        ...readdirSync(join(docDir!, "library"))
          .filter((file) => file.endsWith(".html"))
          .map((file) => `library/${file}`),
        ...readdirSync(docDir!).filter((file) => file.startsWith("genindex")),
      ];
      expect(files.length).toBeGreaterThan(200);
      let links = 0;
      const pending: Promise<void>[] = [];
      for (const file of files) {
        const path = join(docDir!, file);
        if (!statSync(path).isFile()) continue;
        const bytes = new Uint8Array(readFileSync(path));
        const options = { maxLinks: 10_000, collectIds: true, scanCss: true };
        const here = await read(readPageHere(request(`/${file}`, options)), bytes, 16 * 1024);
        links += here.links.length;
        // Many pages out at once, as a crawl has them.
        pending.push(read(client.reader(request(`/${file}`, options)), bytes, 16 * 1024).then((there) => expect(there).toEqual(here)));
      }
      await Promise.all(pending);
      expect(links).toBeGreaterThan(50_000);
    },
    // Reads ~300 real pages twice, some of them 1-2 MB of index.
    60_000,
  );
});

test("a dropped page leaves the parser ready for the next", async () => {
  const bytes = encoder.encode(bigPage());
  const dropped = client.reader(request("/dropped.html", { maxLinks: 100 }));
  for (let at = 0; at < bytes.length / 2; at += 64 * 1024) dropped.consumer(bytes.slice(at, at + 64 * 1024));
  dropped.discard();
  const page = encoder.encode(samplePage(3));
  expect(await read(client.reader(request("/next.html", { maxLinks: 100 })), page, 100)).toEqual(
    await read(readPageHere(request("/next.html", { maxLinks: 100 })), page, 100),
  );
});

test("when the parser thread dies, the pages waiting for it fail and later ones are read in the calling thread", async () => {
  const channel = new MessageChannel();
  const doomed = startParserThread(channel.port2);
  const own = new ParserClient(channel.port1);
  await Promise.race([own.started, Bun.sleep(10_000)]);
  doomed.addEventListener("close", () => own.died("the thread exited"));
  const bytes = encoder.encode(bigPage());
  const waiting = read(own.reader(request("/big.html", { maxLinks: 50_000 })), bytes, 256 * 1024);
  doomed.terminate();
  await expect(waiting).rejects.toThrow("the page parser thread stopped");
  const page = encoder.encode(samplePage(5));
  const after = await read(own.reader(request("/after.html", { maxLinks: 100 })), page, page.length);
  expect(after).toEqual(await read(readPageHere(request("/after.html", { maxLinks: 100 })), page, page.length));
});
