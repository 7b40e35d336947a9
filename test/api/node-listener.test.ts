import { afterEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { connect } from "node:net";
import { serveOnNodeHttp, type ApiFetch } from "../../src/api/node-listener.ts";
import type { ApiServer } from "../../src/api/serve-api.ts";
import { streamedBody } from "../../src/http/streamed-body.ts";

/**
 * The node:http listener (PostgreSQL's, serve-api.ts) on a real socket, with small handlers in the app's place:
 * a marked stream is sent as it is produced and stopped when the client goes; a request body reaches the app
 * as a stream; every Set-Cookie survives; a 204 carries no body; stop() lets a request in flight
 * finish, then refuses new connections.
 */

let server: ApiServer | null = null;
afterEach(async () => {
  await server?.stop(true);
  server = null;
});

async function listen(fetch: ApiFetch): Promise<string> {
  server = await serveOnNodeHttp(fetch, { hostname: "127.0.0.1", port: 0, idleTimeoutMs: 10_000, maxHeaderSize: 16 * 1024 });
  return `http://127.0.0.1:${server.port}`;
}

/** A promise and its resolver. */
function signal() {
  return Promise.withResolvers<void>();
}

test("a marked stream goes out as it is produced: the client reads the first chunk before the second exists", async () => {
  const firstRead = signal();
  const origin = await listen(() => {
    let step = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        step += 1;
        if (step === 1) return controller.enqueue(new TextEncoder().encode("first;"));
        // Buffered whole, the answer would wait here for ever: the client never saw "first;".
        await firstRead.promise;
        controller.enqueue(new TextEncoder().encode("second"));
        controller.close();
      },
    });
    return new Response(streamedBody(body), { headers: { "content-type": "text/plain" } });
  });
  const res = await fetch(origin, { signal: AbortSignal.timeout(5_000) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("first;")) {
    const next = await reader.read();
    if (next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  expect(text).toBe("first;");
  firstRead.resolve();
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  expect(text).toBe("first;second");
});

test("a client that goes away cancels the marked stream: nothing more is produced", async () => {
  const cancelled = signal();
  let pulls = 0;
  const origin = await listen(() => {
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        pulls += 1;
        await Bun.sleep(5);
        controller.enqueue(new Uint8Array(64 * 1024));
      },
      cancel() {
        cancelled.resolve();
      },
    });
    return new Response(streamedBody(body));
  });
  const socket = connect(Number(new URL(origin).port), "127.0.0.1");
  const gotBytes = signal();
  socket.once("data", () => gotBytes.resolve());
  socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  await gotBytes.promise;
  socket.destroy();
  const outcome = await Promise.race([cancelled.promise.then(() => "cancelled"), Bun.sleep(5_000).then(() => "still producing")]);
  expect(outcome).toBe("cancelled");
  const after = pulls;
  await Bun.sleep(100);
  expect(pulls).toBeLessThanOrEqual(after + 1);
});

test("a request body reaches the app whole, as a stream", async () => {
  const origin = await listen(async (request) => {
    const bytes = new Uint8Array(await request.arrayBuffer());
    return Response.json({ length: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"), method: request.method });
  });
  const sent = new Uint8Array(1024 * 1024).map((_, i) => (i * 7) % 251);
  const res = await fetch(`${origin}/upload?x=1`, { method: "PUT", body: sent });
  expect(await res.json()).toEqual({ length: sent.length, sha256: createHash("sha256").update(sent).digest("hex"), method: "PUT" });
});

test("every Set-Cookie is sent; a 204 carries no body; the URL keeps a path that starts with //", async () => {
  let seenUrl = "";
  const origin = await listen((request) => {
    seenUrl = request.url;
    const headers = new Headers();
    headers.append("set-cookie", "a=1; Path=/");
    headers.append("set-cookie", "b=2; Path=/");
    return new Response(null, { status: 204, headers });
  });
  const port = Number(new URL(origin).port);
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    const timer = setTimeout(() => reject(new Error(`no answer in 5 s: ${text}`)), 5_000);
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (text.includes("\r\n\r\n")) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text);
      }
    });
    socket.write("GET //evil.example/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  });
  expect(raw).toMatch(/^HTTP\/1\.1 204 /);
  expect(raw.match(/^set-cookie: .*$/gim)).toEqual(["set-cookie: a=1; Path=/", "set-cookie: b=2; Path=/"]);
  // No body: Bun's own servers (both) write "Content-Length: 0" on a 204; nothing longer may appear.
  expect(raw.match(/^content-length: .*$/gim) ?? []).not.toContainEqual(expect.not.stringMatching(/^content-length: 0$/i));
  expect(raw.endsWith("\r\n\r\n")).toBe(true);
  expect(new URL(seenUrl).host).toBe("127.0.0.1");
  expect(new URL(seenUrl).pathname).toBe("//evil.example/x");
});

test("stop() lets the request in flight finish, then refuses new connections", async () => {
  const entered = signal();
  const release = signal();
  const origin = await listen(async () => {
    entered.resolve();
    await release.promise;
    return Response.json({ finished: true });
  });
  const inFlight = fetch(origin, { signal: AbortSignal.timeout(5_000) });
  await entered.promise;
  const stopped = server!.stop();
  let stopDone = false;
  void stopped.then(() => {
    stopDone = true;
  });
  await Bun.sleep(50);
  expect(stopDone).toBe(false);
  release.resolve();
  const res = await inFlight;
  expect(await res.json()).toEqual({ finished: true });
  const outcome = await Promise.race([stopped.then(() => "stopped"), Bun.sleep(5_000).then(() => "still waiting")]);
  expect(outcome).toBe("stopped");
  server = null;
  expect(
    await fetch(origin, { signal: AbortSignal.timeout(2_000) }).then(
      () => "answered",
      () => "refused",
    ),
  ).toBe("refused");
});
