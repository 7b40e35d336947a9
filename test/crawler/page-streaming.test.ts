import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { checkTarget, type CheckContext } from "../../src/crawler/check-target.ts";
import { pageCutWarning } from "../../src/crawler/classify.ts";
import { decodeHtml, HtmlTextStream } from "../../src/crawler/decode.ts";
import { testFetchOptions } from "../helpers/fetch-options.ts";

/**
 * Pages are read as their bodies arrive: bytes → Content-Encoding decoder → text in the page's encoding → the
 * extractor, never held whole. Served here by a node:http server in small pieces with pauses between them, so
 * the crawler receives many chunks, characters split across them, and the encoding named only by a
 * `<meta charset>` that arrives in pieces too; the text must be exactly what a whole-body decode gives.
 */

const MAX_BODY = 64 * 1024;
const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part))));
/** ASCII filler that pushes what follows past the 1024-byte prescan. */
const FILLER = `<p>${"filler text ".repeat(100)}</p>\n`;

interface Route {
  body: Uint8Array;
  type: string;
  /** Bytes per write; the server pauses between writes. */
  piece: number;
  gzip?: boolean;
  /** Announce the length (Content-Length) instead of chunked encoding. */
  length?: boolean;
}

const SJIS_AI = [0x82, 0xa0, 0x82, 0xa2]; // "あい"
const routes: Record<string, Route> = {
  "/utf8": {
    type: "text/html; charset=utf-8",
    piece: 5,
    body: new TextEncoder().encode(`<!doctype html><title>t</title>${FILLER}<a href="/caf%C3%A9">café € 😀 ünïcødé</a>${FILLER}<a href="/end">end</a>`),
  },
  "/cp1252": {
    type: "text/html",
    piece: 7,
    body: bytes(
      '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"></head><body>',
      FILLER,
      '<a href="/x">caf',
      [0xe9],
      " ",
      [0x80],
      "</a>",
      FILLER,
      "</body></html>",
    ),
  },
  "/sjis": {
    type: "text/html",
    piece: 3,
    body: bytes(
      '<html><head><meta charset="shift_jis"><title>t</title></head><body>',
      FILLER,
      '<a href="/y">',
      SJIS_AI,
      "-",
      SJIS_AI,
      "</a>",
      FILLER,
      "</body></html>",
    ),
  },
  "/gzip": {
    type: "text/html; charset=utf-8",
    piece: 64,
    gzip: true,
    body: new TextEncoder().encode(`<title>g</title>${FILLER.repeat(20)}<a href="/zipped">zippé</a>${FILLER.repeat(20)}<a href="/after">after</a>`),
  },
  "/big-chunked": { type: "text/html", piece: 16 * 1024, body: bigPage() },
  "/big-length": { type: "text/html", piece: 16 * 1024, length: true, body: bigPage() },
  "/big-gzip": { type: "text/html", piece: 4 * 1024, gzip: true, body: bigPage() },
};

/** A page twice the body cap: one link before the cut, one after it. */
function bigPage(): Uint8Array {
  const pad = "x".repeat(MAX_BODY);
  return new TextEncoder().encode(`<a href="/before">before</a><p>${pad}</p><a href="/beyond">beyond</a><p>${pad}</p>`);
}

let server: http.Server;
let origin: string;

beforeAll(async () => {
  server = http.createServer(async (request, response) => {
    const route = routes[request.url ?? ""];
    if (route === undefined) {
      response.writeHead(404, { "content-type": "text/html" }).end("missing");
      return;
    }
    const body = route.gzip ? zlib.gzipSync(route.body) : route.body;
    const headers: Record<string, string> = { "content-type": route.type };
    if (route.gzip) headers["content-encoding"] = "gzip";
    if (route.length) headers["content-length"] = String(body.length);
    response.writeHead(200, headers);
    // Bounded: body.length / piece writes, each followed by a pause so the client reads them apart.
    for (let offset = 0; offset < body.length && !response.destroyed; offset += route.piece) {
      response.write(body.subarray(offset, offset + route.piece));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function context(): CheckContext {
  const { method: _m, maxRedirects: _r, ...fetch } = testFetchOptions({ maxBodyBytes: MAX_BODY, bodyTimeoutMs: 15_000 });
  return {
    fetch,
    maxLinksPerPage: 100,
    site: new URL(origin),
    acceptStatus: new Set(),
    retry: { maxRetries: 0, maxWaitMs: 0, baseDelayMs: 0 },
    signal: new AbortController().signal,
  };
}

async function readPage(path: string) {
  return checkTarget({ id: 1, url: `${origin}${path}`, internal: true, asPage: true, depth: 0 }, context());
}

describe("a page read as it arrives", () => {
  test("UTF-8 in 5-byte pieces: characters split across chunks come out whole", async () => {
    const checked = await readPage("/utf8");
    expect(checked.page?.links.map((link) => [link.url, link.text])).toEqual([
      [`${origin}/caf%C3%A9`, "café € 😀 ünïcødé"],
      [`${origin}/end`, "end"],
    ]);
    expect(checked.page?.cut).toBeNull();
    expect(checked.verdict.warning).toBeNull();
  }, 20_000);

  test("windows-1252 named by a <meta http-equiv> in the prescan, the page in 7-byte pieces", async () => {
    const checked = await readPage("/cp1252");
    expect(checked.page?.links.map((link) => link.text)).toEqual(["café €"]);
  }, 20_000);

  test("Shift_JIS named by <meta charset>, double-byte characters split across 3-byte pieces", async () => {
    const checked = await readPage("/sjis");
    expect(checked.page?.links.map((link) => link.text)).toEqual(["あい-あい"]);
  }, 20_000);

  test("a gzip page in small pieces is inflated as it streams", async () => {
    const checked = await readPage("/gzip");
    expect(checked.page?.links.map((link) => [link.url, link.text])).toEqual([
      [`${origin}/zipped`, "zippé"],
      [`${origin}/after`, "after"],
    ]);
  });

  test.each(["/big-chunked", "/big-length", "/big-gzip"])("%s: a page over max_body_bytes is cut there, with the page-cut warning", async (path) => {
    const checked = await readPage(path);
    expect(checked.page?.links.map((link) => link.url)).toEqual([`${origin}/before`]);
    expect(checked.page?.cut).toEqual({ limit: "max_body_bytes", value: MAX_BODY });
    expect(checked.verdict).toMatchObject({ status_code: 200, is_broken: false, warning: pageCutWarning({ limit: "max_body_bytes", value: MAX_BODY }) });
  });
});

describe("HtmlTextStream gives exactly decodeHtml's text, however the bytes are cut", () => {
  const samples: [string, string | undefined, Uint8Array][] = [
    ["UTF-8 with a BOM and a second BOM as text", "text/html", bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], "<p>", [0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80])],
    ["UTF-16LE by its BOM", "text/html; charset=utf-8", bytes([0xff, 0xfe, 0x3c, 0, 0x70, 0, 0x3d, 0xd8, 0x00, 0xde, 0xe9, 0])],
    ["UTF-16BE by its BOM", undefined, bytes([0xfe, 0xff, 0, 0x3c, 0xd8, 0x3d, 0xde, 0x00, 0, 0xe9])],
    ["windows-1252 by the Content-Type", "text/html; charset=windows-1252", bytes("<p>", [0x80, 0xe9, 0x9f], " x")],
    ["Shift_JIS by meta, past the prescan", "text/html", bytes('<meta charset="shift_jis">', FILLER, SJIS_AI, " ", SJIS_AI, SJIS_AI, [0x82])],
    ["EUC-JP by the Content-Type", "text/html; charset=euc-jp", bytes("<p>", [0xa4, 0xa2, 0xa4, 0xa4, 0x8f, 0xb0, 0xa1], " ", [0xa4, 0xa2])],
    [
      "GB18030 with four-byte sequences",
      "text/html; charset=gb18030",
      bytes("<p>", [0xd6, 0xd0, 0x81, 0x30, 0x81, 0x30, 0x81, 0x30, 0x86, 0x30], " ", [0xd6, 0xd0]),
    ],
    ["Big5", "text/html; charset=big5", bytes("<p>", [0xa4, 0x40, 0xa4, 0x41], "\n", [0xa4, 0x40])],
    ["EUC-KR", "text/html; charset=euc-kr", bytes("<p>", [0xb0, 0xa1, 0xb0, 0xa2], "/", [0xb0, 0xa1])],
    [
      "ISO-2022-JP, stateful, by lines",
      "text/html; charset=iso-2022-jp",
      bytes("<p>", [0x1b, 0x24, 0x42, 0x24, 0x22, 0x24, 0x24, 0x1b, 0x28, 0x42], "\nab\n", [0x1b, 0x24, 0x42, 0x24, 0x22, 0x1b, 0x28, 0x42]),
    ],
    ["nothing declared: UTF-8, bad bytes as U+FFFD", undefined, bytes("<p>", [0xff, 0xc3], "x", [0xe2, 0x82])],
  ];

  function streamed(body: Uint8Array, contentType: string | undefined, cuts: number[]): string {
    let text = "";
    const stream = new HtmlTextStream(contentType, (piece) => {
      text += piece;
    });
    let start = 0;
    for (const cut of [...cuts, body.length]) {
      stream.write(body.subarray(start, cut));
      start = cut;
    }
    stream.end();
    return text;
  }

  test.each(samples)("%s", (_name, contentType, body) => {
    const whole = decodeHtml(body, contentType);
    const everyByte = Array.from({ length: body.length - 1 }, (_, i) => i + 1);
    expect(streamed(body, contentType, everyByte)).toBe(whole);
    expect(streamed(body, contentType, [])).toBe(whole);
    // Every two-piece cut, so each character is split at each of its bytes once.
    for (const cut of everyByte) expect(streamed(body, contentType, [cut])).toBe(whole);
  });

  test("the known texts decode as expected (the reference itself is right)", () => {
    expect(decodeHtml(samples[4]![2], "text/html").endsWith("あい あいあい\uFFFD")).toBe(true);
    expect(decodeHtml(samples[9]![2], "text/html; charset=iso-2022-jp")).toBe("<p>あい\nab\nあ");
  });
});
