import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { readAll, startCrawl, verifiedDomain, waitForCrawl } from "../helpers/crawls.ts";
import { type LoopbackSite, startLoopbackSite } from "../helpers/loopback-site.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * The rows of the tag table beyond a/img/script/stylesheet, crawled over real sockets: what each option records
 * and requests, through the API and through `linkpatrol check`. Media (video, audio, source, track, embed,
 * object) only with scan_media; frames, GET forms, page rels of <link> and cite are anchors, always checked, and
 * an internal HTML frame is crawled as a page; a POST form is never requested.
 */

const html = (body: string) => new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });
const file = (type: string) => () => new Response("x", { headers: { "content-type": type } });

const ROOT = `
  <link rel="icon" href="/favicon.ico"> <link rel="search" href="/opensearch.xml"> <link rel="manifest" href="/app.webmanifest">
  <link rel="preload" as="font" href="/f.woff2"> <link rel="canonical" href="/">
  <iframe src="/frame.html"></iframe>
  <form action="/find"><input name="q"></form> <form method="post" action="/buy"></form>
  <blockquote cite="/quoted.html">q</blockquote>
  <video src="/clip.webm" poster="/poster.jpg"><track src="/subs.vtt"></video>
  <audio><source src="/sound.ogg"><source src="/missing.mp3"></audio>
  <picture><source srcset="/pic.webp"><img src="/pic.png" alt="pic"></picture>
  <embed src="/applet.swf"> <object data="/figure.svg"></object> <object data="/missing-figure.svg"></object>`;

/** Paths a crawl with no option at all must never ask for. */
const MEDIA_PATHS = ["/clip.webm", "/subs.vtt", "/sound.ogg", "/missing.mp3", "/applet.swf", "/figure.svg", "/missing-figure.svg"];

let site: LoopbackSite;
let svc: TestService;
let domainId: string;

beforeAll(async () => {
  site = await startLoopbackSite({
    "/": () => html(ROOT),
    "/frame.html": () => html(`<a href="/from-frame.html">inside the frame</a>`),
    "/from-frame.html": () => html("end"),
    "/find": () => html("search results"),
    "/quoted.html": () => html("the source"),
    "/opensearch.xml": file("application/opensearchdescription+xml"),
    "/favicon.ico": file("image/x-icon"),
    "/app.webmanifest": file("application/manifest+json"),
    "/f.woff2": file("font/woff2"),
    "/poster.jpg": file("image/jpeg"),
    "/pic.webp": file("image/webp"),
    "/pic.png": file("image/png"),
    "/clip.webm": file("video/webm"),
    "/subs.vtt": file("text/vtt"),
    "/sound.ogg": file("audio/ogg"),
    "/applet.swf": file("application/x-shockwave-flash"),
    "/figure.svg": file("image/svg+xml"),
  });
  svc = await startTestService();
  domainId = await verifiedDomain(svc, site.url("/"));
});
afterAll(async () => {
  await svc?.stop();
  await site?.stop();
});

/** Links as "kind path status", sorted. */
const rows = (links: any[]) => links.map((link) => `${link.kind} ${new URL(link.url).pathname} ${link.status_code}`).sort();

async function crawl(options: Record<string, boolean>) {
  const before = site.requests.length;
  const id = await startCrawl(svc, domainId, options);
  const detail = await waitForCrawl(svc, id, 15_000);
  const links = await readAll(svc, `/crawls/${id}/links`);
  return { detail, links, requests: site.requests.slice(before) };
}

describe("through the API", () => {
  test("no option: only the anchor rows; the frame is crawled as a page; nothing of media is asked", async () => {
    const { detail, links, requests } = await crawl({});
    expect(detail).toMatchObject({ status: "completed", pages_crawled: 5, broken_links: 0 });
    expect(rows(links)).toEqual([
      "anchor / 200", // rel=canonical
      "anchor /find 200",
      "anchor /frame.html 200",
      "anchor /from-frame.html 200",
      "anchor /opensearch.xml 200",
      "anchor /quoted.html 200",
    ]);
    expect(requests.filter((line) => MEDIA_PATHS.some((path) => line.endsWith(` ${path}`)))).toEqual([]);
    expect(requests.filter((line) => line.endsWith(" /buy"))).toEqual([]);
    expect(requests).toContain("GET /frame.html");
  });

  test("scan_media: media links recorded as media, missing ones broken; the poster stays an image (off)", async () => {
    const { detail, links } = await crawl({ scan_media: true });
    expect(detail.status).toBe("completed");
    const media = rows(links.filter((link) => link.kind === "media"));
    expect(media).toEqual([
      "media /applet.swf 200",
      "media /clip.webm 200",
      "media /figure.svg 200",
      "media /missing-figure.svg 404",
      "media /missing.mp3 404",
      "media /sound.ogg 200",
      "media /subs.vtt 200",
    ]);
    expect(links.some((link) => link.kind === "image")).toBe(false);
    expect(detail.broken_links).toBe(2);
    const broken = await readAll(svc, `/crawls/${detail.id}/broken`);
    expect(broken.map((link) => new URL(link.url).pathname).sort()).toEqual(["/missing-figure.svg", "/missing.mp3"]);
  });

  test("scan_images and scan_scripts and scan_stylesheets take their <link> rows", async () => {
    const { links } = await crawl({ scan_images: true, scan_scripts: true, scan_stylesheets: true });
    const kinds = rows(links.filter((link) => link.kind !== "anchor"));
    expect(kinds).toEqual([
      "image /favicon.ico 200",
      "image /pic.png 200",
      "image /pic.webp 200",
      "image /poster.jpg 200",
      "script /app.webmanifest 200",
      "stylesheet /f.woff2 200",
    ]);
  });

  test("a media file on another host needs scan_media and follow_external, like every kind", async () => {
    const other = await startLoopbackSite({ "/far.mp4": file("video/mp4") });
    const page = await startLoopbackSite({ "/": () => html(`<video src="${other.url("/far.mp4")}"></video><a href="/x">x</a>`), "/x": () => html("x") });
    try {
      const id = await verifiedDomain(svc, page.url("/"));
      const run = async (options: Record<string, boolean>) => {
        const crawlId = await startCrawl(svc, id, options);
        await waitForCrawl(svc, crawlId, 15_000);
        return rows(await readAll(svc, `/crawls/${crawlId}/links`));
      };
      expect(await run({ scan_media: true })).toEqual(["anchor /x 200"]);
      expect(await run({ follow_external: true })).toEqual(["anchor /x 200"]);
      expect(await run({ scan_media: true, follow_external: true })).toEqual(["anchor /x 200", "media /far.mp4 200"]);
      expect(other.requests.filter((line) => line !== "GET /robots.txt")).toEqual(["HEAD /far.mp4"]);
    } finally {
      await other.stop();
      await page.stop();
    }
  });

  test("the OpenAPI document has the new options (default false) and the media kind, from the zod schemas", async () => {
    const doc = (await svc.call("GET", "/openapi.json", { key: null })).json;
    const options = doc.components.schemas.CrawlOptions.properties;
    expect(options.scan_media).toMatchObject({ type: "boolean", default: false });
    expect(options.check_fragments).toMatchObject({ type: "boolean", default: false });
    expect(doc.components.schemas.Link.properties.kind.enum).toEqual(expect.arrayContaining(["anchor", "image", "script", "stylesheet", "media"]));
  });

  test("the new options are booleans: anything else is the contract's 400", async () => {
    for (const options of [{ scan_media: "yes" }, { check_fragments: 1 }, { scan_medias: true }]) {
      const res = await svc.call("POST", "/crawls", { body: { domain_id: domainId, options } });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("invalid_request");
      expect(res.json.error.details.length).toBeGreaterThan(0);
    }
  });
});

describe("through linkpatrol check", () => {
  const check = (...flags: string[]) =>
    runCli(["check", site.url("/"), "--allow-private", "--timeout", "2s", "--format", "json", ...flags], { timeoutMs: 30_000 });

  test("--media records media links and exits 1 for the missing ones; --all includes media", async () => {
    const withMedia = await check("--media");
    expect(withMedia.exitCode).toBe(1);
    const report = JSON.parse(withMedia.stdout);
    expect(report.options).toMatchObject({ scan_media: true, scan_images: false, check_fragments: false });
    expect(
      report.links
        .filter((link: any) => link.is_broken)
        .map((link: any) => `${link.kind} ${new URL(link.url).pathname}`)
        .sort(),
    ).toEqual(["media /missing-figure.svg", "media /missing.mp3"]);
    const all = JSON.parse((await check("--all")).stdout);
    expect(all.options).toMatchObject({ scan_media: true, scan_images: true, scan_scripts: true, scan_stylesheets: true, follow_external: true });
    expect(new Set(all.links.map((link: any) => link.kind))).toEqual(new Set(["anchor", "image", "script", "stylesheet", "media"]));
  }, 30_000); // two check processes

  test("without --media nothing of media is asked and the site is clean", async () => {
    const plain = await check();
    expect(plain.exitCode).toBe(0);
    expect(JSON.parse(plain.stdout).links.some((link: any) => link.kind === "media")).toBe(false);
  }, 20_000); // a check process
});
