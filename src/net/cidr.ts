/**
 * IP addresses and CIDR blocks as bigints, so one comparison serves both families. Our own parser, because the
 * SSRF guard must not depend on quirks (octal, short forms) we have not read; anything odd parses to null: refuse.
 */

/** A parsed address: its family and its value as an unsigned integer of 32 or 128 bits. */
export interface ParsedIp {
  family: 4 | 6;
  value: bigint;
}

/** A parsed CIDR block: the network's first address and the prefix length. */
export interface Cidr {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

const V4_OCTET = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const V6_GROUP = /^[0-9a-f]{1,4}$/i;

function parseV4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!V4_OCTET.test(part)) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseV6Groups(text: string, dottedTail: boolean): number[] | null {
  if (text === "") return [];
  const groups: number[] = [];
  const parts = text.split(":");
  for (const [index, part] of parts.entries()) {
    // A dotted quad may only close the address, where it stands for two groups.
    if (dottedTail && index === parts.length - 1 && part.includes(".")) {
      const v4 = parseV4(part);
      if (v4 === null) return null;
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    } else if (V6_GROUP.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function parseV6(text: string): bigint | null {
  // A zone id (fe80::1%eth0) names an interface, not part of the address.
  const bare = text.replace(/%.*$/, "");
  const halves = bare.split("::");
  if (halves.length > 2) return null;
  const head = parseV6Groups(halves[0] ?? "", halves.length === 1);
  const tail = halves.length === 2 ? parseV6Groups(halves[1] ?? "", true) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

/** Parses an IPv4 or IPv6 address (brackets allowed around IPv6); null when it is not one. */
export function parseIp(text: string): ParsedIp | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (bare.includes(":")) {
    const value = parseV6(bare);
    return value === null ? null : { family: 6, value };
  }
  const value = parseV4(bare);
  return value === null ? null : { family: 4, value };
}

function bits(family: 4 | 6): number {
  return family === 4 ? 32 : 128;
}

function maskOf(family: 4 | 6, prefix: number): bigint {
  const width = BigInt(bits(family));
  return ((1n << width) - 1n) ^ ((1n << (width - BigInt(prefix))) - 1n);
}

/** Parses "10.0.0.0/8" or "fd00::/8"; host bits are masked off; null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.lastIndexOf("/");
  if (slash < 0) return null;
  const ip = parseIp(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (ip === null || !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > bits(ip.family)) return null;
  return { family: ip.family, network: ip.value & maskOf(ip.family, prefix), prefix };
}

/** True when the address lies inside the block (families must match). */
export function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  return cidr.family === ip.family && (ip.value & maskOf(cidr.family, cidr.prefix)) === cidr.network;
}

/** Formats an IPv4 value (32-bit) as a dotted quad. */
export function formatV4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}
