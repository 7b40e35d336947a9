/**
 * The early, advisory check of a URL a user registers; safeFetch checks again at every request since DNS can
 * change, so a name that does not resolve yet is accepted.
 */
import { UnsafeUrlError } from "../core/errors.ts";
import { isAddressAllowed, type AddressPolicy } from "./address-policy.ts";
import { bareHostname, ipLiteral, type Resolve, type ResolvedAddress } from "./resolve.ts";

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** How long the registration-time lookup may take before the URL is accepted on the fetch-time check alone. */
const DEFAULT_LOOKUP_TIMEOUT_MS = 5_000;

/** Throws UnsafeUrlError when the scheme is not http(s) or the host is, or resolves to, a refused address. */
export async function assertUrlAllowed(url: string, policy: AddressPolicy, resolve: Resolve, lookupTimeoutMs = DEFAULT_LOOKUP_TIMEOUT_MS): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UnsafeUrlError(`not a valid URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UnsafeUrlError(`the ${parsed.protocol} scheme is not allowed; only http and https are`);
  }
  const hostname = bareHostname(parsed.hostname);
  const literal = ipLiteral(hostname);
  if (literal !== null) {
    if (!isAddressAllowed(literal.address, policy)) {
      throw new UnsafeUrlError(`${literal.address} is a private or reserved address`, [{ address: literal.address }]);
    }
    return;
  }
  let addresses: ResolvedAddress[] | null;
  try {
    addresses = await withDeadline(resolve(hostname), lookupTimeoutMs);
  } catch {
    addresses = null;
  }
  // Not resolvable (yet), or too slow to say: nothing to judge now; the fetch-time check still applies.
  if (addresses === null) return;
  const refused = addresses.find((entry) => !isAddressAllowed(entry.address, policy));
  if (refused !== undefined) {
    throw new UnsafeUrlError(`${hostname} resolves to ${refused.address}, a private or reserved address`, [{ address: refused.address }]);
  }
}
