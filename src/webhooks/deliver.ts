/**
 * One webhook delivery attempt: the stored body signed with THIS attempt's time (a late retry stays in the
 * receiver's 300 s window), sent by attempt.ts, which never follows a redirect.
 */
import type { AddressPolicy } from "../net/address-policy.ts";
import type { Resolve } from "../net/resolve.ts";
import { requestOnce, type AttemptOutcome } from "./attempt.ts";
import { signatureHeader } from "./sign.ts";
import { WEBHOOK_POLICY_HINT } from "./url-rules.ts";

/** What to send: where, signed with which secret, and the exact JSON body. */
export interface DeliveryRequest {
  url: string;
  secret: string;
  event: string;
  /** One id per event, stable across retries (X-Service-Delivery and the envelope's `id`). */
  deliveryId: string;
  /** The exact JSON bytes to send, and to sign. */
  body: string;
}

/** How to send it. */
export interface DeliverOptions {
  policy: AddressPolicy;
  /** Name resolution; defaults to the system resolver. */
  resolve?: Resolve;
  /** The whole attempt: DNS, connect, TLS, headers and the (capped) body. */
  timeoutMs: number;
  /** PEM certificates trusted instead of the system roots (`webhooks.ca_file`). */
  ca?: string;
  /** Clock for the signature's `t`; defaults to the system clock. */
  nowSeconds?: () => number;
  signal?: AbortSignal;
}

/** Sends one attempt of `request`; resolves to its outcome and never rejects for network outcomes. */
export async function deliverOnce(request: DeliveryRequest, options: DeliverOptions): Promise<AttemptOutcome> {
  const unixSeconds = options.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
  return requestOnce(
    {
      url: request.url,
      method: "POST",
      body: request.body,
      headers: {
        "content-type": "application/json",
        "x-service-event": request.event,
        "x-service-delivery": request.deliveryId,
        "x-service-signature": signatureHeader(request.secret, request.body, unixSeconds),
      },
    },
    { policy: options.policy, resolve: options.resolve, timeoutMs: options.timeoutMs, ca: options.ca, policyHint: WEBHOOK_POLICY_HINT, signal: options.signal },
  );
}
