/**
 * A real SMTP server on 127.0.0.1 for email tests: Debian's python3-aiosmtpd running smtp_receiver.py, which
 * parses each message with Python's MIME parser and writes what it found as JSON. `.ci/run` installs the
 * package; outside CI a test may skip without it (smtpAvailable), under CI=true it must not.
 *
 *   const smtp = await startSmtpReceiver({ starttls: true, auth: "bot:secret" });
 *   ... send to 127.0.0.1:smtp.port ...
 *   const [mail] = await smtp.waitForMessages(1);
 *   smtp.setMode("refuse");  await smtp.stop();
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pollUntil } from "./poll.ts";
import { selfSignedCertificate } from "./self-signed.ts";

const PYTHON = "/usr/bin/python3";
const SCRIPT = join(import.meta.dir, "smtp_receiver.py");

/** True when python3-aiosmtpd is installed (never skip on that under CI=true: .ci/run installs it). */
export const smtpAvailable =
  existsSync(PYTHON) &&
  (() => {
    try {
      execFileSync(PYTHON, ["-c", "import aiosmtpd"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();

if (!smtpAvailable && process.env.CI === "true") throw new Error("python3-aiosmtpd is missing under CI: .ci/run must install it");

/** A message as the receiver's MIME parser read it. */
export interface ReceivedMail {
  mail_from: string;
  rcpt_tos: string[];
  headers: [string, string][];
  /** The header block exactly as received. */
  raw_headers: string;
  subject: string;
  content_type: string;
  text: string | null;
  html: string | null;
  size: number;
  tls: boolean;
  authenticated: boolean;
}

export type SmtpMode = "accept" | "refuse" | "refuse-rcpt" | "drop" | "hang";

export interface SmtpReceiverOptions {
  /** Port to listen on; default a free one (a test restarting a "down" server passes the old one). */
  port?: number;
  /** Offer and require STARTTLS with a generated certificate for 127.0.0.1 (`cert` is then its PEM). */
  starttls?: boolean;
  /** Implicit TLS (SMTPS) with a generated certificate. */
  tls?: boolean;
  /** "user:password": AUTH required. */
  auth?: string;
  mode?: SmtpMode;
}

export interface SmtpReceiver {
  port: number;
  /** The certificate to trust (PEM file path), or "" without TLS. */
  caFile: string;
  /** Every message received so far, in order. */
  messages(): ReceivedMail[];
  /** Resolves with the messages once there are at least `n`; rejects after `timeoutMs`. */
  waitForMessages(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  setMode(mode: SmtpMode): void;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** Starts the server and waits until it listens. */
export async function startSmtpReceiver(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
  if (!smtpAvailable) throw new Error("python3-aiosmtpd is not installed (apt-get install python3-aiosmtpd)");
  const dir = mkdtempSync(join(tmpdir(), "linkpatrol-smtp-"));
  const out = join(dir, "out");
  execFileSync("mkdir", [out]);
  const port = options.port ?? freePort();
  const args = [SCRIPT, "--port", String(port), "--out", out];
  let caFile = "";
  if (options.starttls || options.tls) {
    const files = selfSignedCertificate(dir, "localhost");
    caFile = files.cert;
    args.push(options.tls ? "--tls" : "--starttls", files.cert, files.key);
  }
  if (options.auth !== undefined) args.push("--auth", options.auth);
  const setMode = (mode: SmtpMode) => writeFileSync(join(out, "mode"), mode);
  setMode(options.mode ?? "accept");

  const child: ChildProcess = spawn(PYTHON, args, { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`SMTP receiver did not start within 10 s: ${stderr}`)), 10_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("READY")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`SMTP receiver exited (${code}): ${stderr}`));
    });
  });

  const messages = () =>
    readdirSync(out)
      .filter((name) => /^\d+\.json$/.test(name))
      .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
      .map((name) => JSON.parse(readFileSync(join(out, name), "utf8")) as ReceivedMail);

  return {
    port,
    caFile,
    messages,
    waitForMessages: (n, timeoutMs = 10_000) =>
      pollUntil(
        () => {
          const received = messages();
          return received.length >= n ? received : undefined;
        },
        { timeoutMs, everyMs: 25, shortfall: () => `SMTP receiver: ${messages().length} of ${n} messages` },
      ),
    setMode,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await Promise.race([exited, Bun.sleep(5_000)]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
