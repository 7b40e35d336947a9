import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { PARSER_HEAD_CEILING_BYTES } from "../../src/api/serve-api.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

/**
 * Requests too large to serve still get the error envelope: heads (URL + headers) over the limit get 431
 * `headers_too_large`, a declared or streamed body over `server.max_request_body_bytes` 413 `payload_too_large`.
 * Sent over a raw socket, since fetch would refuse to send some of them, and HTTP parsers in between would
 * answer before the server does.
 */

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

let svc: TestService;
let port: number;
beforeAll(async () => {
  svc = await startTestService({ server: { max_request_body_bytes: 4096 } });
  port = Number(new URL(svc.origin).port);
});
afterAll(() => svc.stop());

/** Writes `head` (+ `body`) on a fresh connection and reads one response; bounded by a 5 s timeout. */
function rawRequest(head: string, body: string | Buffer = ""): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) return reject(error);
      const text = Buffer.concat(chunks).toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      resolve({ status: Number(statusLine!.split(" ")[1]), headers, body: text.slice(end + 4) });
    };
    const complete = () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return false;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end));
      return length !== null && text.length - end - 4 >= Number(length[1]);
    };
    const timer = setTimeout(() => finish(new Error(`no complete response in 5 s: ${Buffer.concat(chunks).toString("latin1").slice(0, 200)}`)), 5_000);
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      if (complete()) finish();
    });
    socket.on("close", () => finish());
    // The server may answer and close before it has read all we send.
    socket.on("error", () => finish());
    socket.write(head);
    if (body.length > 0) socket.write(body);
  });
}

function expectEnvelope(res: RawResponse, status: number, code: string) {
  expect({ status: res.status, type: res.headers["content-type"] }).toEqual({ status, type: expect.stringContaining("application/json") });
  const parsed = JSON.parse(res.body) as { error: { code: string; message: string } };
  expect(parsed.error.code).toBe(code);
  expect(parsed.error.message.length).toBeGreaterThan(0);
  expect(res.headers["x-request-id"]).toBeDefined();
  return parsed.error;
}

describe("a request head over the limit: 431 headers_too_large with the envelope", () => {
  test("a 100 KB Authorization header", async () => {
    const res = await rawRequest(`GET /v1/crawls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${"a".repeat(100_000)}\r\n\r\n`);
    const error = expectEnvelope(res, 431, "headers_too_large");
    expect(error.message).toContain("16384");
  });

  test("a 20 KB path", async () => {
    const res = await rawRequest(`GET /v1/${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.adminKey}\r\n\r\n`);
    expectEnvelope(res, 431, "headers_too_large");
  });

  test("a large header beside a valid key, also when the answer is kept (the response cache)", async () => {
    const head = (padding: number) =>
      `GET /v1/domains HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.adminKey}\r\nX-Padding: ${"p".repeat(padding)}\r\n\r\n`;
    expect((await rawRequest(head(10))).status).toBe(200);
    expect((await rawRequest(head(10))).status).toBe(200);
    expectEnvelope(await rawRequest(head(30_000)), 431, "headers_too_large");
  });

  test("past Bun's own parser ceiling the request is still refused, by Bun, with a bare 431 (documented)", async () => {
    const res = await rawRequest(`GET /v1/crawls HTTP/1.1\r\nHost: x\r\nX-Padding: ${"p".repeat(PARSER_HEAD_CEILING_BYTES + 1024)}\r\n\r\n`);
    expect(res.status).toBe(431);
  });

  test("a head just under the limit is served", async () => {
    const res = await rawRequest(`GET /v1/crawls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.adminKey}\r\nX-Padding: ${"p".repeat(12_000)}\r\n\r\n`);
    expect(res.status).toBe(200);
  });
});

describe("a body over the limit: 413 payload_too_large with the envelope", () => {
  test("a false Content-Length far past any limit, body never sent", async () => {
    const res = await rawRequest(
      `POST /v1/domains HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.adminKey}\r\nContent-Type: application/json\r\nContent-Length: 999999999999\r\n\r\n`,
      "{}",
    );
    expectEnvelope(res, 413, "payload_too_large");
  });

  test("a Content-Length just over server.max_request_body_bytes", async () => {
    const res = await rawRequest(
      `PATCH /v1/domains/0190b6f2-7a3e-7c4d-9e1f-2a3b4c5d6e7f HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.adminKey}\r\nContent-Type: application/json\r\nContent-Length: 4097\r\n\r\n`,
    );
    expectEnvelope(res, 413, "payload_too_large");
  });

  test("a chunked body that grows past the limit", async () => {
    const chunk = `{"name":"${"a".repeat(8_000)}"}`;
    const res = await rawRequest(
      `POST /v1/domains HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.adminKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    expectEnvelope(res, 413, "payload_too_large");
  });
});
