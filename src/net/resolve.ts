/**
 * Name resolution as a replaceable function. safeFetch resolves each hop exactly once through a `Resolve`,
 * checks every address, then connects to a checked address by IP, so the DNS answer that was judged is the one
 * that is used. Tests inject their own `Resolve` to map made-up names to loopback addresses.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/** One address a hostname resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to all of its addresses; rejects (with a `code` such as ENOTFOUND) when it cannot. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

/** Removes the brackets the URL parser keeps around IPv6 literals ("[::1]" → "::1"). */
export function bareHostname(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

/** The address itself when the hostname is an IP literal, else null. */
export function ipLiteral(hostname: string): ResolvedAddress | null {
  const bare = bareHostname(hostname);
  const family = isIP(bare);
  return family === 4 || family === 6 ? { address: bare, family } : null;
}

/** Resolves through the operating system's resolver (getaddrinfo: /etc/hosts, nsswitch), all addresses. */
export const systemResolve: Resolve = async (hostname) => {
  const literal = ipLiteral(hostname);
  if (literal !== null) return [literal];
  const answers = await lookup(bareHostname(hostname), { all: true, order: "verbatim" });
  if (answers.length === 0) {
    throw Object.assign(new Error(`no addresses for ${hostname}`), { code: "ENOTFOUND" });
  }
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};
