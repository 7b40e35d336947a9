import { expect, test } from "bun:test";
import { warmHttpClient } from "../../src/net/warm-client.ts";

/** Warming the HTTP client before `check` loads its modules must not reach any server. */

test("warming the HTTP client opens no connection; a real request to the same server does", async () => {
  let connections = 0;
  let requests = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      requests++;
      return new Response("ok");
    },
  });
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        connections++;
        socket.end();
      },
      data() {},
    },
  });
  try {
    for (let i = 0; i < 3; i++) warmHttpClient(`http://127.0.0.1:${listener.port}/`);
    warmHttpClient(`http://127.0.0.1:${server.port}/`);
    await Bun.sleep(200);
    expect(connections).toBe(0);
    expect(requests).toBe(0);
    // The same kind of request, not aborted, is seen: the counters can count.
    expect(await (await fetch(`http://127.0.0.1:${server.port}/`)).text()).toBe("ok");
    expect(requests).toBe(1);
    await fetch(`http://127.0.0.1:${listener.port}/`).catch(() => {});
    expect(connections).toBe(1);
  } finally {
    listener.stop(true);
    await server.stop(true);
  }
});
