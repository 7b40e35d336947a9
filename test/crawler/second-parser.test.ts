import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import type { Server } from "bun";
import { parse } from "parse5";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * The crawler's links on real pages nobody here wrote, checked by a second, independent HTML parser. A few
 * pages of Debian's Python documentation (package python3-doc) are served as they are installed, the whole
 * html directory so their targets resolve, and crawled through the real API with every kind of link on and
 * external links off. For each chosen page, the distinct targets (and their kinds) that GET /links records
 * with that page as source_url must be exactly those parse5 (a spec-compliant HTML5 tree builder; the product
 * uses htmlparser2) finds in the same bytes, by link rules written here from the HTML standard, not imported
 * from src/. Without python3-doc the test is skipped, saying so: it never passes on nothing.
 *
 * The crawl starts at a hub page (served by the test, not compared) linking to the chosen pages, with
 * crawler.max_depth 1: the chosen pages are parsed, what they link to is checked but not parsed, so the crawl
 * stays a few hundred targets instead of the whole manual.
 */

/** The chosen pages, relative to the html directory, and why each. */
const CHOSEN: readonly { path: string; why: string }[] = [
  { path: "index.html", why: "the documentation's front page" },
  { path: "library/os.html", why: "a big library reference (~750 KB, ~2,500 anchors)" },
  { path: "tutorial/controlflow.html", why: "a tutorial page" },
  { path: "howto/logging.html", why: "a HOWTO with a content image (_images/logging_flow.png)" },
  { path: "library/turtle.html", why: "a long reference page with an image and many code blocks" },
];

const HUB_PATH = "/linkpatrol-second-parser-hub.html";

/** Where python3-doc puts its HTML (a symlink to python3.X-doc/html on Debian), or null when not installed. */
function findDocDir(): string | null {
  const candidates = ["/usr/share/doc/python3/html", "/usr/share/doc/python3-doc/html"];
  try {
    for (const entry of readdirSync("/usr/share/doc")) if (/^python3\.\d+-doc$/.test(entry)) candidates.push(join("/usr/share/doc", entry, "html"));
  } catch {
    // No /usr/share/doc at all: nothing installed.
  }
  for (const dir of candidates) {
    if (CHOSEN.every(({ path }) => existsSync(join(dir, path)))) return realpathSync(dir);
  }
  return null;
}

const DOC_DIR = findDocDir();
if (DOC_DIR === null) {
  console.warn(
    "second-parser.test.ts: SKIPPED: the real pages of python3-doc are missing " +
      `(looked for ${CHOSEN.map(({ path }) => path).join(", ")} under /usr/share/doc/python3/html and python3.*-doc/html); ` +
      "install them with `apt-get install python3-doc`",
  );
}

// --- the second parser's link rules -------------------------------------------------------------------------

type Kind = "anchor" | "image" | "script" | "stylesheet" | "media";

interface P5Attr {
  name: string;
  value: string;
  namespace?: string;
}
interface P5Node {
  nodeName: string;
  tagName?: string;
  attrs?: P5Attr[];
  childNodes?: P5Node[];
  parentNode?: P5Node;
}

const XLINK = "http://www.w3.org/1999/xlink";

/** A plain attribute (no namespace), or undefined. */
function attr(el: P5Node, name: string): string | undefined {
  return el.attrs?.find((a) => a.name === name && !a.namespace)?.value;
}

/** SVG's href, falling back to xlink:href (parse5 puts that one in the XLink namespace). */
function svgHref(el: P5Node): string | undefined {
  return attr(el, "href") ?? el.attrs?.find((a) => a.name === "href" && a.namespace === XLINK)?.value;
}

/** The URLs of a srcset: each comma-separated candidate's first whitespace-separated word (simple, not the full algorithm). */
function srcsetUrls(value: string): string[] {
  return value
    .split(",")
    .map((candidate) => candidate.trim().split(/\s+/)[0] ?? "")
    .filter((url) => url !== "");
}

/** The URL of a meta refresh content ("5; url='x'", "0;URL=x", "3, x"), or null when it names none. */
function refreshTarget(content: string): string | null {
  const match = /^\s*[\d.]+\s*[;,]?\s*(?:url\s*=\s*)?(.*)$/is.exec(content);
  if (match === null) return null;
  let target = match[1]!.trim();
  const quote = target[0];
  if (quote === "'" || quote === '"') {
    target = target.slice(1);
    const close = target.indexOf(quote);
    if (close !== -1) target = target.slice(0, close);
  }
  return target.trim() === "" ? null : target;
}

/** Raw link values of one element with their kinds; resource URLs that are empty mean no request at all. */
function linksOf(el: P5Node): { raw: string; kind: Kind }[] {
  const found: { raw: string; kind: Kind }[] = [];
  const resource = (raw: string | undefined, kind: Kind) => {
    if (raw !== undefined && raw.trim() !== "") found.push({ raw, kind });
  };
  switch (el.tagName) {
    case "a": {
      const href = svgHref(el);
      if (href !== undefined) found.push({ raw: href, kind: "anchor" });
      break;
    }
    case "area": {
      const href = attr(el, "href");
      if (href !== undefined) found.push({ raw: href, kind: "anchor" });
      break;
    }
    case "img":
      resource(attr(el, "src"), "image");
      for (const url of srcsetUrls(attr(el, "srcset") ?? "")) resource(url, "image");
      break;
    case "source": {
      let context = el.parentNode;
      while (context !== undefined && !["picture", "video", "audio"].includes(context.tagName ?? "")) context = context.parentNode;
      if (context?.tagName === "video" || context?.tagName === "audio") {
        resource(attr(el, "src"), "media");
      } else {
        resource(attr(el, "src"), "image");
        for (const url of srcsetUrls(attr(el, "srcset") ?? "")) resource(url, "image");
      }
      break;
    }
    case "iframe":
    case "frame":
      resource(attr(el, "src"), "anchor");
      break;
    case "form": {
      const method = (attr(el, "method") ?? "get").toLowerCase();
      const action = attr(el, "action");
      if (method !== "post" && method !== "dialog" && action !== undefined) found.push({ raw: action, kind: "anchor" });
      break;
    }
    case "blockquote":
    case "q":
    case "ins":
    case "del":
      resource(attr(el, "cite"), "anchor");
      break;
    case "input":
      if ((attr(el, "type") ?? "").toLowerCase() === "image") resource(attr(el, "src"), "image");
      break;
    case "video":
      resource(attr(el, "src"), "media");
      resource(attr(el, "poster"), "image");
      break;
    case "audio":
    case "track":
    case "embed":
      resource(attr(el, "src"), "media");
      break;
    case "object":
      resource(attr(el, "data"), "media");
      break;
    case "image":
      resource(svgHref(el), "image");
      break;
    case "script":
      resource(attr(el, "src"), "script");
      break;
    case "link": {
      const rels = (attr(el, "rel") ?? "").toLowerCase().split(/\s+/);
      const has = (...names: string[]) => names.some((name) => rels.includes(name));
      const as = (attr(el, "as") ?? "").toLowerCase();
      const href = attr(el, "href");
      if (has("stylesheet")) resource(href, "stylesheet");
      else if (has("icon", "apple-touch-icon", "apple-touch-icon-precomposed", "mask-icon")) resource(href, "image");
      else if (has("modulepreload", "manifest")) resource(href, "script");
      else if (has("preload") && as === "image") {
        resource(href, "image");
        for (const url of srcsetUrls(attr(el, "imagesrcset") ?? "")) resource(url, "image");
      } else if (has("preload") && as === "script") resource(href, "script");
      else if (has("preload") && (as === "style" || as === "font")) resource(href, "stylesheet");
      else if (has("preload") && (as === "audio" || as === "video" || as === "track")) resource(href, "media");
      else if (
        has("canonical", "alternate", "next", "prev", "up", "home", "index", "search", "help", "license", "first", "last", "start", "contents", "author")
      ) {
        resource(href, "anchor");
      }
      break;
    }
    case "meta":
      if ((attr(el, "http-equiv") ?? "").trim().toLowerCase() === "refresh") {
        const target = refreshTarget(attr(el, "content") ?? "");
        if (target !== null) found.push({ raw: target, kind: "anchor" });
      }
      break;
  }
  return found;
}

/** A raw href resolved against `base`: http(s) only, without fragment, at most 2,048 characters; else null. */
function resolveTarget(raw: string, base: string): string | null {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  url.hash = "";
  return url.href.length > 2048 ? null : url.href;
}

/**
 * What parse5 says the page links to on its own site: target URL → kind of its first occurrence, in document
 * order. `<template>` contents are not in the tree's children (parse5 keeps them aside, inert, as browsers do);
 * `<noscript>` contents are parsed as markup (scripting off), since visitors without JavaScript follow them.
 */
function secondParserLinks(html: string, pageUrl: string): Map<string, Kind> {
  const document = parse(html, { scriptingEnabled: false }) as unknown as P5Node;
  const raws: { raw: string; kind: Kind }[] = [];
  let baseHref: string | null = null;
  const stack: P5Node[] = [document];
  // Bounded by the tree itself: every node is pushed once.
  for (let visited = 0; stack.length > 0 && visited < 10_000_000; visited++) {
    const node = stack.pop()!;
    if (node.tagName === "base" && baseHref === null) baseHref = attr(node, "href") ?? null;
    if (node.tagName !== undefined) raws.push(...linksOf(node));
    const children = node.childNodes ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  let base = pageUrl;
  if (baseHref !== null) {
    try {
      const resolved = new URL(baseHref, pageUrl);
      if (resolved.protocol !== "data:" && resolved.protocol !== "javascript:") base = resolved.href;
    } catch {
      // An unparseable base href leaves the page's own URL as the base.
    }
  }
  const site = new URL(pageUrl).host;
  const targets = new Map<string, Kind>();
  for (const { raw, kind } of raws) {
    const target = resolveTarget(raw, base);
    if (target === null || new URL(target).host !== site || targets.has(target)) continue;
    targets.set(target, kind);
  }
  return targets;
}

// --- the real pages, served and crawled ----------------------------------------------------------------------

/** Serves `root` as files (a directory path serves its index.html) plus the hub page; 404 for anything else. */
function serveDirectory(root: string): Server<undefined> {
  const hub = `<!doctype html><title>hub</title>${CHOSEN.map(({ path }) => `<a href="/${path}">${path}</a>`).join("\n")}`;
  const notFound = () => new Response("not found", { status: 404 });
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === HUB_PATH) return new Response(hub, { headers: { "content-type": "text/html; charset=utf-8" } });
      let relative: string;
      try {
        relative = decodeURIComponent(pathname);
      } catch {
        return notFound();
      }
      if (relative.includes("\0")) return notFound();
      if (relative.endsWith("/")) relative += "index.html";
      const file = resolve(root, `.${relative}`);
      if (!file.startsWith(root + sep)) return notFound();
      try {
        if (!statSync(file).isFile()) return notFound();
      } catch {
        return notFound(); // missing, or a dangling symlink (Debian links jquery.js to libjs-jquery)
      }
      return new Response(Bun.file(file));
    },
  });
}

const MISSING = DOC_DIR === null;
/** Skipped, never vacuously passed, when the real pages are not installed. */
const realTest = test.skipIf(MISSING);

describe(`links of real pages (python3-doc): the API's rows agree with parse5${MISSING ? " (SKIPPED: python3-doc is not installed)" : ""}`, () => {
  let server: Server<undefined>;
  let svc: TestService;
  let crawl: any;
  let links: any[];
  let origin: string;

  beforeAll(async () => {
    if (MISSING) return;
    server = serveDirectory(DOC_DIR!);
    origin = `http://127.0.0.1:${server.port}`;
    svc = await startTestService({ crawler: { max_depth: 1 } });
    const domainId = await verifiedDomain(svc, `${origin}${HUB_PATH}`);
    const id = await startCrawl(svc, domainId, { scan_images: true, scan_scripts: true, scan_stylesheets: true, scan_media: true, follow_external: false });
    crawl = await waitForCrawl(svc, id, 15_000);
    links = await readAll(svc, `/crawls/${id}/links`);
  }, 15_000); // crawls a sample of python3-doc's pages before the comparisons
  afterAll(async () => {
    await svc?.stop();
    await server?.stop(true);
  });

  realTest("the crawl parsed the hub and every chosen page", () => {
    expect(crawl).toMatchObject({ status: "completed", error: null, pages_crawled: 1 + CHOSEN.length });
    expect(links.length).toBe(crawl.total_links);
  });

  realTest.each(CHOSEN.map(({ path, why }) => [path, why] as const))("%s (%s)", (path) => {
    const pageUrl = `${origin}/${path}`;
    const html = new TextDecoder("utf-8").decode(readFileSync(join(DOC_DIR!, path)));
    const expected = secondParserLinks(html, pageUrl);

    const rows = links.filter((link) => link.source_url === pageUrl);
    // Hrefs the crawler records as broken without a URL of their own are outside the second parser's model.
    const comparable = rows.filter((link) => link.error !== "invalid_url" && link.error !== "url_too_long");
    const recorded = new Map<string, Kind>(comparable.map((link) => [link.url, link.kind]));
    expect(recorded.size).toBe(comparable.length); // one row per (source page, target)

    const entries = (map: Map<string, Kind>) => new Set([...map].map(([url, kind]) => `${kind} ${url}`));
    const fromApi = entries(recorded);
    const fromParse5 = entries(expected);
    const onlyInApi = [...fromApi].filter((entry) => !fromParse5.has(entry)).sort();
    const onlyInParse5 = [...fromParse5].filter((entry) => !fromApi.has(entry)).sort();
    if (onlyInApi.length > 0 || onlyInParse5.length > 0) {
      console.error(
        `${path}: ${fromApi.size} targets in the API, ${fromParse5.size} by parse5\n  only in the API:\n    ${onlyInApi.join("\n    ")}\n  only by parse5:\n    ${onlyInParse5.join("\n    ")}`,
      );
    }
    expect(fromApi.size).toBeGreaterThan(0);
    expect(fromParse5.size).toBeGreaterThan(0);
    expect({ onlyInApi, onlyInParse5 }).toEqual({ onlyInApi: [], onlyInParse5: [] });
  });

  realTest("every kind the options turn on occurs on the chosen pages", () => {
    const chosen = new Set(CHOSEN.map(({ path }) => `${origin}/${path}`));
    const kinds = new Set(links.filter((link) => chosen.has(link.source_url)).map((link) => link.kind));
    expect([...kinds].sort()).toEqual(["anchor", "image", "script", "stylesheet"]);
  });
});
