import type { Context, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/bun";
import type { AppEnv } from "./env.ts";
import { clientOf, TrustedProxies, type ForwardedHeader } from "./forwarded-chain.ts";

/**
 * Records the client's address: the peer's, or, behind a trusted proxy, the one it wrote in the configured header
 * (forwarded-chain.ts).
 */

interface ClientAddressOptions {
  trustedProxies: readonly string[];
  forwardedHeader: ForwardedHeader;
}

/** Sets the `clientAddress` variable of every request. */
export function clientAddress(options: ClientAddressOptions): MiddlewareHandler<AppEnv> {
  const trusted = new TrustedProxies(options.trustedProxies);
  return function clientAddressMiddleware(c, next) {
    const peer = peerAddress(c);
    // No proxy trusted (the default): no header is read, and the peer's address is only unmapped.
    const address = trusted.none
      ? peer.startsWith("::ffff:") && peer.includes(".")
        ? peer.slice(7)
        : peer
      : clientOf(peer, c.req.raw.headers.get(options.forwardedHeader), options.forwardedHeader, trusted);
    c.set("clientAddress", address);
    return next();
  };
}

/** The direct peer's address; "unknown" where the server cannot tell (an in-process `app.request()`). */
function peerAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}
