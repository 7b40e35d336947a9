import { type LoopbackSite, startLoopbackSite } from "./loopback-site.ts";

/**
 * A site of `pages` pages (plus a root linking the first), each linking to three others, a missing page and
 * an image (every fifth one missing), answering after 15 ms: slow enough that a test can stop a crawl of it
 * half-way, big enough that the stop leaves targets queued with links waiting for them.
 */
export function startMeshSite(pages: number): Promise<LoopbackSite> {
  return startLoopbackSite(
    {},
    {
      fallback: async (request) => {
        const path = new URL(request.url).pathname;
        if (path === "/") return html(`<a href="/p/0">Start</a>`);
        const page = /^\/p\/(\d+)$/.exec(path);
        if (page !== null) {
          await Bun.sleep(15);
          const i = Number(page[1]);
          const targets = [(i + 1) % pages, (i * 7 + 3) % pages, (i * 13 + 5) % pages];
          return html(
            targets.map((t) => `<a href="/p/${t}">Page ${t}</a>`).join(" ") +
              `<a href="/missing/${i % 20}">Missing</a><img src="/img/${i % 10}.png" alt="Image ${i % 10}">`,
          );
        }
        const image = /^\/img\/(\d+)\.png$/.exec(path);
        if (image !== null && Number(image[1]) % 5 !== 0) return new Response("png", { headers: { "content-type": "image/png" } });
        return new Response("not found", { status: 404 });
      },
    },
  );
}

function html(body: string): Response {
  return new Response(`<!doctype html><title>t</title>${body}`, { headers: { "content-type": "text/html" } });
}
