import { cidrContains, formatV4, parseCidr, parseIp, type Cidr, type ParsedIp } from "../net/cidr.ts";

/**
 * The client behind reverse proxies: walking the forwarding chain from the right, trusted proxies are skipped and
 * the first other address is the client, so a client cannot name itself. A non-address entry ends the walk.
 */

/** The header a trusted proxy writes the client's address into. */
export type ForwardedHeader = "x-forwarded-for" | "forwarded";

/** The configured trusted proxies (server.trusted_proxies: addresses or CIDRs). */
export class TrustedProxies {
  private readonly blocks: Cidr[];

  constructor(entries: readonly string[]) {
    this.blocks = entries.map((entry) => {
      const block = parseCidr(entry.includes("/") ? entry : `${entry}/${entry.includes(":") ? 128 : 32}`);
      if (block === null) throw new RangeError(`not an address or CIDR: ${entry}`);
      return block;
    });
  }

  /** True when no proxy is trusted (headers are never read). */
  get none(): boolean {
    return this.blocks.length === 0;
  }

  /** True when `address` (already parsed) belongs to a trusted proxy. */
  trusts(address: ParsedIp): boolean {
    return this.blocks.some((block) => cidrContains(block, address));
  }
}

/**
 * The client's address for a request from `peer` carrying `headerValue` (every line of the configured header,
 * joined with commas; null when absent). The peer's own address when it is not a trusted proxy.
 */
export function clientOf(peer: string, headerValue: string | null, header: ForwardedHeader, trusted: TrustedProxies): string {
  const peerIp = normalIp(peer);
  if (peerIp === null || trusted.none || headerValue === null || !trusted.trusts(peerIp)) return peerIp === null ? peer : formatIp(peerIp);
  const hops = header === "forwarded" ? forwardedFor(headerValue) : headerValue.split(",").map((entry) => entry.trim());
  let client = peerIp;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalIp(stripPort(hops[i]!));
    if (hop === null) break;
    client = hop;
    if (!trusted.trusts(hop)) break;
  }
  return formatIp(client);
}

/** The `for=` value of each element of a Forwarded header (RFC 7239), quotes removed; "" where none. */
function forwardedFor(value: string): string[] {
  const hops: string[] = [];
  for (const element of splitOutsideQuotes(value, ",")) {
    let hop = "";
    for (const pair of splitOutsideQuotes(element, ";")) {
      const eq = pair.indexOf("=");
      if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== "for") continue;
      hop = pair
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, "$1");
    }
    hops.push(hop);
  }
  return hops;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    else if (char === separator && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** "[2001:db8::1]:4711" → "2001:db8::1", "192.0.2.1:80" → "192.0.2.1"; anything else as it is. */
function stripPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1]!;
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return v4WithPort ? v4WithPort[1]! : hop;
}

/** Parses an address; an IPv4-mapped IPv6 address (a dual-stack listener's IPv4 peer) becomes IPv4. */
function normalIp(text: string): ParsedIp | null {
  const ip = parseIp(text);
  if (ip === null) return null;
  if (ip.family === 6 && ip.value >> 32n === 0xffffn) return { family: 4, value: ip.value & 0xffffffffn };
  return ip;
}

/** The address as text: a dotted quad, or IPv6 as RFC 5952 writes it (one spelling per address). */
function formatIp(ip: ParsedIp): string {
  if (ip.family === 4) return formatV4(ip.value);
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((ip.value >> shift) & 0xffffn));
  // The longest run of two or more zero groups (the first of equals) becomes "::".
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start < 0) return hex.join(":");
  return `${hex.slice(0, best.start).join(":")}::${hex.slice(best.start + best.length).join(":")}`;
}

/**
 * The rate limiter's name for a client address: an IPv6 client is counted by its /64 (one subscriber's
 * network, which holds more addresses than any table could), an IPv4 client by its address.
 */
export function addressBucketOf(address: string): string {
  if (!address.includes(":")) return address;
  const ip = parseIp(address);
  if (ip === null || ip.family === 4) return address;
  return `${formatIp({ family: 6, value: (ip.value >> 64n) << 64n })}/64`;
}
