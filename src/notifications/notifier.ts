import type { ChannelRecord } from "../store/channels.repo.ts";
import { failedWithoutAnswer, type AttemptOutcome } from "../webhooks/attempt.ts";
import type { SendContext } from "./destination.ts";
import { DESTINATIONS } from "./destinations/index.ts";
import type { Digest } from "./digest.ts";
import { crawlPageUrl, messageOf } from "./message.ts";
import { redactSecrets } from "./redact.ts";

/**
 * One attempt of a channel's delivery: the stored digest is read into a message (with the link to the crawl's
 * page under server.public_url, as configured now), the channel's destination sends it, and whatever comes
 * back is stripped of the channel's secrets before the dispatcher stores or logs it.
 */

interface NotifierOptions extends Omit<SendContext, "deliveryId"> {
  /** server.public_url: links in messages are built from it; null: messages carry none. */
  publicUrl: string | null;
}

/** Sends `payload` (a stored delivery body: {id, event, timestamp, data: Digest}) to `channel`. */
export async function sendToChannel(channel: ChannelRecord, deliveryId: string, payload: string, options: NotifierOptions): Promise<AttemptOutcome> {
  let digest: Digest;
  try {
    digest = (JSON.parse(payload) as { data: Digest }).data;
  } catch {
    return failedWithoutAnswer(0, "the stored digest is not valid JSON");
  }
  // A test message has no crawl of its own: it links to the dashboard itself.
  const message = messageOf(digest, digest.test ? options.publicUrl : crawlPageUrl(options.publicUrl, digest.crawl_id));
  const { publicUrl: _, ...context } = options;
  const outcome = await DESTINATIONS[channel.kind].send(message, channel, { ...context, deliveryId });
  const secrets = Object.values(channel.secrets);
  if (outcome.kind === "delivered") return { ...outcome, responseBody: redactSecrets(outcome.responseBody, secrets) };
  return { ...outcome, error: redactSecrets(outcome.error, secrets), responseBody: redactSecrets(outcome.responseBody, secrets) };
}
