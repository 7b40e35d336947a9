import { isIP } from "node:net";
import { z } from "zod";
import { failedWithoutAnswer, type AttemptOutcome } from "../../webhooks/attempt.ts";
import type { ChannelConfig, Destination, SendContext } from "../destination.ts";
import { shrinkToFit } from "../fit.ts";
import { htmlMessage } from "../html-message.ts";
import type { Message } from "../message.ts";
import { plainMessage } from "../plain-message.ts";
import { clip, oneLine, utf8Bytes } from "../plain-text.ts";

/**
 * Email over SMTP with nodemailer. No address policy applies: the SMTP host is the operator's choice. The HTML
 * part lists fewer targets to stay under 100 KB, where Gmail clips a message.
 */

const HTML_BYTES = 95_000;

const address = z.email().max(320);

/** An SMTP error as nodemailer reports it. */
interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

function smtpReason(error: SmtpError): string {
  const response = error.response === undefined ? "" : oneLine(error.response);
  if (error.responseCode !== undefined) return `SMTP ${error.responseCode}: ${response || oneLine(error.message ?? "refused")}`;
  return oneLine(`${error.code === undefined ? "" : `${error.code}: `}${error.message ?? "failed"}`);
}

async function sendEmail(full: Message, channel: ChannelConfig, context: SendContext): Promise<AttemptOutcome> {
  const message = shrinkToFit(full, htmlMessage, utf8Bytes, HTML_BYTES);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { host, port, security, username, from, to } = channel.settings as {
    host: string;
    port: number;
    security: "starttls" | "tls" | "none";
    username?: string;
    from: string;
    to: string[];
  };
  const password = channel.secrets.password as string | undefined;
  // Loaded on the first email: commands that never send one (check, keys…) do not pay for parsing it.
  const { default: nodemailer } = await import("nodemailer");
  const transport = nodemailer.createTransport({
    host,
    port,
    secure: security === "tls",
    requireTLS: security === "starttls",
    ignoreTLS: security === "none",
    auth: username === undefined ? undefined : { user: username, pass: password ?? "" },
    connectionTimeout: context.timeoutMs,
    greetingTimeout: context.timeoutMs,
    socketTimeout: context.timeoutMs,
    // SNI only for a name (an IP address may not be sent as one); the certificate is checked against `host` either way.
    tls: { ...(isIP(host.replace(/^\[|\]$/g, "")) === 0 ? { servername: host } : {}), ca: context.ca, minVersion: "TLSv1.2" },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), context.timeoutMs)));
  try {
    const sent = transport.sendMail({
      from,
      to,
      subject: clip(oneLine(message.title), 200),
      text: plainMessage(message),
      html: htmlMessage(message),
      headers: { "Auto-Submitted": "auto-generated", "X-Auto-Response-Suppress": "All" },
    });
    sent.catch(() => {}); // a late failure after our deadline is not an unhandled rejection
    const result = await Promise.race([sent, deadline]);
    if (result === "timeout") return failedWithoutAnswer(elapsed(), `timed out: the SMTP server did not finish within ${context.timeoutMs} ms`);
    const refused = result.rejected.map(String);
    const answer = oneLine(String(result.response ?? ""));
    return {
      kind: "delivered",
      statusCode: null,
      durationMs: elapsed(),
      responseBody: refused.length === 0 ? answer : `${answer} (refused: ${refused.join(", ")})`,
    };
  } catch (error) {
    const smtp = error as SmtpError;
    return failedWithoutAnswer(elapsed(), smtpReason(smtp), smtp.response === undefined ? "" : oneLine(smtp.response));
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}

export const email: Destination = {
  kind: "email",
  config: z.strictObject({
    host: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^\s/:@]+$|^\[[0-9a-fA-F:.]+\]$/, "must be a host name or address"),
    port: z.number().int().min(1).max(65535).optional().describe("default: 587 with starttls, 465 with tls, 25 with none"),
    security: z.enum(["starttls", "tls", "none"]).default("starttls").describe("starttls (required), tls (implicit, port 465) or none"),
    username: z.string().min(1).max(320).optional(),
    password: z.string().min(1).max(1024).optional().describe("kept secret"),
    from: address,
    to: z.array(address).min(1).max(50),
  }),
  secretFields: ["password"],
  urls: () => [],
  describe: (channel) => {
    const { host, port, to } = channel.settings as { host: string; port: number; to: string[] };
    return `${host}:${port} → ${to.join(", ")}`;
  },
  send: sendEmail,
};
