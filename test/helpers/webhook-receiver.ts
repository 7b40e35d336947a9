/**
 * A real webhook receiver on 127.0.0.1 for delivery tests: HTTPS with a certificate generated at start-up by the
 * `openssl` CLI (self-signed for DNS:hooks.linkpatrol.test and IP:127.0.0.1, in a temp dir removed on stop),
 * or plain HTTP. It checks every request's signature with its OWN node:crypto code, deliberately not
 * src/webhooks/verify.ts, so a bug shared by our signer and our verifier cannot make a test pass. A stale `t`
 * (more than 300 s from the receiver's clock) gets 400, a wrong signature 401; a verified request gets the
 * next scripted behaviour, or 200 when none is queued. Every request is recorded, rejected ones included.
 *
 *   const hooks = await startWebhookReceiver({ secret });
 *   hooks.script({ status: 500 }, { delayMs: 2_000 });
 *   await deliverOnce({ url: hooks.url(), ... }, { ca: hooks.cert, ... });
 *   await hooks.waitFor((requests) => requests.length === 1, 2_000);
 *   await hooks.stop();
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pollUntil } from "./poll.ts";
import { selfSignedCertificate } from "./self-signed.ts";

/** The name the generated certificate is issued for; point a test resolver at 127.0.0.1 for it. */
export const RECEIVER_HOSTNAME = "hooks.linkpatrol.test";

/** How the receiver answers one verified request; every field is optional (default: 200, empty body). */
export interface ReceiverBehaviour {
  status?: number;
  /** Wait this long before answering (the response is never sent if the server stops first). */
  delayMs?: number;
  /** Sent as the Location header (use with a 3xx status). */
  location?: string;
  /** Send the status, headers and the first byte of the body at once, the rest only after this long. */
  stallBodyMs?: number;
  /** Drop the connection without any answer. */
  closeConnection?: boolean;
  body?: string;
  headers?: Record<string, string>;
}

/** One request as the receiver saw it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The body exactly as received. */
  rawBody: Buffer;
  /** The signature's `t`, or null when the header was missing or unreadable. */
  signedAt: number | null;
  /** True when the signature matched the body and `t` was fresh. */
  verified: boolean;
  /** The status the receiver chose before any scripted delay; null when it dropped the connection. */
  answeredStatus: number | null;
  /** Date.now() when the body had fully arrived. */
  receivedAt: number;
}

/** Options of a receiver. */
export interface WebhookReceiverOptions {
  /** The signing secret the receiver verifies with; may be set later with `useSecret` (it is known only once the webhook exists). */
  secret?: string;
  /** Serve HTTPS with a generated certificate (default) or plain HTTP. */
  tls?: boolean;
  /** Port to listen on; default a free one (a test restarting a "down" receiver passes the old port). */
  port?: number;
  /** The receiver's clock in unix seconds, for the freshness check; default the system clock. */
  nowSeconds?: () => number;
}

/** A running receiver. */
export interface WebhookReceiver {
  port: number;
  /** "https://hooks.linkpatrol.test:PORT" (needs a resolver mapping the name to 127.0.0.1), or http://127.0.0.1:PORT. */
  origin: string;
  /** `origin` + path (default "/hook"). */
  url(path?: string): string;
  /** Same as `url` but with 127.0.0.1 as host (the certificate names that IP too). */
  ipUrl(path?: string): string;
  /** The certificate (PEM) to trust, and its file; empty strings in plain HTTP mode. */
  cert: string;
  caFile: string;
  /** Every request so far, in arrival order. */
  requests: ReceivedRequest[];
  /** Verifies from now on with `secret` (the one POST /webhooks returned). */
  useSecret(secret: string): void;
  /** Queues behaviours, one per verified request, in order. */
  script(...behaviours: ReceiverBehaviour[]): void;
  /** Resolves once `predicate(requests)` is true; rejects after `timeoutMs`. */
  waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Stops the server, drops open connections and pending answers, removes the certificate files. */
  stop(): Promise<void>;
}

const TOLERANCE_SECONDS = 300;

/** A throwaway certificate for the receiver's host name, in a directory of its own. */
function generateCertificate(): { dir: string; certFile: string; keyFile: string } {
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-hooks-"));
  const { cert, key } = selfSignedCertificate(dir, RECEIVER_HOSTNAME);
  return { dir, certFile: cert, keyFile: key };
}

/** The receiver's own check of `t=…,v1=…`: returns the timestamp and whether a v1 digest matches. */
function checkSignature(secret: string, header: string | undefined, body: Buffer): { signedAt: number | null; matches: boolean } {
  if (header === undefined) return { signedAt: null, matches: false };
  const fields = header.split(",").map((part) => part.trim().split("="));
  const times = fields.filter(([key]) => key === "t").map(([, value]) => value ?? "");
  if (times.length !== 1 || !/^\d+$/.test(times[0]!)) return { signedAt: null, matches: false };
  const signedAt = Number(times[0]);
  const expected = createHmac("sha256", secret)
    .update(Buffer.concat([Buffer.from(`${signedAt}.`), body]))
    .digest();
  const matches = fields
    .filter(([key, value]) => key === "v1" && /^[0-9a-f]{64}$/.test(value ?? ""))
    .some(([, value]) => timingSafeEqual(expected, Buffer.from(value!, "hex")));
  return { signedAt, matches };
}

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** Starts a receiver on a random port of 127.0.0.1. */
export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const useTls = options.tls ?? true;
  const now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const files = useTls ? generateCertificate() : null;
  const cert = files === null ? "" : readFileSync(files.certFile, "utf8");
  let secret = options.secret ?? "";
  const requests: ReceivedRequest[] = [];
  const queue: ReceiverBehaviour[] = [];
  const pending = new Set<ReturnType<typeof setTimeout>>();

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const headers = flatHeaders(req.headers);
      const { signedAt, matches } = checkSignature(secret, headers["x-service-signature"], rawBody);
      const fresh = signedAt !== null && Math.abs(now() - signedAt) <= TOLERANCE_SECONDS;
      const record: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers,
        rawBody,
        signedAt,
        verified: matches && fresh,
        answeredStatus: null,
        receivedAt: Date.now(),
      };
      requests.push(record);

      if (signedAt !== null && !fresh) {
        record.answeredStatus = 400;
        res.writeHead(400, { "content-type": "text/plain" }).end("stale signature timestamp");
        return;
      }
      if (!matches) {
        record.answeredStatus = 401;
        res.writeHead(401, { "content-type": "text/plain" }).end("bad signature");
        return;
      }
      const behaviour = queue.shift() ?? {};
      const answer = () => {
        if (behaviour.closeConnection) {
          req.socket.destroy();
          return;
        }
        const headers: Record<string, string> = { "content-type": "text/plain", ...behaviour.headers };
        if (behaviour.location !== undefined) headers.location = behaviour.location;
        const body = behaviour.body ?? "";
        if (behaviour.stallBodyMs === undefined) {
          res.writeHead(behaviour.status ?? 200, headers).end(body);
          return;
        }
        res.writeHead(behaviour.status ?? 200, { ...headers, "content-length": String(Buffer.byteLength(body)) });
        res.write(body.slice(0, 1));
        later(behaviour.stallBodyMs, () => res.end(body.slice(1)));
      };
      const later = (ms: number, work: () => void) => {
        const timer = setTimeout(() => {
          pending.delete(timer);
          work();
        }, ms);
        pending.add(timer);
      };
      record.answeredStatus = behaviour.closeConnection ? null : (behaviour.status ?? 200);
      if (behaviour.delayMs === undefined) return answer();
      later(behaviour.delayMs, answer);
    });
  };

  const server = files === null ? http.createServer(handle) : https.createServer({ cert, key: readFileSync(files.keyFile, "utf8") }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const scheme = useTls ? "https" : "http";
  const origin = useTls ? `https://${RECEIVER_HOSTNAME}:${port}` : `http://127.0.0.1:${port}`;

  return {
    port,
    origin,
    url: (path = "/hook") => `${origin}${path}`,
    useSecret: (value) => {
      secret = value;
    },
    ipUrl: (path = "/hook") => `${scheme}://127.0.0.1:${port}${path}`,
    cert,
    caFile: files?.certFile ?? "",
    requests,
    script: (...behaviours) => {
      queue.push(...behaviours);
    },
    waitFor: async (predicate, timeoutMs = 2_000) => {
      await pollUntil(() => (predicate(requests) ? true : undefined), { timeoutMs, everyMs: 10, shortfall: () => "webhook receiver: condition not met" });
    },
    stop: async () => {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (files !== null) rmSync(files.dir, { recursive: true, force: true });
    },
  };
}
